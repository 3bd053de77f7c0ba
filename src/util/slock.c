/* SPDX-License-Identifier: MIT */
/*
 * util/slock.c: slock.h's waiter. It spins first, about a microsecond
 * here (a pause costs ~66 ns on this VM): a driver lock is held for a
 * driver's room and submit, a few hundred nanoseconds, so most waits end
 * there without the two system calls of a sleep. Pauses, not yields: a
 * yield hands the core away for a slice.
 */
#include <stdint.h>

#include <ck_pr.h>

#include "util/slock.h"

#define SLOCK_SPINS 16

void
slock_wait(struct slock *l)
{
	uint32_t free_word;

	for (int i = 0; i < SLOCK_SPINS; i++) {
		ck_pr_stall();
		if (slock_try(l))
			return;
	}
	/* Counted, then the barrier, then every look at the word (slock.h). */
	atomic_fetch_add_explicit(&l->sleepers, 1, memory_order_seq_cst);
	membar_slow();
	for (;;) {
		free_word = 0;
		if (atomic_compare_exchange_strong_explicit(&l->word, &free_word, 1,
							    memory_order_acquire,
							    memory_order_relaxed))
			break;
		futex_wait(&l->word, 1, UINT64_MAX);
	}
	atomic_fetch_sub_explicit(&l->sleepers, 1, memory_order_relaxed);
}
