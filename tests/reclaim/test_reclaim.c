/* SPDX-License-Identifier: MIT */
/*
 * test_reclaim: memory returns without a free. A stalled polled device
 * keeps released memory; once its word moves the memory returns; an
 * allocation over the budget waits for released memory's work and
 * succeeds; with nothing to return it fails with out-of-memory, saying
 * how much was asked, held and budgeted, and changes nothing. Every test
 * ends with the driver holding nothing (polled_close).
 */
#include <pthread.h>
#include <time.h>

#include "../core/common.h"

/* Release two buffers, then close pd. */
static void
polled_close_keep(struct polled_dev pd, struct rig_buffer *a, struct rig_buffer *b)
{
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_stalled_device_keeps_released_memory(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC1" });
	struct rig_buffer *a = buffer_new(pd.d, 4096), *b = buffer_new(pd.d, 4096);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	assert_int_equal(rig_allocated(pd.d), 8192);
	assert_int_equal(rig_polled_live_regions(pd.p), 2);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	rig_buffer_release(buffer_new(pd.d, 0));	/* an allocation reclaims */
	assert_int_equal(rig_allocated(pd.d), 0);
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
	polled_close(pd);
}

static void *
unstall_later(void *arg)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	rig_polled_stall(arg, false);
	return NULL;
}

static void
test_over_budget_waits_for_released_work(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC2",
								       .budget = 1 << 20 });
	struct rig_buffer *a = buffer_new(pd.d, 512 << 10), *b = buffer_new(pd.d, 512 << 10), *c;
	pthread_t t;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	/* The budget is spent on memory whose work is stalled: the next
	 * allocation waits for it, and gets its room once it ran. */
	pthread_create(&t, NULL, unstall_later, pd.p);
	assert_int_equal(rig_buffer_create(pd.d, 512 << 10, RIG_MEMORY_DEVICE, &c), 0);
	pthread_join(t, NULL);
	assert_int_equal(rig_allocated(pd.d), 512 << 10);
	rig_buffer_release(c);
	polled_close(pd);
}

static void
test_nothing_to_return_is_out_of_memory(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC3",
								       .budget = 1 << 20 });
	struct rig_buffer *a = buffer_new(pd.d, 768 << 10), *b = NULL;

	assert_int_equal(rig_buffer_create(pd.d, 512 << 10, RIG_MEMORY_DEVICE, &b), RIG_ENOMEM);
	assert_string_equal(rig_why(), "rig_buffer_create: 524288 bytes asked, RC3 holds 786432 of its budget 1048576");
	assert_null(b);
	assert_int_equal(rig_allocated(pd.d), 768 << 10);
	assert_int_equal(rig_polled_live_regions(pd.p), 1);
	/* A bigger budget lets it through. */
	assert_int_equal(rig_set_budget(pd.d, 2 << 20), 0);
	assert_int_equal(rig_budget(pd.d), 2 << 20);
	assert_int_equal(rig_buffer_create(pd.d, 512 << 10, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_set_budget(pd.d, (uint64_t)-1), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_set_budget: -1 bytes is negative");
	assert_int_equal(rig_budget(pd.d), 2 << 20);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_alloc_fault_loses_device(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC4" });
	struct rig_buffer *b = NULL;

	assert_int_equal(rig_polled_fail(pd.p, "alloc"), 0);
	assert_int_equal(rig_buffer_create(pd.d, 64, RIG_MEMORY_DEVICE, &b), RIG_ELOST);
	assert_why("rig_buffer_create: ", "RC4 is lost: alloc faulted: injected alloc failure");
	assert_null(b);
	polled_close(pd);
}

static _Atomic bool released;

static void
release_keep(void *value)
{
	released = value == &released;
}

static void
test_keep_goes_with_its_submission(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC5" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_part_spec part = rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(b));
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;

	assert_int_equal(rig_submission_make(pd.d, &part, 1, NULL, 0,
					     (struct rig_keep){ &released, release_keep }, &s), 0);
	rig_buffer_release(a);		/* the submission keeps both */
	rig_buffer_release(b);
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &p), 0);
	rig_submission_release(s);
	assert_false(released);		/* its work is in flight */
	assert_int_equal(rig_polled_live_regions(pd.p), 2);
	for (int i = 0; i < 100 && rig_polled_submits(pd.p) < 1; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);	/* the work reaches the driver */
	}
	assert_false(released);		/* handed over, not yet run */
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	/* The wait, or the submission thread if it comes later, lets it go
	 * (30 s: a bound only a hung rig reaches, not a loaded machine's
	 * pause before that thread's next turn). */
	for (int i = 0; i < 30000 && !released; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_true(released);
	polled_close(pd);
}

static void
test_grow_and_short_grow(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RC6", .grows = true });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p;

	/* Room answers GROW; rig grows the queues and asks again. */
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	assert_int_equal(rig_polled_grows(pd.p), 1);
	polled_close_keep(pd, a, b);

	/* A grow that comes up short: rig returns what it can, lets the
	 * device's earlier values finish, and grows again. */
	pd = polled_open((struct rig_polled_config){ .name = "RC7", .grows = true });
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	assert_int_equal(rig_polled_fail(pd.p, "grow"), 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	assert_int_equal(rig_polled_grows(pd.p), 2);
	assert_null(rig_lost(pd.d));
	polled_close_keep(pd, a, b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stalled_device_keeps_released_memory),
		cmocka_unit_test(test_over_budget_waits_for_released_work),
		cmocka_unit_test(test_nothing_to_return_is_out_of_memory),
		cmocka_unit_test(test_alloc_fault_loses_device),
		cmocka_unit_test(test_keep_goes_with_its_submission),
		cmocka_unit_test(test_grow_and_short_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
