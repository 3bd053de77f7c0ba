/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_pool.c: the host device's worker pool alone, with
 * more workers than this machine may have cores: for random ranges and
 * chunk sizes every index runs exactly once, each call is a non-empty range
 * inside [0, n), and the runner sees every write once run_sc returns. The
 * same with pauses between tasks long enough for the workers to fall
 * asleep (each task then wakes them), and with slow calls that put the
 * runner to sleep until the last worker leaves. The stress: several pools,
 * each with its own runner, at once, runners starting at a barrier; the
 * first wrong task stops them all.
 *
 * Usage: test_host_pool [pools [tasks]] (the stress's; defaults 3 and 300).
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

#include "host/pool.h"
#include "idle.h"

static unsigned stress_pools = 3, stress_tasks = 300;

struct pool_task {
	_Atomic uint32_t *hits;
	_Atomic int64_t calls;
	int64_t n;
	int64_t slow;		/* the call holding this index sleeps 1 ms; -1: none */
	_Atomic int bad;
};

static void
pool_count(const void *params, int64_t first, int64_t end)
{
	struct pool_task *t = (struct pool_task *)params;

	atomic_fetch_add_explicit(&t->calls, 1, memory_order_relaxed);
	if (first < 0 || first >= end || end > t->n)
		atomic_fetch_add(&t->bad, 1);
	if (t->slow >= first && t->slow < end)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	for (; first < end; first++)
		atomic_fetch_add_explicit(&t->hits[first], 1, memory_order_relaxed);
}

/* Run one random task on pool; NULL if it ran right, else what went wrong. */
static const char *
run_checked(struct host_pool *pool, unsigned *seed, bool slow, char *why, size_t len)
{
	struct pool_task t = { .n = 1 + rand_r(seed) % 5000, .slow = -1 };
	int64_t chunk = 1 + rand_r(seed) % 300, g;
	const char *ret = NULL;

	if (slow)
		t.slow = rand_r(seed) % t.n;
	t.hits = calloc((size_t)t.n, sizeof(*t.hits));
	if (!t.hits)
		return "no memory for the task";
	host_pool_run_sc(pool, pool_count, &t, t.n, chunk);
	for (g = 0; g < t.n && !ret; g++)
		if (atomic_load(&t.hits[g]) != 1) {
			snprintf(why, len, "index %lld of %lld ran %u times", (long long)g,
				 (long long)t.n, atomic_load(&t.hits[g]));
			ret = why;
		}
	if (!ret && atomic_load(&t.bad))
		ret = "a call outside [0, n) or empty";
	if (!ret && (atomic_load(&t.calls) < 1 ||
		     atomic_load(&t.calls) > (t.n + chunk - 1) / chunk))
		ret = "more calls than chunks";
	free(t.hits);
	return ret;
}

static void
test_pool_runs_each_index_once(void **state)
{
	static const unsigned workers[] = { 0, 1, 3, 7 };
	struct host_pool *pool;
	char why[128], msg[128];
	const char *bad;
	unsigned seed = 3, w;
	int i;

	for (w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		assert_int_equal(host_pool_start(&pool, workers[w], NULL, why, sizeof(why)), 0);
		assert_int_equal(host_pool_runners(pool), workers[w] + 1);
		for (i = 0; i < 400; i++) {
			bad = run_checked(pool, &seed, false, msg, sizeof(msg));
			if (bad)
				fail_msg("%u workers, task %d: %s", workers[w], i, bad);
		}
		host_pool_stop(pool);
	}
}

static void
test_pool_wakes_after_idle(void **state)
{
	static const unsigned workers[] = { 1, 3 };
	struct host_pool *pool;
	char why[128], msg[128];
	const char *bad;
	unsigned seed = 11;
	int i;

	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		assert_int_equal(host_pool_start(&pool, workers[w], NULL, why, sizeof(why)), 0);
		for (i = 0; i < 200; i++) {
			idle_pause(&seed);
			bad = run_checked(pool, &seed, i % 8 == 0, msg, sizeof(msg));
			if (bad)
				fail_msg("%u workers, task %d: %s", workers[w], i, bad);
		}
		host_pool_stop(pool);
	}
}

struct stress {
	pthread_barrier_t start;
	_Atomic bool stop;
	_Atomic int failed;
	char first[160];
};

struct runner {
	struct stress *s;
	unsigned id;
};

static void
stress_fail(struct stress *s, unsigned id, unsigned task, const char *bad)
{
	if (!atomic_fetch_add(&s->failed, 1))
		snprintf(s->first, sizeof(s->first), "pool %u, task %u: %s", id, task, bad);
	atomic_store(&s->stop, true);
}

static void *
stress_runner(void *arg)
{
	struct runner *r = arg;
	struct stress *s = r->s;
	struct host_pool *pool;
	unsigned seed = 101 + r->id, i;
	char why[128];
	const char *bad;
	int ret;

	ret = host_pool_start(&pool, 3, NULL, why, sizeof(why));
	pthread_barrier_wait(&s->start);
	if (ret != 0) {
		stress_fail(s, r->id, 0, why);
		return NULL;
	}
	for (i = 0; i < stress_tasks && !atomic_load(&s->stop); i++) {
		idle_pause(&seed);
		bad = run_checked(pool, &seed, i % 16 == 0, why, sizeof(why));
		if (bad) {
			stress_fail(s, r->id, i, bad);
			break;
		}
	}
	host_pool_stop(pool);
	return NULL;
}

static void
test_pool_stress(void **state)
{
	struct stress s = { .stop = false };
	pthread_t *t = calloc(stress_pools, sizeof(*t));
	struct runner *r = calloc(stress_pools, sizeof(*r));
	unsigned i;

	assert_non_null(t);
	assert_non_null(r);
	pthread_barrier_init(&s.start, NULL, stress_pools);
	for (i = 0; i < stress_pools; i++) {
		r[i] = (struct runner){ &s, i };
		assert_int_equal(pthread_create(&t[i], NULL, stress_runner, &r[i]), 0);
	}
	for (i = 0; i < stress_pools; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&s.start);
	free(t);
	free(r);
	if (atomic_load(&s.failed))
		fail_msg("%d pools failed; first: %s", atomic_load(&s.failed), s.first);
}

static void
test_pool_start_and_stop_idle(void **state)
{
	struct host_pool *pool;
	char why[128];
	int i;

	for (i = 0; i < 20; i++) {
		assert_int_equal(host_pool_start(&pool, (unsigned)i % 5, NULL, why, sizeof(why)), 0);
		host_pool_stop(pool);
	}
	host_pool_stop(NULL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_runs_each_index_once),
		cmocka_unit_test(test_pool_wakes_after_idle),
		cmocka_unit_test(test_pool_stress),
		cmocka_unit_test(test_pool_start_and_stop_idle),
	};

	if (argc > 1)
		stress_pools = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		stress_tasks = (unsigned)strtoul(argv[2], NULL, 0);
	if (stress_pools < 1)
		stress_pools = 1;

	return cmocka_run_group_tests_name("test_host_pool", tests, NULL, NULL);
}
