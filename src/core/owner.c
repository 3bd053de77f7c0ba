/* SPDX-License-Identifier: MIT */
/*
 * core/owner.c: the core's side of reclaim/owner.h: where a device keeps
 * what reclaim/ works on, and when it is done with a value. reclaim/ sits
 * below the core and sees no device layout; these are its only way in.
 */
#include <stddef.h>

#include "core/device.h"
#include "reclaim/owner.h"

struct reclaim *
device_reclaim(const struct rig_device *d)
{
	return (struct reclaim *)&d->rc;
}

struct timeline *
device_timeline(struct rig_device *d)
{
	return &d->tl;
}

_Atomic uint64_t *
device_budget(const struct rig_device *d)
{
	return (_Atomic uint64_t *)&d->budget;
}

bool
device_done_with(struct rig_device *d, uint64_t value)
{
	return timeline_settled(&d->tl, value) && submit_passed(&d->sub, value);
}

struct rig_device *
device_of_submitter(struct submitter *sub)
{
	return (struct rig_device *)((char *)sub - offsetof(struct rig_device, sub));
}
