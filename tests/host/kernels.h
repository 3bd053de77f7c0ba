/* SPDX-License-Identifier: MIT */
/*
 * tests/host/kernels.h: reading the kernels the test build compiled with
 * `cc -c -O2 -fPIC -ffreestanding -fno-math-errno -nostdlib` (meson puts
 * them in HOST_KERNELS), and their parameter blocks, shared with the
 * kernels' sources under kernels/.
 */
#ifndef TESTS_HOST_KERNELS_H
#define TESTS_HOST_KERNELS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct add_params {
	const float *a;
	const float *b;
	float *c;
	int64_t n;
	int64_t per_group;
};

struct math_params {
	const double *x;
	double *out;
	float *outf;
	int64_t n;
};

struct mem_params {
	unsigned char *dst;
	const unsigned char *src;
	int64_t bytes;
};

struct data_params {
	int64_t *out;
};

struct groups_params {
	uint32_t *hits;
	int64_t *calls;
	int64_t *bad;
	int64_t total;
	int64_t scale;
	const int64_t *in;
	int64_t *out;
	int64_t n;
};

typedef void (*kernel_fn)(const void *params, int64_t first, int64_t end);

/* The bytes of kernels/<name>.o, malloc'd; exits the test if unreadable. */
static inline unsigned char *
kernel_read(const char *name, size_t *len)
{
	char path[512];
	unsigned char *b;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.o", HOST_KERNELS, name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	rewind(f);
	b = malloc((size_t)n);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

#endif
