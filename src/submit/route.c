/* SPDX-License-Identifier: MIT */
/*
 * submit/route.c: where a submit's waits go (docs/order.md, rule 3). A wait on the
 * device's own timeline is dropped (device order, docs/order.md, rule 1); a producer the
 * device's queues can wait for (facts.waits) becomes a driver wait, and its
 * value is committed first (no queue waits on work its driver holds); the
 * host waits for the rest before the driver's submit. A wait on a value a
 * loss already dropped refuses the submit. The check runs under the claim,
 * before the value is drawn; the commits after it, so no claim's lock is
 * held across a call into another device.
 */
#include "core/device.h"
#include "core/error.h"

/* Can d's queues wait for a producer that completes this way? */
static bool
queues_wait_for(const struct rig_device *d, enum rig_completion c)
{
	return c == RIG_BY_STORE ? d->facts.waits.stores : d->facts.waits.hosts;
}

/* The use waits for a value a loss dropped: the submit is refused, since
 * its memory holds what that work never wrote. */
static int
dropped(const char *func, struct timeline *tl, uint64_t value)
{
	char chain[512];

	loss_chain_text(tl->loss, chain, sizeof(chain));
	return rig_fail_at(func, RIG_ELOST, "the work of value %llu on %s was dropped: %s is lost: %s",
			   (unsigned long long)value, tl->name, tl->name, chain);
}

int
route_check_all(const char *func, struct rig_device *d, struct waitset *ws)
{
	size_t keep = 0;

	for (size_t i = 0; i < ws->n; i++) {
		struct stamp st = ws->w[i];
		struct timeline *tl;
		int ret = 0;

		if ((int)st.slot == d->tl.slot)
			continue;
		tl = timeline_get(st.slot);
		if (!tl)
			continue;	/* ended: its word shows every value */
		/* Dropped first: after the producer's stop its word shows
		 * its dropped values too. */
		if (timeline_dropped(tl, st.value))
			ret = dropped(func, tl, st.value);
		else if (timeline_settled(tl, st.value))
			ret = 1;
		/* A producer lost after this with the value dropped loses
		 * this device too: by the note where the wait is a driver's
		 * (loss.c), by the host wait otherwise (submit.c). */
		else if (queues_wait_for(d, tl->completion) &&
			 (ret = timeline_note_wait(&d->tl, tl, st.value)) < 0)
			ret = ret == RIG_ELOST ? device_check_live(func, d) :
			      rig_fail_at(func, ret, "no memory to note a wait on %s", tl->name);
		timeline_put(tl);
		if (ret < 0)
			return ret;
		if (ret == 0)
			ws->w[keep++] = st;
	}
	ws->n = keep;
	return 0;
}

void
route_commit_all(struct rig_device *d, const struct waitset *ws, struct job *job,
		 uint64_t v)
{
	for (size_t i = 0; i < ws->n; i++) {
		struct stamp st = ws->w[i];
		struct timeline *tl = timeline_get(st.slot);

		if (!tl)
			continue;	/* ended since: its word shows every value */
		/* A driver wait only on a committed value (no queue waits on
		 * work its driver holds); a producer lost since, or whose
		 * driver is inside a call that may block (commit answers 1:
		 * a submit never waits behind another device's driver), is
		 * waited for on the host, which commits it then. */
		if (queues_wait_for(d, tl->completion) && tl->commit(tl, st.value) == 0) {
			job->waits[job->nwaits++] = (struct rig_wait){
				tl->word, st.value, tl->completion };
			timeline_queue_wait(&d->tl, tl, v);	/* its hang clock */
		} else {
			job->host_waits[job->nhost_waits++] = st;
		}
		timeline_put(tl);
	}
}
