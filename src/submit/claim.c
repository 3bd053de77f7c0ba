/*
 * submit/claim.c: claiming memory (SPEC §4). A claim locks every allocation
 * a submit or host access uses, in address order so two claims never
 * deadlock, and reads from their stamps what the use must wait for. A
 * submit then draws its value and stamps the uses before it unlocks: two
 * claims on the same memory are ordered by their locks, so each sees the
 * other's stamp or the other sees its own, never neither.
 */
#include <stdlib.h>

#include "core/device.h"
#include "core/error.h"

/* By allocation (the lock order), then reads before writes, so a use that
 * both reads and writes a word leaves it written. */
static int
by_alloc(const void *x, const void *y)
{
	const struct use *u = x, *v = y;

	if (u->a != v->a)
		return (uintptr_t)u->a < (uintptr_t)v->a ? -1 : 1;
	return (int)u->kind - (int)v->kind;
}

void
claim_unlock(struct use *u, size_t n)
{
	/* First every range (an allocation's uses are neighbours in u, all
	 * under its lock), then the locks. */
	for (size_t i = 0; i < n; i++)
		stamps_tidy_near(&u[i].a->stamps, u[i].lo, u[i].hi);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || u[i].a != u[i - 1].a)
			pthread_mutex_unlock(&u[i].a->lock);
}

int
claim_lock(struct use *u, size_t n, struct waitset *ws)
{
	if (n > 1)
		qsort(u, n, sizeof(*u), by_alloc);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || u[i].a != u[i - 1].a)
			pthread_mutex_lock(&u[i].a->lock);
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
		if (stamps_prepare(&u[i].a->stamps, u[i].lo, u[i].hi, u[i].kind, ws) < 0) {
			claim_unlock(u, n);
			return rig_cause(RIG_ENOMEM, "no memory for the stamps of a claim");
		}
	}
	return 0;
}

void (*claim_trace)(const struct use *u, struct stamp st);

void
claim_record_unlock(struct use *u, size_t n, struct stamp st)
{
	for (size_t i = 0; i < n; i++) {
		stamps_record(&u[i].a->stamps, u[i].lo, u[i].hi, u[i].kind, st);
		if (claim_trace)
			claim_trace(&u[i], st);
	}
	claim_unlock(u, n);
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
	   const struct waitset *ws, struct job *job, uint64_t *v)
{
	int ret;

	/* Before our value: routing may commit other devices' values. */
	if ((ret = route_waits(func, d, ws, job)) < 0) {
		claim_unlock(u, n);
		return ret;
	}
	if (submit_reserve(&d->sub, v) < 0) {
		claim_unlock(u, n);
		return device_check_live(func, d);
	}
	claim_record_unlock(u, n, (struct stamp){ (uint32_t)d->tl.slot, *v });
	return 0;
}
