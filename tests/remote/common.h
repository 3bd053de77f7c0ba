/* SPDX-License-Identifier: MIT */
/*
 * tests/remote/common.h: what the remote tests share: the add kernel's
 * object (examples/01-add/add.c), a remote HOST opened through an agent,
 * and an add of n floats run there with its inputs and output carried
 * through pinned memory of this process.
 */
#ifndef TESTS_REMOTE_COMMON_H
#define TESTS_REMOTE_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"
#include "rig_remote.h"

#define ADD_PER_GROUP 4096

static inline void *
read_object(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* The add kernel's submission on d: slots 0, 1 read, 2 written. */
static inline int
add_submission(struct rig_device *d, struct rig_submission **s, struct rig_image **img)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_function *fn;
	struct rig_part_spec part;
	size_t len = 0;
	void *obj = read_object(ADD_OBJECT, &len);
	int ret;

	if (!obj)
		return -1;
	ret = rig_image_load(d, obj, len, img);
	free(obj);
	if (ret < 0 || (ret = rig_image_function(*img, "add", &fn)) < 0)
		return ret;
	part = rig_part_launch(fn, 32, refs, 3);
	return rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, s);
}

/* Submit c = a + b over n floats. */
static inline int
add_submit(struct rig_submission *s, struct rig_buffer *a, struct rig_buffer *b,
	   struct rig_buffer *c, int64_t n, struct rig_point *p)
{
	struct rig_buffer *bufs[3] = { a, b, c };
	int64_t params[4] = { 0, 0, 0, n };
	uint32_t grid[3] = { (uint32_t)((n + ADD_PER_GROUP - 1) / ADD_PER_GROUP), 1, 1 };
	uint32_t group[3] = { 1, 1, 1 };
	struct rig_run *r;
	int ret;

	if ((ret = rig_run_take(s, &r)) < 0)
		return ret;
	if ((ret = rig_run_store(r, 0, grid, group, params, sizeof(params))) < 0) {
		rig_run_release(r);
		return ret;
	}
	return rig_submit(r, bufs, 3, NULL, 0, p);
}

#endif
