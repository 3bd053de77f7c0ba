/* SPDX-License-Identifier: MIT */
/* add: c = a + b over per_group elements per group. */
#include <stdint.h>

struct add_params {
	const float *a;
	const float *b;
	float *c;
	int64_t n;
	int64_t per_group;
};

void
add(const void *params, int64_t first, int64_t end)
{
	const struct add_params *p = params;
	int64_t i, stop;

	for (; first < end; first++) {
		stop = (first + 1) * p->per_group;
		if (stop > p->n)
			stop = p->n;
		for (i = first * p->per_group; i < stop; i++)
			p->c[i] = p->a[i] + p->b[i];
	}
}
