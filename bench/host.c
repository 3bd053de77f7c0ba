/* SPDX-License-Identifier: MIT */
/*
 * bench/host.c: the host device (issue 4). In one run:
 *   round_trip     - submit an empty kernel, rig_wait returns (ns, per op);
 *   batched_submit - empty kernels submitted back to back, one wait (ns);
 *   vector_add     - examples/01-add's kernel on 16 Mi floats (GB/s of bytes
 *                    read and written), beside bench_floor's plain loop.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "rig.h"

#define ELEMS (16u << 20)
#define PER_GROUP 4096

static struct rig_device *host;
static struct rig_submission *empty_s, *add_s;
static struct rig_buffer *a, *b, *c;
static struct rig_point last;
static const uint32_t one[3] = { 1, 1, 1 };

static int
submit_empty(void)
{
	struct rig_run *r;

	if (rig_run_take(empty_s, &r) || rig_run_store(r, 0, one, one, NULL, 0))
		return -1;
	return rig_submit(r, NULL, 0, NULL, 0, &last);
}

static int
round_trip(void *arg)
{
	return submit_empty() || rig_wait(last, 10ull * 1000000000) ? -1 : 0;
}

static int
batched(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (submit_empty())
			return -1;
	return rig_wait(last, 60ull * 1000000000);
}

static int
vector_add(void *arg)
{
	int64_t params[4] = { 0, 0, 0, ELEMS };
	uint32_t grid[3] = { ELEMS / PER_GROUP, 1, 1 };
	struct rig_buffer *bufs[3] = { a, b, c };
	struct rig_run *r;

	if (rig_run_take(add_s, &r) || rig_run_store(r, 0, grid, one, params, sizeof(params)) ||
	    rig_submit(r, bufs, 3, NULL, 0, &last))
		return -1;
	return rig_wait(last, 60ull * 1000000000);
}

static int
load(const char *path, const char *name, int64_t params, const struct rig_ref *refs,
     size_t nrefs, struct rig_image **img, struct rig_submission **s)
{
	static char object[1 << 16];
	size_t len = bench_read_file(path, object, sizeof(object));
	struct rig_function *fn;
	struct rig_part_spec part;

	if (!len) {
		fprintf(stderr, "host: cannot read %s\n", path);
		return -1;
	}
	if (rig_image_load(host, object, len, img) || rig_image_function(*img, name, &fn))
		return -1;
	part = rig_part_launch(fn, params, refs, nrefs);
	return rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, s);
}

int
main(int argc, char **argv)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_image *empty_img, *add_img;
	struct bench bn;
	int ret;

	bench_init(&bn, "host", argc, argv);
	if (rig_host_device(&host) ||
	    load(EMPTY_OBJECT, "empty", 0, NULL, 0, &empty_img, &empty_s) ||
	    load(ADD_OBJECT, "add", 32, refs, 3, &add_img, &add_s) ||
	    rig_buffer_create(host, ELEMS * 4, RIG_MEMORY_DEVICE, &a) ||
	    rig_buffer_create(host, ELEMS * 4, RIG_MEMORY_DEVICE, &b) ||
	    rig_buffer_create(host, ELEMS * 4, RIG_MEMORY_DEVICE, &c)) {
		fprintf(stderr, "host: %s\n", rig_why());
		return 1;
	}
	ret = bench_per_op(&bn, "round_trip", "rig-host", BENCH_RIG, round_trip, NULL,
			   bench_count(&bn, 20000, 2000), 0);
	ret = ret ? ret : bench_per_run(&bn, "batched_submit", "rig-host", BENCH_RIG,
					batched, NULL, bench_count(&bn, 100000, 10000), 0);
	ret = ret ? ret : bench_per_op(&bn, "vector_add", "rig-host", BENCH_RIG, vector_add,
				       NULL, bench_count(&bn, 20, 4), 12.0 * ELEMS);
	if (ret)
		fprintf(stderr, "host: %s\n", rig_why());
	rig_submission_release(empty_s);
	rig_submission_release(add_s);
	rig_image_release(empty_img);
	rig_image_release(add_img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_device_release(host);
	return ret ? 1 : 0;
}
