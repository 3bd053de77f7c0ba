/* SPDX-License-Identifier: MIT */
/*
 * test_waits_end: every wait ends (issue 14, items 9 and 10c).
 *
 * A wait on a value no submit gave is refused (RIG_EINVAL), whatever its
 * timeout, and so is a submit that names one among its extra waits, on
 * the memory device and on the polled one (whose later reads would block
 * for ever). A driver call that blocks (facts.may_block: room, submit or
 * commit) holds no wait past its deadline, and while one blocks the hang
 * clock runs: the device is lost "no progress for n ms", and waits end.
 * Each check is an order, not a speed: the wait returns while the call is
 * still blocked (a wait held behind it could not).
 */
#include <pthread.h>

#include "loss.h"

/* Item 9: rig_wait on a value above the last given. */
static void
test_wait_on_a_value_never_given(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W1" });
	struct rig_device *m = NULL;
	struct rig_buffer *a, *b;
	struct rig_point p;

	assert_int_equal(rig_memory_device("W1M", &m), 0);
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	/* The next value is given by no submit yet: refused at once, even
	 * with no deadline (it never returned). */
	assert_int_equal(rig_wait((struct rig_point){ pd.d, p.value + 1 }, UINT64_MAX),
			 RIG_EINVAL);
	assert_why("rig_wait: value", "given by no submit");
	assert_int_equal(rig_wait((struct rig_point){ pd.d, UINT64_MAX }, 0), RIG_EINVAL);
	assert_int_equal(rig_wait((struct rig_point){ m, 1000 }, UINT64_MAX), RIG_EINVAL);
	assert_why("rig_wait: value 1000 of W1M");
	/* Given values still wait as before. */
	assert_int_equal(rig_wait(p, 0), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(m);
	polled_close(pd);
}

/* A copy-only submission a to b on d. */
static struct rig_submission *
copy_submission(struct rig_device *d, struct rig_buffer *a, struct rig_buffer *b)
{
	struct rig_part_spec part = rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(b));
	struct rig_submission *s = NULL;

	assert_int_equal(rig_submission_make(d, &part, 1, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	return s;
}

/* Item 9: a submit that would wait for a value no submit gave. */
static void
refuse_on(struct rig_device *d, struct rig_device *producer)
{
	struct rig_buffer *a = buffer_new(d, 64), *b = buffer_new(d, 64);
	struct rig_submission *s = copy_submission(d, a, b);
	struct rig_point never = { producer, 1 << 20 }, p = { 0 };
	struct rig_run *r = NULL;
	char bytes[64];

	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, &never, 1, &p), RIG_EINVAL);
	assert_why("rig_submit: wait 0 names value 1048576 of", "which no submit gave");
	assert_null(p.device);
	/* Nothing changed: the device goes on, and its reads end. */
	assert_null(rig_lost(d));
	assert_int_equal(rig_buffer_read(b, 0, bytes, sizeof(bytes)), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
}

static void
test_submit_waiting_on_a_value_never_given(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W2" });
	struct rig_device *m = NULL;

	assert_int_equal(rig_memory_device("W2M", &m), 0);
	refuse_on(m, m);	/* used to never return */
	refuse_on(m, pd.d);
	refuse_on(pd.d, pd.d);	/* used to be accepted; reads then blocked */
	refuse_on(pd.d, m);
	rig_device_release(m);
	polled_close(pd);
}

/* ---- Item 10c: a driver call that blocks ---- */

struct unblocker {
	struct rig_polled *p;
	const char *call;
	_Atomic bool done;	/* the test is over: unblock now */
};

/* Unblock after the test says so, or after 60 s: a wait held behind the
 * call then ends, late, and the test sees the order it came in. */
static void *
unblock_later(void *arg)
{
	struct unblocker *u = arg;

	for (int i = 0; i < 60000 && !atomic_load(&u->done); i++)
		sleep_ms(1);
	rig_polled_block(u->p, u->call, false);
	return NULL;
}

static void
blocked_call(const char *call, bool hang)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "W3", .may_block = true,
		.hang_ms = hang ? RIG_SOME(100) : RIG_NONE });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct unblocker u = { .p = pd.p, .call = call };
	struct rig_point p;
	pthread_t t;
	int ret;

	assert_int_equal(rig_polled_block(pd.p, call, true), 0);
	assert_int_equal(pthread_create(&t, NULL, unblock_later, &u), 0);
	/* The device's thread calls room, then submit, then (its ring
	 * empty) commit: the blocked one holds it there. */
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	await(rig_polled_blocked(pd.p) == 1);
	ret = rig_wait(p, hang ? UINT64_MAX : 100 * MS_NS);
	if (rig_polled_blocked(pd.p) != 1)
		fail_msg("%s: the wait (%d) ended only once the blocked %s returned",
			 call, ret, call);
	if (hang) {
		assert_int_equal(ret, RIG_ELOST);
		assert_string_equal(rig_lost(pd.d), "no progress for 100 ms");
	} else {
		assert_int_equal(ret, RIG_ETIMEDOUT);
		assert_null(rig_lost(pd.d));
	}
	atomic_store(&u.done, true);
	pthread_join(t, NULL);
	if (!hang)
		assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_a_blocked_call_keeps_no_wait_past_its_deadline(void **state)
{
	blocked_call("room", false);
	blocked_call("submit", false);
	blocked_call("commit", false);
}

static void
test_a_blocked_call_is_a_hang(void **state)
{
	blocked_call("room", true);
	blocked_call("submit", true);
	blocked_call("commit", true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_on_a_value_never_given),
		cmocka_unit_test(test_submit_waiting_on_a_value_never_given),
		cmocka_unit_test(test_a_blocked_call_keeps_no_wait_past_its_deadline),
		cmocka_unit_test(test_a_blocked_call_is_a_hang),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
