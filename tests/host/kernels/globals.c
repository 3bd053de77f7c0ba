/* SPDX-License-Identifier: MIT */
/*
 * globals: a kernel that reads a table the host fills through
 * rig_image_symbol() and counts its groups in a global the host reads back.
 */
#include <stdint.h>

int64_t table[64];			/* the host fills it before launching */
int64_t groups_run;			/* the kernel's count, read by the host */
const int64_t weights[4] = { 1, 2, 3, 4 };

struct globals_params {
	int64_t *out;
};

void
weigh_table(const void *params, int64_t first, int64_t end)
{
	const struct globals_params *p = params;

	for (; first < end; first++) {
		p->out[first] = table[first & 63] * weights[first & 3];
		__atomic_fetch_add(&groups_run, 1, __ATOMIC_RELAXED);
	}
}

void
clear_count(const void *params, int64_t first, int64_t end)
{
	__atomic_store_n(&groups_run, 0, __ATOMIC_RELAXED);
}
