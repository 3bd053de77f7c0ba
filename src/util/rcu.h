/* SPDX-License-Identifier: MIT */
/*
 * util/rcu.h: liburcu as rig uses it, with the annotations that let
 * ThreadSanitizer see its grace periods (toolchain.md §8). Use the p_*
 * names everywhere; never the bare liburcu macros.
 *
 * The bulletproof flavour (urcu-bp): a program's threads call rig without
 * registering with RCU first, and bp registers a reader at its first read
 * lock. Its grace periods are slower (~100 us), and rig waits for one only
 * at a device's end.
 *
 * The wait-free concurrent queue (urcu/wfcqueue.h, the head without a
 * mutex) is used by any number of enqueuers and one dequeuer at a time,
 * which needs no RCU: its exchange and stores run inside liburcu-common,
 * where TSan sees nothing, so p_wfcq_enqueue() releases on the node and
 * p_wfcq_dequeue() acquires on the node it hands out: what an enqueuer
 * wrote into its node before the enqueue is seen by whoever dequeues it.
 */
#ifndef UTIL_RCU_H
#define UTIL_RCU_H

#include <urcu-bp.h>
#include <urcu/wfcqueue.h>

#include "util/tsan.h"

#ifdef RIG_TSAN
extern char rcu_tsan_gp_token;
#define RCU_TSAN_RELEASE() tsan_release(&rcu_tsan_gp_token)
#define RCU_TSAN_ACQUIRE() tsan_acquire(&rcu_tsan_gp_token)
#define RCU_TSAN_RELEASE_AT(a) tsan_release((void *)(a))
#define RCU_TSAN_ACQUIRE_AT(a) tsan_acquire((void *)(a))
#define p_rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define p_rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#else
#define RCU_TSAN_RELEASE() do { } while (0)
#define RCU_TSAN_ACQUIRE() do { } while (0)
#define RCU_TSAN_RELEASE_AT(a) do { (void)(a); } while (0)
#define RCU_TSAN_ACQUIRE_AT(a) do { (void)(a); } while (0)
#define p_rcu_dereference(p) rcu_dereference(p)
#define p_rcu_assign_pointer(p, v) rcu_assign_pointer(p, v)
#endif

#define p_rcu_read_lock() rcu_read_lock()
#define p_rcu_read_unlock() do { RCU_TSAN_RELEASE(); rcu_read_unlock(); } while (0)
#define p_synchronize_rcu() do { synchronize_rcu(); RCU_TSAN_ACQUIRE(); } while (0)

/* Wait-free, any thread: node goes at the tail of the queue (its next
 * reset first). */
static inline void
p_wfcq_enqueue(struct __cds_wfcq_head *h, struct cds_wfcq_tail *t,
	       struct cds_wfcq_node *node)
{
	node->next = NULL;	/* cds_wfcq_node_init(), without its call */
	RCU_TSAN_RELEASE_AT(node);
	cds_wfcq_enqueue(h, t, node);
}

/* One dequeuer at a time (the caller's own exclusion): the node at the
 * head, or NULL when the queue is empty or its head is an enqueue not
 * yet linked (it never waits for one). */
static inline struct cds_wfcq_node *
p_wfcq_dequeue(struct __cds_wfcq_head *h, struct cds_wfcq_tail *t)
{
	struct cds_wfcq_node *n;

	if (__atomic_load_n(&h->node.next, __ATOMIC_RELAXED) == NULL &&
	    __atomic_load_n(&t->p, __ATOMIC_RELAXED) == &h->node)
		return NULL;	/* the common case: no call */
	n = __cds_wfcq_dequeue_nonblocking(h, t);
	if (n == CDS_WFCQ_WOULDBLOCK)
		return NULL;
	if (n)
		RCU_TSAN_ACQUIRE_AT(n);
	return n;
}

#endif
