/* SPDX-License-Identifier: MIT */
/*
 * core/point.c: points, the values of a device's timeline a program holds,
 * and what it asks of them.
 */
#include "core/device.h"
#include "core/error.h"
#include "profile/profile.h"

bool
rig_reached(struct rig_point p)
{
	if (!p.device)
		return rig_fail(0, "the point names no device"), false;
	return timeline_reached(&p.device->tl, p.value);
}

bool
rig_signaled(struct rig_point p)
{
	if (!p.device)
		return rig_fail(0, "the point names no device"), false;
	return timeline_signaled(&p.device->tl, p.value);
}

int
rig_wait(struct rig_point p, uint64_t timeout_ns)
{
	struct rig_device *d = p.device;
	int ret;

	if (!d)
		return rig_fail(RIG_EINVAL, "the point names no device");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	/* A value above issued was given by no submit: nothing would ever
	 * signal it (one comparison: issued only grows). */
	if (p.value > atomic_load_explicit(&d->tl.issued, memory_order_acquire))
		return rig_fail(RIG_EINVAL, "value %llu of %s was given by no submit (the last given is %llu)",
				(unsigned long long)p.value, d->name,
				(unsigned long long)atomic_load(&d->tl.issued));
	/* Profiles: a host wait is a span with an arrow (src/profile/). */
	if (__builtin_expect(atomic_load_explicit(&profile_taken, memory_order_relaxed), 0)) {
		uint64_t t0 = rig_now_ns();

		ret = timeline_wait(&d->tl, p.value, timeout_ns);
		profile_host_wait(d, p.value, t0);
	} else {
		ret = timeline_wait(&d->tl, p.value, timeout_ns);
	}
	device_reap(d);
	if (ret == RIG_ELOST) {
		char chain[512];

		loss_chain_text(d->tl.loss, chain, sizeof(chain));
		return rig_fail(ret, "value %llu of %s was dropped: %s is lost: %s",
				(unsigned long long)p.value, d->name, d->name, chain);
	}
	if (ret == RIG_ETIMEDOUT)
		return rig_fail(ret, "value %llu of %s not signaled after %llu ns (its word shows %llu)",
				(unsigned long long)p.value, d->name,
				(unsigned long long)timeout_ns,
				(unsigned long long)timeline_word(&d->tl));
	return 0;
}
