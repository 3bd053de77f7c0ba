/* SPDX-License-Identifier: MIT */
/*
 * test_reuse: memory released while its work is in flight comes back to
 * the next allocation of its size and kind once that work is done, with
 * no driver call, and (where malloc and pthread_mutex_lock can be counted:
 * not under a sanitizer, which wraps them itself) no malloc and no mutex in
 * rig_buffer_create() and rig_buffer_release(). The budget counts such
 * memory as held until it goes back; an allocation past the budget first
 * gives back what is idle; the device's end returns it all (polled_close).
 */
#include <pthread.h>

#include "../core/calls.h"
#include "../core/common.h"
#include "reclaim/limbo.h"

#define BYTES 4096
#define BATCH 32			/* values between two waits */

#ifdef SANITIZED
static bool counting;		/* nothing counted: the sanitizer wraps malloc */
static unsigned long allocs, locks;
#endif

/*
 * One round: BATCH buffers made, written by a copy each and released with
 * the copy in flight (the device stalled meanwhile), then the device let
 * go and a wait for the last. With counting on around create and release
 * only. How many driver regions came or went.
 */
static int64_t
round_of(struct polled_dev pd, struct rig_buffer *src, bool count)
{
	int64_t before = rig_polled_live_regions(pd.p);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	for (int i = 0; i < BATCH; i++) {
		struct rig_buffer *b;

		counting = count;
		assert_int_equal(rig_buffer_create(pd.d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
		counting = false;
		assert_int_equal(rig_buffer_copy(src, b, &p), 0);
		counting = count;
		rig_buffer_release(b);
		counting = false;
	}
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	return rig_polled_live_regions(pd.p) - before;
}

static void
test_reused_with_no_driver_call(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RU1", .lag = 8 });
	struct rig_buffer *src = buffer_new(pd.d, BYTES);
	int64_t moved = 1;

	/* Two rounds fill the limbo: the next ones take from it. Kept
	 * memory does not age meanwhile (keep_longer), so a machine that
	 * stalls past the limbo's age between one round's wait and the next
	 * round's takes no longer sees the poller give it back (three rounds
	 * in a row did so at load average 47). What is
	 * left is a create whose take finds the limbo's token held by the
	 * poller's pass for the word the last wait saw move: it takes the
	 * slow path (mem_lock, a waiting take), and the round is counted
	 * again; up to twenty rounds, a bound on work, not on time. */
	round_of(pd, src, false);
	round_of(pd, src, false);
	for (int tries = 0; tries < 20 && (moved || allocs || locks); tries++) {
		allocs = locks = 0;
		moved = round_of(pd, src, true);
	}
	assert_int_equal(moved, 0);
	assert_int_equal(allocs, 0);
	assert_int_equal(locks, 0);
	assert_int_equal(rig_allocated(pd.d), (uint64_t)rig_polled_live_regions(pd.p) * BYTES);
	rig_buffer_release(src);
	polled_close(pd);
}

/* Kept memory stays kept for the test's length (it goes back after 2 ms
 * idle: a loaded machine's pause between the wait and the look, or
 * between one round and the next). */
static int
keep_longer(void **state)
{
	atomic_store(&limbo_age_ns, 3600 * SECOND_NS);
	return 0;
}

static int
keep_as_before(void **state)
{
	atomic_store(&limbo_age_ns, LIMBO_AGE_NS);
	return 0;
}

static void
test_budget_counts_kept_memory(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "RU2",
								       .budget = 3 * BYTES });
	struct rig_buffer *src = buffer_new(pd.d, BYTES), *a = buffer_new(pd.d, BYTES), *b;
	struct rig_point p;

	rig_polled_stall(pd.p, true);	/* released with the copy in flight */
	assert_int_equal(rig_buffer_copy(src, a, &p), 0);
	rig_buffer_release(a);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	/* Kept for reuse, still held: what the budget sees. */
	assert_int_equal(rig_allocated(pd.d), 2 * BYTES);
	assert_int_equal(rig_buffer_create(pd.d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_allocated(pd.d), 2 * BYTES);	/* reused, counted once */
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(src, b, &p), 0);
	rig_buffer_release(b);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	/* Past the budget with it kept: it goes back first, then fits. */
	assert_int_equal(rig_buffer_create(pd.d, 2 * BYTES, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_allocated(pd.d), 3 * BYTES);
	assert_int_equal(rig_polled_live_regions(pd.p), 2);
	rig_buffer_release(b);
	rig_buffer_release(src);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reused_with_no_driver_call, keep_longer,
						keep_as_before),
		cmocka_unit_test_setup_teardown(test_budget_counts_kept_memory, keep_longer,
						keep_as_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
