/* SPDX-License-Identifier: MIT */
/*
 * test_stress_spin: util/spin.h, the claims' short lock, under more
 * threads than cores (waiters on the holder's own CPU yield at once,
 * others spin a little, then yield). Each thread adds to plain counters
 * under one of a few locks, and checks the section is its alone: a word
 * it sets on entry is still its own on exit. The totals must come out
 * exact, and ThreadSanitizer must see no race on the plain counters (the
 * lock's hand-over is told to it by hand).
 *
 * Usage: test_stress_spin [threads] [adds per thread] (default 12, 200000).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/spin.h"

#define LOCKS 3

static struct {
	struct spin lock;
	uint64_t count;		/* plain: only under the lock */
	int owner;		/* plain: who is inside */
} box[LOCKS];
static long adds;
static _Atomic bool failed;

static void *
adder(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = (unsigned)me;

	for (long i = 0; i < adds; i++) {
		int k = rand_r(&seed) % LOCKS;

		spin_lock(&box[k].lock);
		box[k].owner = me;
		box[k].count++;
		if (i % 1024 == 0)
			sched_yield();	/* a holder off its CPU, now and then */
		if (box[k].owner != me)
			atomic_store(&failed, true);
		spin_unlock(&box[k].lock);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	pthread_t t[64];
	uint64_t total = 0;

	adds = argc > 2 ? atol(argv[2]) : 200000;
	if (n > 64)
		n = 64;
	for (int k = 0; k < LOCKS; k++)
		spin_init(&box[k].lock);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, adder, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < LOCKS; k++)
		total += box[k].count;
	printf("%d threads, %llu adds of %llu, %s (rseq %s)\n", n, (unsigned long long)total,
	       (unsigned long long)n * (unsigned long long)adds,
	       failed ? "two holders at once" : "one holder at a time",
	       spin_me() == SPIN_ANY ? "absent: CPUs unknown" : "present");
	return failed || total != (uint64_t)n * (uint64_t)adds;
}
