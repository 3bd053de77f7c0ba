/* SPDX-License-Identifier: MIT */
/*
 * test_polled_queue: the polled driver's queue alone, one thread in rig's
 * place: the ring's edges (full, wrap-around, a value too large for a
 * slot, a one-part value where a larger one was), what its calls refuse,
 * the worker's sleep and wake, a fault, and a stop that frees what the
 * slots hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"

#define HELD (1u << 30)		/* a lag the driver never reaches */

static uint64_t src[POLLED_SLOTS * 4], dst[POLLED_SLOTS * 4];
static _Atomic uint64_t ran_next, ran_bad;

/* The worker's log: values start and end in order, once each. */
static void
ran(void *arg, uint64_t v, int end)
{
	if (!end && v != atomic_load(&ran_next))
		atomic_store(&ran_bad, v);
	if (end)
		atomic_store(&ran_next, v + 1);
}

/* In place: the driver keeps the address of hd's word. */
static void
open_dev(struct hdev *hd, unsigned lag, uint64_t start)
{
	assert_int_equal(h_open(hd, (struct rig_polled_config){
		.lag = lag, .ran = ran }, start), 0);
	atomic_store(&ran_next, start + 1);
	atomic_store(&ran_bad, 0);
}

static void
close_dev(struct hdev *hd)
{
	h_stop(hd);
	for (size_t i = 0; i < POLLED_SLOTS; i++)
		assert_null(hd->d->slot[i].heap);
	h_release(hd);
	assert_int_equal(atomic_load(&ran_bad), 0);
}

/* Under the lock: submit a value that copies src[i] to dst[i]. */
static int
submit_copy(struct hdev *hd, size_t i)
{
	struct rig_part part = h_copy(&src[i], &dst[i]);
	const char *failure = NULL;
	int r;

	pthread_mutex_lock(&hd->lock);
	r = h_submit(hd, &part, 1, NULL, 0, &failure);
	pthread_mutex_unlock(&hd->lock);
	return r;
}

static void
commit_all(struct hdev *hd)
{
	pthread_mutex_lock(&hd->lock);
	assert_int_equal(h_commit(hd, hd->submitted), RIG_OK);
	pthread_mutex_unlock(&hd->lock);
}

static void
test_full_ring_answers_later(void **state)
{
	struct hdev hd;

	open_dev(&hd, HELD, 0);
	rig_polled_stall(hd.p, true);
	for (size_t i = 0; i < POLLED_SLOTS; i++)
		assert_int_equal(submit_copy(&hd, i), RIG_FITS);
	/* Full of uncommitted values, then of committed ones it cannot run. */
	assert_int_equal(submit_copy(&hd, 0), RIG_LATER);
	commit_all(&hd);
	assert_int_equal(submit_copy(&hd, 0), RIG_LATER);
	assert_int_equal(atomic_load(&hd.word), 0);
	rig_polled_stall(hd.p, false);
	assert_true(h_await(&hd, POLLED_SLOTS, 10 * SECOND_NS));
	assert_int_equal(submit_copy(&hd, 0), RIG_FITS);
	commit_all(&hd);
	assert_true(h_await(&hd, POLLED_SLOTS + 1, 10 * SECOND_NS));
	close_dev(&hd);
}

static void
test_wrap_around_keeps_order(void **state)
{
	size_t n = POLLED_SLOTS * 3 + 7;
	struct hdev hd;

	open_dev(&hd, 5, 1000);
	for (size_t i = 0; i < n; i++)
		src[i] = 1000 + i + 1;
	memset(dst, 0, sizeof(dst));
	for (size_t i = 0; i < n; i++) {
		while (submit_copy(&hd, i) == RIG_LATER) {
			/* As rig does: commit what it holds, wait for the word. */
			uint64_t w = atomic_load(&hd.word);

			commit_all(&hd);
			assert_true(h_await(&hd, w + 1, 10 * SECOND_NS));
		}
		if (i % 97 == 0)
			commit_all(&hd);
	}
	commit_all(&hd);
	assert_true(h_await(&hd, 1000 + n, 10 * SECOND_NS));
	assert_int_equal(atomic_load(&ran_next), 1000 + n + 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(dst[i], 1000 + i + 1);
	close_dev(&hd);
}

static void
test_large_value_uses_the_heap_and_stop_frees_it(void **state)
{
	enum { N = POLLED_STEPS + 3, W = POLLED_WAITS + 2 };
	struct hdev hd;
	_Atomic uint64_t producer = 7;
	struct rig_part parts[N];
	struct rig_wait waits[W];
	const char *failure = NULL;

	open_dev(&hd, HELD, 0);
	for (int i = 0; i < N; i++) {
		parts[i] = i % 2 ? h_launch() : h_copy(&src[i], &dst[i]);
		src[i] = 0xabc0 + (uint64_t)i;
		dst[i] = 0;
	}
	for (int i = 0; i < W; i++)
		waits[i] = (struct rig_wait){ &producer, (uint64_t)i + 1, RIG_BY_HOST };
	pthread_mutex_lock(&hd.lock);
	assert_int_equal(h_submit(&hd, parts, N, waits, W, &failure), RIG_FITS);
	assert_non_null(hd.d->slot[1].heap);
	assert_int_equal(h_commit(&hd, 1), RIG_OK);
	pthread_mutex_unlock(&hd.lock);
	assert_true(h_await(&hd, 1, 10 * SECOND_NS));
	for (int i = 0; i < N; i += 2)
		assert_int_equal(dst[i], 0xabc0 + (uint64_t)i);
	/* Queued, uncommitted, then a large one stuck in its waits: stop
	 * joins the worker and frees both. */
	pthread_mutex_lock(&hd.lock);
	assert_int_equal(h_submit(&hd, parts, N, waits, W, &failure), RIG_FITS);
	waits[0].value = 100;
	assert_int_equal(h_submit(&hd, parts, N, waits, W, &failure), RIG_FITS);
	assert_int_equal(h_commit(&hd, 3), RIG_OK);
	pthread_mutex_unlock(&hd.lock);
	assert_true(h_await(&hd, 2, 10 * SECOND_NS));
	usleep(2000);
	assert_int_equal(atomic_load(&hd.word), 2);
	close_dev(&hd);
}

/* Submit parts as the next value, committed; RIG_LATER waited out as rig
 * does (commit what it holds, wait for the word). */
static void
submit_committed(struct hdev *hd, struct rig_part *parts, size_t n)
{
	const char *failure = NULL;
	int r;

	for (;;) {
		uint64_t w = atomic_load(&hd->word);

		pthread_mutex_lock(&hd->lock);
		r = h_submit(hd, parts, n, NULL, 0, &failure);
		if (r == RIG_FITS)
			assert_int_equal(h_commit(hd, hd->submitted), RIG_OK);
		pthread_mutex_unlock(&hd->lock);
		if (r != RIG_LATER)
			break;
		assert_true(h_await(hd, w + 1, 10 * SECOND_NS));
	}
	assert_int_equal(r, RIG_FITS);
}

/* A slot's header follows its value: a one-part value in the slot that a
 * value of more parts used a lap before (its steps inline, then in the
 * heap block) runs its one step, not the steps left there. */
static void
test_one_part_value_in_a_slot_larger_ones_used(void **state)
{
	enum { N = POLLED_STEPS + 2, ONE = N };	/* src[ONE]: the one-part copies' */
	struct rig_part parts[N], one = h_copy(&src[ONE], &dst[ONE]);
	struct hdev hd;

	open_dev(&hd, HELD, 0);
	for (size_t n = 3; n <= N; n += N - 3) {
		uint64_t first = hd.submitted + 1;

		for (size_t i = 0; i < N; i++) {
			parts[i] = h_copy(&src[i], &dst[i]);
			src[i] = 0x5000 + i;
			dst[i] = 0;
		}
		submit_committed(&hd, parts, n);
		for (uint64_t v = first + 1; v < first + POLLED_SLOTS; v++)
			submit_committed(&hd, &one, 1);
		assert_true(h_await(&hd, first + POLLED_SLOTS - 1, 10 * SECOND_NS));
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(dst[i], 0x5000 + i);
			dst[i] = 0;
		}
		/* first's slot again, with one part. */
		src[ONE] = 0x6000 + n;
		submit_committed(&hd, &one, 1);
		assert_true(h_await(&hd, first + POLLED_SLOTS, 10 * SECOND_NS));
		assert_int_equal(dst[ONE], 0x6000 + n);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(dst[i], 0);
	}
	close_dev(&hd);
}

static void
test_refusals(void **state)
{
	struct hdev hd;
	struct rig_part part = h_launch();
	const char *failure = NULL;

	open_dev(&hd, HELD, 0);
	pthread_mutex_lock(&hd.lock);
	assert_int_equal(hd.drv->submit(hd.f.edge, 2, &part, 1, NULL, 0, NULL,
					&failure), RIG_FAILED);
	assert_string_equal(failure, "value 2 is not the next");
	assert_int_equal(h_submit(&hd, &part, 1, NULL, 0, &failure), RIG_FITS);
	/* Never past submitted: the slots beyond hold older values. */
	assert_int_equal(h_commit(&hd, 5), RIG_OK);
	assert_int_equal(rig_polled_committed(hd.p), 1);
	part.kind = 0;
	assert_int_equal(hd.drv->room(hd.f.edge, &part, 1, 0), RIG_NEVER);
	part = h_launch();
	part.queue = 1;
	assert_int_equal(hd.drv->room(hd.f.edge, &part, 1, 0), RIG_NEVER);
	assert_int_equal(rig_polled_fail(hd.p, "room"), 0);
	assert_int_equal(hd.drv->room(hd.f.edge, NULL, 0, 0), RIG_NEVER);
	assert_int_equal(hd.drv->room(hd.f.edge, NULL, 0, 0), RIG_FITS);
	pthread_mutex_unlock(&hd.lock);
	close_dev(&hd);
}

static void
test_sleeping_worker_wakes(void **state)
{
	struct hdev hd;

	open_dev(&hd, HELD, 0);
	for (size_t i = 1; i <= 20; i++) {
		/* Long enough for the worker to give up spinning. */
		usleep(i % 4 == 0 ? 5000 : 100);
		src[i] = i;
		assert_int_equal(submit_copy(&hd, i), RIG_FITS);
		if (i % 3 == 0)
			rig_polled_stall(hd.p, true);
		commit_all(&hd);
		if (i % 3 == 0) {
			usleep(1000);
			assert_int_equal(atomic_load(&hd.word), i - 1);
			rig_polled_stall(hd.p, false);
		}
		assert_true(h_await(&hd, i, 10 * SECOND_NS));
		assert_int_equal(dst[i], i);
	}
	close_dev(&hd);
}

static void
test_fault_stops_the_worker(void **state)
{
	struct hdev hd;
	struct rig_part parts[3] = { h_copy(&src[0], &dst[0]), h_launch(),
				     h_copy(&src[2], &dst[2]) };
	struct rig_fault_site site = { 0, -1, -1 };
	const char *failure = NULL, *fault = NULL;
	uint64_t n = 0;

	open_dev(&hd, 1, 0);
	src[0] = src[2] = 77;
	dst[0] = dst[2] = 0;
	rig_polled_fault(hd.p, 3, 1);
	pthread_mutex_lock(&hd.lock);
	for (int i = 0; i < 5; i++)
		assert_int_equal(h_submit(&hd, parts, 3, NULL, 0, &failure), RIG_FITS);
	pthread_mutex_unlock(&hd.lock);
	assert_true(h_await(&hd, 2, 10 * SECOND_NS));
	while (read(rig_polled_events_fd(hd.p), &n, sizeof(n)) < 0)
		usleep(100);
	assert_int_equal(h_ops(&hd)->events(hd.h, &site, &fault), RIG_FAULT);
	assert_string_equal(fault, "injected fault at part 1 of value 3");
	assert_int_equal(site.value, 3);
	assert_int_equal(site.part, 1);
	usleep(2000);
	assert_int_equal(atomic_load(&hd.word), 2);	/* nothing more ran */
	assert_int_equal(rig_polled_ran(hd.p), 2);
	close_dev(&hd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_ring_answers_later),
		cmocka_unit_test(test_wrap_around_keeps_order),
		cmocka_unit_test(test_large_value_uses_the_heap_and_stop_frees_it),
		cmocka_unit_test(test_one_part_value_in_a_slot_larger_ones_used),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_sleeping_worker_wakes),
		cmocka_unit_test(test_fault_stops_the_worker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
