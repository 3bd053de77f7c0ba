/* SPDX-License-Identifier: MIT */
/*
 * test_stress_image_end: image loads onto a device racing that device's
 * end. A load asks the driver to load the code and puts the image on the
 * device's list of images; the device's end (alloc_end_all) unloads what
 * is on the list, then releases the driver's handle. An image loaded
 * before the end and put on the list after it would be unloaded later
 * through the released handle (a use after free) or never (an image
 * left). Each round, threads load an image onto a fresh polled device and
 * release it at once, as fast as they can, while the main thread closes
 * the device once some load went through and a random moment passed. The
 * test's window into the load (image_window) yields there now and then,
 * so an image lies between the driver's answer and the list while the end
 * runs. At the end of each round the driver of the closed device holds no
 * image and no region and saw no call during its stop. ASan sees an
 * unload through the released handle; ThreadSanitizer the hand-over.
 *
 * Fixed work: rounds (each waits for a load, not for a time).
 * Usage: test_stress_image_end [threads] [rounds] (default 4, 50).
 */
#include <stdio.h>

#include "core/device.h"
#include "end_race.h"
#include "rig_polled.h"

static struct rig_device *d;
static _Atomic uint64_t loads;

static void *
worker(void *arg)
{
	static const char code[] = "code";

	(void)arg;
	while (!atomic_load(&round_over)) {
		struct rig_image *img;

		if (rig_image_load(d, code, sizeof(code), &img) != 0)
			continue;	/* lost: allowed, the round ends soon */
		atomic_fetch_add(&loads, 1);
		rig_image_release(img);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 50;
	unsigned seed = 23;
	bool failed = false;

	if (nthreads < 1 || nthreads > END_RACE_THREADS_MAX || rounds < 1) {
		fprintf(stderr, "usage: test_stress_image_end [1..%d threads] [rounds]\n",
			END_RACE_THREADS_MAX);
		return 2;
	}
	image_window = end_race_window;
	for (int r = 0; r < rounds && !failed; r++) {
		struct rig_polled_config c = { .size = sizeof(c), .name = "IMAGE-END",
					       .lag = 1u + (unsigned)r % 4 };
		struct rig_polled *p;

		if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d)) {
			fprintf(stderr, "round %d: open: %s\n", r, rig_why());
			return 1;
		}
		end_race_round(d, nthreads, worker, &loads, &seed);
		rig_device_release(d);
		if (rig_polled_live_images(p) || rig_polled_live_regions(p) ||
		    rig_polled_overlaps(p) || rig_polled_stops(p) != 1) {
			fprintf(stderr, "round %d: %lld images and %lld regions left after the end, %llu calls during its stop, %llu stops\n",
				r, (long long)rig_polled_live_images(p),
				(long long)rig_polled_live_regions(p),
				(unsigned long long)rig_polled_overlaps(p),
				(unsigned long long)rig_polled_stops(p));
			failed = true;
		}
		rig_polled_destroy(p);
	}
	image_window = NULL;
	printf("%d rounds, %llu loads, %s\n", rounds, (unsigned long long)atomic_load(&loads),
	       failed ? "FAILED" : "ok");
	return failed;
}
