/* SPDX-License-Identifier: MIT */
/*
 * scale.c: the kernel of 10-profile. Group g writes g * k into its own
 * element, after a small sum that makes a group cost something.
 */
#include <stdint.h>

struct params {
	int64_t *out;		/* rig places the buffer's address here */
	int64_t k;
	int64_t work;		/* iterations of the sum, per group */
};

void
scale(const void *params, int64_t first, int64_t end)
{
	const struct params *p = params;

	for (int64_t g = first; g < end; g++) {
		int64_t sum = 0;

		for (int64_t i = 0; i < p->work; i++)
			sum += (i ^ g) & 7;
		p->out[g] = g * p->k + (sum & 0);
	}
}
