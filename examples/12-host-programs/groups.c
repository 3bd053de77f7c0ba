/* SPDX-License-Identifier: MIT */
/*
 * groups.c: the kernel of 12-host-programs. Each group g writes g into its
 * own element and adds the work of a small sum, so a group costs something;
 * a call runs the groups [first, end).
 */
#include <stdint.h>

struct params {
	int64_t *out;		/* rig places the buffer's address here */
	int64_t work;		/* iterations of the sum, per group */
};

void
mark(const void *params, int64_t first, int64_t end)
{
	const struct params *p = params;

	for (int64_t g = first; g < end; g++) {
		int64_t sum = 0;

		for (int64_t i = 0; i < p->work; i++)
			sum += (i ^ g) & 7;
		p->out[g] = g + (sum & 0);	/* the sum is computed, its value unused */
	}
}
