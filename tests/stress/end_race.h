/* SPDX-License-Identifier: MIT */
/*
 * tests/stress/end_race.h: the round of a stress test that races a
 * device's end (stress_borrow_end, stress_image_end, stress_keep_end):
 * workers run on the device until the round is over, while the main
 * thread closes it once some worker went through and a random moment
 * passed; and the window into rig (a RIG_TEST_HOOKS hook) where those
 * tests yield now and then.
 */
#ifndef TESTS_STRESS_END_RACE_H
#define TESTS_STRESS_END_RACE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "rig.h"

#define END_RACE_THREADS_MAX 32

/* Set once the device is closed: the workers stop. */
static _Atomic bool round_over;

/* Now and then a thread stops in the window a hook opens into rig. */
static void
end_race_window(void)
{
	static _Thread_local unsigned n;

	if (++n % 4 == 0)
		sched_yield();
}

/* One round: nthreads run worker((void *)i) until round_over; d closes
 * once *progress moved and a random moment (up to 2 ms) passed; the
 * workers are joined before it returns. */
static void
end_race_round(struct rig_device *d, int nthreads, void *(*worker)(void *),
	       _Atomic uint64_t *progress, unsigned *seed)
{
	struct timespec ts = { 0, 1000L * (long)(rand_r(seed) % 2000u) };
	uint64_t before = atomic_load(progress);
	pthread_t t[END_RACE_THREADS_MAX];

	atomic_store(&round_over, false);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	/* Bounded by progress: some worker went through this round. */
	while (atomic_load(progress) == before)
		sched_yield();
	nanosleep(&ts, NULL);
	rig_close(d);
	atomic_store(&round_over, true);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
}

#endif
