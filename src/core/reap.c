/*
 * core/reap.c: deferred references to submissions (device.h). The list is
 * short-lived and guarded by the device's mem_lock; the references go after
 * the lock is dropped, since letting a submission go releases buffers and
 * images, which take that lock themselves. A reference goes once its value
 * is settled: after a loss, only once the driver stopped, since the lost
 * device's work may still use what the submission keeps.
 */
#include <stdlib.h>

#include "submit/submission.h"

struct deferred {
	struct rig_submission *s;
	uint64_t value;
	struct deferred *next;
};

bool
device_done_with(struct rig_device *d, uint64_t value)
{
	return timeline_settled(&d->tl, value) && submit_passed(&d->sub, value);
}

void
defer_put(struct rig_device *d, struct rig_submission *s, uint64_t value)
{
	struct deferred *e;

	while (!(e = malloc(sizeof(*e)))) {
		/* No memory to wait in the list: wait here. */
		if (device_done_with(d, value)) {
			submission_put(s);
			return;
		}
		timeline_wait_settled(&d->tl, value, 1000000);
	}
	e->s = s;
	e->value = value;
	pthread_mutex_lock(&d->mem_lock);
	e->next = d->deferred;
	d->deferred = e;
	atomic_fetch_add(&d->ndeferred, 1);
	pthread_mutex_unlock(&d->mem_lock);
	reap_pending(d, 1);
}

void
reap_pending(struct rig_device *d, int delta)
{
	/* The poller returns what waits once the word moves; it sleeps with
	 * nothing pending, so the first pending return wakes it. */
	if (atomic_fetch_add(&d->tl.reap_pending, (uint32_t)delta) == 0 && delta > 0)
		poller_nudge();
}

void
device_reap(struct rig_device *d)
{
	struct deferred **pp, *e, *due = NULL;

	if (!atomic_load(&d->ndeferred) || process_forked())
		return;
	pthread_mutex_lock(&d->mem_lock);
	for (pp = &d->deferred; (e = *pp);) {
		if (!device_done_with(d, e->value)) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		e->next = due;
		due = e;
		atomic_fetch_sub(&d->ndeferred, 1);
		reap_pending(d, -1);
	}
	pthread_mutex_unlock(&d->mem_lock);
	while ((e = due)) {
		due = e->next;
		submission_put(e->s);
		free(e);
	}
}
