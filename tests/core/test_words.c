/* SPDX-License-Identifier: MIT */
/*
 * test_words: the process-wide timeline words. A slot reused by a later
 * device keeps counting up; a word never moves backwards; timelines that
 * start near 2^32, 2^62 and 2^63 signal and wait across the boundary; a
 * wait 2^40 values ahead, which no submit gave, is refused.
 */
#include <pthread.h>

#include "common.h"

static struct rig_point
copy_once(struct rig_device *d, struct rig_buffer *a, struct rig_buffer *b)
{
	struct rig_point p;

	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	return p;
}

static void
test_slot_reuse_counts_up(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W1" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p = { 0 }, q;

	for (int i = 0; i < 20; i++) {
		q = copy_once(pd.d, a, b);
		if (i)
			assert_true(q.value == p.value + 1);
		p = q;
	}
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);

	/* The freed slot goes to the next device, whose values start above
	 * every value of the device before it. */
	pd = polled_open((struct rig_polled_config){ .name = "W2" });
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	q = copy_once(pd.d, a, b);
	assert_true(q.value > p.value);
	assert_int_equal(rig_wait(q, 5 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

struct watch {
	const struct rig_point *last;
	_Atomic bool stop;
	bool backwards;
};

static void *
watch_word(void *arg)
{
	struct watch *w = arg;
	uint64_t seen = 0;

	while (!atomic_load(&w->stop)) {
		uint64_t v = 0;
		uint64_t last = __atomic_load_n(&w->last->value, __ATOMIC_RELAXED);

		/* The word's value is what rig_reached() reads: find the
		 * highest reached value among the last ones. */
		for (uint64_t k = last; k > 0 && k + 64 > last; k--)
			if (rig_reached((struct rig_point){ w->last->device, k })) {
				v = k;
				break;
			}
		if (v && v < seen)
			w->backwards = true;
		if (v > seen)
			seen = v;
	}
	return NULL;
}

static void
test_never_backwards(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W3", .lag = 3 });
	struct rig_buffer *a = buffer_new(pd.d, 256), *b = buffer_new(pd.d, 256);
	struct rig_point last = copy_once(pd.d, a, b);
	struct watch w = { .last = &last };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, watch_word, &w), 0);
	for (int i = 0; i < 2000; i++) {
		struct rig_point p = copy_once(pd.d, a, b);

		__atomic_store_n(&last.value, p.value, __ATOMIC_RELAXED);
	}
	assert_int_equal(rig_wait(last, 5 * SECOND_NS), 0);
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	assert_false(w.backwards);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
across(uint64_t boundary, const char *name)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = name, .start = boundary - 3 });
	struct rig_buffer *a = buffer_new(pd.d, 8), *b = buffer_new(pd.d, 8);
	uint32_t x = 0x5eed, y = 0;

	for (int i = 0; i < 8; i++) {
		struct rig_point p;

		x++;
		assert_int_equal(rig_buffer_write(a, 0, &x, 4), 0);
		p = copy_once(pd.d, a, b);
		assert_true(p.value >= boundary - 2);
		assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
		assert_true(rig_reached(p));
		assert_true(rig_signaled(p));
		assert_int_equal(rig_buffer_read(b, 0, &y, 4), 0);
		assert_int_equal(x, y);
	}
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_across_boundaries(void **state)
{
	/* Ascending: a reused slot only counts up. */
	across(1ull << 32, "W32");
	across(1ull << 62, "W62");
	across(1ull << 63, "W63");
}

/* A value far ahead of any given is refused, not waited for (issue 14,
 * item 9): nothing would ever signal it. */
static void
test_far_ahead_is_refused(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W4" });
	struct rig_buffer *a = buffer_new(pd.d, 8), *b = buffer_new(pd.d, 8);
	struct rig_point p = copy_once(pd.d, a, b), far;

	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	far = (struct rig_point){ pd.d, p.value + (1ull << 40) };
	assert_false(rig_reached(far));
	assert_false(rig_signaled(far));
	assert_int_equal(rig_wait(far, 10 * 1000 * 1000), RIG_EINVAL);
	assert_why("rig_wait: ", "given by no submit");
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_reuse_counts_up),
		cmocka_unit_test(test_never_backwards),
		cmocka_unit_test(test_across_boundaries),
		cmocka_unit_test(test_far_ahead_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
