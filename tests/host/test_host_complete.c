/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_complete.c: a launch that completes its value from
 * the thread that ends it last (pool.h's host_pool_done), the pool alone.
 * A runner launches values 1, 2, ... each over a random range and chunk
 * (some ranges one chunk, which the runner runs alone; some with a slow
 * call so a worker ends last; some with a call that faults, ud2, whose
 * value must never be stored). Watchers read the word all along: it never
 * goes backwards, and once it shows v every byte v's calls wrote is
 * visible (plain stores, plain reads after the word's acquire: a store of
 * the word before another thread's call ended is a data race that
 * ThreadSanitizer reports, and a wrong byte here). Each completed value is
 * woken exactly once, and the runner sees the word at v when the launch
 * returns; after a fault it still shows v - 1 (faults are injected in
 * every build but ThreadSanitizer's, see below).
 *
 * Usage: test_host_complete [values] (default 3000).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pthread.h>
#include <cmocka.h>

#include "host/guard.h"
#include "host/pool.h"

#include "../core/under_tsan.h"

#define MAX_N		96
#define WATCHERS	2

static unsigned values = 3000;

struct task {
	int64_t (*out)[MAX_N];		/* per value: each index's writer stores the value */
	uint64_t value;
	int64_t n;
	int64_t slow;			/* this index's call sleeps 0.2 ms; -1: none */
	int64_t fault;			/* this index's call runs ud2; -1: none */
};

static _Atomic uint64_t word;
static _Atomic uint64_t wakes, last_woken;
static _Atomic bool watching;
static _Atomic int watch_bad;
static char watch_why[160];
static int64_t (*out)[MAX_N];
static int64_t *lengths;		/* per value: n, written before its launch */

static void
count_wake(const _Atomic uint64_t *w)
{
	/* Runs on the completing thread, after its store of the word. */
	atomic_fetch_add(&wakes, 1);
	atomic_store(&last_woken, atomic_load_explicit(w, memory_order_relaxed));
}

static void
kernel(const void *params, int64_t first, int64_t end)
{
	const struct task *t = params;

	for (; first < end; first++) {
		if (first == t->slow)
			nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
		if (first == t->fault)
			__asm__ volatile("ud2");
		t->out[t->value][first] = (int64_t)t->value;
	}
}

static void
watch_fail(const char *fmt, unsigned long long a, unsigned long long b)
{
	if (!atomic_fetch_add(&watch_bad, 1))
		snprintf(watch_why, sizeof(watch_why), fmt, a, b);
}

static void *
watcher(void *arg)
{
	uint64_t seen = 0, w;

	while (atomic_load(&watching)) {
		w = atomic_load_explicit(&word, memory_order_acquire);
		if (w < seen)
			watch_fail("the word went back from %llu to %llu", seen, w);
		if (w > seen && w <= values) {
			/* Everything v's calls wrote is visible once the word shows v. */
			for (int64_t i = 0; i < lengths[w]; i++)
				if (out[w][i] != (int64_t)w)
					watch_fail("the word shows %llu but index %llu is unwritten",
						   w, (unsigned long long)i);
		}
		seen = w;
	}
	return NULL;
}

/* The runner's first wrong step (cmocka's asserts belong to the test's thread). */
static char run_why[160];

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		snprintf(run_why, sizeof(run_why), "value %llu: %s",	\
			 (unsigned long long)(v + 1), #cond);		\
		goto out;						\
	}								\
} while (0)

/* The runner: a thread of its own, as the device thread is. */
static void *
run_values(void *arg)
{
	uint64_t *completed = arg;
	struct host_guard runner = { 0 };
	struct host_pool *pool = NULL;
	struct host_fault fault;
	pthread_t watchers[WATCHERS];
	uint64_t v = 0;
	unsigned seed = 19;
	int nwatchers = 0;
	char why[128];

	EXPECT(host_guard_prepare(&runner) == 0);
	host_guard_begin(&runner);
	EXPECT(host_pool_start(&pool, 3, NULL, why, sizeof(why)) == 0);
	atomic_store(&watching, true);
	for (; nwatchers < WATCHERS; nwatchers++)
		EXPECT(pthread_create(&watchers[nwatchers], NULL, watcher, NULL) == 0);
	for (unsigned i = 0; i < values; i++) {
		struct task t = { .out = out, .value = v + 1, .n = 1 + rand_r(&seed) % MAX_N,
				  .slow = -1, .fault = -1 };
		int64_t chunk = rand_r(&seed) % 5 == 0 ? MAX_N : 1 + rand_r(&seed) % 8;
		struct host_pool_done done = { .word = &word, .value = t.value, .wake = count_wake };
		uint64_t before = atomic_load(&wakes);

		if (rand_r(&seed) % 8 == 0)
			t.slow = rand_r(&seed) % t.n;
		/* Under ThreadSanitizer an instrumented kernel's ud2 ends the
		 * process before rig's handler runs; test_host_fault covers
		 * faults there through the device, this test elsewhere. */
		if (rand_r(&seed) % 50 == 0 && !UNDER_TSAN)
			t.fault = rand_r(&seed) % t.n;
		/* The watchers read lengths[v] only once the word shows v:
		 * written before the launch, it is published by the word too. */
		lengths[t.value] = t.n;
		if (host_pool_launch(pool, &runner, kernel, &t, t.n, chunk, &done, NULL, &fault)) {
			EXPECT(t.fault >= 0);
			EXPECT(!done.stored);
			EXPECT(atomic_load(&word) == v);
			EXPECT(atomic_load(&wakes) == before);
			continue;	/* v + 1 is tried again with new work */
		}
		EXPECT(t.fault < 0);
		EXPECT(done.stored);
		EXPECT(atomic_load(&word) == t.value);
		EXPECT(atomic_load(&wakes) == before + 1);
		EXPECT(atomic_load(&last_woken) == t.value);
		v = t.value;
	}
out:
	atomic_store(&watching, false);
	for (int i = 0; i < nwatchers; i++)
		pthread_join(watchers[i], NULL);
	host_pool_stop(pool);
	host_guard_end(&runner);
	host_guard_release(&runner);
	*completed = v;
	return NULL;
}

static void
test_last_thread_completes_in_order(void **state)
{
	uint64_t completed = 0;
	pthread_t t;
	char why[128];

	out = calloc(values + 1, sizeof(*out));
	lengths = calloc(values + 1, sizeof(*lengths));
	assert_non_null(out);
	assert_non_null(lengths);
	assert_int_equal(host_guard_install(why, sizeof(why)), 0);
	assert_int_equal(pthread_create(&t, NULL, run_values, &completed), 0);
	pthread_join(t, NULL);
	free(out);
	free(lengths);
	if (run_why[0])
		fail_msg("%s", run_why);
	if (atomic_load(&watch_bad))
		fail_msg("%d wrong looks; first: %s", atomic_load(&watch_bad), watch_why);
	assert_true(completed > values / 2);
	print_message("%llu values completed of %u launches (the rest faulted)\n",
		      (unsigned long long)completed, values);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_thread_completes_in_order),
	};

	if (argc > 1)
		values = (unsigned)strtoul(argv[1], NULL, 0);
	if (values < 1)
		values = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
