/* SPDX-License-Identifier: MIT */
/*
 * test_ec_deadline: a wait on an event count (util/ec.h) never sleeps
 * past its deadline. ck_ec's backoff sleeps until 2 ms after the wait
 * began, then 8x longer, whatever the deadline: a wait of 200 us would
 * sleep 2 ms. ec32_wait_until(), which every wait of rig's with a deadline
 * calls (timeline/wait.c, words.c, polled/queue.c), bounds each sleep by
 * the wait's own deadline.
 *
 * Structural, no timing: the waits run with ops whose wait32 notes each
 * deadline ck_ec hands the futex, then sleeps as rig's does (ec_wait32).
 * Every noted deadline must be the wait's or earlier. A wait whose deadline
 * passed before ck_ec looked sleeps not at all (and notes nothing): the
 * test waits until some sleeps were noted, a few at most on a loaded
 * machine, and fails only on a late one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/ec.h"

#define WAIT_NS		200000ull	/* 200 us: under ck_ec's first 2 ms */
#define SLEEPS_WANTED	20
#define TRIES		5000

static const struct timespec *wait_deadline;	/* the wait's own */
static unsigned sleeps, late;

static bool
after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

static void
noting_wait32(const struct ck_ec_wait_state *state, const uint32_t *addr,
	      uint32_t expected, const struct timespec *deadline)
{
	sleeps++;
	if (!deadline || after(deadline, wait_deadline))
		late++;
	ec_wait32(state, addr, expected, deadline);
}

static const struct ck_ec_ops noting_ops = {
	.gettime = ec_gettime,
	.wait32 = noting_wait32,
	.wake32 = ec_wake32,
	.busy_loop_iter = 16,
};
static const struct ck_ec_mode noting_mode = { .ops = &noting_ops };

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
test_sleeps_end_by_the_deadline(void **state)
{
	struct ck_ec32 ec = CK_EC_INITIALIZER;
	int tries = 0;

	(void)state;
	sleeps = late = 0;
	while (sleeps < SLEEPS_WANTED && tries++ < TRIES) {
		struct timespec until;

		wait_deadline = ec_until(now_ns() + WAIT_NS, &until);
		/* Nobody bumps the count: the wait ends at its deadline. */
		assert_int_equal(ec32_wait_until(&ec, &noting_mode, ck_ec32_value(&ec),
						 wait_deadline), -1);
	}
	print_message("# %u sleeps in %d waits of %llu us, %u past the wait's deadline\n",
		      sleeps, tries, (unsigned long long)(WAIT_NS / 1000), late);
	assert_true(sleeps > 0);
	assert_int_equal(late, 0);
}

/* A count that moved from what the waiter saw: no sleep at all. */
static void
test_moved_count_returns_at_once(void **state)
{
	struct ck_ec32 ec = CK_EC_INITIALIZER;
	struct timespec until;
	uint32_t seen = ck_ec32_value(&ec);

	(void)state;
	sleeps = late = 0;
	ck_ec32_inc(&ec, &noting_mode);
	wait_deadline = ec_until(now_ns() + WAIT_NS, &until);
	assert_int_equal(ec32_wait_until(&ec, &noting_mode, seen, wait_deadline), 0);
	assert_int_equal(sleeps, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleeps_end_by_the_deadline),
		cmocka_unit_test(test_moved_count_returns_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
