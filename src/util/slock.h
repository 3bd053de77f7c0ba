/* SPDX-License-Identifier: MIT */
/*
 * util/slock.h: a mutex whose waiters sleep and whose release is one
 * store: the driver lock (submit/submit.h), which every submit that runs
 * its own value takes and lets go of, and which the submission thread and
 * a waiter's commit take blocking.
 *
 * Why not glibc's mutex: its unlock is a locked exchange (it must learn
 * whether a waiter sleeps), on top of the trylock's compare-and-swap, and
 * both are calls through the PLT: about 60 instructions and a locked one
 * more a submit than this lock's. Why not a spin lock (util/spin.h,
 * ck_spinlock): its waiters never sleep, so a real-time waiter spins
 * against a holder of lower priority on its own core, and the submission
 * thread and the waiters spun and yielded on the cores the holders needed
 * (tried on this lock, measured and reverted: README, Performance). Why not
 * Concurrency Kit's event count (ck_ec) beside the word: its increment
 * that wakes is a locked instruction too. Here a waiter spins a little,
 * then counts itself in sleepers and sleeps in the kernel on the word; the
 * release stores 0 and wakes only if it then reads a sleeper.
 *
 * No lost wake-up: util/membar.h's asymmetric Dekker. The release (store
 * the word, then load sleepers) is the fast side; a waiter on its way to
 * sleep (count itself, then look at the word in futex_wait) the slow one,
 * paying a membarrier(2) once per sleep, where it pays a futex already.
 * So a holder whose word a sleeper finds taken (futex_wait compares it
 * with 1 in the kernel) reads sleepers after that barrier: it sees the
 * count, which stays up until the sleeper holds the lock, and wakes it.
 * A sleeper woken that loses the word to another taker sleeps again
 * without a new barrier: its count never went down, so that holder's
 * release, after the barrier too, sees it.
 *
 * Guarantees: mutual exclusion (one compare-and-swap takes the word, with
 * acquire; a store while the process has one thread); what a holder wrote
 * before slock_unlock() is visible to the next holder after slock_lock()
 * or a true slock_try() (the release store); a waiter sleeps only while the word is taken and is woken by
 * the release after which it is free. Not fair, not recursive. C11
 * atomics, so ThreadSanitizer sees the hand-over itself. Stress test:
 * tests/stress/test_stress_spin.c.
 */
#ifndef UTIL_SLOCK_H
#define UTIL_SLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/single_threaded.h>

#include "util/futex.h"
#include "util/membar.h"

struct slock {
	_Atomic uint32_t word;		/* 0: free; 1: held */
	_Atomic uint32_t sleepers;	/* waiters past their spin, not yet holders */
};

static inline void
slock_init(struct slock *l)
{
	membar_init();
	atomic_init(&l->word, 0);
	atomic_init(&l->sleepers, 0);
}

/* Take l if it is free; true if taken. A process with one thread (an
 * inline device's submits before any other thread starts) takes it with
 * a store, as glibc's own locks do there: nobody can race, and the
 * pthread_create() that ends this is a full barrier. */
static inline bool
slock_try(struct slock *l)
{
	uint32_t free_word = 0;

	if (atomic_load_explicit(&l->word, memory_order_relaxed) != 0)
		return false;
	if (__libc_single_threaded) {
		atomic_store_explicit(&l->word, 1, memory_order_relaxed);
		return true;
	}
	return atomic_compare_exchange_strong_explicit(&l->word, &free_word, 1,
						       memory_order_acquire,
						       memory_order_relaxed);
}

/* The waiter's side (slock.c): spin, then sleep until taken. */
void slock_wait(struct slock *l);

static inline void
slock_lock(struct slock *l)
{
	if (!slock_try(l))
		slock_wait(l);
}

static inline void
slock_unlock(struct slock *l)
{
	atomic_store_explicit(&l->word, 0, memory_order_release);
	membar_fast();
	if (atomic_load_explicit(&l->sleepers, memory_order_relaxed))
		futex_wake_all(&l->word);
}

#endif
