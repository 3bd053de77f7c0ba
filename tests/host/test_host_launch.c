/* SPDX-License-Identifier: MIT */
/*
 * test_host_launch: launches on the host device through rig's calls. For
 * random grids and group shapes every group runs exactly once, in ranges
 * that never pass the grid; many threads submit launches at once, each to
 * its own buffers; a fill's failure loses the device with the fill's
 * message; a grid of more groups than the host runs (2^62) is refused at
 * rig_run_store(), the run keeping the grid it had and the device live.
 */
#include <pthread.h>

#include "../core/common.h"

struct groups_params {
	uint64_t hits, calls, bad;	/* offsets, then addresses: refs */
	int64_t total, scale;
	uint64_t in, out;
	int64_t n;
};

static struct rig_device *host;
static struct rig_image *img;
static struct rig_function *fn;

static int
setup(void **state)
{
	static char object[1 << 16];
	FILE *f = fopen(HOST_KERNELS "/groups.o", "rb");
	size_t len = f ? fread(object, 1, sizeof(object), f) : 0;

	if (f)
		fclose(f);
	assert_true(len > 0);
	assert_int_equal(rig_host_device(&host), 0);
	assert_int_equal(rig_image_load(host, object, len, &img), 0);
	assert_int_equal(rig_image_function(img, "groups", &fn), 0);
	return 0;
}

static int
teardown(void **state)
{
	rig_image_release(img);
	rig_device_release(host);
	return 0;
}

static struct rig_submission *
groups_submission(void)
{
	struct rig_ref refs[] = { RIG_WRITE(0, 0), RIG_WRITE(1, 8), RIG_WRITE(2, 16),
				  RIG_READ(3, 40), RIG_WRITE(4, 48) };
	struct rig_part_spec p = rig_part_launch(fn, sizeof(struct groups_params), refs, 5);
	struct rig_submission *s;

	assert_int_equal(rig_submission_make(host, &p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	return s;
}

/* One launch over grid; checks every group ran once and no call was bad.
 * taken: a run of s that holds grid and group already, or NULL. */
static void
run_and_check(struct rig_submission *s, struct rig_run *taken, const uint32_t grid[3],
	      const uint32_t group[3])
{
	int64_t total = (int64_t)grid[0] * grid[1] * grid[2];
	struct rig_buffer *hits = buffer_new(host, (size_t)total * 4);
	struct rig_buffer *calls = buffer_new(host, 8), *bad = buffer_new(host, 8);
	struct rig_buffer *in = buffer_new(host, 8), *out = buffer_new(host, 8);
	struct rig_buffer *bufs[] = { hits, calls, bad, in, out };
	struct groups_params params = { .total = total };
	uint32_t *h = calloc((size_t)total, 4);
	int64_t ncalls = 0, nbad = 0;
	struct rig_run *r = taken;
	struct rig_point p;

	/* New memory's bytes are unspecified (rig_buffer_create): the
	 * counters start from zeros written here. */
	assert_int_equal(rig_buffer_write(hits, 0, h, (size_t)total * 4), 0);
	assert_int_equal(rig_buffer_write(calls, 0, &ncalls, 8), 0);
	assert_int_equal(rig_buffer_write(bad, 0, &nbad, 8), 0);
	if (!taken) {
		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_run_store(r, 0, grid, group, &params, sizeof(params)), 0);
	}
	assert_int_equal(rig_submit(r, bufs, 5, NULL, 0, &p), 0);
	assert_int_equal(rig_buffer_read(hits, 0, h, (size_t)total * 4), 0);
	assert_int_equal(rig_buffer_read(calls, 0, &ncalls, 8), 0);
	assert_int_equal(rig_buffer_read(bad, 0, &nbad, 8), 0);
	assert_true(rig_reached(p));
	for (int64_t g = 0; g < total; g++)
		if (h[g] != 1)
			fail_msg("grid %ux%ux%u: group %lld ran %u times", grid[0], grid[1],
				 grid[2], (long long)g, h[g]);
	assert_int_equal(nbad, 0);
	assert_true(ncalls >= 1 && ncalls <= total);
	free(h);
	for (int i = 0; i < 5; i++)
		rig_buffer_release(bufs[i]);
}

static void
launch_and_check(struct rig_submission *s, const uint32_t grid[3], const uint32_t group[3])
{
	run_and_check(s, NULL, grid, group);
}

static void
test_every_group_once(void **state)
{
	struct rig_submission *s = groups_submission();
	unsigned seed = 7;

	for (int i = 0; i < 60; i++) {
		uint32_t grid[3] = { 1 + rand_r(&seed) % 300, 1 + rand_r(&seed) % 4,
				     1 + rand_r(&seed) % 3 };
		uint32_t group[3] = { 1 + rand_r(&seed) % 64, 1 + rand_r(&seed) % 2, 1 };

		launch_and_check(s, grid, group);
	}
	rig_submission_release(s);
}

static void *
launcher(void *arg)
{
	struct rig_submission *s = arg;
	const uint32_t grid[3] = { 97, 3, 1 }, group[3] = { 8, 1, 1 };

	for (int i = 0; i < 20; i++)
		launch_and_check(s, grid, group);
	return NULL;
}

static void
test_many_threads(void **state)
{
	struct rig_submission *s = groups_submission();
	pthread_t t[6];

	for (int i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, launcher, s);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	rig_submission_release(s);
}

/* 2^63 and 2^62 + 2^31 groups: refused, naming the function and the
 * cause; the run keeps its grid, which then runs as before, the device
 * live. 2^62 itself is stored (the run then goes back unsubmitted). */
static void
test_grid_past_most_groups_refused(void **state)
{
	static const uint32_t too_many[][3] = {
		{ 1u << 21, 1u << 21, 1u << 21 },
		{ (1u << 31) + 1, 1u << 31, 1 },
		{ UINT32_MAX, UINT32_MAX, UINT32_MAX },
	};
	const uint32_t grid[3] = { 5, 3, 2 }, group[3] = { 4, 1, 1 };
	const uint32_t most[3] = { 1u << 31, 1u << 31, 1 };
	struct rig_submission *s = groups_submission();
	struct groups_params params = { .total = 30 };
	struct rig_run *r;

	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, grid, group, &params, sizeof(params)), 0);
	for (size_t i = 0; i < sizeof(too_many) / sizeof(too_many[0]); i++) {
		assert_int_equal(rig_run_store(r, 0, too_many[i], group, &params, sizeof(params)),
				 RIG_EINVAL);
		assert_non_null(strstr(rig_why(), "rig_run_store"));
		assert_non_null(strstr(rig_why(), "groups"));
		assert_non_null(strstr(rig_why(), "4611686018427387904"));
	}
	/* The refused stores left the run as it was: its grid runs, each
	 * group once. */
	run_and_check(s, r, grid, group);
	assert_null(rig_lost(host));
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, most, group, &params, sizeof(params)), 0);
	rig_run_release(r);
	assert_null(rig_lost(host));
	rig_submission_release(s);
}

static int
fill_fails(void *ctx, void *arg, uint64_t value)
{
	return 7;
}

static void
test_fill_failure_loses_device(void **state)
{
	struct rig_part_spec p = rig_part_fill(fill_fails, 8, NULL, 0);
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point pt;

	assert_int_equal(rig_submission_make(host, &p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &pt), 0);
	assert_int_equal(rig_wait(pt, 10 * SECOND_NS), RIG_ELOST);
	assert_non_null(rig_lost(host));
	assert_non_null(strstr(rig_lost(host), "submit failed: "));
	assert_non_null(strstr(rig_lost(host), "returned 7"));
	rig_submission_release(s);
	/* A lost device's name opens anew. */
	rig_image_release(img);
	rig_device_release(host);
	setup(NULL);
	assert_null(rig_lost(host));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_group_once),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_grid_past_most_groups_refused),
		cmocka_unit_test(test_fill_failure_loses_device),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
