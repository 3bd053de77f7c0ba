/* SPDX-License-Identifier: MIT */
/*
 * test_propagation: a loss spreads to the devices whose queues wait for
 * the values it dropped, as a chain (docs/loss.md). B's queues wait for A's
 * value (B's facts say its queues wait for host-written words); A faults:
 * B is lost "lost with A", its record names A's loss as the cause, and a
 * wait on B names both. C waited on the host for the same value: C is not
 * lost, and its work runs once A stopped.
 */
#include "loss.h"

static void
test_queue_waiter_is_lost_host_waiter_is_not(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PA" });
	struct polled_dev b = polled_open((struct rig_polled_config){
		.name = "PB", .waits = { .hosts = true } });
	struct polled_dev c = polled_open((struct rig_polled_config){ .name = "PC" });
	struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
	struct rig_buffer *xb = NULL, *xc = NULL, *yb = buffer_new(b.d, 64),
			  *yc = buffer_new(c.d, 64);
	struct rig_point pa, pb, pc;
	const struct rig_loss *l;
	char seen[64];
	int ret;

	assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
	assert_int_equal(rig_buffer_borrow(x, c.d, &xc), 0);
	rig_polled_stall(a.p, true);
	assert_int_equal(rig_buffer_copy(src, x, &pa), 0);	/* A writes x */
	assert_int_equal(rig_buffer_copy(xb, yb, &pb), 0);	/* B's queue waits */
	assert_int_equal(rig_buffer_copy(xc, yc, &pc), 0);	/* C's host waits */
	await(rig_polled_submits(b.p) == 1);			/* B's driver has it */

	rig_polled_fault(a.p, pa.value, 0);
	rig_polled_stall(a.p, false);

	ret = rig_wait(pb, 30 * SECOND_NS);
	if (ret != RIG_ELOST)
		fail_msg("the wait on B returned %d (%s); B: %s; A: %s", ret, rig_why(),
			 rig_lost(b.d) ? rig_lost(b.d) : "live",
			 rig_lost(a.d) ? rig_lost(a.d) : "live");
	assert_why("PB is lost: lost with PA; PA is lost: fault: injected fault at part 0");
	assert_string_equal(rig_lost(b.d), "lost with PA");
	l = rig_loss(b.d);
	assert_non_null(l);
	assert_string_equal(l->device, "PB");
	assert_non_null(l->cause);
	assert_string_equal(l->cause->device, "PA");
	assert_non_null(strstr(l->cause->reason, "fault: injected fault"));
	assert_int_equal(l->cause->value, pa.value);
	assert_null(l->cause->cause);

	/* C waited on the host: not lost; its work ran once A stopped. */
	assert_int_equal(rig_wait(pc, 30 * SECOND_NS), 0);
	assert_null(rig_lost(c.d));
	assert_int_equal(rig_buffer_read(yc, 0, seen, sizeof(seen)), 0);

	rig_buffer_release(xb);
	rig_buffer_release(xc);
	rig_buffer_release(yb);
	rig_buffer_release(yc);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(b);
	polled_close(c);
	polled_close(a);
}

/* A device whose loss drops nothing another waits for spreads nowhere. */
static void
test_completed_values_spread_nothing(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PD" });
	struct polled_dev b = polled_open((struct rig_polled_config){
		.name = "PE", .waits = { .hosts = true } });
	struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
	struct rig_buffer *xb = NULL, *yb = buffer_new(b.d, 64);
	struct rig_point pa, pb;

	assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
	assert_int_equal(rig_buffer_copy(src, x, &pa), 0);
	assert_int_equal(rig_wait(pa, 30 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_copy(xb, yb, &pb), 0);
	assert_int_equal(rig_wait(pb, 30 * SECOND_NS), 0);
	assert_int_equal(rig_close(a.d), 0);
	assert_null(rig_lost(b.d));
	{
		struct rig_buffer *zb = buffer_new(b.d, 64);

		assert_int_equal(rig_buffer_copy(yb, zb, &pb), 0);	/* B goes on */
		assert_int_equal(rig_wait(pb, 30 * SECOND_NS), 0);
		rig_buffer_release(zb);
	}
	rig_buffer_release(xb);
	rig_buffer_release(yb);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(b);
	polled_close(a);
}

/*
 * A submit that would wait for a value a loss already dropped is refused:
 * A was to write C's memory through a borrow, and A faulted first. C stays
 * live, and its other memory goes on.
 */
static void
test_a_submit_on_dropped_work_is_refused(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PF" });
	struct polled_dev c = polled_open((struct rig_polled_config){ .name = "PG" });
	struct rig_buffer *src = buffer_new(a.d, 64), *y = buffer_new(c.d, 64),
			  *z = buffer_new(c.d, 64), *z2 = buffer_new(c.d, 64), *ya = NULL;
	struct rig_point pa, pc;

	assert_int_equal(rig_buffer_borrow(y, a.d, &ya), 0);
	rig_polled_stall(a.p, true);
	assert_int_equal(rig_buffer_copy(src, ya, &pa), 0);	/* A writes C's y */
	rig_polled_fault(a.p, pa.value, 0);
	rig_polled_stall(a.p, false);
	assert_int_equal(rig_wait(pa, 30 * SECOND_NS), RIG_ELOST);

	assert_int_equal(rig_buffer_copy(y, z, &pc), RIG_ELOST);
	assert_why("rig_buffer_copy: the work of value", "on PF was dropped: PF is lost: fault");
	assert_null(rig_lost(c.d));
	/* Host access to it reports the drop too; C's other memory goes on. */
	assert_int_equal(rig_buffer_read(y, 0, (char[64]){ 0 }, 64), RIG_ELOST);
	assert_int_equal(rig_buffer_write(y, 0, "again", 5), RIG_ELOST);
	assert_int_equal(rig_buffer_copy(z, z2, &pc), 0);
	assert_int_equal(rig_wait(pc, 30 * SECOND_NS), 0);

	rig_buffer_release(ya);
	rig_buffer_release(src);
	rig_buffer_release(y);
	rig_buffer_release(z);
	rig_buffer_release(z2);
	polled_close(c);
	polled_close(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_waiter_is_lost_host_waiter_is_not),
		cmocka_unit_test(test_completed_values_spread_nothing),
		cmocka_unit_test(test_a_submit_on_dropped_work_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
