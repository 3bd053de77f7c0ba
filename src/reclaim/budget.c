/* SPDX-License-Identifier: MIT */
/*
 * reclaim/budget.c: a device's budget (docs/reclamation.md) and the bytes it holds of
 * it: live memory and memory in its limbo, counted when the driver gives
 * it and uncounted when it goes back, never when released memory is
 * reused. Counting is one compare-and-swap, so an allocation is checked
 * against the budget and counted at once, with no lock; rig_allocated()
 * and rig_budget() read without one.
 */
#include "core/error.h"
#include "reclaim/owner.h"

bool
budget_reserve(struct reclaim *rc, uint64_t limit, uint64_t bytes)
{
	uint64_t held = atomic_load_explicit(&rc->allocated, memory_order_relaxed);

	do {
		if (held + bytes < bytes || held + bytes > limit)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&rc->allocated, &held, held + bytes,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

void
budget_unreserve(struct reclaim *rc, uint64_t bytes)
{
	atomic_fetch_sub_explicit(&rc->allocated, bytes, memory_order_relaxed);
}

uint64_t
rig_allocated(const struct rig_device *d)
{
	if (!d)
		return rig_fail(0, "the device is NULL");
	return atomic_load_explicit(&device_reclaim(d)->allocated, memory_order_relaxed);
}

uint64_t
rig_budget(const struct rig_device *d)
{
	if (!d)
		return rig_fail(0, "the device is NULL");
	return atomic_load_explicit(device_budget(d), memory_order_relaxed);
}

int
rig_set_budget(struct rig_device *d, uint64_t bytes)
{
	struct timeline *tl;
	char chain[512];

	if (!d)
		return rig_fail(RIG_EINVAL, "the device is NULL");
	if ((int64_t)bytes < 0)
		return rig_fail(RIG_EINVAL, "%lld bytes is negative", (long long)bytes);
	/* A lost device holds nothing more, and never will: a budget set
	 * now would be a change no later call could see. */
	tl = device_timeline(d);
	if (atomic_load_explicit(&tl->lost, memory_order_acquire)) {
		loss_chain_text(tl->loss, chain, sizeof(chain));
		return rig_fail(RIG_ELOST, "%s is lost: %s", tl->name, chain);
	}
	atomic_store_explicit(device_budget(d), bytes, memory_order_relaxed);
	return 0;
}
