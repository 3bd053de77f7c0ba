/* SPDX-License-Identifier: MIT */
/*
 * submit/claim_hot.h: the claim's steps a submit runs (claim.c says what a
 * claim is and why it is safe), inline for the two submits that run them
 * on every call (copy.c, submitting.c): a copy's two uses, or a launch's
 * few, make each loop here a few instructions once the count is known,
 * where the calls to claim.c cost as many again. claim.c's functions of
 * the same names without _inline are these, for everyone else.
 *
 * Needs core/device.h (the allocations and devices claimed).
 */
#ifndef SUBMIT_CLAIM_HOT_H
#define SUBMIT_CLAIM_HOT_H

#include "core/device.h"
#include "core/error.h"

#define CLAIM_HOT static inline __attribute__((always_inline))

/* By allocation (the lock order), then reads before writes, so a use that
 * both reads and writes a word leaves it written. */
CLAIM_HOT bool
claim_before(const struct use *u, const struct use *v)
{
	if (u->a != v->a)
		return (uintptr_t)u->a < (uintptr_t)v->a;
	return u->kind < v->kind;
}

/* Insertion sort: a submit's uses are few (usually one to four), already
 * near their order, and qsort's call through a comparator costs more. */
CLAIM_HOT void
claim_sort_uses(struct use *u, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct use x = u[i];
		size_t j = i;

		for (; j > 0 && claim_before(&x, &u[j - 1]); j--)
			u[j] = u[j - 1];
		u[j] = x;
	}
}

CLAIM_HOT void
claim_unlock_all(struct use *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (i == 0 || u[i].a != u[i - 1].a)
			spin_unlock(&u[i].a->lock);
}

CLAIM_HOT void
claim_unlock_inline(struct use *u, size_t n)
{
	/* First every range (an allocation's uses are neighbours in u, all
	 * under its lock), then the locks. */
	for (size_t i = 0; i < n; i++)
		if (u[i].a->stamps.n > 1)	/* one segment: nothing to join */
			stamps_tidy_near(&u[i].a->stamps, u[i].lo, u[i].hi);
	claim_unlock_all(u, n);
}

/* Lock every allocation of u with no host access under way on any: one
 * that finds a host access waits for it with no lock held, then starts
 * over, so a claim never spins against a host access's wait for device
 * work. */
CLAIM_HOT void
claim_lock_all_quiet(struct use *u, size_t n)
{
	for (;;) {
		struct alloc *busy = NULL;

		/* One pass: each allocation's mark read once its lock is
		 * held (a host access sets it under the lock), all locked
		 * before any busy one is waited for. */
		for (size_t i = 0; i < n; i++)
			if (i == 0 || u[i].a != u[i - 1].a) {
				spin_lock(&u[i].a->lock);
				if (atomic_load_explicit(&u[i].a->host_busy,
							 memory_order_acquire))
					busy = u[i].a;
			}
		if (__builtin_expect(!busy, 1))
			return;
		claim_unlock_all(u, n);
		alloc_await_host(busy);
	}
}

/* A use's waits; a buffer used whole inline (stamp.h), noted in u for
 * its record: a prepare that finds the map whole splits nothing, and one
 * that does not leaves it more than one segment, so the answer holds
 * until the record under the same lock. */
CLAIM_HOT int
claim_prepare(struct use *u, struct waitset *ws)
{
	struct stamps *s = &u->a->stamps;

	u->whole = u->lo < u->hi && stamps_whole(s, u->lo, u->hi);
	if (u->whole)
		return seg_prepare(&s->seg[0], u->kind, ws);
	return stamps_prepare(s, u->lo, u->hi, u->kind, ws);
}

/* Stamp a prepared use with st; a buffer used whole inline. */
CLAIM_HOT void
claim_record_one(const struct use *u, struct stamp st)
{
	struct stamps *s = &u->a->stamps;

	if (u->whole)
		seg_record(&s->seg[0], u->kind, st);
	else
		stamps_record(s, u->lo, u->hi, u->kind, st);
}

/* Out of line: a claim that finds a dead buffer, a lost device or no
 * memory unlocks and says why (claim.c). */
int claim_refuse(struct use *u, size_t n, size_t i, int why);

CLAIM_HOT int
claim_lock_inline(struct use *u, size_t n, struct waitset *ws)
{
	claim_sort_uses(u, n);
	claim_lock_all_quiet(u, n);
	for (size_t i = 0; i < n; i++) {
		/* Memory of a lost device is used no more: its end waits
		 * only for the uses already stamped. */
		if (__builtin_expect(u[i].a->dead || atomic_load(&u[i].a->d->tl.lost), 0))
			return claim_refuse(u, n, i, 0);
		if (__builtin_expect(claim_prepare(&u[i], ws) < 0, 0))
			return claim_refuse(u, n, i, -ENOMEM);
	}
	return 0;
}

CLAIM_HOT void
claim_record_inline(struct use *u, size_t n, struct stamp st)
{
	for (size_t i = 0; i < n; i++) {
		claim_record_one(&u[i], st);
#ifdef RIG_TEST_HOOKS
		if (claim_trace)
			claim_trace(&u[i], st);
#endif
	}
}

/* Out of line: claim_draw()'s refusals, unlocked (claim.c). */
int claim_draw_refuse(const char *func, struct rig_device *d, struct use *u, size_t n,
		      int ret);

CLAIM_HOT int
claim_draw_inline(const char *func, struct rig_device *d, struct use *u, size_t n,
		  struct waitset *ws, uint64_t *v)
{
	int ret;

	/* Under the claim, before our value: a wait on a value a loss
	 * dropped refuses the submit while nothing is stamped yet. */
	if ((ret = route_check(func, d, ws)) < 0)
		return claim_draw_refuse(func, d, u, n, ret);
	if (__builtin_expect(submit_reserve(&d->sub, v) < 0, 0))
		return claim_draw_refuse(func, d, u, n, 0);
	claim_record_inline(u, n, (struct stamp){ (uint32_t)d->tl.slot, *v });
	return 0;
}

#endif
