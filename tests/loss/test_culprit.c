/* SPDX-License-Identifier: MIT */
/*
 * test_culprit: a loss names its culprit where the driver can tell
 * (rig_loss): the device, the reason, the value at fault, the submission
 * that value ran, the part's index in it and its queue. The polled driver
 * faults at part k of submission s's run: the record says s and k. A
 * failed submit names the value and the submission (the part is unknown);
 * a hang names the value that made no progress; a copy names no
 * submission.
 */
#include <pthread.h>

#include "loss.h"

static void
test_fault_names_submission_and_part(void **state)
{
	for (int k = 0; k < 3; k++) {
		char name[16];
		struct polled_dev pd;
		struct rig_buffer *a, *b, *c;
		struct rig_submission *s, *other;
		struct rig_point p;
		const struct rig_loss *l;

		snprintf(name, sizeof(name), "CU%d", k);
		pd = polled_open((struct rig_polled_config){ .name = name });
		a = buffer_new(pd.d, 64);
		b = buffer_new(pd.d, 64);
		c = buffer_new(pd.d, 64);
		s = three_copies(pd.d, a, b, c);
		other = three_copies(pd.d, c, a, b);
		rig_polled_stall(pd.p, true);
		run_once(other);
		p = run_once(s);
		run_once(other);
		rig_polled_fault(pd.p, p.value, k);
		rig_polled_stall(pd.p, false);
		assert_int_equal(rig_wait(p, 30 * SECOND_NS), RIG_ELOST);
		l = rig_loss(pd.d);
		assert_non_null(l);
		assert_string_equal(l->device, name);
		assert_ptr_equal(l->reason, rig_lost(pd.d));
		assert_int_equal(l->value, p.value);
		assert_ptr_equal(l->submission, s);
		assert_int_equal(l->part, k);
		assert_int_equal(l->queue, 0);
		assert_null(l->cause);
		rig_submission_release(s);
		rig_submission_release(other);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(c);
		polled_close(pd);
	}
}

static void
test_failed_submit_names_value_and_submission(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "CU4" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64),
			  *c = buffer_new(pd.d, 64);
	struct rig_submission *s = three_copies(pd.d, a, b, c);
	const struct rig_loss *l;
	struct rig_point p;

	assert_null(rig_loss(pd.d));
	assert_int_equal(rig_polled_fail(pd.p, "submit"), 0);
	p = run_once(s);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), RIG_ELOST);
	l = rig_loss(pd.d);
	assert_string_equal(l->reason, "submit failed: injected submit failure");
	assert_int_equal(l->value, p.value);
	assert_ptr_equal(l->submission, s);
	assert_int_equal(l->part, -1);
	assert_int_equal(l->queue, -1);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	polled_close(pd);
}

static void
test_a_copy_names_no_submission(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "CU5" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	const struct rig_loss *l;
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	rig_polled_fault(pd.p, p.value, 0);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), RIG_ELOST);
	l = rig_loss(pd.d);
	assert_int_equal(l->value, p.value);
	assert_null(l->submission);
	assert_int_equal(l->part, 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_a_close_names_no_value(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "CU6" });
	const struct rig_loss *l;

	assert_int_equal(rig_close(pd.d), 0);
	l = rig_loss(pd.d);
	assert_string_equal(l->reason, "closed");
	assert_int_equal(l->value, 0);
	assert_null(l->submission);
	assert_int_equal(l->part, -1);
	polled_close(pd);
	assert_null(rig_loss(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_names_submission_and_part),
		cmocka_unit_test(test_failed_submit_names_value_and_submission),
		cmocka_unit_test(test_a_copy_names_no_submission),
		cmocka_unit_test(test_a_close_names_no_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
