/* SPDX-License-Identifier: MIT */
/*
 * test_stress_borrow_end: borrows onto a device racing that device's end.
 * A borrow asks the second device's driver for a mapping and puts it on
 * that device's list of allocations; the device's end (alloc_end_all)
 * gives back what is on the list, then releases the driver's handle. A
 * mapping made before the end and put on the list after it would be given
 * back to a released driver (a use after free) or never (a region left).
 * Each round, threads borrow one buffer of a long-lived polled device onto
 * a fresh polled device and release the borrow at once, as fast as they
 * can, while the main thread closes the fresh device once some borrow
 * went through and a random moment passed. The test's window into the
 * borrow (borrow_window) yields there now and then, so a mapping lies
 * between the driver's answer and the list while the end runs. At the end
 * of each round the driver of the closed device holds no region and saw
 * no call during its stop; the long-lived one gives back every region at
 * the end. ThreadSanitizer and ASan see the hand-over.
 *
 * Fixed work: rounds (each waits for a borrow, not for a time).
 * Usage: test_stress_borrow_end [threads] [rounds] (default 4, 50).
 */
#include <stdio.h>

#include "core/device.h"
#include "end_race.h"
#include "rig_polled.h"

#define BYTES 4096

static struct rig_device *d2;
static struct rig_buffer *src[END_RACE_THREADS_MAX];
static _Atomic uint64_t borrows;

static void *
worker(void *arg)
{
	struct rig_buffer *b = src[(intptr_t)arg];

	while (!atomic_load(&round_over)) {
		struct rig_buffer *v;

		if (rig_buffer_borrow(b, d2, &v) != 0)
			continue;	/* lost: allowed, the round ends soon */
		atomic_fetch_add(&borrows, 1);
		rig_buffer_release(v);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 50;
	struct rig_polled_config rc = { .size = sizeof(rc), .name = "BORROW-ROOT" };
	struct rig_polled *root_p;
	struct rig_device *root;
	unsigned seed = 17;
	bool failed = false;

	if (nthreads < 1 || nthreads > END_RACE_THREADS_MAX || rounds < 1) {
		fprintf(stderr, "usage: test_stress_borrow_end [1..%d threads] [rounds]\n",
			END_RACE_THREADS_MAX);
		return 2;
	}
	if (rig_polled_create(&rc, &root_p) || rig_open(rig_polled_opener(root_p), &root)) {
		fprintf(stderr, "open: %s\n", rig_why());
		return 1;
	}
	for (int i = 0; i < nthreads; i++)
		if (rig_buffer_create(root, BYTES, RIG_MEMORY_DEVICE, &src[i])) {
			fprintf(stderr, "buffer: %s\n", rig_why());
			return 1;
		}
	borrow_window = end_race_window;
	for (int r = 0; r < rounds && !failed; r++) {
		struct rig_polled_config c = { .size = sizeof(c), .name = "BORROW-END",
					       .lag = 1u + (unsigned)r % 4 };
		struct rig_polled *p;

		if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d2)) {
			fprintf(stderr, "round %d: open: %s\n", r, rig_why());
			return 1;
		}
		end_race_round(d2, nthreads, worker, &borrows, &seed);
		rig_device_release(d2);
		if (rig_polled_live_regions(p) || rig_polled_overlaps(p) ||
		    rig_polled_stops(p) != 1) {
			fprintf(stderr, "round %d: %lld regions left after the end, %llu calls during its stop, %llu stops\n",
				r, (long long)rig_polled_live_regions(p),
				(unsigned long long)rig_polled_overlaps(p),
				(unsigned long long)rig_polled_stops(p));
			failed = true;
		}
		rig_polled_destroy(p);
	}
	borrow_window = NULL;
	for (int i = 0; i < nthreads; i++)
		rig_buffer_release(src[i]);
	rig_close(root);
	rig_device_release(root);
	if (rig_polled_live_regions(root_p)) {
		fprintf(stderr, "%lld regions of the root device left\n",
			(long long)rig_polled_live_regions(root_p));
		failed = true;
	}
	rig_polled_destroy(root_p);
	printf("%d rounds, %llu borrows, %s\n", rounds, (unsigned long long)atomic_load(&borrows),
	       failed ? "FAILED" : "ok");
	return failed;
}
