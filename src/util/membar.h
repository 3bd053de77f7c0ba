/* SPDX-License-Identifier: MIT */
/*
 * util/membar.h: the asymmetric Dekker of liburcu's memb flavour, which
 * liburcu does not export for other uses (membar.c). Two sides each store
 * then load the other's word; the fast side, which runs often, pays only
 * a compiler barrier between its store and its load, and the slow side,
 * which runs seldom (on its way to sleep), puts every running thread of
 * the process through a full barrier with membarrier(2)
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED) between its store and its load; a
 * thread not running passed one in its context switch. So either the fast
 * side's store came before that barrier and the slow side's load sees it,
 * or the fast side's load comes after it and sees the slow side's store.
 * Where the kernel has no membarrier both sides fence (membar_fast() is
 * then a full fence, membar_slow() too).
 *
 * Users: the submission ring's sleep handshake (submit/ring.c) and the
 * driver lock's release (util/slock.h).
 */
#ifndef UTIL_MEMBAR_H
#define UTIL_MEMBAR_H

#include <stdatomic.h>
#include <stdbool.h>

/* Set once the process registered for membarrier(2) (membar_init()). */
extern _Atomic bool membar_asymmetric;

/* Register the process, once; any thread, any number of times. */
void membar_init(void);

/* The fast side, between its store and its load. */
static inline void
membar_fast(void)
{
	if (atomic_load_explicit(&membar_asymmetric, memory_order_relaxed))
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
}

/* The slow side, between its store and its load: a system call. */
void membar_slow(void);

#endif
