/* SPDX-License-Identifier: MIT */
/*
 * assist: kernels that tell whether the waiter ran them (test_host_assist).
 * A call runs on the waiter's thread when its stack lies in [lo, hi), the
 * waiter's, which the test gives. mark counts each group once in hits and
 * the groups the waiter ran in on_waiter; with wait_for_waiter, the
 * others' groups wait (a bounded look at *begun) until the waiter has run
 * one, so a waiter that joins at all finds chunks left to take. on_waiter
 * faults (a store through NULL) on the waiter's first group, after it set
 * *begun, so the other threads' groups end. spin_release: every group
 * waits until *release is set (with wait_for_waiter, the others' first
 * wait for the waiter as mark's do).
 */
#include <stdint.h>

#include "rig_host.h"

struct assist_params {
	uint32_t *hits;
	int64_t *on_waiter;
	uintptr_t lo, hi;		/* the waiter's stack */
	volatile int64_t *begun;
	int64_t wait_for_waiter;
	int64_t work;			/* arithmetic per group */
	volatile int64_t *release;
	int64_t zero;
};

/* Looks at *begun about this often before a group gives up waiting: seconds. */
#define BOUND	4000000000ll

static int
waiters(const struct assist_params *p)
{
	volatile char here;
	uintptr_t at = (uintptr_t)&here;

	return at >= p->lo && at < p->hi;
}

static void
work(const struct assist_params *p, int64_t g)
{
	volatile double x = (double)g;

	for (int64_t i = 0; i < p->work; i++)
		x = x * 1.0000001 + 1.0;
}

RIG_HOST_KERNEL void
mark(const void *params, int64_t first, int64_t end)
{
	const struct assist_params *p = params;
	int mine = waiters(p);

	/* Once per call: a waiter that never comes costs one bound. */
	if (!mine && p->wait_for_waiter)
		for (int64_t i = 0; i < BOUND && !*p->begun; i++)
			;
	for (; first < end; first++) {
		if (mine) {
			__atomic_fetch_add(p->on_waiter, 1, __ATOMIC_RELAXED);
			*p->begun = 1;
		}
		work(p, first);
		__atomic_fetch_add(&p->hits[first], 1, __ATOMIC_RELAXED);
	}
}

RIG_HOST_KERNEL void
on_waiter(const void *params, int64_t first, int64_t end)
{
	const struct assist_params *p = params;

	if (waiters(p)) {
		*p->begun = 1;
		*(volatile int64_t *)(uintptr_t)p->zero = 1;
	}
	for (int64_t i = 0; i < BOUND && !*p->begun; i++)
		;
}

RIG_HOST_KERNEL void
spin_release(const void *params, int64_t first, int64_t end)
{
	const struct assist_params *p = params;

	if (waiters(p)) {
		__atomic_fetch_add(p->on_waiter, 1, __ATOMIC_RELAXED);
		*p->begun = 1;
	} else if (p->wait_for_waiter) {
		for (int64_t i = 0; i < BOUND && !*p->begun; i++)
			;
	}
	while (!*p->release)
		;
}
