/* SPDX-License-Identifier: MIT */
/*
 * reclaim/keep.c: deferred references to submissions (reclaim.h). A
 * submission let go while work submitted through it is in flight defers
 * its last reference until the device is done with its last value (that
 * value settled, and the device's submitter past it): the reference waits
 * in the device's limbo of keeps (put lock-free), keyed by that value's
 * point. Letting a submission go releases buffers and images, which take
 * locks of their own, so references go after the limbo handed them out,
 * holding nothing. After a loss a value is settled only once the driver
 * stopped (the word is raised then), since the lost device's work may
 * still use what it keeps. A keep whose value is settled but not yet
 * passed by the submitter (the moment between the driver's work and the
 * submitter's step, which after a loss lasts until the submitter dropped
 * the values it held) goes back in, and the poller looks again
 * KEEP_RETRY_NS later.
 *
 * The device's end, once its submitter stopped (every value done), lets
 * go of the keeps once more (keeps_end) and the poller looks no more: a
 * release that found its value not done before the stop, and puts its
 * keep after that last look, would wait forever, holding the submission
 * and its device. keeps_ended, stored before that look and read after
 * the put (both seq_cst): the end's look finds the keep, or the put sees
 * the flag and lets go of the keeps itself.
 */
#include <stdlib.h>

#include "reclaim/owner.h"

struct keep {
	struct limbo_item item;		/* first: an item is its keep */
	struct rig_submission *s;
	uint64_t value;
};

static void
put_keep(struct rig_device *d, struct keep *k)
{
	if (limbo_put_mp(&device_reclaim(d)->keeps, &k->item))
		reclaim_pending(device_timeline(d), 1);
}

/* The device's slot in the words: tl->slot is cleared at the end, the
 * word's address is not (a later holder's values only count up). */
static uint32_t
own_slot(const struct timeline *tl)
{
	return (uint32_t)(tl->word - rig_words);
}

void
defer_put(struct rig_device *d, struct rig_submission *s, uint64_t value)
{
	struct timeline *tl = device_timeline(d);
	struct reclaim *rc = device_reclaim(d);
	struct keep *k;

	/* Past the end's last look: every value is done, s goes now. */
	if (atomic_load(&rc->keeps_ended)) {
		submission_put(s);
		return;
	}
	while (!(k = calloc(1, sizeof(*k)))) {
		/* No memory to wait in the limbo: wait here. */
		if (device_done_with(d, value)) {
			submission_put(s);
			return;
		}
		timeline_wait_settled(tl, value, 1000000);
	}
	k->s = s;
	k->value = value;
	limbo_item_add(&k->item, own_slot(tl), value);	/* one point: no heap */
	put_keep(d, k);
	if (atomic_load(&rc->keeps_ended))
		reclaim_keeps(d);
}

bool
reclaim_keeps(struct rig_device *d)
{
	struct limbo *keeps = &device_reclaim(d)->keeps;
	struct limbo_item *due, *next;
	bool again = false;
	uint64_t none;

	if (process_forked())
		return false;
	due = limbo_due(keeps, LIMBO_IDLE, 0, 0, &none);
	for (; due; due = next) {
		struct keep *k = (struct keep *)due;

		next = due->next;
		if (!device_done_with(d, k->value)) {
			put_keep(d, k);
			again = true;
			continue;
		}
		submission_put(k->s);
		limbo_item_clear(&k->item);
		free(k);
	}
	/* Emptied: the poller looks at the keeps no more. */
	if (limbo_unwatch(keeps))
		reclaim_pending(device_timeline(d), -1);
	return again;
}

void
device_reap(struct rig_device *d)
{
	if (reclaim_keeps(d))
		atomic_store_explicit(&device_timeline(d)->reap_at,
				      rig_now_ns() + KEEP_RETRY_NS, memory_order_relaxed);
}

void
keeps_end(struct rig_device *d)
{
	atomic_store(&device_reclaim(d)->keeps_ended, true);
	reclaim_keeps(d);
}
