/* SPDX-License-Identifier: MIT */
/*
 * test_loss: each cause of a loss, through the polled driver's fault
 * injection, with its reason; and what holds after a loss (docs/loss.md): no
 * new work reaches the driver, every call returns the loss, waits on
 * dropped values return it while completed values still succeed, the
 * driver stops once (and soon, before any close), memory returns once the
 * word shows the last submitted value, the word slot is recycled, and
 * other devices go on.
 */
#include "loss.h"

static int
fill_fails(void *queue, void *arg, uint64_t value)
{
	(void)queue;
	(void)arg;
	(void)value;
	return 7;
}

/* Open name, lose it by what cause does, and check the reason. */
static void
lose_by(const char *name, void (*cause)(struct polled_dev *, struct rig_point *),
	const char *reason)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = name });
	struct rig_point p = { 0 };

	cause(&pd, &p);
	if (p.device)
		assert_int_equal(rig_wait(p, 30 * SECOND_NS), RIG_ELOST);
	await(rig_lost(pd.d));
	if (!strstr(rig_lost(pd.d), reason))
		fail_msg("%s lost with \"%s\", not \"%s\"", name, rig_lost(pd.d), reason);
	/* The driver stops soon after the loss, not at the close; once. */
	await(rig_polled_stops(pd.p) == 1);
	assert_int_equal(rig_close(pd.d), 0);
	assert_int_equal(rig_polled_stops(pd.p), 1);
	assert_int_equal(rig_polled_overlaps(pd.p), 0);
	polled_close(pd);
}

static void
copy_on(struct polled_dev *pd, struct rig_point *p)
{
	struct rig_buffer *a = buffer_new(pd->d, 64), *b = buffer_new(pd->d, 64);

	assert_int_equal(rig_buffer_copy(a, b, p), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
}

static void
fault(struct polled_dev *pd, struct rig_point *p)
{
	struct rig_buffer *a = buffer_new(pd->d, 64), *b = buffer_new(pd->d, 64),
			  *c = buffer_new(pd->d, 64);
	struct rig_submission *s = three_copies(pd->d, a, b, c);

	rig_polled_stall(pd->p, true);
	*p = run_once(s);
	rig_polled_fault(pd->p, p->value, 1);
	rig_polled_stall(pd->p, false);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
submit_fails(struct polled_dev *pd, struct rig_point *p)
{
	assert_int_equal(rig_polled_fail(pd->p, "submit"), 0);
	copy_on(pd, p);
}

static void
commit_fails(struct polled_dev *pd, struct rig_point *p)
{
	/* The commit that follows the copy's submit fails. */
	assert_int_equal(rig_polled_fail(pd->p, "commit"), 0);
	copy_on(pd, p);
}

static void
fill_returns(struct polled_dev *pd, struct rig_point *p)
{
	struct rig_part_spec part = rig_part_fill(fill_fails, 0, NULL, 0);
	struct rig_submission *s = NULL;

	assert_int_equal(rig_submission_make(pd->d, &part, 1, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	*p = run_once(s);
	rig_submission_release(s);
}

static void
room_refuses(struct polled_dev *pd, struct rig_point *p)
{
	assert_int_equal(rig_polled_fail(pd->p, "room"), 0);
	copy_on(pd, p);
}

static void
closes(struct polled_dev *pd, struct rig_point *p)
{
	(void)p;
	assert_int_equal(rig_close(pd->d), 0);
}

static void
test_fault(void **state)
{
	lose_by("L1", fault, "fault: injected fault at part 1 of value");
}

static void
test_submit_failed(void **state)
{
	lose_by("L2", submit_fails, "submit failed: injected submit failure");
}

static void
test_commit_failed(void **state)
{
	lose_by("L3", commit_fails, "commit failed: injected commit failure");
}

static void
test_fill_failed(void **state)
{
	lose_by("L4", fill_returns, "submit failed: fill of part 0 returned 7");
}

static void
test_room_never(void **state)
{
	lose_by("L5", room_refuses, "room answered RIG_NEVER for value");
}

static void
test_closed(void **state)
{
	lose_by("L6", closes, "closed");
}

/* Everything that holds once a device is lost. */
static void
test_after_a_loss(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "L7" });
	struct polled_dev other = polled_open((struct rig_polled_config){ .name = "L7b" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64),
			  *c = buffer_new(pd.d, 64), *x = buffer_new(other.d, 64),
			  *y = buffer_new(other.d, 64), *nb = NULL;
	struct rig_submission *s = three_copies(pd.d, a, b, c);
	struct rig_point done, dropped, later;
	uint64_t submits;
	int slots = timeline_slots_taken();
	char bytes[64];

	done = run_once(s);
	assert_int_equal(rig_wait(done, 30 * SECOND_NS), 0);
	rig_polled_stall(pd.p, true);
	dropped = run_once(s);
	later = run_once(s);
	rig_polled_fault(pd.p, dropped.value, 0);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(later, 30 * SECOND_NS), RIG_ELOST);
	assert_why("rig_wait: value", "of L7 was dropped: L7 is lost: fault: injected fault at part 0");

	/* Waits: dropped values return the loss, completed ones succeed. */
	assert_int_equal(rig_wait(dropped, 0), RIG_ELOST);
	assert_true(rig_signaled(dropped));
	assert_false(rig_reached(dropped));
	assert_int_equal(rig_wait(done, 0), 0);
	assert_true(rig_reached(done));

	/* Every call that needs the device returns the loss. */
	await(rig_polled_stops(pd.p) == 1);
	submits = rig_polled_submits(pd.p);
	assert_int_equal(rig_buffer_create(pd.d, 64, RIG_MEMORY_DEVICE, &nb), RIG_ELOST);
	assert_why("rig_buffer_create: L7 is lost: fault: injected fault");
	assert_null(nb);
	assert_int_equal(rig_buffer_copy(a, b, NULL), RIG_ELOST);
	assert_why("rig_buffer_copy: L7 is lost: fault");
	{
		struct rig_run *r = NULL;

		if (rig_run_take(s, &r) == 0)
			assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, NULL), RIG_ELOST);
		else
			assert_why("L7 is lost");
	}
	assert_int_equal(rig_buffer_read(c, 0, bytes, sizeof(bytes)), RIG_ELOST);
	assert_why("rig_buffer_read: ", "L7 is lost: fault");
	assert_int_equal(rig_polled_submits(pd.p), submits);	/* nothing new */
	assert_int_equal(rig_polled_overlaps(pd.p), 0);

	/* Another device goes on. */
	assert_int_equal(rig_buffer_copy(x, y, &later), 0);
	assert_int_equal(rig_wait(later, 30 * SECOND_NS), 0);
	assert_null(rig_lost(other.d));

	/* Memory returns once the word shows the last submitted value: the
	 * driver stopped, so it does, before any close. */
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	await(rig_polled_live_regions(pd.p) == 0);

	/* The word slot goes back at the release. */
	rig_device_release(pd.d);
	assert_int_equal(timeline_slots_taken(), slots - 1);
	assert_false(rig_polled_open(pd.p));
	assert_int_equal(rig_polled_stops(pd.p), 1);
	rig_polled_destroy(pd.p);
	rig_buffer_release(x);
	rig_buffer_release(y);
	polled_close(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_submit_failed),
		cmocka_unit_test(test_commit_failed),
		cmocka_unit_test(test_fill_failed),
		cmocka_unit_test(test_room_never),
		cmocka_unit_test(test_closed),
		cmocka_unit_test(test_after_a_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
