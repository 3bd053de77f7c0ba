/* SPDX-License-Identifier: MIT */
/*
 * util/spin.h: a short lock for sections of a few hundred instructions
 * (an allocation's claim: reading and stamping its segments). Concurrency
 * Kit's fetch-and-store spinlock, taken with a bounded spin then a yield,
 * so a holder preempted on this 2-core kind of machine gets the core back
 * instead of being spun against for a whole time slice.
 *
 * Guarantees: mutual exclusion; what a holder wrote before spin_unlock()
 * is visible to the next holder after spin_lock() (ck's fas lock is an
 * acquire on lock and a release on unlock). Not fair, not recursive, and
 * never held across a wait: whoever must wait (a host access for device
 * work) marks what it holds and lets go of the lock first.
 *
 * ck_pr is inline asm that ThreadSanitizer cannot see, so the lock's
 * hand-over is told to TSan by hand (toolchain.md §8).
 */
#ifndef UTIL_SPIN_H
#define UTIL_SPIN_H

#include <sched.h>
#include <stdbool.h>

#include <ck_spinlock.h>

#include "util/tsan.h"

#define SPIN_PAUSES 128		/* about a microsecond before a yield */

struct spin {
	ck_spinlock_fas_t l;
};

static inline void
spin_init(struct spin *s)
{
	ck_spinlock_fas_init(&s->l);
}

static inline void
spin_lock(struct spin *s)
{
	while (!ck_spinlock_fas_trylock(&s->l)) {
		for (int i = 0; i < SPIN_PAUSES && ck_spinlock_fas_locked(&s->l); i++)
			ck_pr_stall();
		if (ck_spinlock_fas_locked(&s->l))
			sched_yield();
	}
	tsan_acquire(s);
}

static inline void
spin_unlock(struct spin *s)
{
	tsan_release(s);
	ck_spinlock_fas_unlock(&s->l);
}

#endif
