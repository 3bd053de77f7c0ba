/* SPDX-License-Identifier: MIT */
/*
 * test_wait: waits time out, return once the value is reached, commit
 * before they sleep, and report a dropped value as the loss.
 */
#include "common.h"

static void
test_times_out_then_reaches(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "T1" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p;
	uint64_t t0;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	t0 = rig_now_ns();
	assert_int_equal(rig_wait(p, 20 * 1000 * 1000), RIG_ETIMEDOUT);
	assert_true(rig_now_ns() - t0 >= 20 * 1000 * 1000);
	assert_false(rig_reached(p));
	assert_false(rig_signaled(p));
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	assert_true(rig_reached(p));
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_lag_eight_commits_first_value(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "T2", .lag = 8 });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p;

	/* One value, and no further submit: the driver alone would hold it
	 * until 8 values wait. rig must have committed it. */
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	assert_int_equal(rig_polled_submits(pd.p), 1);
	assert_true(rig_polled_commits(pd.p) >= 1);
	assert_true(rig_polled_committed(pd.p) >= p.value);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_every_returning_wait_committed(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "T3", .lag = 1000 });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p;

	for (int i = 0; i < 300; i++) {
		assert_int_equal(rig_buffer_copy(a, b, &p), 0);
		if (i % 7 == 0) {
			assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
			assert_true(rig_polled_committed(pd.p) >= p.value);
		}
	}
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_dropped_value_returns_loss(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "T4" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point done, dropped;

	assert_int_equal(rig_buffer_copy(a, b, &done), 0);
	assert_int_equal(rig_wait(done, 5 * SECOND_NS), 0);
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &dropped), 0);
	assert_int_equal(rig_close(pd.d), 0);
	/* Completed values stay reached; the stalled one was dropped. */
	assert_int_equal(rig_wait(done, SECOND_NS), 0);
	assert_true(rig_reached(done));
	assert_int_equal(rig_wait(dropped, SECOND_NS), RIG_ELOST);
	assert_why("rig_wait: ", "was dropped", "T4 is lost: closed");
	assert_false(rig_reached(dropped));
	assert_true(rig_signaled(dropped));
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(pd.d);
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
	rig_polled_destroy(pd.p);
}

static void
test_memory_device_runs_before_return(void **state)
{
	struct rig_device *m;
	struct rig_buffer *a, *b;
	struct rig_point p;
	char x[32] = "the memory device", y[32] = { 0 };

	assert_int_equal(rig_memory_device("M-wait", &m), 0);
	a = buffer_new(m, 32);
	b = buffer_new(m, 32);
	assert_int_equal(rig_buffer_write(a, 0, x, 32), 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_true(rig_reached(p));
	assert_int_equal(rig_wait(p, 0), 0);
	assert_int_equal(rig_buffer_read(b, 0, y, 32), 0);
	assert_string_equal(x, y);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(m);
}

static void
test_wait_refusals(void **state)
{
	assert_int_equal(rig_wait((struct rig_point){ NULL, 1 }, 0), RIG_EINVAL);
	assert_why("rig_wait: the point names no device");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_out_then_reaches),
		cmocka_unit_test(test_lag_eight_commits_first_value),
		cmocka_unit_test(test_every_returning_wait_committed),
		cmocka_unit_test(test_dropped_value_returns_loss),
		cmocka_unit_test(test_memory_device_runs_before_return),
		cmocka_unit_test(test_wait_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
