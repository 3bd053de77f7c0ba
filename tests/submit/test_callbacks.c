/* SPDX-License-Identifier: MIT */
/*
 * test_callbacks: a function rig calls back (a fill, run inside the
 * driver's submit) that calls a function taking one of rig's locks gets an
 * invalid-argument error having changed nothing (docs/process.md), where it would
 * otherwise deadlock: on the memory device the fill runs under the driver
 * lock the nested submit would take.
 */
#include "../core/common.h"

static struct rig_device *m;
static struct rig_buffer *b;
static struct rig_submission *s;
static int nested[5];
static char why[5][128];

static int
nests(void *queue, void *arg, uint64_t value)
{
	struct rig_run *r;
	struct rig_buffer *c;
	char x[4];

	nested[0] = rig_buffer_read(b, 0, x, 4);
	snprintf(why[0], sizeof(why[0]), "%s", rig_why());
	nested[1] = rig_buffer_create(m, 4, RIG_MEMORY_DEVICE, &c);
	snprintf(why[1], sizeof(why[1]), "%s", rig_why());
	nested[2] = rig_wait((struct rig_point){ m, value }, 0);
	snprintf(why[2], sizeof(why[2]), "%s", rig_why());
	nested[3] = rig_run_take(s, &r) == 0 ? rig_submit(r, NULL, 0, NULL, 0, NULL) : -1;
	snprintf(why[3], sizeof(why[3]), "%s", rig_why());
	nested[4] = rig_close(m);
	snprintf(why[4], sizeof(why[4]), "%s", rig_why());
	return 0;
}

static void
test_fill_calls_are_refused(void **state)
{
	struct rig_part_spec part = rig_part_fill(nests, 0, NULL, 0);
	static const char *const names[] = { "rig_buffer_read", "rig_buffer_create",
		"rig_wait", "rig_submit", "rig_close" };
	struct rig_run *r;
	struct rig_point p;
	char msg[128];

	assert_int_equal(rig_memory_device("CB", &m), 0);
	b = buffer_new(m, 4);
	assert_int_equal(rig_submission_make(m, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &p), 0);	/* returns: no deadlock */
	assert_true(rig_reached(p));
	for (int i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "%s: called from inside a callback of rig's", names[i]);
		assert_int_equal(nested[i], RIG_EINVAL);
		assert_string_equal(why[i], msg);
	}
	assert_null(rig_lost(m));			/* nothing changed */
	assert_int_equal(rig_allocated(m), 4);
	rig_submission_release(s);
	rig_buffer_release(b);
	rig_device_release(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_calls_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
