/* SPDX-License-Identifier: MIT */
/*
 * wide: what makes a compiler call libgcc: 128-bit division and popcount
 * (gcc calls __divti3, __udivti3, __modti3, __umodti3 and __popcountdi2
 * without -mpopcnt).
 */
#include <stdint.h>

struct wide_params {
	const uint64_t *x;
	int64_t *out;	/* 5 per group */
};

void
wide(const void *params, int64_t first, int64_t end)
{
	const struct wide_params *p = params;

	for (; first < end; first++) {
		unsigned __int128 u = ((unsigned __int128)p->x[first] << 64) | 12345u;
		__int128 s = -(__int128)u / 3;

		p->out[5 * first + 0] = (int64_t)(u / (p->x[first] | 1));
		p->out[5 * first + 1] = (int64_t)(u % (p->x[first] | 1));
		p->out[5 * first + 2] = (int64_t)(s / 7);
		p->out[5 * first + 3] = (int64_t)(s % 7);
		p->out[5 * first + 4] = __builtin_popcountll(p->x[first]);
	}
}
