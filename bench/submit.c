/* SPDX-License-Identifier: MIT */
/*
 * bench/submit.c: what a submit costs (issue 3). In one run:
 *   submit_1thread  - ns per rig_run_take + rig_run_store + rig_submit of a
 *                     prepared 1-launch, 2-ref submission on the polled
 *                     device (lag 64), one thread; and the floor beside it,
 *                     a fetch-add plus a ring slot publish;
 *   submit_2threads, submit_8threads - the same from 2 and 8 threads at
 *                     once (ns per submit, wall time over all submits);
 *   make_1000_parts - ns to make a 1,000-part submission;
 *   store_block     - ns to store one launch block (grid, group, 16 bytes).
 * The polled device runs launches as nothing, so what is measured is rig.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "rig.h"
#include "rig_polled.h"

static struct rig_device *d;
static struct rig_submission *s;
static struct rig_buffer *x, *y;
static const uint32_t one[3] = { 1, 1, 1 };

/* ---- The floor: one fetch-add and one slot publish per submit ---- */

#define SLOTS 1024
static _Atomic uint64_t next_value;
static struct { _Atomic uint64_t seq; void *job; } slot[SLOTS];

static int
floor_one(void *arg)
{
	uint64_t v = atomic_fetch_add(&next_value, 1);

	slot[v % SLOTS].job = arg;
	atomic_store_explicit(&slot[v % SLOTS].seq, v + 1, memory_order_release);
	return 0;
}

/* ---- rig ---- */

static int
submit_one(void *arg)
{
	struct rig_buffer *bufs[2] = { x, y };
	uint64_t params[2] = { 0, 0 };
	struct rig_run *r;

	if (rig_run_take(s, &r) || rig_run_store(r, 0, one, one, params, 16))
		return -1;
	return rig_submit(r, bufs, 2, NULL, 0, NULL);
}

struct team { int threads; uint64_t each; pthread_barrier_t start; };

static void *
submitter(void *arg)
{
	struct team *t = arg;

	pthread_barrier_wait(&t->start);
	for (uint64_t i = 0; i < t->each; i++)
		if (submit_one(NULL))
			return (void *)1;
	return NULL;
}

static int
submit_team(void *arg, uint64_t n)
{
	struct team *t = arg;
	pthread_t th[8];
	void *bad = NULL;
	int ret = 0;

	t->each = n / (uint64_t)t->threads;
	pthread_barrier_init(&t->start, NULL, (unsigned)t->threads);
	for (int i = 0; i < t->threads; i++)
		pthread_create(&th[i], NULL, submitter, t);
	for (int i = 0; i < t->threads; i++) {
		pthread_join(th[i], &bad);
		ret |= bad != NULL;
	}
	pthread_barrier_destroy(&t->start);
	return ret ? -1 : 0;
}

static struct rig_function *fn;

static int
make_big(void *arg)
{
	static struct rig_part_spec parts[1000];
	static struct rig_ref refs[1000][2];
	struct rig_submission *big;

	for (int i = 0; i < 1000; i++) {
		refs[i][0] = RIG_READ(i % 7, 0);
		refs[i][1] = RIG_WRITE((i + 3) % 7, 8);
		parts[i] = rig_part_launch(fn, 16, refs[i], 2);
	}
	if (rig_submission_make(d, parts, 1000, NULL, 0, (struct rig_keep){ 0 }, &big))
		return -1;
	rig_submission_release(big);
	return 0;
}

static struct rig_run *held;

static int
store_one(void *arg)
{
	static const uint64_t params[2] = { 1, 2 };

	return rig_run_store(held, 0, one, one, params, 16);
}

static int
open_all(struct rig_polled **p, struct rig_image **img)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "POLLED", .lag = 64 };
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_part_spec part;

	if (rig_polled_create(&c, p) || rig_open(rig_polled_opener(*p), &d) ||
	    rig_buffer_create(d, 4096, RIG_MEMORY_DEVICE, &x) ||
	    rig_buffer_create(d, 4096, RIG_MEMORY_DEVICE, &y) ||
	    rig_image_load(d, "k", 1, img) || rig_image_function(*img, "k/16/1024", &fn))
		return -1;
	part = rig_part_launch(fn, 16, refs, 2);
	return rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s);
}

int
main(int argc, char **argv)
{
	struct bench b;
	struct rig_polled *p;
	struct rig_image *img;
	struct team two = { .threads = 2 }, eight = { .threads = 8 };
	uint64_t n = 0;
	int ret;

	bench_init(&b, "submit", argc, argv);
	if (open_all(&p, &img)) {
		fprintf(stderr, "submit: %s\n", rig_why());
		return 1;
	}
	n = bench_count(&b, 200000, 20000);
	ret = bench_per_op(&b, "submit_1thread", "floor", BENCH_FLOOR, floor_one, NULL, n, 0);
	ret = ret ? ret : bench_per_op(&b, "submit_1thread", "rig-polled", BENCH_RIG,
				       submit_one, NULL, n, 0);
	ret = ret ? ret : bench_per_run(&b, "submit_2threads", "rig-polled", BENCH_RIG,
					submit_team, &two, n, 0);
	ret = ret ? ret : bench_per_run(&b, "submit_8threads", "rig-polled", BENCH_RIG,
					submit_team, &eight, n, 0);
	ret = ret ? ret : bench_per_op(&b, "make_1000_parts", "rig", BENCH_RIG, make_big,
				       NULL, bench_count(&b, 50, 5), 0);
	if (!ret && !rig_run_take(s, &held)) {
		ret = bench_per_op(&b, "store_block", "rig", BENCH_RIG, store_one, NULL, n, 0);
		rig_run_release(held);
	}
	if (ret)
		fprintf(stderr, "submit: %s\n", rig_why());
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(x);
	rig_buffer_release(y);
	rig_close(d);
	rig_device_release(d);
	rig_polled_destroy(p);
	return ret ? 1 : 0;
}
