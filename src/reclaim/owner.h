/* SPDX-License-Identifier: MIT */
/*
 * reclaim/owner.h: what reclaim/ needs of the core, the layer above it,
 * which owns devices, allocations and submissions. reclaim/ includes no
 * header of the core's objects: a full layering would have the core hand
 * reclaim its device's state and hooks at open, which devices.c (not ours
 * to change now) does not do, so these few functions, defined by the core
 * (core/owner.c, core/alloc.c), are reclaim's window on it, with
 * submission_put() of submit/ (also above reclaim), which a deferred keep
 * calls at last. Beside them reclaim uses core/error.h, the one way to set
 * rig_why().
 */
#ifndef RECLAIM_OWNER_H
#define RECLAIM_OWNER_H

#include "reclaim/reclaim.h"

/* Where d keeps its reclaim state, its timeline and its budget (set from
 * its facts at open, then by rig_set_budget()). */
struct reclaim *device_reclaim(const struct rig_device *d);
struct timeline *device_timeline(struct rig_device *d);
_Atomic uint64_t *device_budget(const struct rig_device *d);
struct rig_device *device_of_submitter(struct submitter *sub);

/*
 * core/alloc.c: give the memory of the allocations pick chooses in d's
 * limbo (limbo_due) back to the driver and free their handles: how many.
 * *next_ns as limbo_due says. No lock held.
 */
size_t alloc_return(struct rig_device *d, enum limbo_pick pick, uint64_t key,
		    uint64_t now, uint64_t *next_ns);

/* core/owner.c: d's work of value is settled, and d's submitter passed
 * it (what a deferred submission waits for). */
bool device_done_with(struct rig_device *d, uint64_t value);
/* submit/submission.c: let a submission go (its buffers, images, keep). */
void submission_put(struct rig_submission *s);
/* core/process.c: in a child forked while rig was in use, which lets
 * nothing go. */
bool process_forked(void);

#endif
