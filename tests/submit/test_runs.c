/* SPDX-License-Identifier: MIT */
/*
 * test_runs: runs and their takers. No run is ever held by two threads; a
 * lone taker gets its run back with its stores; a submission with no launch
 * or fill shares one byteless run; 256 short-lived threads each submit with
 * no setup call of any kind.
 */
#include <pthread.h>

#include "../core/common.h"

static struct polled_dev pd;
static struct rig_image *img;
static struct rig_function *fn;
static struct rig_buffer *buf;

static int
setup(void **state)
{
	pd = polled_open((struct rig_polled_config){ .name = "R", .lag = 16 });
	assert_int_equal(rig_image_load(pd.d, "k", 1, &img), 0);
	assert_int_equal(rig_image_function(img, "k", &fn), 0);
	buf = buffer_new(pd.d, 64);
	return 0;
}

static int
teardown(void **state)
{
	rig_buffer_release(buf);
	rig_image_release(img);
	polled_close(pd);
	return 0;
}

static struct rig_submission *
launch_submission(void)
{
	struct rig_ref r[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec p = rig_part_launch(fn, 16, r, 1);
	struct rig_submission *s;

	assert_int_equal(rig_submission_make(pd.d, &p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	return s;
}

static const uint32_t one[3] = { 1, 1, 1 };

static void
test_lone_taker_keeps_its_stores(void **state)
{
	struct rig_submission *s = launch_submission();
	static const uint64_t zeroes[2];
	struct rig_run *r, *again;
	uint64_t params[2] = { 0, 0xfeed };
	struct rig_point p;

	assert_int_equal(rig_run_take(s, &r), 0);
	/* A new run reads 0. */
	assert_memory_equal(rig_run_params(r, 0), zeroes, 16);
	assert_int_equal(rig_run_store(r, 0, one, one, params, 16), 0);
	rig_run_release(r);
	assert_int_equal(rig_run_take(s, &again), 0);
	assert_ptr_equal(again, r);
	assert_memory_equal(rig_run_params(again, 0), params, 16);
	assert_int_equal(rig_submit(again, &buf, 1, NULL, 0, &p), 0);
	assert_int_equal(rig_run_take(s, &again), 0);
	assert_ptr_equal(again, r);	/* the submit gave it back */
	rig_run_release(again);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	rig_submission_release(s);
}

static void
test_byteless_run_is_shared(void **state)
{
	struct rig_part_spec p = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	struct rig_buffer *other = buffer_new(pd.d, 64);
	struct rig_submission *s;
	struct rig_run *a, *b;
	struct rig_point pa, pb;

	assert_int_equal(rig_submission_make(pd.d, &p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &a), 0);
	assert_int_equal(rig_run_take(s, &b), 0);
	assert_ptr_equal(a, b);
	struct rig_buffer *ab[] = { buf, other }, *ba[] = { other, buf };

	assert_int_equal(rig_submit(a, ab, 2, NULL, 0, &pa), 0);
	assert_int_equal(rig_submit(b, ba, 2, NULL, 0, &pb), 0);
	assert_true(pb.value == pa.value + 1);
	assert_int_equal(rig_wait(pb, 10 * SECOND_NS), 0);
	rig_buffer_release(other);
	rig_submission_release(s);
}

/* ---- Many takers ---- */

#define TAKERS 8
#define ROUNDS 2000

static struct rig_submission *shared_s;
static _Atomic(int) owner[64];
static _Atomic bool twice;
static pthread_barrier_t start;

static void *
taker(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct rig_buffer *mine = buffer_new(pd.d, 64);
	struct rig_point p = { 0 };

	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++) {
		struct rig_run *r;
		uint64_t *params;
		int none = 0;
		size_t k;

		if (rig_run_take(shared_s, &r))
			break;
		params = rig_run_params(r, 0);
		/* The run's own bytes say which run it is (the test wrote an
		 * index into each of the first 64). A run made later, when all
		 * 64 were taken, reads 0 there and shares index 0: a false
		 * alarm is impossible only if at most 64 are ever made, which
		 * 8 takers guarantee. */
		k = params[1] % 64;
		if (!atomic_compare_exchange_strong(&owner[k], &none, id + 1))
			atomic_store(&twice, true);
		params[0] = 0;
		assert_int_equal(rig_run_store(r, 0, one, one, NULL, 0), 0);
		atomic_store(&owner[k], 0);
		if (rig_submit(r, &mine, 1, NULL, 0, &p))
			break;
	}
	if (p.device)
		rig_wait(p, 10 * SECOND_NS);
	rig_buffer_release(mine);
	return NULL;
}

static void
test_no_run_held_by_two_threads(void **state)
{
	pthread_t t[TAKERS];
	struct rig_run *r[64];

	shared_s = launch_submission();
	/* Give 64 runs distinct indices in their params, then free them. */
	for (int i = 0; i < 64; i++) {
		assert_int_equal(rig_run_take(shared_s, &r[i]), 0);
		((uint64_t *)rig_run_params(r[i], 0))[1] = (uint64_t)i;
	}
	for (int i = 0; i < 64; i++)
		rig_run_release(r[i]);
	pthread_barrier_init(&start, NULL, TAKERS);
	for (int i = 0; i < TAKERS; i++)
		pthread_create(&t[i], NULL, taker, (void *)(intptr_t)i);
	for (int i = 0; i < TAKERS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	assert_false(atomic_load(&twice));
	rig_submission_release(shared_s);
}

/* ---- Short-lived threads ---- */

static void *
one_submit(void *arg)
{
	struct rig_run *r;
	struct rig_point p;
	int ok;

	ok = rig_run_take(shared_s, &r) == 0 &&
	     rig_run_store(r, 0, one, one, NULL, 0) == 0 &&
	     rig_submit(r, &buf, 1, NULL, 0, &p) == 0 &&
	     rig_wait(p, 10 * SECOND_NS) == 0;
	return (void *)(intptr_t)ok;
}

static void
test_short_lived_threads(void **state)
{
	shared_s = launch_submission();
	for (int i = 0; i < 256; i++) {
		pthread_t t;
		void *ok;

		assert_int_equal(pthread_create(&t, NULL, one_submit, NULL), 0);
		pthread_join(t, &ok);
		assert_true((intptr_t)ok);
	}
	rig_submission_release(shared_s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lone_taker_keeps_its_stores),
		cmocka_unit_test(test_byteless_run_is_shared),
		cmocka_unit_test(test_no_run_held_by_two_threads),
		cmocka_unit_test(test_short_lived_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
