/* SPDX-License-Identifier: MIT */
/*
 * tests/host/fault_run.h: one launch of a kernel of kernels/fault.c on a
 * host device, through rig's public calls, for test_host_fault and its
 * helper host_crash.
 */
#ifndef TESTS_HOST_FAULT_RUN_H
#define TESTS_HOST_FAULT_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"

struct fault_params {
	uint64_t out;			/* a ref */
	int64_t bad;			/* the group that faults; -1: none */
	int64_t zero;
	volatile int64_t *release;	/* spin's flag */
	int64_t *counter;		/* stamp's */
};

/* The counter stamp kernels take the next value of. */
static int64_t fault_counter;

/* The bytes of fault.o, once. */
static inline const char *
fault_object(size_t *len)
{
	static char object[1 << 16];
	static size_t n;
	FILE *f;

	if (!n) {
		f = fopen(HOST_KERNELS "/fault.o", "rb");
		n = f ? fread(object, 1, sizeof(object), f) : 0;
		if (f)
			fclose(f);
	}
	*len = n;
	return object;
}

/* A submission on d of the named kernels, one part each, over groups. */
struct fault_run {
	struct rig_image *img;
	struct rig_submission *s;
	struct rig_buffer *out;
	struct rig_point p;
	int submitted;			/* rig_submit's status */
};

/* As fault_run_start(), after the points after[0..nafter). */
static inline int
fault_run_after(struct rig_device *d, const char *const *names, size_t n, int64_t groups,
		int64_t bad, volatile int64_t *release, const struct rig_point *after,
		size_t nafter, struct fault_run *r)
{
	struct rig_ref refs[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec parts[4];
	struct fault_params fp = { 0, bad, 0, release, &fault_counter };
	const uint32_t grid[3] = { (uint32_t)groups, 1, 1 }, group[3] = { 1, 1, 1 };
	struct rig_function *fn;
	struct rig_run *run;
	size_t len, i;
	const char *obj = fault_object(&len);

	if (!len || n > 4 || rig_image_load(d, obj, len, &r->img) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (rig_image_function(r->img, names[i], &fn) != 0)
			return -1;
		parts[i] = rig_part_launch(fn, sizeof(fp), refs, 1);
	}
	if (rig_submission_make(d, parts, n, NULL, 0, (struct rig_keep){ 0 }, &r->s) != 0 ||
	    rig_buffer_create(d, (size_t)groups * 8, RIG_MEMORY_DEVICE, &r->out) != 0 ||
	    rig_run_take(r->s, &run) != 0)
		return -1;
	for (i = 0; i < n; i++)
		if (rig_run_store(run, i, grid, group, &fp, sizeof(fp)) != 0)
			return -1;
	r->submitted = rig_submit(run, &r->out, 1, after, nafter, &r->p);
	return r->submitted;
}

static inline int
fault_run_start(struct rig_device *d, const char *const *names, size_t n, int64_t groups,
		int64_t bad, volatile int64_t *release, struct fault_run *r)
{
	return fault_run_after(d, names, n, groups, bad, release, NULL, 0, r);
}

static inline void
fault_run_end(struct fault_run *r)
{
	rig_buffer_release(r->out);
	rig_submission_release(r->s);
	rig_image_release(r->img);
}

#endif
