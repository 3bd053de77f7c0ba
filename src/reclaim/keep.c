/*
 * reclaim/keep.c: deferred references to submissions (reclaim.h). A job
 * the driver took defers its submission's reference until its value is
 * settled: the device's submission thread puts it in the device's limbo of
 * keeps (lock-free), keyed by that one point. Letting a submission go
 * releases buffers and images, which take locks of their own, so the
 * references go after the limbo handed them out, holding nothing. After a
 * loss a value is settled only once the driver stopped (the word is raised
 * then), since the lost device's work may still use what it keeps.
 */
#include <stdlib.h>

#include "reclaim/owner.h"

struct keep {
	struct limbo_item item;		/* first: an item is its keep */
	struct rig_submission *s;
};

void
defer_put(struct rig_device *d, struct rig_submission *s, uint64_t value)
{
	struct timeline *tl = device_timeline(d);
	struct keep *k;

	if (timeline_settled(tl, value) || !(k = calloc(1, sizeof(*k)))) {
		submission_put(s);	/* done already, or no memory to wait */
		return;
	}
	k->s = s;
	limbo_item_add(&k->item, (uint32_t)tl->slot, value);	/* one point: no heap */
	if (limbo_put_mp(&device_reclaim(d)->keeps, &k->item))
		reclaim_pending(tl, 1);
}

static void
seen(const struct limbo_item *it, void *arg)
{
	*(const void **)arg = ((const struct keep *)it)->s;
}

const void *
deferred_submission(struct rig_device *d, uint64_t value)
{
	const void *s = NULL;

	limbo_find(&device_reclaim(d)->keeps, value, seen, &s);
	return s;
}

void
device_reap(struct rig_device *d)
{
	struct limbo *keeps = &device_reclaim(d)->keeps;
	struct limbo_item *due, *next;
	uint64_t none;
	bool emptied;

	if (!limbo_count(keeps) || process_forked())
		return;
	due = limbo_due(keeps, LIMBO_IDLE, 0, 0, &none, &emptied);
	if (emptied)
		reclaim_pending(device_timeline(d), -1);
	for (; due; due = next) {
		struct keep *k = (struct keep *)due;

		next = due->next;
		submission_put(k->s);
		limbo_item_clear(&k->item);
		free(k);
	}
}
