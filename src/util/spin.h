/* SPDX-License-Identifier: MIT */
/*
 * util/spin.h: a short lock for sections of a few hundred instructions
 * (an allocation's claim: reading and stamping its segments), that knows
 * where its holder runs. The word is 0 when free, else the holder's CPU
 * (plus one; SPIN_ANY where the CPU is unknown), taken by one
 * compare-and-swap and let go by a release store (Concurrency Kit's
 * ck_pr, as its fas lock uses them). Not ck_spinlock_fas itself: its word
 * says only "held", and a waiter must know more on a machine with more
 * submitting threads than cores.
 *
 * Why. Eight threads claiming the same buffers on two cores (bench/submit.c,
 * submit_8threads): a holder is preempted now and then, and each waiter
 * then spun its bounded spin against a holder that could not run — on
 * this VM a pause costs 66 ns (measured), so the old 128 pauses were 8 us
 * a waiter before its yield, and perf saw a fifth of the run in that
 * spin. Now a waiter that finds the holder's CPU to be its own (the holder
 * is not running: we are, there) yields at once; one on another CPU
 * spins about a microsecond, while the holder likely runs, then yields.
 * The CPU is the kernel's rseq area's cpu_id, which glibc registers (two
 * loads); a holder that moved CPUs meanwhile costs a waiter at most one
 * yield or one spin too many, never correctness.
 *
 * Guarantees: mutual exclusion; what a holder wrote before spin_unlock()
 * is visible to the next holder after spin_lock() (the compare-and-swap
 * is a full barrier, the unlock a release). Not fair, not recursive, and
 * never held across a wait: whoever must wait (a host access for device
 * work) marks what it holds and lets go of the lock first. A waiter never
 * sleeps in the kernel but in sched_yield(), so an unlock wakes nobody.
 *
 * ck_pr is inline asm that ThreadSanitizer cannot see, so the lock's
 * hand-over is told to TSan by hand (toolchain.md §8).
 */
#ifndef UTIL_SPIN_H
#define UTIL_SPIN_H

#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/rseq.h>

#include <ck_pr.h>

#include "util/tsan.h"

#define SPIN_PAUSES 16		/* about a microsecond here (66 ns a pause) */
#define SPIN_ANY UINT_MAX	/* held, by a thread on a CPU not known */

struct spin {
	unsigned int holder;	/* 0: free; else CPU + 1, or SPIN_ANY */
};

static inline void
spin_init(struct spin *s)
{
	ck_pr_store_uint(&s->holder, 0);
}

/* What a lock by this thread stores: its CPU now, plus one. */
static inline unsigned int
spin_me(void)
{
	const struct rseq *rs;
	int cpu;

	if (!__rseq_size)	/* glibc registered no rseq area */
		return SPIN_ANY;
	rs = (const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	cpu = (int)ck_pr_load_32(&rs->cpu_id);
	return cpu >= 0 ? (unsigned int)cpu + 1 : SPIN_ANY;
}

static inline bool
spin_try(struct spin *s, unsigned int me)
{
	if (ck_pr_load_uint(&s->holder) != 0 || !ck_pr_cas_uint(&s->holder, 0, me))
		return false;
	ck_pr_fence_lock();
	return true;
}

static inline void
spin_wait(struct spin *s)
{
	for (;;) {
		unsigned int me = spin_me(), h = ck_pr_load_uint(&s->holder);

		if (h == 0) {
			if (spin_try(s, me))
				return;
			continue;
		}
		/* Held from our own CPU: its holder is off it (we run
		 * here), so nothing changes until it runs again. */
		if (h != me || h == SPIN_ANY)
			for (int i = 0; i < SPIN_PAUSES && ck_pr_load_uint(&s->holder) == h; i++)
				ck_pr_stall();
		if (ck_pr_load_uint(&s->holder) != 0)
			sched_yield();
	}
}

static inline void
spin_lock(struct spin *s)
{
	if (!spin_try(s, spin_me()))
		spin_wait(s);
	tsan_acquire(s);
}

static inline void
spin_unlock(struct spin *s)
{
	tsan_release(s);
	ck_pr_fence_unlock();
	ck_pr_store_uint(&s->holder, 0);
}

#endif
