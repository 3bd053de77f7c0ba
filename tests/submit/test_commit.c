/* SPDX-License-Identifier: MIT */
/*
 * test_commit: no queue and no host waits on work a driver still holds.
 * A's values are held (lag 1000) while B's work reads what they wrote:
 *   - B's queues wait for A's store (a driver wait): rig commits A's value
 *     before it hands B the wait, even when A's value has not reached A's
 *     driver yet (A's ring is held up behind a host wait on a stalled C);
 *   - B waits on the host for A: the same.
 * Every point reached, and A's driver was told to commit each value B
 * waited for.
 */
#include "../core/common.h"

static void
reads_after(struct polled_dev a, struct polled_dev b, bool held_in_ring,
	    struct polled_dev c)
{
	struct rig_buffer *x = buffer_new(a.d, 64), *y = buffer_new(a.d, 64);
	struct rig_buffer *cx = buffer_new(c.d, 64), *cy = buffer_new(c.d, 64);
	struct rig_buffer *on_b, *z = buffer_new(b.d, 64);
	struct rig_point pc, pa, pb;

	if (held_in_ring) {
		/* A's next value waits on the host for C's, which is stalled:
		 * A's submission thread holds it in the ring. */
		rig_polled_stall(c.p, true);
		assert_int_equal(rig_buffer_copy(cx, cy, &pc), 0);
		assert_int_equal(rig_buffer_borrow(cy, a.d, &on_b), 0);
		assert_int_equal(rig_buffer_copy(on_b, x, &pa), 0);	/* A reads C's cy */
		rig_buffer_release(on_b);
	} else {
		assert_int_equal(rig_buffer_copy(y, x, &pa), 0);
	}
	/* B reads x, which A's value pa writes. */
	assert_int_equal(rig_buffer_borrow(x, b.d, &on_b), 0);
	assert_int_equal(rig_buffer_copy(on_b, z, &pb), 0);
	if (held_in_ring)
		rig_polled_stall(c.p, false);
	assert_int_equal(rig_wait(pb, 10 * SECOND_NS), 0);
	assert_true(rig_reached(pa));
	assert_true(rig_polled_committed(a.p) >= pa.value);
	rig_buffer_release(on_b);
	rig_buffer_release(x);
	rig_buffer_release(y);
	rig_buffer_release(z);
	rig_buffer_release(cx);
	rig_buffer_release(cy);
}

static struct polled_dev
open_dev(const char *name, bool queues_wait)
{
	return polled_open((struct rig_polled_config){ .name = name, .lag = 1000,
		.completion = RIG_BY_STORE, .waits = { queues_wait, queues_wait } });
}

static void
test_driver_wait_commits_producer(void **state)
{
	struct polled_dev a = open_dev("A", false), b = open_dev("B", true), c = open_dev("C", false);

	reads_after(a, b, false, c);
	reads_after(a, b, true, c);
	polled_close(a);
	polled_close(b);
	polled_close(c);
}

static void
test_host_wait_commits_producer(void **state)
{
	struct polled_dev a = open_dev("A2", false), b = open_dev("B2", false), c = open_dev("C2", false);

	reads_after(a, b, false, c);
	reads_after(a, b, true, c);
	polled_close(a);
	polled_close(b);
	polled_close(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_wait_commits_producer),
		cmocka_unit_test(test_host_wait_commits_producer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
