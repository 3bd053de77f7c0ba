/* SPDX-License-Identifier: MIT */
/*
 * models: one kernel the tests compile in several code models (non-PIC,
 * -fPIC -mcmodel=large, -O3): globals, a read-only table, a static
 * function pointer and calls into libm, including the functions a
 * compiler emits calls to for C99 math (ldexpf, erfcf, asinhf, lroundf,
 * nearbyintf, sincos).
 */
#include <stdint.h>

#include "rig_host.h"

float ldexpf(float, int);
float erfcf(float);
float asinhf(float);
long lroundf(float);
float nearbyintf(float);
void sincos(double, double *, double *);

static const double scale[4] = { 1.0, 0.5, 0.25, 2.0 };
double bias = 3.0;
int64_t models_calls;

static double twice(double x) { return 2 * x; }
static double (*volatile op)(double) = twice;

struct models_params {
	double *out;		/* 8 per group */
};

RIG_HOST_KERNEL void
models(const void *params, int64_t first, int64_t end)
{
	const struct models_params *p = params;

	for (; first < end; first++) {
		double *o = p->out + 8 * first, s, c;
		float x = (float)first * 0.125f;

		sincos((double)x, &s, &c);
		o[0] = op((double)first) * scale[first & 3] + bias;
		o[1] = ldexpf(x, 3);
		o[2] = erfcf(x);
		o[3] = asinhf(x);
		o[4] = (double)lroundf(x * 3.3f);
		o[5] = nearbyintf(x * 1.7f);
		o[6] = s;
		o[7] = c;
		__atomic_fetch_add(&models_calls, 1, __ATOMIC_RELAXED);
	}
}
