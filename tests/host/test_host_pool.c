/*
 * tests/host/test_host_pool.c: the host device's worker pool alone, with
 * more workers than this machine may have cores: for random ranges and
 * chunk sizes every index runs exactly once, each call is a non-empty range
 * inside [0, n), and the runner sees every write once run_sc returns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "host/pool.h"

struct pool_task {
	_Atomic uint32_t *hits;
	_Atomic int64_t calls;
	int64_t n;
	_Atomic int bad;
};

static void
pool_count(const void *params, int64_t first, int64_t end)
{
	struct pool_task *t = (struct pool_task *)params;

	atomic_fetch_add_explicit(&t->calls, 1, memory_order_relaxed);
	if (first < 0 || first >= end || end > t->n)
		atomic_fetch_add(&t->bad, 1);
	for (; first < end; first++)
		atomic_fetch_add_explicit(&t->hits[first], 1, memory_order_relaxed);
}

static void
test_pool_runs_each_index_once(void **state)
{
	static const unsigned workers[] = { 0, 1, 3, 7 };
	struct host_pool *pool;
	char why[128];
	unsigned seed = 3, w;
	int i;

	for (w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		assert_int_equal(host_pool_start(&pool, workers[w], why, sizeof(why)), 0);
		assert_int_equal(host_pool_runners(pool), workers[w] + 1);
		for (i = 0; i < 400; i++) {
			struct pool_task t = { .n = 1 + rand_r(&seed) % 5000 };
			int64_t chunk = 1 + rand_r(&seed) % 300, g;

			t.hits = calloc((size_t)t.n, sizeof(*t.hits));
			host_pool_run_sc(pool, pool_count, &t, t.n, chunk);
			for (g = 0; g < t.n; g++)
				if (atomic_load(&t.hits[g]) != 1)
					fail_msg("%u workers: index %lld of %lld ran %u times", workers[w],
						 (long long)g, (long long)t.n, atomic_load(&t.hits[g]));
			assert_int_equal(atomic_load(&t.bad), 0);
			assert_true(atomic_load(&t.calls) >= 1);
			assert_true(atomic_load(&t.calls) <= (t.n + chunk - 1) / chunk);
			free(t.hits);
		}
		host_pool_stop(pool);
	}
}

static void
test_pool_start_and_stop_idle(void **state)
{
	struct host_pool *pool;
	char why[128];
	int i;

	for (i = 0; i < 20; i++) {
		assert_int_equal(host_pool_start(&pool, (unsigned)i % 5, why, sizeof(why)), 0);
		host_pool_stop(pool);
	}
	host_pool_stop(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_runs_each_index_once),
		cmocka_unit_test(test_pool_start_and_stop_idle),
	};

	return cmocka_run_group_tests_name("test_host_pool", tests, NULL, NULL);
}
