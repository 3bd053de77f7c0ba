/* SPDX-License-Identifier: MIT */
/*
 * test_claim: held buffers cannot be consumed; a consumed buffer is dead
 * and its successor's first use follows every use of it; exclusive is
 * false while anything else refers to the memory or holds it.
 */
#include "../core/common.h"

static struct polled_dev pd;

static int
setup(void **state)
{
	pd = polled_open((struct rig_polled_config){ .name = "CL" });
	return 0;
}

static int
teardown(void **state)
{
	polled_close(pd);
	return 0;
}

static int
try_consume(void *arg)
{
	struct rig_buffer *c = NULL;

	return rig_buffer_consume(arg, &c);
}

static void
test_held_cannot_be_consumed(void **state)
{
	struct rig_buffer *b = buffer_new(pd.d, 64), *c = NULL;
	struct rig_claim *hold;

	assert_int_equal(rig_claim_hold(&b, 1, &hold), 0);
	assert_int_equal(rig_buffer_consume(b, &c), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_consume: the buffer is held (by a claim or a taken run)");
	assert_null(c);
	assert_false(rig_buffer_exclusive(b));
	rig_claim_release(hold);
	assert_true(rig_buffer_exclusive(b));
	/* The scoped form: consume refused inside, allowed after. */
	assert_int_equal(rig_claim_with(&b, 1, try_consume, b), RIG_EINVAL);
	assert_int_equal(rig_buffer_consume(b, &c), 0);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
test_taken_run_holds_its_buffers(void **state)
{
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64), *c = NULL;
	struct rig_part_spec part = rig_part_copy(RIG_BUFFER(a), RIG_SLOT(0));
	struct rig_submission *s;
	struct rig_run *r;

	assert_int_equal(rig_submission_make(pd.d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_buffer_consume(a, &c), RIG_EINVAL);
	rig_run_release(r);
	assert_int_equal(rig_buffer_consume(a, &c), 0);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
test_consumed_is_dead_and_ordered(void **state)
{
	struct rig_buffer *src = buffer_new(pd.d, 4096), *b = buffer_new(pd.d, 4096), *c, *v;
	uint32_t x[1024], y[1024];

	for (int i = 0; i < 1024; i++)
		x[i] = 0xc0de0000u + (uint32_t)i;
	assert_int_equal(rig_buffer_write(src, 0, x, sizeof(x)), 0);
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(src, b, NULL), 0);	/* b written, not yet run */
	assert_int_equal(rig_buffer_consume(b, &c), 0);
	assert_int_equal(rig_buffer_read(b, 0, y, 4), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_read: the buffer is dead: consumed");
	assert_int_equal(rig_buffer_view(b, 0, 4, RIG_READ_ONLY, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: the buffer is dead: consumed");
	rig_polled_stall(pd.p, false);
	/* c's first use follows b's write. */
	assert_int_equal(rig_buffer_read(c, 0, y, sizeof(y)), 0);
	assert_memory_equal(x, y, sizeof(x));
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(src);
}

static void
test_exclusive_only_when_alone(void **state)
{
	struct rig_buffer *b = buffer_new(pd.d, 64), *v, *m;
	struct rig_device *other;

	assert_true(rig_buffer_exclusive(b));
	assert_int_equal(rig_buffer_view(b, 0, 8, RIG_READ_ONLY, &v), 0);
	assert_false(rig_buffer_exclusive(b));
	rig_buffer_release(v);
	assert_true(rig_buffer_exclusive(b));
	assert_int_equal(rig_memory_device("CL-M", &other), 0);
	assert_int_equal(rig_buffer_borrow(b, other, &m), 0);
	assert_false(rig_buffer_exclusive(b));
	assert_false(rig_buffer_exclusive(m));
	rig_buffer_release(m);
	assert_true(rig_buffer_exclusive(b));
	rig_device_release(other);
	rig_buffer_release(b);
	assert_false(rig_buffer_exclusive(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_cannot_be_consumed),
		cmocka_unit_test(test_taken_run_holds_its_buffers),
		cmocka_unit_test(test_consumed_is_dead_and_ordered),
		cmocka_unit_test(test_exclusive_only_when_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
