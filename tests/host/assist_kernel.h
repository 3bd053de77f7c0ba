/* SPDX-License-Identifier: MIT */
/*
 * tests/host/assist_kernel.h: the kernels of kernels/assist.c as the
 * tests that run a host value off the device thread load them
 * (test_host_assist: on a waiter; test_host_here: on the submitter). The
 * params' layout is the kernels' own.
 */
#ifndef TESTS_HOST_ASSIST_KERNEL_H
#define TESTS_HOST_ASSIST_KERNEL_H

#include <stdio.h>

#include "../core/common.h"

struct assist_params {
	uint32_t *hits;
	int64_t *on_waiter;
	uintptr_t lo, hi;
	volatile int64_t *begun;
	int64_t wait_for_waiter;
	int64_t work;
	volatile int64_t *release;
	int64_t zero;
};

struct kernel {
	struct rig_image *img;
	struct rig_submission *s;
};

static struct kernel
kernel_load(struct rig_device *d, const char *name)
{
	static char object[1 << 16];
	struct rig_function *fn;
	struct rig_part_spec part;
	struct kernel k;
	size_t len;
	FILE *f = fopen(HOST_KERNELS "/assist.o", "rb");

	assert_non_null(f);
	len = fread(object, 1, sizeof(object), f);
	fclose(f);
	assert_int_equal(rig_image_load(d, object, len, &k.img), 0);
	assert_int_equal(rig_image_function(k.img, name, &fn), 0);
	part = rig_part_launch(fn, sizeof(struct assist_params), NULL, 0);
	assert_int_equal(rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &k.s), 0);
	return k;
}

static void
kernel_release(struct kernel *k)
{
	rig_submission_release(k->s);
	rig_image_release(k->img);
}

/* One launch of k over groups groups with params p: its point. */
static inline struct rig_point
launch(struct kernel *k, const struct assist_params *p, int64_t groups)
{
	const uint32_t grid[3] = { (uint32_t)groups, 1, 1 }, one[3] = { 1, 1, 1 };
	struct rig_point pt;
	struct rig_run *r;

	assert_int_equal(rig_run_take(k->s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, grid, one, p, sizeof(*p)), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &pt), 0);
	return pt;
}

#endif
