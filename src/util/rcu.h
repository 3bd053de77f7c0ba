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
 * The lock-free stack (urcu/lfstack.h) is used push and pop-all only, which
 * needs no RCU and no lock: its compare-and-swap and exchange run inside
 * liburcu-cds, where TSan sees nothing, so p_lfs_push() releases on the
 * node and p_lfs_pop_all() acquires on each node it hands out: what a
 * pusher wrote into its node before the push is seen by whoever pops it.
 */
#ifndef UTIL_RCU_H
#define UTIL_RCU_H

#include <urcu-bp.h>
#include <urcu/lfstack.h>

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

/* Lock-free, any thread; never blocks. */
static inline void
p_lfs_push(struct __cds_lfs_stack *s, struct cds_lfs_node *node)
{
	RCU_TSAN_RELEASE_AT(node);
	cds_lfs_push(s, node);
}

/* Wait-free, any thread: every node pushed so far, newest first, linked by
 * their next; NULL when empty. */
static inline struct cds_lfs_node *
p_lfs_pop_all(struct __cds_lfs_stack *s)
{
	struct cds_lfs_head *head;
	struct cds_lfs_node *first;

	if (__atomic_load_n(&s->head, __ATOMIC_RELAXED) == NULL)
		return NULL;	/* the common case: no exchange */
	head = __cds_lfs_pop_all(s);
	first = head ? &head->node : NULL;
	for (struct cds_lfs_node *n = first; n; n = n->next)
		RCU_TSAN_ACQUIRE_AT(n);
	return first;
}

#endif
