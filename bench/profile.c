/* SPDX-License-Identifier: MIT */
/*
 * bench/profile.c: what a profile costs a submit (issue 16), in one run on
 * the polled device (lag 64), whose worker runs the work off the
 * submitting thread, so what is measured is rig:
 *   profile_batched_submit
 *                   n rig_buffer_copy() of 4 bytes, then one rig_wait()
 *                   on the last: with no profile taken (rig-polled), and
 *                   with one taken (rig-polled-profiled), each value timed
 *                   and its record kept (the bound holds every value);
 *   profile_batched_run
 *                   n rig_run_take + rig_run_store + rig_submit of a
 *                   prepared 1-launch, 2-ref submission, then one wait:
 *                   the same two ways.
 * bench/run also runs it from a build with profiles compiled out
 * (rig-polled-no-profiles): the submit with no branch for them.
 * The target: a profile adds at most 100 ns per submit. With none taken a
 * submit pays one predictable branch, which no timing shows; the
 * instruction counts of callgrind show it (bench/README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rig.h"
#include "rig_polled.h"

#define WAIT_NS 10000000000ull

static struct rig_device *d;
static struct rig_buffer *x, *y;
static struct rig_submission *s;
static const uint32_t one[3] = { 1, 1, 1 };

static int
copies(void *arg, uint64_t n)
{
	struct rig_point p = { 0 };
	int ret = 0;

	(void)arg;
	for (uint64_t i = 0; i < n && ret == 0; i++)
		ret = rig_buffer_copy(x, y, &p);
	return ret < 0 ? ret : rig_wait(p, WAIT_NS);
}

static int
runs(void *arg, uint64_t n)
{
	static const uint64_t params[2] = { 0, 0 };
	struct rig_buffer *bufs[2] = { x, y };
	struct rig_point p = { 0 };
	struct rig_run *r;
	int ret = 0;

	(void)arg;
	for (uint64_t i = 0; i < n && ret == 0; i++) {
		if ((ret = rig_run_take(s, &r)) < 0)
			break;
		if ((ret = rig_run_store(r, 0, one, one, params, 16)) < 0) {
			rig_run_release(r);
			break;
		}
		ret = rig_submit(r, bufs, 2, NULL, 0, &p);
	}
	return ret < 0 ? ret : rig_wait(p, WAIT_NS);
}

/* The figure with no profile, then with one that keeps every value; where
 * profiles are compiled out (bench/run's second build, meson option
 * profiles=false), the figure of a submit with no branch for them. */
static int
both(const struct bench *b, const char *name, bench_batch_fn fn, uint64_t n, int nruns)
{
	struct rig_profile *prof;
#ifdef RIG_NO_PROFILES
	return bench_per_run(b, name, "rig-polled-no-profiles", BENCH_RIG, fn, NULL, n, 0);
#endif
	int ret = bench_per_run(b, name, "rig-polled", BENCH_RIG, fn, NULL, n, 0);

	if (ret < 0)
		return ret;
	/* Every value of the warm-up and the runs, with room to spare. */
	if ((ret = rig_profile_start(&d, 1, n * (uint64_t)(nruns + 1) + 1000, &prof)) < 0)
		return ret;
	ret = bench_per_run(b, name, "rig-polled-profiled", BENCH_RIG, fn, NULL, n, 0);
	rig_profile_release(prof);
	return ret;
}

int
main(int argc, char **argv)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "POLLED", .lag = 64 };
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_polled *p;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_part_spec part;
	struct bench b;
	uint64_t n;
	int ret;

	bench_init(&b, "profile", argc, argv);
	if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
	    rig_buffer_create(d, 4096, RIG_MEMORY_DEVICE, &x) ||
	    rig_buffer_create(d, 4096, RIG_MEMORY_DEVICE, &y) ||
	    rig_image_load(d, "k", 1, &img) || rig_image_function(img, "k/16/1024", &fn)) {
		fprintf(stderr, "profile: %s\n", rig_why());
		return 1;
	}
	part = rig_part_launch(fn, 16, refs, 2);
	if (rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s)) {
		fprintf(stderr, "profile: %s\n", rig_why());
		return 1;
	}
	n = bench_count(&b, 100000, 10000);
	/* The runs bench_init() read: argv's --runs, else 7 (3 with --quick). */
	int nruns = 7;

	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2] == 'q')
			nruns = 3;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--runs"))
			nruns = atoi(argv[i + 1]);
	ret = both(&b, "profile_batched_submit", copies, n, nruns);
	ret = ret ? ret : both(&b, "profile_batched_run", runs, n, nruns);
	if (ret)
		fprintf(stderr, "profile: %s\n", rig_why());
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(x);
	rig_buffer_release(y);
	rig_close(d);
	rig_device_release(d);
	rig_polled_destroy(p);
	return ret ? 1 : 0;
}
