/* SPDX-License-Identifier: MIT */
/*
 * test_big_jobs: a job too big for its ring slot's room lies on the heap,
 * yet its value still takes the slot, so a submitter waits for the slot as
 * for any other value. Before, such a submit went on past a full ring and
 * overwrote a value the submission thread had not taken yet, which then
 * never ran (its waiter timed out).
 */
#include <pthread.h>
#include <time.h>

#include "../core/common.h"

#define PARTS	40	/* copies per submission: its job is well over a slot's room */
#define VALUES	1500	/* values in flight: several laps of the submission ring */

static void *
unstall_later(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	rig_polled_stall(arg, false);
	return NULL;
}

static void
test_heap_jobs_wait_for_their_slot(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "P-big" });
	struct rig_buffer *src = buffer_new(pd.d, 64), *dst = buffer_new(pd.d, 64);
	struct rig_buffer *bufs[] = { src, dst };
	struct rig_part_spec parts[PARTS];
	struct rig_submission *s;
	struct rig_point p = { 0 };
	unsigned char want[64], got[64];
	pthread_t t;

	for (size_t i = 0; i < PARTS; i++)
		parts[i] = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = (unsigned char)(i * 5 + 3);
	assert_int_equal(rig_buffer_write(src, 0, want, sizeof(want)), 0);
	assert_int_equal(rig_submission_make(pd.d, parts, PARTS, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	/* The worker holds everything: the rings fill, and the submits
	 * beyond them wait until it lets go. */
	rig_polled_stall(pd.p, true);
	assert_int_equal(pthread_create(&t, NULL, unstall_later, pd.p), 0);
	for (int i = 0; i < VALUES; i++) {
		struct rig_run *r;

		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_submit(r, bufs, 2, NULL, 0, &p), 0);
	}
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	pthread_join(t, NULL);
	assert_int_equal(rig_polled_submits(pd.p) >= VALUES, true);
	assert_int_equal(rig_buffer_read(dst, 0, got, sizeof(got)), 0);
	assert_memory_equal(got, want, sizeof(want));
	rig_submission_release(s);
	rig_buffer_release(src);
	rig_buffer_release(dst);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_jobs_wait_for_their_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
