/* SPDX-License-Identifier: MIT */
/*
 * test_hang: hang_ms (docs/loss.md, Hangs). A device whose word stays below a
 * committed value for hang_ms while someone waits is lost with exactly
 * "no progress for <n> ms"; with nobody waiting it is never lost; and the
 * clock starts again whenever the word moves, so slow progress is no hang.
 */
#include <pthread.h>

#include "loss.h"

struct waiter {
	struct rig_point p;
	int ret;
	uint64_t waited_ns;
};

static void *
wait_thread(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = rig_now_ns();

	w->ret = rig_wait(w->p, UINT64_MAX);
	w->waited_ns = rig_now_ns() - t0;
	return NULL;
}

static void
test_lost_while_a_thread_waits(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H1", .hang_ms = RIG_SOME(50) });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct waiter w = { 0 };
	pthread_t t;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &w.p), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	pthread_join(t, NULL);
	assert_int_equal(w.ret, RIG_ELOST);
	assert_string_equal(rig_lost(pd.d), "no progress for 50 ms");
	assert_true(w.waited_ns >= 50 * MS_NS);
	print_message("lost after %.1f ms of waiting (hang_ms 50)\n", w.waited_ns / 1e6);
	/* The loss names the value that made no progress. */
	assert_int_equal(rig_loss(pd.d)->value, w.p.value);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_not_lost_with_no_waiter(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H2", .hang_ms = RIG_SOME(50) });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	sleep_ms(300);				/* six hang_ms, nobody waiting */
	assert_null(rig_lost(pd.d));
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	assert_null(rig_lost(pd.d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

/* Each value takes 20 ms: far less than hang_ms, far more in all. */
static void
slow(void *arg, uint64_t value, int end)
{
	(void)arg;
	(void)value;
	if (!end)
		sleep_ms(20);
}

static void
test_progress_restarts_the_clock(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H3", .hang_ms = RIG_SOME(250), .ran = slow, .lag = 1 });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p = { 0 };
	uint64_t t0 = rig_now_ns();

	for (int i = 0; i < 30; i++)
		assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, UINT64_MAX), 0);
	assert_true(rig_now_ns() - t0 >= 30 * 20 * MS_NS);	/* > 2 hang_ms */
	assert_null(rig_lost(pd.d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_while_a_thread_waits),
		cmocka_unit_test(test_not_lost_with_no_waiter),
		cmocka_unit_test(test_progress_restarts_the_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
