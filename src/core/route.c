/*
 * core/route.c: where a submit's waits go (SPEC §4, rule 3). A wait on the
 * device's own timeline is dropped (device order, rule 1); a producer the
 * device's queues can wait for (facts.waits) becomes a driver wait, and its
 * value is committed first (no queue waits on work its driver holds); the
 * host waits for the rest before the driver's submit.
 */
#include "core/device.h"

/* Can d's queues wait for a producer that completes this way? */
static bool
queues_wait_for(const struct rig_device *d, enum rig_completion c)
{
	return c == RIG_BY_STORE ? d->facts.waits.stores : d->facts.waits.hosts;
}

void
route_waits(struct rig_device *d, const struct waitset *ws, struct job *job)
{
	for (size_t i = 0; i < ws->n; i++) {
		struct stamp st = ws->w[i];
		struct timeline *tl;

		if ((int)st.slot == d->tl.slot)
			continue;
		tl = timeline_get(st.slot);
		if (!tl)
			continue;	/* ended: its word shows every value */
		if (timeline_settled(tl, st.value)) {
			timeline_put(tl);
			continue;
		}
		/* A value a loss dropped: the host waits until the lost
		 * device stopped (its work may still write), and this device
		 * is not lost with it. */
		if (!atomic_load(&tl->lost) && queues_wait_for(d, tl->completion) &&
		    tl->commit(tl, st.value) == 0) {
			job->waits[job->nwaits++] = (struct rig_wait){
				tl->word, st.value, tl->completion };
		} else {
			job->host_waits[job->nhost_waits++] = st;
		}
		timeline_put(tl);
	}
}
