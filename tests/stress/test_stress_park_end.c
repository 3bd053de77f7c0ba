/* SPDX-License-Identifier: MIT */
/*
 * test_stress_park_end: releases with work in flight racing a device's end.
 * A release parks its memory in the device's limbo with no lock and no RCU
 * section (core/alloc.c park(): where the limbo's token is free, the put is
 * made under it, which the end's drain holds too; else the put is
 * announced, the loss read again, and the end's drain waits for every
 * announced put, reclaim/limbo.h); both ways must be taken. Each
 * round, threads make a 4 KiB buffer on a polled device, copy into it and
 * release it at once, as fast as they can, while the main thread closes
 * the device (or loses it by a faulting value) after a random moment.
 * Every release must land where the end finds it: at the end of each
 * round the device's limbo is empty and the driver holds no region (a
 * put the drain missed would land in the limbo after it: memory and a
 * handle never freed), and no call crashes or hangs. The test's window
 * into park() (park_window) yields there now and then, so a put holds the
 * token, or lies between its announcement and its push, while the end
 * drains: before the
 * loss is read again, and after, where the put clears a reused
 * allocation's stamps with no lock (the end reads stamps only once its
 * first drain has waited for every announced put; ThreadSanitizer reports
 * the clear racing await_borrowers without that drain).
 * ThreadSanitizer sees the hand-over through the limbo's stack.
 *
 * Usage: test_stress_park_end [threads] [seconds] (default 4, 3).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sched.h>

#include "core/device.h"
#include "rig.h"
#include "rig_polled.h"

#define BYTES 4096

static struct rig_device *d;
static struct rig_buffer *src;
static _Atomic bool round_over, failed;
static _Atomic uint64_t parked_ops;

/* Now and then a parker stops between its announcement and its push. */
static void
window(void)
{
	static _Thread_local unsigned n;

	if (++n % 16 == 0)
		sched_yield();
}

static void *
worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&round_over)) {
		struct rig_buffer *b;

		if (rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b) != 0)
			continue;	/* lost: allowed, the round ends soon */
		if (rig_buffer_copy(src, b, NULL) == 0)
			atomic_fetch_add_explicit(&parked_ops, 1, memory_order_relaxed);
		rig_buffer_release(b);
	}
	return NULL;
}

static void
sleep_us(unsigned us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 4, seconds = argc > 2 ? atoi(argv[2]) : 3;
	uint64_t deadline = rig_now_ns() + (uint64_t)seconds * 1000000000u;
	unsigned seed = 13;
	int rounds = 0;
	pthread_t t[32];

	if (nthreads > 32)
		nthreads = 32;
	park_window = window;
	while (rounds < 3 || (rig_now_ns() < deadline && !atomic_load(&failed))) {
		struct rig_polled_config c = { .size = sizeof(c), .name = "PARK-END",
					       .lag = 1u + (unsigned)rounds % 8 };
		struct rig_polled *p;
		bool fault = rounds % 2;

		if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
		    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &src)) {
			fprintf(stderr, "round %d: open: %s\n", rounds, rig_why());
			return 1;
		}
		atomic_store(&round_over, false);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		sleep_us(200u + (unsigned)rand_r(&seed) % 3000u);
		if (fault)	/* a value soon to come faults: the device is lost */
			rig_polled_fault(p, rig_polled_submits(p) + 4, 0);
		sleep_us((unsigned)rand_r(&seed) % 500u);
		rig_close(d);
		atomic_store(&round_over, true);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		if (limbo_count(&d->rc.memory)) {
			fprintf(stderr, "round %d: %u puts landed in the limbo after its end\n",
				rounds, (unsigned)limbo_count(&d->rc.memory));
			atomic_store(&failed, true);
		}
		rig_buffer_release(src);
		rig_device_release(d);
		if (rig_polled_live_regions(p)) {
			fprintf(stderr, "round %d: %d regions left after the end\n", rounds,
				(int)rig_polled_live_regions(p));
			atomic_store(&failed, true);
		}
		rig_polled_destroy(p);
		rounds++;
	}
	printf("%d rounds, %llu copies released in flight, %llu parks under the token, "
	       "%llu announced, %s\n", rounds, (unsigned long long)parked_ops,
	       (unsigned long long)parks_held, (unsigned long long)parks_announced,
	       failed ? "FAILED" : "ok");
	return failed || !parked_ops || !parks_held || !parks_announced;
}
