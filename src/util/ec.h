/* SPDX-License-Identifier: MIT */
/*
 * util/ec.h: Concurrency Kit's event counts (ck_ec.h) on Linux futexes:
 * the table of clock, wait and wake that ck_ec asks of its platform, and the
 * two modes rig uses. docs/threads.md: ck_ec for wake-ups beside a word.
 *
 * An event count is the wake-up beside something that changes (a word, a
 * cursor): whoever changes it bumps the count after the change; a waiter
 * reads the count, looks, and sleeps only while the count still shows what
 * it read, so no wake-up is lost. ck_ec flags the count when a waiter is
 * about to sleep, so a bump makes a system call only then: a bump while
 * nobody sleeps is one increment.
 *
 * Orders (ck_ec.h): a bump is a store barrier after what the bumper wrote
 * before it; ck_ec32_value() and a wait that returns are load (acquire)
 * barriers. Both are ck_pr's inline asm on x86, which ThreadSanitizer does
 * not see: hand nothing over through a count, only through C11 atomics
 * (the word, the cursor) that the waiter reads after the count.
 *
 * Modes. ec_sp(): the bumps of one count never run at once (one thread, or
 * threads under one lock, or handed on by a join); on x86 a bump is then a
 * plain increment, no locked instruction. ck_ec's waiter spins a little
 * after it flags the count and sleeps with growing timeouts (2 ms, then 8x
 * up to 1 s, none past the wait's deadline: ec32_wait_until), which covers the one race of that mode (an increment in
 * flight that rewrites the flag). ec_mp(): any number of bumpers at once.
 *
 * 32-bit counts only: the count is 31 bits and wraps; a waiter compares
 * for equality only, and a wrap costs one spurious wake-up in 2^31 bumps.
 */
#ifndef UTIL_EC_H
#define UTIL_EC_H

#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ck_ec.h>

static inline int
ec_gettime(const struct ck_ec_ops *ops, struct timespec *out)
{
	return clock_gettime(CLOCK_MONOTONIC, out);
}

/* ck_ec gives an absolute CLOCK_MONOTONIC deadline (or NULL): what
 * FUTEX_WAIT_BITSET takes. May return early; ck_ec looks again. */
static inline void
ec_wait32(const struct ck_ec_wait_state *state, const uint32_t *addr,
	  uint32_t expected, const struct timespec *deadline)
{
	syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, expected, deadline,
		NULL, FUTEX_BITSET_MATCH_ANY);
}

static inline void
ec_wake32(const struct ck_ec_ops *ops, const uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * One table per file that includes this; ck_ec reads it only on its slow
 * paths. ck_ec's timeouts (2 ms, growing 8x); its spins shorter than its
 * default 100 pauses before and after it flags the count: a pause costs
 * ~60 ns on this machine's cores, and whoever calls a wait here spun (and
 * yielded) already. The spin after the flag covers an ec_sp bump in
 * flight, a store still in its core's buffer: a few hundred ns at most.
 */
static const struct ck_ec_ops ec_ops = {
	.gettime = ec_gettime,
	.wait32 = ec_wait32,
	.wake32 = ec_wake32,
	.busy_loop_iter = 16,
};

/* Constants, so that ck_ec32_inc() picks its path when it is compiled. */
static const struct ck_ec_mode ec_sp_mode = { .ops = &ec_ops, .single_producer = true };
static const struct ck_ec_mode ec_mp_mode = { .ops = &ec_ops, .single_producer = false };

/* The mode of a count whose bumps never run at once. */
#define ec_sp() (&ec_sp_mode)
/* The mode of a count that any thread may bump at any time. */
#define ec_mp() (&ec_mp_mode)

/*
 * ck_ec's backoff sleeps until 2 ms after the wait began, then 8x longer,
 * whatever the wait's own deadline (ck_ec.c, exponential_backoff(), which
 * hands wait32 the earlier deadline only once a second passed): a wait of
 * 100 us would sleep 2 ms. Its predicate may move each sleep's deadline
 * earlier (ck_ec.h, ck_ec_wait_pred): ec_clamp moves it to the wait's
 * own, which ec32_wait_until() hands it as the wait's data.
 */
static inline int
ec_clamp(const struct ck_ec_wait_state *state, struct timespec *partial)
{
	const struct timespec *until = state->data;

	if (partial->tv_sec > until->tv_sec ||
	    (partial->tv_sec == until->tv_sec && partial->tv_nsec > until->tv_nsec))
		*partial = *until;
	return 0;	/* not over: sleep */
}

/* ck_ec32_wait(), each sleep ending by deadline (NULL: no deadline).
 * Every wait of rig's with a deadline goes through this. */
static inline int
ec32_wait_until(struct ck_ec32 *ec, const struct ck_ec_mode *mode, uint32_t seen,
		const struct timespec *deadline)
{
	if (!deadline)
		return ck_ec32_wait(ec, mode, seen, NULL);
	return ck_ec32_wait_pred(ec, mode, seen, ec_clamp, (void *)deadline, deadline);
}

/* A wait's deadline for ck_ec: the CLOCK_MONOTONIC time until_ns (as
 * rig_now_ns() counts) in *ts, or NULL for UINT64_MAX (no deadline). */
static inline const struct timespec *
ec_until(uint64_t until_ns, struct timespec *ts)
{
	if (until_ns == UINT64_MAX)
		return NULL;
	ts->tv_sec = (time_t)(until_ns / 1000000000u);
	ts->tv_nsec = (long)(until_ns % 1000000000u);
	return ts;
}

#endif
