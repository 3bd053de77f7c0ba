/* SPDX-License-Identifier: MIT */
/*
 * reclaim/reclaim.h: release and return (docs/reclamation.md), as the core calls them.
 * A device's reclaim state is a zeroed struct reclaim: its limbo of
 * released memory, its limbo of what submissions keep, and the bytes it
 * holds of its budget. See README.md for what this folder owns.
 */
#ifndef RECLAIM_RECLAIM_H
#define RECLAIM_RECLAIM_H

#include "reclaim/limbo.h"
#include "timeline/timeline.h"

struct rig_device;
struct rig_submission;
struct submitter;

struct reclaim {
	struct limbo memory;		/* released with work in flight */
	struct limbo keeps;		/* submissions let go once a value is settled */
	_Atomic bool keeps_ended;	/* the device's end took its keeps (keeps_end) */
	_Atomic uint64_t allocated;	/* bytes held from the driver, live or in limbo */
};

/* ---- budget.c: a device's budget and what it holds (rig_budget()) ---- */

/* Count bytes more against limit: false (nothing counted) if they do not
 * fit. Lock-free, any thread. */
bool budget_reserve(struct reclaim *rc, uint64_t limit, uint64_t bytes);
/* Count bytes less (they went back to the driver, or never came). */
void budget_unreserve(struct reclaim *rc, uint64_t bytes);

/* ---- return.c: giving memory back, and the loops that wait for it ---- */

/*
 * The poller's pass (the timeline's reap hook) when the word moved or
 * tl.reap_at came: let go of the keeps whose value is done, give back idle
 * memory nothing reuses, and reusable memory idle LIMBO_AGE_NS. How many
 * allocations came back. No lock held.
 */
size_t alloc_reclaim(struct rig_device *d);
/* Give back every idle allocation in d's limbo but those an allocation of
 * key could reuse (0: all), after the keeps due: how many. No lock held. */
size_t reclaim_room(struct rig_device *d, uint64_t key);
/* The submitter's hook: a grow came up short. Waits for nothing. */
bool alloc_reclaim_for_grow(struct submitter *sub);
/*
 * Call attempt(arg) until it answers anything but RIG_ENOMEM: after each
 * refusal for room, give back idle released memory, or else wait for the
 * work of released memory, and try again; RIG_ENOMEM once nothing more can
 * come back. Waits on the host: never from the submission thread.
 */
int reclaim_retry(struct rig_device *d, int (*attempt)(void *arg), void *arg);

/* Count delta things that wait for tl's word to move (the poller's cue:
 * the first wakes it). */
void reclaim_pending(struct timeline *tl, int delta);

/*
 * ---- keep.c: what a submission keeps (its images, its keep) goes only
 * once the work submitted through it is done. A submission let go with
 * work in flight defers its last reference until the device is done with
 * its last value; waits, allocations, the poller and the device's end let
 * go of what is due. ----
 */
void defer_put(struct rig_device *d, struct rig_submission *s, uint64_t value);
/* Let go of what is due; no lock held. True when some was settled but not
 * yet passed by the device's submitter: look again KEEP_RETRY_NS later. */
#define KEEP_RETRY_NS 1000000u
bool reclaim_keeps(struct rig_device *d);
/* The same, the poller told to look again where needed. */
void device_reap(struct rig_device *d);
/* At the device's end, once its submitter stopped (every value done): let
 * go of every keep; a keep put later goes at once (defer_put). */
void keeps_end(struct rig_device *d);

#endif
