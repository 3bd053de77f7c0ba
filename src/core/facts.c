/* SPDX-License-Identifier: MIT */
/*
 * core/facts.c: the checks rig makes of a device's facts when it opens
 * (docs/drivers.md, Facts). Each refusal has its own message.
 */
#include "core/device.h"
#include "core/error.h"

static int
check_queues(const struct rig_facts *f)
{
	const struct rig_queue *q;

	if (f->nqueues && !f->queues)
		return rig_cause(RIG_EINVAL, "facts list %zu queues but give none", f->nqueues);
	for (size_t i = 0; i < f->nqueues; i++)
		if (!f->queues[i].name)
			return rig_cause(RIG_EINVAL, "queue %zu has no name", i);
	if (f->copy_engine < -1 || f->copy_engine >= (int)f->nqueues)
		return rig_cause(RIG_EINVAL,
				"copy_engine %d names no queue (the device has %zu)",
				f->copy_engine, f->nqueues);
	if (f->copy_engine >= 0) {
		q = &f->queues[f->copy_engine];
		if (!(q->runs & RIG_RUNS(RIG_COPY_PART)))
			return rig_cause(RIG_EINVAL,
					"copy_engine names queue %s, which does not run copies",
					q->name);
	}
	return 0;
}

static int
check_counters(const struct rig_facts *f)
{
	const struct rig_driver *drv = *(const struct rig_driver *const *)f->edge;

	if ((f->ncounters == 0) != (drv->measures == NULL))
		return rig_cause(RIG_EINVAL,
				"the device lists %zu counters but its measures is %s",
				f->ncounters, drv->measures ? "not NULL" : "NULL");
	for (size_t i = 0; i < f->ncounters; i++)
		if (f->counters[i].values < 1)
			return rig_cause(RIG_EINVAL, "counter %s has %d values, below 1",
					f->counters[i].name ? f->counters[i].name : "(unnamed)",
					f->counters[i].values);
	return 0;
}

int
facts_check(const struct rig_facts *f)
{
	const struct rig_driver *drv;
	int ret;

	if (!f->arch)
		return rig_cause(RIG_EINVAL, "arch is NULL");
	if ((ret = check_queues(f)) < 0)
		return ret;
	if (f->hang_ms.some && f->hang_ms.value < 1)
		return rig_cause(RIG_EINVAL, "hang_ms %lld is below 1",
				(long long)f->hang_ms.value);
	if (f->cache_bytes.some && f->cache_bytes.value < 1)
		return rig_cause(RIG_EINVAL, "cache_bytes %lld is below 1",
				(long long)f->cache_bytes.value);
	if (f->alignment == 0 || (f->alignment & (f->alignment - 1)))
		return rig_cause(RIG_EINVAL, "alignment %llu is not a power of two",
				(unsigned long long)f->alignment);
	if (f->completion != RIG_BY_STORE && f->completion != RIG_BY_HOST)
		return rig_cause(RIG_EINVAL, "completion %d is neither store nor host",
				(int)f->completion);
	if (!f->edge)
		return rig_cause(RIG_EINVAL, "edge is NULL");
	drv = *(const struct rig_driver *const *)f->edge;
	if (!drv)
		return rig_cause(RIG_EINVAL, "the edge's first member (its struct rig_driver) is NULL");
	if (!drv->room || !drv->submit || !drv->commit)
		return rig_cause(RIG_EINVAL, "its struct rig_driver lacks %s",
				!drv->room ? "room" : !drv->submit ? "submit" : "commit");
	return check_counters(f);
}
