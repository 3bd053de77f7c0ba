/* SPDX-License-Identifier: MIT */
/*
 * test_steady_submit: a submit of a prepared submission whose run is taken
 * allocates nothing and takes no mutex when uncontended (issue 13). The
 * test counts, on the submitting thread, every malloc, calloc, realloc and
 * pthread_mutex_lock that rig makes in the steady state (after a warm-up
 * that lets rings, runs and arenas reach their size), and fails on any.
 * What rig's own threads do (the submission thread, a driver's workers) is
 * not the submit's cost and is not counted.
 *
 * The counters (tests/core/calls.h) interpose the functions in this
 * executable; under ASan or TSan, whose runtimes interpose them too, the
 * test is skipped.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../core/calls.h"
#include "../core/common.h"
#include "kernels.h"

#ifndef SANITIZED
#define WARM 2000
#define COUNTED 20000

static const uint32_t one[3] = { 1, 1, 1 };

/* WARM submits, then COUNTED counted ones, of s with bufs; then a wait. */
static void
submit_steady(struct rig_submission *s, struct rig_buffer **bufs, size_t nbufs,
	      const void *params, size_t bytes)
{
	struct rig_point p;

	for (int i = 0; i < WARM + COUNTED; i++) {
		struct rig_run *r;

		counting = i >= WARM;
		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_run_store(r, 0, one, one, params, bytes), 0);
		assert_int_equal(rig_submit(r, bufs, nbufs, NULL, 0, &p), 0);
		counting = false;
		/* Now and then let the device catch up, as a server would. */
		if (i % 1000 == 999)
			assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	}
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	assert_int_equal(allocs, 0);
	assert_int_equal(locks, 0);
}

/* The polled device: a launch reading one buffer and writing another. */
static void
test_polled_submit_is_steady(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "STEADY", .lag = 8 });
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_buffer *x, *y;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	struct rig_part_spec part;
	uint64_t params[2] = { 0, 0 };

	allocs = locks = 0;
	assert_int_equal(rig_buffer_create(pd.d, 4096, RIG_MEMORY_DEVICE, &x), 0);
	assert_int_equal(rig_buffer_create(pd.d, 4096, RIG_MEMORY_DEVICE, &y), 0);
	assert_int_equal(rig_image_load(pd.d, "k", 1, &img), 0);
	assert_int_equal(rig_image_function(img, "k/16/64", &fn), 0);
	part = rig_part_launch(fn, 16, refs, 2);
	assert_int_equal(rig_submission_make(pd.d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	submit_steady(s, (struct rig_buffer *[]){ x, y }, 2, params, sizeof(params));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(x);
	rig_buffer_release(y);
	polled_close(pd);
}

/* The host device: an empty kernel, as bench/host.c's batched_submit. */
static void
test_host_submit_is_steady(void **state)
{
	struct rig_device *host;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	struct rig_part_spec part;
	size_t len;
	unsigned char *obj = kernel_read("empty", &len);

	allocs = locks = 0;
	assert_int_equal(rig_host_device(&host), 0);
	assert_int_equal(rig_image_load(host, obj, len, &img), 0);
	assert_int_equal(rig_image_function(img, "empty", &fn), 0);
	part = rig_part_launch(fn, 0, NULL, 0);
	assert_int_equal(rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	submit_steady(s, NULL, 0, NULL, 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_device_release(host);
	free(obj);
}
#endif

int
main(void)
{
#ifdef SANITIZED
	puts("1..0 # SKIP a sanitizer interposes malloc itself");
	return 0;
#else
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polled_submit_is_steady),
		cmocka_unit_test(test_host_submit_is_steady),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
