/* SPDX-License-Identifier: MIT */
/*
 * test_stress_slock: util/slock.h, the driver lock, under more threads
 * than cores. Each thread adds to plain counters under one of a few locks,
 * taken blocking or by a try (as the submission thread and the submitters
 * do), and checks the section is its alone: a word it sets on entry is
 * still its own on exit. Now and then a holder sleeps 50 us inside, so
 * waiters get past their spin and sleep in the kernel: a lost wake-up
 * hangs the test (meson's timeout fails it). Twice: with membarrier(2) as
 * the process registered it, then with the fallback's fences (both sides
 * fence), between runs so no release and sleep mix the two. The totals
 * must come out exact, and ThreadSanitizer must see no race on the plain
 * counters.
 *
 * Usage: test_stress_slock [threads] [adds per thread] (default 12, 200000).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/slock.h"

#define LOCKS 3

static struct {
	struct slock lock;
	uint64_t count;		/* plain: only under the lock */
	int owner;		/* plain: who is inside */
} box[LOCKS];
static long adds;
static _Atomic bool failed;
static _Atomic uint64_t tries_lost;

static void *
adder(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = (unsigned)me;

	for (long i = 0; i < adds; i++) {
		int k = rand_r(&seed) % LOCKS;

		if (rand_r(&seed) % 2) {
			slock_lock(&box[k].lock);
		} else if (!slock_try(&box[k].lock)) {
			atomic_fetch_add_explicit(&tries_lost, 1, memory_order_relaxed);
			i--;
			continue;
		}
		box[k].owner = me;
		box[k].count++;
		if (i % 512 == 0) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);	/* waiters go to sleep */
		}
		if (box[k].owner != me)
			atomic_store(&failed, true);
		slock_unlock(&box[k].lock);
	}
	return NULL;
}

static uint64_t
run(int n)
{
	pthread_t t[64];
	uint64_t total = 0;

	for (int k = 0; k < LOCKS; k++) {
		slock_init(&box[k].lock);
		box[k].count = 0;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, adder, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < LOCKS; k++)
		total += box[k].count;
	return total;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	uint64_t want, asym, fenced;
	bool registered;

	adds = argc > 2 ? atol(argv[2]) : 200000;
	if (n > 64)
		n = 64;
	want = (uint64_t)n * (uint64_t)adds;
	asym = run(n);
	registered = atomic_load(&membar_asymmetric);
	atomic_store(&membar_asymmetric, false);	/* no thread runs now */
	fenced = run(n);
	printf("%d threads, %llu and %llu adds of %llu (membarrier %s, then fences), %llu tries "
	       "found the lock taken, %s\n",
	       n, (unsigned long long)asym, (unsigned long long)fenced, (unsigned long long)want,
	       registered ? "registered" : "absent", (unsigned long long)atomic_load(&tries_lost),
	       failed ? "two holders at once" : "one holder at a time");
	return failed || asym != want || fenced != want;
}
