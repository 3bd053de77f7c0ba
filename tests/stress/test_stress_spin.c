/* SPDX-License-Identifier: MIT */
/*
 * test_stress_spin: rig's two hand-made locks under more threads than
 * cores. util/spin.h, the claims' short lock (waiters on the holder's own
 * CPU yield at once, others spin a little, then yield), and util/slock.h,
 * the driver lock, taken blocking or by a try (as the submission thread
 * and the submitters do; its waiters sleep in the kernel). Each thread
 * adds to plain counters under one of a few locks, and checks the section
 * is its alone: a word it sets on entry is still its own on exit. Now and
 * then a spin lock's holder yields inside (a holder off its CPU), and a
 * driver lock's holder sleeps 50 us inside, so waiters get past their spin
 * and sleep: a lost wake-up hangs the test (meson's timeout fails it). The
 * driver lock runs twice: with membarrier(2) as the process registered it,
 * then with the fallback's fences (both sides fence), between runs so no
 * release and sleep mix the two. The totals must come out exact, and
 * ThreadSanitizer must see no race on the plain counters (the spin lock's
 * hand-over is told to it by hand; the driver lock's is C11 atomics).
 *
 * Usage: test_stress_spin [threads] [adds per thread] (default 12, 200000;
 * the driver lock's runs do a tenth).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/slock.h"
#include "util/spin.h"

#define LOCKS 3

static struct {
	struct spin spin;
	struct slock slock;
	uint64_t count;		/* plain: only under the lock */
	int owner;		/* plain: who is inside */
} box[LOCKS];
static long adds;
static bool driver_lock;	/* this run's lock: slock, else spin */
static _Atomic bool failed;
static _Atomic uint64_t tries_lost;

/* Take box k's lock of this run; false if a try found it taken. */
static bool
take(int k, unsigned *seed)
{
	if (!driver_lock) {
		spin_lock(&box[k].spin);
		return true;
	}
	if (rand_r(seed) % 2) {
		slock_lock(&box[k].slock);
		return true;
	}
	if (slock_try(&box[k].slock))
		return true;
	atomic_fetch_add_explicit(&tries_lost, 1, memory_order_relaxed);
	return false;
}

static void *
adder(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = (unsigned)me;

	for (long i = 0; i < adds; i++) {
		int k = rand_r(&seed) % LOCKS;

		if (!take(k, &seed)) {
			i--;
			continue;
		}
		box[k].owner = me;
		box[k].count++;
		if (!driver_lock && i % 1024 == 0) {
			sched_yield();	/* a holder off its CPU, now and then */
		} else if (driver_lock && i % 512 == 0) {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);	/* waiters go to sleep */
		}
		if (box[k].owner != me)
			atomic_store(&failed, true);
		if (driver_lock)
			slock_unlock(&box[k].slock);
		else
			spin_unlock(&box[k].spin);
	}
	return NULL;
}

/* One run of n threads; the adds counted. */
static uint64_t
run(int n)
{
	pthread_t t[64];
	uint64_t total = 0;

	for (int k = 0; k < LOCKS; k++) {
		spin_init(&box[k].spin);
		slock_init(&box[k].slock);
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
	long spin_adds = argc > 2 ? atol(argv[2]) : 200000;
	uint64_t spin_total, asym, fenced;
	bool registered;

	if (n > 64)
		n = 64;
	adds = spin_adds;
	spin_total = run(n);
	driver_lock = true;
	adds = spin_adds / 10 > 0 ? spin_adds / 10 : 1;
	asym = run(n);
	registered = atomic_load(&membar_asymmetric);
	atomic_store(&membar_asymmetric, false);	/* no thread runs now */
	fenced = run(n);
	printf("%d threads: spin lock %llu adds of %llu (rseq %s); driver lock %llu and %llu "
	       "of %llu (membarrier %s, then fences), %llu tries found it taken; %s\n",
	       n, (unsigned long long)spin_total, (unsigned long long)n * (unsigned long long)spin_adds,
	       spin_me() == SPIN_ANY ? "absent: CPUs unknown" : "present",
	       (unsigned long long)asym, (unsigned long long)fenced,
	       (unsigned long long)n * (unsigned long long)adds,
	       registered ? "registered" : "absent", (unsigned long long)atomic_load(&tries_lost),
	       failed ? "two holders at once" : "one holder at a time");
	return failed || spin_total != (uint64_t)n * (uint64_t)spin_adds ||
	       asym != (uint64_t)n * (uint64_t)adds || fenced != (uint64_t)n * (uint64_t)adds;
}
