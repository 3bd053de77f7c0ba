/* SPDX-License-Identifier: MIT */
/*
 * 02-buffers: bytes of a device's memory, on the host.
 *
 * A buffer is a view of memory on a device. The host writes and reads its
 * bytes, and a copy between two buffers is the device's work: rig orders
 * the host's read after the copy that wrote the bytes, with no event or
 * fence in the program.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"

#define BYTES (1 << 20)

int
main(void)
{
	static char text[BYTES], back[BYTES];
	struct rig_device *d;
	struct rig_buffer *a, *b, *tail;
	struct rig_point p;
	uint64_t t0, t1;

	for (size_t i = 0; i < BYTES; i++)
		text[i] = "rig orders work by memory. "[i % 27];
	if (rig_memory_device("M", &d) < 0 ||
	    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a) < 0 ||
	    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b) < 0) {
		fprintf(stderr, "02-buffers: %s\n", rig_why());
		return 1;
	}
	printf("device %s (%s), budget %llu bytes\n", rig_name(d), rig_arch(d),
	       (unsigned long long)rig_budget(d));

	t0 = rig_now_ns();
	rig_buffer_write(a, 0, text, BYTES);
	rig_buffer_copy(a, b, &p);		/* device work: value p */
	rig_buffer_read(b, 0, back, BYTES);	/* waits for p by itself */
	t1 = rig_now_ns();
	printf("wrote, copied (value %llu) and read back %d bytes in %.1f us: %s\n",
	       (unsigned long long)p.value, BYTES, (double)(t1 - t0) / 1e3,
	       memcmp(text, back, BYTES) ? "WRONG" : "equal");

	/* A view: the last 27 bytes, read-only. */
	if (rig_buffer_view(b, BYTES - 27, 27, RIG_READ_ONLY, &tail) < 0)
		return 1;
	memset(back, 0, 28);
	rig_buffer_read(tail, 0, back, 27);
	printf("the view's bytes: \"%s\"\n", back);
	if (rig_buffer_write(tail, 0, "x", 1) < 0)
		printf("a write to it is refused: %s\n", rig_why());

	rig_buffer_release(tail);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(d);
	return 0;
}
