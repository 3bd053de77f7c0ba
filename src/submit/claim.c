/* SPDX-License-Identifier: MIT */
/*
 * submit/claim.c: claiming memory (docs/order.md). A claim locks every allocation
 * a submit or host access uses (util/spin.h: a short lock, since a claim
 * only reads and stamps segments), in address order so two claims never
 * deadlock, and reads from their stamps what the use must wait for. A
 * submit then draws its value and stamps the uses before it unlocks: two
 * claims on the same memory are ordered by their locks, so each sees the
 * other's stamp or the other sees its own, never neither.
 */
#include "core/device.h"
#include "core/error.h"

/* By allocation (the lock order), then reads before writes, so a use that
 * both reads and writes a word leaves it written. */
static bool
before(const struct use *u, const struct use *v)
{
	if (u->a != v->a)
		return (uintptr_t)u->a < (uintptr_t)v->a;
	return u->kind < v->kind;
}

/* Insertion sort: a submit's uses are few (usually one to four), already
 * near their order, and qsort's call through a comparator costs more. */
static void
sort_uses(struct use *u, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct use x = u[i];
		size_t j = i;

		for (; j > 0 && before(&x, &u[j - 1]); j--)
			u[j] = u[j - 1];
		u[j] = x;
	}
}

static void unlock_all(struct use *u, size_t n);

void
claim_unlock(struct use *u, size_t n)
{
	/* First every range (an allocation's uses are neighbours in u, all
	 * under its lock), then the locks. */
	for (size_t i = 0; i < n; i++)
		if (u[i].a->stamps.n > 1)	/* one segment: nothing to join */
			stamps_tidy_near(&u[i].a->stamps, u[i].lo, u[i].hi);
	unlock_all(u, n);
}

static void
unlock_all(struct use *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (i == 0 || u[i].a != u[i - 1].a)
			spin_unlock(&u[i].a->lock);
}

/* Lock every allocation of u with no host access under way on any: one
 * that finds a host access waits for it with no lock held, then starts
 * over, so a claim never spins against a host access's wait for device
 * work. */
static void
lock_all_quiet(struct use *u, size_t n)
{
	for (;;) {
		struct alloc *busy = NULL;

		for (size_t i = 0; i < n; i++)
			if (i == 0 || u[i].a != u[i - 1].a)
				spin_lock(&u[i].a->lock);
		for (size_t i = 0; i < n && !busy; i++)
			if (atomic_load_explicit(&u[i].a->host_busy, memory_order_acquire))
				busy = u[i].a;
		if (!busy)
			return;
		unlock_all(u, n);
		alloc_await_host(busy);
	}
}

/* A use's waits; a buffer used whole inline (stamp.h), noted in u for
 * its record: a prepare that finds the map whole splits nothing, and one
 * that does not leaves it more than one segment, so the answer holds
 * until the record under the same lock. */
static inline int
prepare(struct use *u, struct waitset *ws)
{
	struct stamps *s = &u->a->stamps;

	u->whole = u->lo < u->hi && stamps_whole(s, u->lo, u->hi);
	if (u->whole)
		return seg_prepare(&s->seg[0], u->kind, ws);
	return stamps_prepare(s, u->lo, u->hi, u->kind, ws);
}

/* Stamp a prepared use with st; a buffer used whole inline. */
static inline void
record(const struct use *u, struct stamp st)
{
	struct stamps *s = &u->a->stamps;

	if (u->whole)
		seg_record(&s->seg[0], u->kind, st);
	else
		stamps_record(s, u->lo, u->hi, u->kind, st);
}

int
claim_lock(struct use *u, size_t n, struct waitset *ws)
{
	sort_uses(u, n);
	lock_all_quiet(u, n);
	for (size_t i = 0; i < n; i++) {
		if (u[i].a->dead) {
			const char *why = u[i].a->dead;

			claim_unlock(u, n);
			return rig_cause(RIG_EINVAL, "a buffer is dead: %s", why);
		}
		/* Memory of a lost device is used no more: its end waits
		 * only for the uses already stamped. */
		if (atomic_load(&u[i].a->d->tl.lost)) {
			claim_unlock(u, n);
			return device_check_live(NULL, u[i].a->d);
		}
		if (prepare(&u[i], ws) < 0) {
			claim_unlock(u, n);
			return rig_cause(RIG_ENOMEM, "no memory for the stamps of a claim");
		}
	}
	return 0;
}

/* Profiles only: a second prepare of each use, into a set of its own,
 * finds the room the first made and changes no stamp. */
size_t
claim_arrows(const struct use *u, size_t n, int own, struct claim_arrow *out,
	     size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k < cap; i++) {
		struct waitset t;

		struct use again = u[i];

		waitset_init(&t, own);
		if (prepare(&again, &t) == 0)
			for (size_t j = 0; j < t.n && k < cap; j++)
				out[k++] = (struct claim_arrow){ t.w[j], u[i].a,
								 u[i].lo * 4, u[i].hi * 4 };
		waitset_fini(&t);
	}
	return k;
}

#ifdef RIG_TEST_HOOKS
void (*claim_trace)(const struct use *u, struct stamp st);
#endif

void
claim_record(struct use *u, size_t n, struct stamp st)
{
	for (size_t i = 0; i < n; i++) {
		record(&u[i], st);
#ifdef RIG_TEST_HOOKS
		if (claim_trace)
			claim_trace(&u[i], st);
#endif
	}
}

int
claim_wait_host(const struct waitset *ws, struct stamp *dropped)
{
	int first = 0;

	/* Every point, also after a loss: whoever waits here goes on to use
	 * or free the memory, which no work may still touch. */
	for (size_t i = 0; i < ws->n; i++) {
		int ret = timeline_wait_slot(ws->w[i].slot, ws->w[i].value, UINT64_MAX);

		if (ret < 0 && !first) {
			*dropped = ws->w[i];
			first = ret;
		}
	}
	return first;
}

int
claim_draw(const char *func, struct rig_device *d, struct use *u, size_t n,
	   struct waitset *ws, uint64_t *v)
{
	int ret;

	/* Under the claim, before our value: a wait on a value a loss
	 * dropped refuses the submit while nothing is stamped yet. */
	if ((ret = route_check(func, d, ws)) < 0) {
		claim_unlock(u, n);
		return ret;
	}
	if (submit_reserve(&d->sub, v) < 0) {
		claim_unlock(u, n);
		return device_check_live(func, d);
	}
	claim_record(u, n, (struct stamp){ (uint32_t)d->tl.slot, *v });
	return 0;
}
