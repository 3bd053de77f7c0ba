/* SPDX-License-Identifier: MIT */
/*
 * reclaim/return.c: when released memory goes back, and the loops that
 * wait for it. Three callers want it back: the poller, batched, when a
 * word moved or kept memory aged (alloc_reclaim); an allocation, first
 * whatever its own size cannot reuse, then, refused for room, everything
 * idle, then after waiting for released memory's work (reclaim_retry); a
 * grow that came up short, everything idle without waiting (the
 * submission thread must not wait for values queued behind its own).
 */
#include "reclaim/owner.h"
#include "util/log.h"

#define WAIT_POINTS 32		/* slots one wait round waits on */
#define STALL_NS 10000000u	/* a reclaim wait this long is logged (warn) */

void
reclaim_pending(struct timeline *tl, int delta)
{
	/* The poller sleeps with nothing pending: the first cue wakes it. */
	if (atomic_fetch_add(&tl->reap_pending, (uint32_t)delta) == 0 && delta > 0)
		poller_nudge();
}

size_t
alloc_reclaim(struct rig_device *d)
{
	uint64_t now = rig_now_ns(), next;
	bool again = reclaim_keeps(d);
	size_t n;

	n = alloc_return(d, LIMBO_AGED, 0, now, &next);
	/* Emptied since the last pass (reuses take what releases put, with
	 * no cue each time): the poller looks no more. */
	if (limbo_unwatch(&device_reclaim(d)->memory))
		reclaim_pending(device_timeline(d), -1);
	/* Kept memory that ages, or a keep its submitter had not yet
	 * passed, falls due with no word moving: the poller looks again. */
	if (again && now + KEEP_RETRY_NS < next)
		next = now + KEEP_RETRY_NS;
	atomic_store_explicit(&device_timeline(d)->reap_at, next == UINT64_MAX ? 0 : next,
			      memory_order_relaxed);
	return n;
}

size_t
reclaim_room(struct rig_device *d, uint64_t key)
{
	uint64_t next;

	device_reap(d);
	return alloc_return(d, key ? LIMBO_OTHERS : LIMBO_IDLE, key, 0, &next);
}

bool
alloc_reclaim_for_grow(struct submitter *sub)
{
	return reclaim_room(device_of_submitter(sub), 0) > 0;
}

/*
 * Wait until the work of released memory is settled (a loss settles it
 * too), then give back what is idle: false when nothing was released.
 * Memory on more than WAIT_POINTS slots takes more than one round.
 */
static bool
reclaim_waiting(struct rig_device *d)
{
	struct limbo_point p[WAIT_POINTS];
	size_t n = limbo_points(&device_reclaim(d)->memory, p, WAIT_POINTS);

	uint64_t t0 = n && util_log_on(UTIL_LOG_WARN) ? rig_now_ns() : 0;

	if (n)
		util_log(UTIL_LOG_DEBUG, "%s: an allocation waits for the work of released memory (%zu points)",
			 device_timeline(d)->name, n);
	for (size_t i = 0; i < n; i++)
		timeline_wait_slot(p[i].slot, p[i].value, UINT64_MAX);
	if (t0 && rig_now_ns() - t0 >= STALL_NS)
		util_log_write(UTIL_LOG_WARN, "%s: reclaim stalled: an allocation waited %llu ms for the work of released memory",
			       device_timeline(d)->name,
			       (unsigned long long)((rig_now_ns() - t0) / 1000000u));
	reclaim_room(d, 0);
	return n > 0;
}

int
reclaim_retry(struct rig_device *d, int (*attempt)(void *arg), void *arg)
{
	int ret;

	while ((ret = attempt(arg)) == RIG_ENOMEM)
		if (!reclaim_room(d, 0) && !reclaim_waiting(d))
			break;
	if (ret == RIG_ENOMEM)
		util_log(UTIL_LOG_WARN, "%s: out of memory: no released memory is left to come back",
			 device_timeline(d)->name);
	return ret;
}
