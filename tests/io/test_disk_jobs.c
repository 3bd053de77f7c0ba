/* SPDX-License-Identifier: MIT */
/*
 * test_disk_jobs: the disk's job cache (io/jobs.c, included here and
 * tested alone) never hands one job to two takers at once, carries what a
 * giver wrote to the next taker, keeps at most JOBS_MAX jobs, and frees
 * them all at the end (ASan's leak check). A stress test for the
 * ThreadSanitizer build: takers and givers on several threads, each job
 * stamped by its taker and checked before it is given back, half of them
 * given back by another thread than took them (through a shared slot).
 */
#include <pthread.h>

#include "../../src/io/jobs.c"
#include "common.h"

#define THREADS	4
#define ROUNDS	100000

static struct job_cache cache;
static _Atomic(struct disk_job *) slot;
static pthread_barrier_t start;

static void
check_and_give(struct disk_job *j)
{
	uint64_t stamp = j->value;

	/* Whoever holds j alone may change it: the stamp must be its. */
	for (int i = 0; i < 16; i++)
		assert_int_equal(j->value, stamp);
	j->value = 0;			/* a store the next taker's follows */
	jobs_give(&cache, j);
}

static void *
taker(void *arg)
{
	uint64_t id = (uintptr_t)arg;

	pthread_barrier_wait(&start);
	for (uint64_t i = 1; i <= ROUNDS; i++) {
		struct disk_job *j = jobs_take(&cache, 1, sizeof(*j) + sizeof(struct rig_io_op));

		assert_non_null(j);
		j->value = id << 32 | i;	/* after the giver's stores (TSan) */
		if (i % 2) {
			check_and_give(j);
			continue;
		}
		/* Hand it to another thread, which gives it back. */
		j = atomic_exchange_explicit(&slot, j, memory_order_acq_rel);
		if (j)
			check_and_give(j);
	}
	return NULL;
}

static void
test_takers_and_givers(void **state)
{
	pthread_t th[THREADS];
	struct disk_job *j;

	jobs_init(&cache);
	pthread_barrier_init(&start, NULL, THREADS);
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, taker, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if ((j = atomic_exchange(&slot, NULL)))
		check_and_give(j);
	pthread_barrier_destroy(&start);
	assert_true(atomic_load(&cache.made) <= JOBS_MAX);
	jobs_fini(&cache);
}

/* Past JOBS_MAX held at once, jobs come from malloc and go back to free;
 * a job too big for the cache, or with too many ops, is never cached. */
static void
test_bounds(void **state)
{
	static struct disk_job *held[JOBS_MAX + 8];

	jobs_init(&cache);
	for (size_t i = 0; i < JOBS_MAX + 8; i++) {
		assert_non_null(held[i] = jobs_take(&cache, 1, sizeof(struct disk_job)));
		assert_int_equal(held[i]->cached, i < JOBS_MAX);
	}
	assert_int_equal(atomic_load(&cache.made), JOBS_MAX);
	for (size_t i = 0; i < JOBS_MAX + 8; i++)
		jobs_give(&cache, held[i]);
	held[0] = jobs_take(&cache, JOBS_OPS + 1, sizeof(struct disk_job));
	assert_false(held[0]->cached);
	jobs_give(&cache, held[0]);
	held[0] = jobs_take(&cache, 1, JOBS_BYTES + 1);
	assert_false(held[0]->cached);
	jobs_give(&cache, held[0]);
	held[0] = jobs_take(&cache, 1, sizeof(struct disk_job));
	assert_true(held[0]->cached);		/* from the stack */
	assert_int_equal(atomic_load(&cache.made), JOBS_MAX);
	jobs_give(&cache, held[0]);
	jobs_fini(&cache);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_takers_and_givers),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
