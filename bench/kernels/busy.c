/* SPDX-License-Identifier: MIT */
/*
 * busy.c: a host kernel of a set amount of arithmetic per group, for
 * launches of a millisecond or so. bench_host loads it on rig and links
 * the same object into its peers, so both run the same machine code. If
 * params give a clock, each call stamps its end into *last_end (the
 * latest wins): when the launch's last group ended.
 */
#include <stdint.h>

struct busy_params {
	double *out;
	int64_t iters;
	uint64_t (*now)(void);
	uint64_t *last_end;
};

void
busy(const void *params, int64_t first, int64_t end)
{
	const struct busy_params *p = params;
	uint64_t t, seen;

	for (; first < end; first++) {
		double x = (double)first;

		for (int64_t i = 0; i < p->iters; i++)
			x = x * 0.9999999 + 1e-7;
		p->out[first] = x;
	}
	if (!p->now)
		return;
	t = p->now();
	seen = __atomic_load_n(p->last_end, __ATOMIC_RELAXED);
	while (t > seen && !__atomic_compare_exchange_n(p->last_end, &seen, t, 1,
							  __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
