/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_wait_expect.c: a wait that sleeps wakes itself shortly
 * before the end its timeline expects from the last waits, yields across
 * that end, and sleeps again; so a host value's waiter is awake when the
 * launch's last thread stores the word (bench/host.c's last_group_to_wait),
 * and a wait yields a bounded time only (wait.c says why both).
 *
 *  - the rule: timeline_expect_next() and timeline_yield_span() for a
 *    table of cases (first wait, slower, faster, an outlier, long waits
 *    capped);
 *  - awake at the end: after waits of about EXPECT_NS, a wait whose value
 *    is stored once it sleeps, with no wake at all (no rig_word_wake, no
 *    poller looks), still returns, once it wakes for the expected end: a sleeping
 *    wait that did not wake itself would sleep to its deadline. It cannot
 *    return before it wakes (nothing bumps its count), so it returns no
 *    sooner than half the expected end either;
 *  - bounded: a wait for a value that never comes, after such waits,
 *    spends a few milliseconds of CPU at most in a wait of WAIT_NS (it
 *    sleeps, not spins), and its timeout leaves the expectation as it was;
 *  - several waiters at once on one timeline, whose values end at random
 *    times, each stored with a wake: every wait returns 0, while they all
 *    tune the expectation (relaxed atomics: ThreadSanitizer checks them).
 *
 * Linked with timeline/wait.c, state.c and words.c alone (meson.build).
 * Nothing here fails on a slow machine: load only makes the waits later,
 * and each bound is many times what an idle machine takes.
 *
 * Usage: test_wait_expect [waiters [rounds]] (the last test's; 3 and 40).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "util/ec.h"
#include "timeline/timeline.h"

#define MS		1000000ull
#define SECOND_NS	(1000 * MS)
#define EXPECT_NS	(50 * MS)	/* the waits' length the timeline learns */
#define DEADLINE_NS	(20 * SECOND_NS)
#define WAIT_NS		(500 * MS)	/* the wait for a value that never comes */
#define CPU_MAX_NS	(10 * MS)	/* what it may spend: 2% of it */

/* The neighbour wait.c calls: a poller runs (it never looks, here). */
bool
poller_kick(void)
{
	return true;
}

static int
no_commit(struct timeline *tl, uint64_t v)
{
	return 0;
}

static unsigned nwaiters = 3, rounds = 40;

static void
sleep_ns(uint64_t ns)
{
	nanosleep(&(struct timespec){ (time_t)(ns / SECOND_NS), (long)(ns % SECOND_NS) }, NULL);
}

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

static void
test_rule(void **state)
{
	const struct {
		uint64_t expect, waited, next;
	} rule[] = {
		{ 0, 1000, 1000 },			/* the first wait sets it */
		{ 1000, 1000, 1000 },
		{ 1000, 2000, 1062 },			/* a sixteenth of the way up */
		{ 1000, 0, 500 },			/* half the way down */
		{ 4 * MS, 100 * MS, 10 * MS },		/* one slow wait moves it little */
		{ UINT64_MAX / 2, UINT64_MAX, UINT64_MAX / 2 + UINT64_MAX / 32 + 1 },
	};
	uint64_t from, to;

	for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
		if (timeline_expect_next(rule[i].expect, rule[i].waited) != rule[i].next)
			fail_msg("expect %llu, waited %llu: expected next %llu, got %llu",
				 (unsigned long long)rule[i].expect,
				 (unsigned long long)rule[i].waited,
				 (unsigned long long)rule[i].next,
				 (unsigned long long)timeline_expect_next(rule[i].expect,
									  rule[i].waited));
	/* 1 ms: from 200 us before to 200 us + 1/8 ms after. */
	timeline_yield_span(5000, MS, &from, &to);
	assert_int_equal(from, 5000 + MS - TIMELINE_EARLY_NS);
	assert_int_equal(to, 5000 + MS + TIMELINE_EARLY_NS + MS / 8);
	/* Shorter than the lead: yields from the start. */
	timeline_yield_span(5000, 100000, &from, &to);
	assert_int_equal(from, 5000);
	assert_int_equal(to, 5000 + 100000 + TIMELINE_EARLY_NS + 100000 / 8);
	/* A long wait: at most TIMELINE_LATE_MAX_NS after its end. */
	timeline_yield_span(0, 10 * SECOND_NS, &from, &to);
	assert_int_equal(from, 10 * SECOND_NS - TIMELINE_EARLY_NS);
	assert_int_equal(to, 10 * SECOND_NS + TIMELINE_EARLY_NS + TIMELINE_LATE_MAX_NS);
}

struct waiter {
	struct timeline *tl;
	uint64_t value, took;
	int ret;
};

static void *
wait_thread(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = rig_now_ns();

	w->ret = timeline_wait(w->tl, w->value, DEADLINE_NS);
	w->took = rig_now_ns() - t0;
	return NULL;
}

/* Until a wait flagged the count to sleep, or some ten seconds passed. */
static void
until_asleep(struct timeline *tl)
{
	for (int i = 0; i < 100000 && !ck_ec32_has_waiters(tl->futex); i++)
		sleep_ns(100000);
}

/*
 * One wait, on another thread, for the next value, which this thread
 * stores after after_ns (0: as soon as the wait sleeps), then wakes its
 * sleepers or not. Returns how long the wait took.
 */
static uint64_t
wait_stored(struct timeline *tl, uint64_t after_ns, bool wake)
{
	struct waiter w = { tl, atomic_load(tl->word) + 1, 0, 0 };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	if (after_ns)
		sleep_ns(after_ns);
	else
		until_asleep(tl);
	atomic_store_explicit(tl->word, w.value, memory_order_release);
	if (wake)
		rig_word_wake(tl->word);
	pthread_join(t, NULL);
	if (w.ret != 0)
		fail_msg("the wait for value %llu returned %d after %llu ms",
			 (unsigned long long)w.value, w.ret, (unsigned long long)(w.took / MS));
	return w.took;
}

static void
open_timeline(struct timeline *tl)
{
	*tl = (struct timeline){ .commit = no_commit, .events_fd = -1 };
	assert_true(timeline_slot_take(tl) >= 0);
	timeline_start(tl);
}

/* Waits of about EXPECT_NS, each woken by its store: the timeline learns. */
static void
learn(struct timeline *tl)
{
	for (int i = 0; i < 6; i++)
		wait_stored(tl, EXPECT_NS, true);
	assert_true(atomic_load(&tl->expect_ns) >= EXPECT_NS / 2);
}

static void
test_awake_at_the_end(void **state)
{
	struct timeline tl;
	uint64_t took, expect;

	open_timeline(&tl);
	learn(&tl);
	expect = atomic_load(&tl.expect_ns);
	/* Stored once the wait sleeps, never woken: only the wait's own
	 * wake-up before the expected end finds it, at about expect -
	 * TIMELINE_EARLY_NS. */
	took = wait_stored(&tl, 0, false);
	if (took > DEADLINE_NS / 2)
		fail_msg("slept %llu ms, to its deadline: it never woke for the end it expects (%llu us)",
			 (unsigned long long)(took / MS), (unsigned long long)(expect / 1000));
	if (took < expect / 2)
		fail_msg("returned after %llu us, before it woke for the end it expects (%llu us)",
			 (unsigned long long)(took / 1000), (unsigned long long)(expect / 1000));
	timeline_slot_give(&tl);
}

static void
test_yields_bounded(void **state)
{
	struct timeline tl;
	uint64_t expect, cpu, t0;
	int ret;

	open_timeline(&tl);
	learn(&tl);
	expect = atomic_load(&tl.expect_ns);
	cpu = thread_cpu_ns();
	t0 = rig_now_ns();
	ret = timeline_wait(&tl, atomic_load(tl.word) + 1, WAIT_NS);
	t0 = rig_now_ns() - t0;
	cpu = thread_cpu_ns() - cpu;
	assert_int_equal(ret, RIG_ETIMEDOUT);
	assert_true(t0 >= WAIT_NS);
	if (cpu > CPU_MAX_NS)
		fail_msg("a wait of %llu ms spent %llu ms of CPU (at most %llu)",
			 (unsigned long long)(t0 / MS), (unsigned long long)(cpu / MS),
			 (unsigned long long)(CPU_MAX_NS / MS));
	/* A timeout tells nothing of how long values take. */
	assert_int_equal(atomic_load(&tl.expect_ns), expect);
	/* The value the wait gave up on, stored so the slot's next holder
	 * starts above it. */
	atomic_store(tl.word, atomic_load(tl.word) + 1);
	timeline_slot_give(&tl);
}

struct many {
	struct timeline *tl;
	uint64_t value;
	pthread_barrier_t start;
	_Atomic int bad;
};

static void *
many_waiter(void *arg)
{
	struct many *m = arg;

	pthread_barrier_wait(&m->start);
	if (timeline_wait(m->tl, m->value, DEADLINE_NS) != 0)
		atomic_fetch_add(&m->bad, 1);
	return NULL;
}

static void
test_many_waiters(void **state)
{
	pthread_t *t = calloc(nwaiters, sizeof(*t));
	unsigned seed = (unsigned)time(NULL);
	struct timeline tl;

	assert_non_null(t);
	open_timeline(&tl);
	for (unsigned k = 0; k < rounds; k++) {
		struct many m = { .tl = &tl, .value = atomic_load(tl.word) + 1 };

		pthread_barrier_init(&m.start, NULL, nwaiters + 1);
		for (unsigned i = 0; i < nwaiters; i++)
			assert_int_equal(pthread_create(&t[i], NULL, many_waiter, &m), 0);
		pthread_barrier_wait(&m.start);
		/* 0 to 3 ms: some waits end while yielding, some asleep. */
		sleep_ns((uint64_t)(rand_r(&seed) % 3000) * 1000);
		atomic_store_explicit(tl.word, m.value, memory_order_release);
		rig_word_wake(tl.word);
		for (unsigned i = 0; i < nwaiters; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&m.start);
		if (atomic_load(&m.bad))
			fail_msg("round %u (seed %u): %d waits failed", k, seed, atomic_load(&m.bad));
	}
	timeline_slot_give(&tl);
	free(t);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_awake_at_the_end),
		cmocka_unit_test(test_yields_bounded),
		cmocka_unit_test(test_many_waiters),
	};

	if (argc > 1)
		nwaiters = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		rounds = (unsigned)strtoul(argv[2], NULL, 0);
	if (nwaiters < 1)
		nwaiters = 1;
	return cmocka_run_group_tests_name("test_wait_expect", tests, NULL, NULL);
}
