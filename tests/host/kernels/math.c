/* SPDX-License-Identifier: MIT */
/* math: libm's functions, double and float, one element per group. */
#include <stdint.h>

double sqrt(double), exp(double), log(double), sin(double), cos(double);
double pow(double, double), fma(double, double, double);
float sqrtf(float), expf(float), logf(float), sinf(float), cosf(float);
float powf(float, float), fmaf(float, float, float);

struct math_params {
	const double *x;
	double *out;	/* 7 rows of n: sqrt exp log sin cos pow fma */
	float *outf;	/* the same, in float */
	int64_t n;
};

void
math(const void *params, int64_t first, int64_t end)
{
	const struct math_params *p = params;
	int64_t n = p->n, i;

	for (i = first; i < end; i++) {
		double x = p->x[i];
		float f = (float)x;

		p->out[0 * n + i] = sqrt(x);
		p->out[1 * n + i] = exp(x);
		p->out[2 * n + i] = log(x);
		p->out[3 * n + i] = sin(x);
		p->out[4 * n + i] = cos(x);
		p->out[5 * n + i] = pow(x, 1.0 + x);
		p->out[6 * n + i] = fma(x, x, -x);
		p->outf[0 * n + i] = sqrtf(f);
		p->outf[1 * n + i] = expf(f);
		p->outf[2 * n + i] = logf(f);
		p->outf[3 * n + i] = sinf(f);
		p->outf[4 * n + i] = cosf(f);
		p->outf[5 * n + i] = powf(f, 1.0f + f);
		p->outf[6 * n + i] = fmaf(f, f, -f);
	}
}
