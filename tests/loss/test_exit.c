/* SPDX-License-Identifier: MIT */
/*
 * test_exit: at exit rig stops every device it holds (docs/process.md). The
 * program leaves a polled device open, with work in flight; a handler of
 * its own, registered before rig's, runs after rig's at exit and checks
 * that the device was stopped once, never during a driver call. Its exit
 * status says what it found (0: stopped once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rig.h"
#include "rig_polled.h"

static struct rig_polled *p;

static void
check(void)
{
	int stopped = rig_polled_stops(p) == 1 && !rig_polled_overlaps(p) &&
		      !rig_polled_open(p) && !rig_polled_live_regions(p);

	printf("at exit: %llu stop(s), device %s, %lld region(s) left\n",
	       (unsigned long long)rig_polled_stops(p),
	       rig_polled_open(p) ? "open" : "stopped",
	       (long long)rig_polled_live_regions(p));
	fflush(stdout);
	_exit(stopped ? 0 : 1);
}

int
main(void)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "EXIT" };
	struct rig_device *d;
	struct rig_buffer *a, *b;
	struct rig_point pt;

	atexit(check);		/* before rig's own: runs after it */
	if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
	    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &a) ||
	    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &b)) {
		fprintf(stderr, "test_exit: %s\n", rig_why());
		return 2;
	}
	rig_polled_stall(p, true);
	if (rig_buffer_copy(a, b, &pt))
		return 2;
	/* Leave everything open and in flight. */
	return 0;
}
