/* SPDX-License-Identifier: MIT */
/*
 * timeline/state.c: what a value's state is: reached, signaled, dropped or
 * settled. Never blocks. (The loss that ends a timeline: loss.c.)
 *
 * A value is reached when the word shows it and it was not dropped; it is
 * signaled when it was reached or dropped. A loss records the word's value
 * at that moment (lost_at): every value above it is dropped, even if the
 * driver's word later passes it, since the device's work is no longer
 * trusted.
 */
#include "util/ec.h"
#include "util/rcu.h"
#include "timeline/timeline.h"

#ifdef RIG_TSAN
/* What TSan sees of every grace period (util/rcu.h); here, since every
 * build of the timeline links this file. */
char rcu_tsan_gp_token;
#endif

void
timeline_raise(_Atomic uint64_t *a, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);

	while (cur < v &&
	       !atomic_compare_exchange_weak_explicit(a, &cur, v,
			memory_order_acq_rel, memory_order_relaxed))
		;
}

uint64_t
timeline_word(struct timeline *tl)
{
	/* Pairs with the driver's release store of the word: the work's
	 * results are visible once the value is. */
	uint64_t w = atomic_load_explicit(tl->word, memory_order_acquire);
	uint64_t (*own_word)(void *t);

	if (!__atomic_load_n(&tl->signaled, __ATOMIC_RELAXED))
		return w;
	/* The device's end may clear the hook and release the driver: read
	 * and call it inside a read-side section (core/devices.c, device_end). */
	p_rcu_read_lock();
	own_word = p_rcu_dereference(tl->signaled);
	if (own_word) {
		uint64_t own = own_word(tl->signaled_arg);

		if (own > w) {
			timeline_raise(tl->word, own);
			w = own;
		}
	}
	p_rcu_read_unlock();
	return w;
}

bool
timeline_reached(struct timeline *tl, uint64_t v)
{
	if (timeline_word(tl) < v)
		return false;
	if (atomic_load_explicit(&tl->lost, memory_order_acquire) == NULL)
		return true;
	return v <= atomic_load(&tl->lost_at);
}

bool
timeline_signaled(struct timeline *tl, uint64_t v)
{
	return atomic_load_explicit(&tl->lost, memory_order_acquire) != NULL ||
	       timeline_word(tl) >= v;
}

bool
timeline_settled(struct timeline *tl, uint64_t v)
{
	return timeline_word(tl) >= v;
}

void
timeline_wake(struct timeline *tl)
{
	/* After whatever the waker saw or stored (the word, lost): the bump
	 * is a store barrier after it, and wakes the flagged sleepers
	 * (wait.c). Wakers are many (the poller, a loss, a driver): ec_mp. */
	ck_ec32_inc(tl->futex, ec_mp());
}
