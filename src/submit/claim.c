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
#include "submit/claim_hot.h"

void
claim_unlock(struct use *u, size_t n)
{
	claim_unlock_inline(u, n);
}

int
claim_refuse(struct use *u, size_t n, size_t i, int why)
{
	const char *dead = u[i].a->dead;
	struct rig_device *d = u[i].a->d;

	/* Read under the lock: the cause is the one the claim found. */
	claim_unlock_inline(u, n);
	if (why == -ENOMEM)
		return rig_cause(RIG_ENOMEM, "no memory for the stamps of a claim");
	if (dead)
		return rig_cause(RIG_EINVAL, "a buffer is dead: %s", dead);
	return device_check_live(NULL, d);
}

int
claim_lock(struct use *u, size_t n, struct waitset *ws)
{
	return claim_lock_inline(u, n, ws);
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
		if (claim_prepare(&again, &t) == 0)
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
	claim_record_inline(u, n, st);
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
claim_draw_refuse(const char *func, struct rig_device *d, struct use *u, size_t n,
		  int ret)
{
	claim_unlock_inline(u, n);
	if (ret < 0)
		return ret;
	/* A reserve fails only once d is lost, which the check names. */
	ret = device_check_live(func, d);
	return ret < 0 ? ret : rig_fail_at(func, RIG_ELOST, "%s is lost", d->name);
}

int
claim_draw(const char *func, struct rig_device *d, struct use *u, size_t n,
	   struct waitset *ws, uint64_t *v)
{
	return claim_draw_inline(func, d, u, n, ws, v);
}
