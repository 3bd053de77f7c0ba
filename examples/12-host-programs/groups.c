/* SPDX-License-Identifier: MIT */
/*
 * groups.c: the kernels of 12-host-programs. mark: each group g writes g
 * into its own element and adds the work of a small sum, so a group costs
 * something; a call runs the groups [first, end). mark_bad does the same
 * but stores through a NULL pointer at group `bad`, as a buggy kernel
 * does: rig contains the fault and loses only its device.
 */
#include <stdint.h>

#include "rig_host.h"

struct params {
	int64_t *out;		/* rig places the buffer's address here */
	int64_t work;		/* iterations of the sum, per group */
	int64_t bad;		/* mark_bad: the group that faults */
};

static void
one(const struct params *p, int64_t g)
{
	int64_t sum = 0;

	for (int64_t i = 0; i < p->work; i++)
		sum += (i ^ g) & 7;
	p->out[g] = g + (sum & 0);	/* the sum is computed, its value unused */
}

RIG_HOST_KERNEL void
mark(const void *params, int64_t first, int64_t end)
{
	for (int64_t g = first; g < end; g++)
		one(params, g);
}

RIG_HOST_KERNEL void
mark_bad(const void *params, int64_t first, int64_t end)
{
	const struct params *p = params;

	for (int64_t g = first; g < end; g++) {
		if (g == p->bad)
			*(volatile int64_t *)(uintptr_t)(p->bad - g) = 1;	/* NULL */
		one(p, g);
	}
}
