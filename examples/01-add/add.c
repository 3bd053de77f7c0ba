/* SPDX-License-Identifier: MIT */
/*
 * add.c: the kernel of 01-add, c = a + b, compiled by the build as a host
 * object (cc -c -O2 -fPIC -ffreestanding -fno-math-errno -nostdlib) and
 * loaded by rig at run time. Group g adds elements [g * 4096, g * 4096 +
 * 4096) below n; a call runs the whole groups [first, end).
 */
#include <stdint.h>

#define PER_GROUP 4096

struct add_params {
	const float *a;		/* rig places the buffers' addresses here */
	const float *b;
	float *c;
	int64_t n;
};

void
add(const void *params, int64_t first, int64_t end)
{
	const struct add_params *p = params;
	int64_t stop = end * PER_GROUP < p->n ? end * PER_GROUP : p->n;

	for (int64_t i = first * PER_GROUP; i < stop; i++)
		p->c[i] = p->a[i] + p->b[i];
}
