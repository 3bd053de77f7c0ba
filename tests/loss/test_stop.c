/* SPDX-License-Identifier: MIT */
/*
 * test_stop: the driver's stop never runs while a call of the driver is in
 * flight, even one that blocks (facts.may_block: rig counts them; docs/drivers.md,
 * Driver). A commit blocks inside the driver; a close from another thread
 * loses the device at once but stops the driver only once the commit
 * returned. The polled driver counts stops that overlapped a call.
 */
#include <errno.h>
#include <pthread.h>

#include "loss.h"

static _Atomic bool closed;

static void *
close_thread(void *arg)
{
	assert_int_equal(rig_close(arg), 0);
	atomic_store(&closed, true);
	return NULL;
}

static void
test_stop_waits_for_a_blocked_call(void **state)
{
	static const char *const calls[] = { "commit", "submit", "room" };
	static const char *const names[] = { "S-commit", "S-submit", "S-room" };

	for (size_t i = 0; i < 3; i++) {
		struct polled_dev pd = polled_open((struct rig_polled_config){
			.name = names[i], .may_block = true });
		struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
		struct rig_point p;
		pthread_t t;

		assert_int_equal(rig_polled_block(pd.p, "alloc", true), -EINVAL);
		assert_int_equal(rig_polled_block(pd.p, calls[i], true), 0);
		assert_int_equal(rig_buffer_copy(a, b, &p), 0);
		await(rig_polled_blocked(pd.p) == 1);
		atomic_store(&closed, false);
		assert_int_equal(pthread_create(&t, NULL, close_thread, pd.d), 0);
		await(rig_lost(pd.d));
		assert_string_equal(rig_lost(pd.d), "closed");
		sleep_ms(100);
		/* Lost, but the blocked call holds the stop off. */
		assert_int_equal(rig_polled_stops(pd.p), 0);
		assert_false(atomic_load(&closed));
		assert_int_equal(rig_wait(p, 0), RIG_ELOST);	/* waits end meanwhile */
		assert_int_equal(rig_polled_block(pd.p, calls[i], false), 0);
		pthread_join(t, NULL);
		assert_true(atomic_load(&closed));
		assert_int_equal(rig_polled_stops(pd.p), 1);
		assert_int_equal(rig_polled_overlaps(pd.p), 0);
		rig_buffer_release(a);
		rig_buffer_release(b);
		polled_close(pd);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_waits_for_a_blocked_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
