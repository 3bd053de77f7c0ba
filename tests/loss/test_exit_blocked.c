/* SPDX-License-Identifier: MIT */
/*
 * test_exit_blocked: exit is bounded (SPEC §12; issue 14, item 10d). The
 * program leaves a polled device whose driver calls may block with its
 * submit blocked inside the driver, and returns from main. rig's exit
 * handler must give up on that device (left lost, not waited for, not
 * stopped) and return; a handler of the program's, registered before
 * rig's, runs after it and reports. Without the bound exit never returns
 * and the test runs into meson's timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "rig.h"
#include "rig_polled.h"

static struct rig_polled *p;
static struct rig_device *d;

static void
check(void)
{
	/* Still blocked: rig did not wait for the call, nor stop the driver
	 * under it; the device was lost for the exit. */
	int ok = rig_polled_blocked(p) == 1 && rig_polled_stops(p) == 0 &&
		 !rig_polled_overlaps(p) && rig_lost(d) != NULL;

	printf("at exit: %d call(s) blocked, %llu stop(s), device %s\n",
	       rig_polled_blocked(p), (unsigned long long)rig_polled_stops(p),
	       rig_lost(d) ? rig_lost(d) : "live");
	fflush(stdout);
	_exit(ok ? 0 : 1);
}

int
main(void)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "EXITB",
				       .may_block = true };
	struct rig_buffer *a, *b;
	struct rig_point pt;

	atexit(check);		/* before rig's own: runs after it */
	if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
	    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &a) ||
	    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &b) ||
	    rig_polled_block(p, "submit", true) || rig_buffer_copy(a, b, &pt)) {
		fprintf(stderr, "test_exit_blocked: %s\n", rig_why());
		return 2;
	}
	for (int i = 0; i < 30000 && rig_polled_blocked(p) != 1; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	if (rig_polled_blocked(p) != 1) {
		fprintf(stderr, "test_exit_blocked: the submit never blocked\n");
		return 2;
	}
	return 0;	/* exit, with the driver's submit blocked */
}
