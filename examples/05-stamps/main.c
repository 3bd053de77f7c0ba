/* SPDX-License-Identifier: MIT */
/*
 * 05-stamps: work on two devices, ordered only by the memory it touches.
 * The host's cores copy into x; the memory device, which borrows x, copies
 * x on into y. Nothing in the program says "after": each allocation keeps
 * the point of its last write, and the second copy waits for it.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"

#define BYTES (4 << 20)
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "05-stamps: %s\n", rig_why()); return 1; } } while (0)

int
main(void)
{
	static char text[BYTES], back[BYTES];
	struct rig_device *host, *m;
	struct rig_buffer *src, *x, *x_on_m, *y;
	struct rig_point p1, p2;

	memset(text, 'r', BYTES);
	TRY(rig_host_device(&host));
	TRY(rig_memory_device("M", &m));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &src));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &x));
	TRY(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &y));
	TRY(rig_buffer_borrow(x, m, &x_on_m));		/* x, usable on M */
	TRY(rig_buffer_write(src, 0, text, BYTES));

	TRY(rig_buffer_copy(src, x, &p1));		/* on HOST: writes x */
	TRY(rig_buffer_copy(x_on_m, y, &p2));		/* on M: reads x, after p1 */
	printf("%s wrote x as value %llu; %s read it as value %llu, after it\n",
	       rig_name(host), (unsigned long long)p1.value, rig_name(m),
	       (unsigned long long)p2.value);
	TRY(rig_buffer_read(y, 0, back, BYTES));
	printf("y %s x\n", memcmp(text, back, BYTES) ? "DIFFERS FROM" : "equals");

	rig_buffer_release(x_on_m);
	rig_buffer_release(src);
	rig_buffer_release(x);
	rig_buffer_release(y);
	rig_device_release(m);
	rig_device_release(host);
	return memcmp(text, back, BYTES) != 0;
}
