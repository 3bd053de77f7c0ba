/* SPDX-License-Identifier: MIT */
/*
 * test_stress_keep_end: submissions let go with work in flight while their
 * device ends. A release whose last value is not yet done defers the
 * submission's last reference to the device's limbo of keeps, which the
 * poller empties as values settle and the device's end empties once after
 * its stop (device_reap). A release that found its value not done before
 * the end's stop, and put its keep in after the end's look, would wait for
 * a poller that no longer looks: the submission (its buffers, its image,
 * its reference on the device) never freed. Each round, threads make a
 * submission on a fresh stalled polled device (its word stops: every value
 * stays in flight), submit it once and let it go, as fast as they can,
 * while the main thread closes the device once some release deferred and a
 * random moment passed. The test's window into the release (keep_window)
 * yields there now and then, between the look at the value and the keep.
 * At the end of each round every submission made was freed (its keep's
 * release ran) and the driver holds no image. ASan's leak check and
 * ThreadSanitizer see the rest.
 *
 * Fixed work: rounds (each waits for a deferred release, not for a time).
 * Usage: test_stress_keep_end [threads] [rounds] (default 4, 50).
 */
#include <stdio.h>

#include "core/device.h"
#include "end_race.h"
#include "rig_polled.h"

static struct rig_device *d;
static struct rig_function *fn;
static struct rig_buffer *buf;
static _Atomic uint64_t made, freed, released;

static void
note_freed(void *value)
{
	(void)value;
	atomic_fetch_add(&freed, 1);
}

static void *
worker(void *arg)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	struct rig_ref refs[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec part = rig_part_launch(fn, 16, refs, 1);
	struct rig_keep keep = { NULL, note_freed };

	(void)arg;
	while (!atomic_load(&round_over)) {
		struct rig_submission *s;
		struct rig_run *r;
		uint64_t params[2] = { 0, 0 };

		if (rig_submission_make(d, &part, 1, NULL, 0, keep, &s) != 0)
			continue;	/* lost: allowed, the round ends soon */
		atomic_fetch_add(&made, 1);
		if (rig_run_take(s, &r) == 0) {
			if (rig_run_store(r, 0, one, one, params, sizeof(params)) == 0)
				rig_submit(r, &buf, 1, NULL, 0, NULL);
			else
				rig_run_release(r);
		}
		rig_submission_release(s);
		atomic_fetch_add(&released, 1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 50;
	unsigned seed = 29;
	bool failed = false;

	if (nthreads < 1 || nthreads > END_RACE_THREADS_MAX || rounds < 1) {
		fprintf(stderr, "usage: test_stress_keep_end [1..%d threads] [rounds]\n",
			END_RACE_THREADS_MAX);
		return 2;
	}
	keep_window = end_race_window;
	for (int r = 0; r < rounds && !failed; r++) {
		struct rig_polled_config c = { .size = sizeof(c), .name = "KEEP-END",
					       .lag = 1u + (unsigned)r % 4 };
		struct rig_polled *p;
		struct rig_image *img;

		if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
		    rig_image_load(d, "k", 1, &img) || rig_image_function(img, "k", &fn) ||
		    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &buf)) {
			fprintf(stderr, "round %d: setup: %s\n", r, rig_why());
			return 1;
		}
		rig_polled_stall(p, true);	/* every value stays in flight */
		end_race_round(d, nthreads, worker, &released, &seed);
		rig_buffer_release(buf);
		rig_image_release(img);
		rig_device_release(d);
		if (atomic_load(&freed) != atomic_load(&made) || rig_polled_live_images(p)) {
			fprintf(stderr, "round %d: %llu submissions made, %llu freed, %lld images left\n",
				r, (unsigned long long)atomic_load(&made),
				(unsigned long long)atomic_load(&freed),
				(long long)rig_polled_live_images(p));
			failed = true;
		}
		rig_polled_destroy(p);
	}
	keep_window = NULL;
	printf("%d rounds, %llu submissions, %s\n", rounds, (unsigned long long)atomic_load(&made),
	       failed ? "FAILED" : "ok");
	return failed;
}
