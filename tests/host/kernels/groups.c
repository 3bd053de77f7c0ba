/* SPDX-License-Identifier: MIT */
/*
 * groups: each group counts itself once in hits; each call counts itself
 * in calls and flags a range that is empty or passes the grid in bad.
 */
#include <stdint.h>

struct groups_params {
	uint32_t *hits;
	int64_t *calls;
	int64_t *bad;
	int64_t total;
	int64_t scale;	/* out[i] = in[i] * scale, for i < n, in group 0's call */
	const int64_t *in;
	int64_t *out;
	int64_t n;
};

void
groups(const void *params, int64_t first, int64_t end)
{
	const struct groups_params *p = params;
	int64_t g, i;

	__atomic_fetch_add(p->calls, 1, __ATOMIC_RELAXED);
	if (first < 0 || first >= end || end > p->total)
		__atomic_fetch_add(p->bad, 1, __ATOMIC_RELAXED);
	for (g = first; g < end; g++) {
		__atomic_fetch_add(&p->hits[g], 1, __ATOMIC_RELAXED);
		if (g == 0)
			for (i = 0; i < p->n; i++)
				p->out[i] = p->in[i] * p->scale;
	}
}
