/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/example.c: the kernels of rig's examples on the software GPU,
 * for a program that selected it (env.c). The sim runs no GPU ISA: a code
 * object's code bytes carry the sim's marker and a callback id (launch.c),
 * and these are the host functions those ids name. Each does what the
 * example's host kernel does, reading and writing only through the sim's
 * page walk (amd_sim_translate), so a wrong address the driver placed is
 * a VM fault here as on a GPU.
 *
 *   AMD_SIM_EXAMPLE_ADD  examples/01-add: kernargs { a, b, c, n } (three
 *                        float pointers and an int64); work-item i of the
 *                        grid adds c[k] = a[k] + b[k] for k in [i * 4096,
 *                        i * 4096 + 4096) below n, as the host kernel's
 *                        group does.
 */
#include <stdint.h>

#include "amd/sim/sim.h"

#define ADD_PER_ITEM 4096

struct add_args {
	uint64_t a, b, c;
	int64_t n;
};

/* The bytes from va to the end of its 4 KiB page, at most n. */
static uint64_t
in_page(uint64_t va, uint64_t n)
{
	uint64_t room = 4096 - (va & 4095);

	return room < n ? room : n;
}

static int
add(const struct amd_sim_launch *l)
{
	const struct add_args *k = amd_sim_translate(l, l->kernarg, sizeof(*k), false);
	uint64_t items;

	if (!k)
		return AMD_SIM_SQ_OK;		/* the fault halts the queue */
	if (k->n < 0)
		return AMD_SIM_SQ_OK;
	items = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] *
		l->group[0] * l->group[1] * l->group[2];
	for (uint64_t i = 0; i < items; i++) {
		uint64_t first = i * ADD_PER_ITEM, stop = first + ADD_PER_ITEM;

		if (first >= (uint64_t)k->n)
			break;
		stop = stop < (uint64_t)k->n ? stop : (uint64_t)k->n;
		for (uint64_t e = first; e < stop;) {
			uint64_t at = e * 4, bytes = (stop - e) * 4;
			const float *a, *b;
			float *c;

			bytes = in_page(k->a + at, bytes);
			bytes = in_page(k->b + at, bytes);
			bytes = in_page(k->c + at, bytes);
			a = amd_sim_translate(l, k->a + at, bytes, false);
			b = a ? amd_sim_translate(l, k->b + at, bytes, false) : NULL;
			c = b ? amd_sim_translate(l, k->c + at, bytes, true) : NULL;
			if (!c)
				return AMD_SIM_SQ_OK;
			for (uint64_t j = 0; j < bytes / 4; j++)
				c[j] = a[j] + b[j];
			e += bytes / 4 ? bytes / 4 : 1;
		}
	}
	return AMD_SIM_SQ_OK;
}

int
amd_sim_example_kernels(struct amd_sim *s)
{
	return amd_sim_kernel(s, AMD_SIM_EXAMPLE_ADD, add, NULL);
}
