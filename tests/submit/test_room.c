/* SPDX-License-Identifier: MIT */
/*
 * test_room: rig's answer to a room of RIG_LATER (rig_edge.h: the parts fit
 * once one of the device's values is reached).
 *   - A device that reaches its values while room looks (here: inside the
 *     second room call that says LATER, as a device on another core does
 *     between room's look and rig's next step): the submit still reaches
 *     the driver. rig read the word after room's answer before, found it
 *     already at the last value, and waited for the next one forever.
 *   - A room that says LATER a few times with every value reached (a mark
 *     its device stores after the word): rig asks again, and the value runs.
 *   - A room that says LATER with every value reached, for good: the
 *     device is lost after SUBMIT_SETTLE_BOUND_NS, naming the value.
 * The driver commits each value at submit (RIG_COMMITTED), and its values
 * go through rig's submission thread (may_block), so every room call is
 * the thread's.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "../core/common.h"
#include "rig_edge.h"

/* One value in flight at most; rig's calls and the test's completion
 * under one lock. */
static struct {
	pthread_mutex_t lock;
	_Atomic uint64_t *word;
	uint64_t pending;	/* submitted, not yet reached; 0: none */
	bool committed;
	unsigned looks;		/* room's calls since pending was submitted */
	void *src, *dst;
	uint64_t bytes;
	unsigned idle_laters;	/* LATERs room still says with nothing pending (UINT_MAX: for good) */
	unsigned laters;
} lag = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Under lag.lock: the pending value's copy runs and the word shows it. */
static void
reach_pending(void)
{
	memcpy(lag.dst, lag.src, lag.bytes);
	atomic_store_explicit(lag.word, lag.pending, memory_order_release);
	rig_word_wake(lag.word);
	lag.pending = 0;
}

static int
lag_room(void *e, struct rig_part *p, size_t n, size_t w)
{
	int r = RIG_FITS;

	pthread_mutex_lock(&lag.lock);
	if (lag.pending) {
		/* The look came first: LATER. The second look's value is
		 * reached before room returns. */
		if (++lag.looks >= 2 && lag.committed)
			reach_pending();
		r = RIG_LATER;
	} else if (lag.idle_laters) {
		/* A mark the device stores a moment after its word. */
		if (lag.idle_laters != UINT_MAX)
			lag.idle_laters--;
		r = RIG_LATER;
	}
	lag.laters += r == RIG_LATER;
	pthread_mutex_unlock(&lag.lock);
	return r;
}

static int
lag_submit(void *e, uint64_t v, struct rig_part *p, size_t n,
	   const struct rig_wait *w, size_t nw, struct rig_times *t, const char **f)
{
	pthread_mutex_lock(&lag.lock);
	lag.pending = v;
	lag.committed = true;	/* it commits its values itself */
	lag.looks = 0;
	lag.src = (char *)p[0].u.copy.src.at.host + p[0].u.copy.src.offset;
	lag.dst = (char *)p[0].u.copy.dst.at.host + p[0].u.copy.dst.offset;
	lag.bytes = p[0].u.copy.bytes;
	pthread_mutex_unlock(&lag.lock);
	return RIG_COMMITTED;
}

static int
lag_commit(void *e, uint64_t v, const char **f)
{
	pthread_mutex_lock(&lag.lock);
	if (lag.pending && v >= lag.pending)
		lag.committed = true;
	pthread_mutex_unlock(&lag.lock);
	return RIG_OK;
}

static const struct rig_driver lag_driver = { lag_room, lag_submit, lag_commit, NULL, NULL, NULL };
static const struct rig_queue lag_queues[] = { { "COPY:0", RIG_RUNS(RIG_COPY_PART) } };

struct lag_dev {
	const struct rig_driver *drv;
};

static int
lag_facts(void *t, struct rig_facts *out, const char **fault)
{
	*out = (struct rig_facts){
		.arch = "lag", .budget = 1 << 20, .queues = lag_queues, .nqueues = 1,
		.copy_engine = 0, .completion = RIG_BY_HOST, .may_block = true,
		.alignment = 64, .edge = t,
	};
	return RIG_OK;
}

static void lag_stop(void *t, const char *why) { }
static void lag_release(void *t) { free(t); }
static const struct rig_ops lag_ops = {
	.facts = lag_facts, .alloc = fake_host_alloc, .free = fake_host_free,
	.locate = fake_host_locate, .stop = lag_stop, .release = lag_release,
};

static int
lag_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	 char *why, size_t len)
{
	struct lag_dev *d = malloc(sizeof(*d));

	if (!d)
		return -1;
	d->drv = &lag_driver;
	lag.word = word;
	*handle = d;
	return 0;
}

static const struct rig_opener lag_opener = { "LAG", &lag_ops, lag_make, NULL };

/* Wait (10 s at most) until v reached the driver and was committed, then
 * reach it; false if it never came. */
static bool
reach_when_committed(uint64_t v)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		bool done = false;

		pthread_mutex_lock(&lag.lock);
		if (lag.pending == v && lag.committed) {
			reach_pending();
			done = true;
		}
		pthread_mutex_unlock(&lag.lock);
		if (done)
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 10)
			return false;
		sched_yield();
	}
}

struct pair {
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
};

static struct pair
pair_open(void)
{
	struct pair p;
	uint32_t x = 0x12345678;

	lag.pending = 0;
	lag.laters = 0;
	assert_int_equal(rig_open(&lag_opener, &p.d), 0);
	assert_int_equal(rig_buffer_create(p.d, 4, RIG_MEMORY_DEVICE, &p.a), 0);
	assert_int_equal(rig_buffer_create(p.d, 4, RIG_MEMORY_DEVICE, &p.b), 0);
	assert_int_equal(rig_buffer_create(p.d, 4, RIG_MEMORY_DEVICE, &p.c), 0);
	assert_int_equal(rig_buffer_write(p.a, 0, &x, 4), 0);
	return p;
}

static void
pair_close(struct pair p)
{
	rig_buffer_release(p.a);
	rig_buffer_release(p.b);
	rig_buffer_release(p.c);
	rig_close(p.d);
	rig_device_release(p.d);
}

/* Value 1, a copy of a to b, run through the lag driver and waited for. */
static void
first_copy(struct pair *p)
{
	struct rig_point p1;

	assert_int_equal(rig_buffer_copy(p->a, p->b, &p1), 0);
	assert_true(reach_when_committed(p1.value));
	assert_int_equal(rig_wait(p1, 10 * SECOND_NS), 0);
}

/* The value of q reached the driver after room's LATERs; reach it. */
static void
expect_reached(struct rig_point q)
{
	if (!reach_when_committed(q.value))
		fail_msg("value %llu never reached the driver after room said LATER %u times",
			 (unsigned long long)q.value, lag.laters);
}

/* q, a copy of a to c, ends and c holds a's bytes. */
static void
expect_copied(struct pair *p, struct rig_point q)
{
	uint32_t got = 0;

	assert_int_equal(rig_wait(q, 10 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_read(p->c, 0, &got, 4), 0);
	assert_int_equal(got, 0x12345678);
}

/* Copy a to b (value 1), then a to c (value 2): value 2's room finds 1
 * pending, says LATER, and on its second look reaches 1 before it returns
 * LATER again. Value 2 must still reach the driver. */
static void
test_later_while_the_device_reaches_its_values(void **state)
{
	struct pair p = pair_open();
	struct rig_point p1, p2;

	first_copy(&p);
	/* Value 1 again pending, for value 2's room to find. */
	assert_int_equal(rig_buffer_copy(p.a, p.b, &p1), 0);
	assert_int_equal(rig_buffer_copy(p.a, p.c, &p2), 0);
	expect_reached(p2);
	assert_true(lag.laters >= 2);
	expect_copied(&p, p2);
	pair_close(p);
}

/* A room that says LATER a few times more with nothing in flight (its
 * mark lags its word): rig asks again, and the value runs. */
static void
test_later_with_nothing_in_flight_asks_again(void **state)
{
	struct pair p = pair_open();
	struct rig_point p2;

	first_copy(&p);
	pthread_mutex_lock(&lag.lock);
	lag.idle_laters = 3;
	pthread_mutex_unlock(&lag.lock);
	assert_int_equal(rig_buffer_copy(p.a, p.c, &p2), 0);
	expect_reached(p2);
	assert_int_equal(lag.idle_laters, 0);
	expect_copied(&p, p2);
	assert_null(rig_lost(p.d));
	pair_close(p);
}

/* A room that says LATER with nothing in flight, for good: the device is
 * lost (after SUBMIT_SETTLE_BOUND_NS, 10 s), and its waits end. */
static void
test_later_for_good_loses_the_device(void **state)
{
	struct pair p = pair_open();
	struct rig_point p2;

	first_copy(&p);
	pthread_mutex_lock(&lag.lock);
	lag.idle_laters = UINT_MAX;
	pthread_mutex_unlock(&lag.lock);
	assert_int_equal(rig_buffer_copy(p.a, p.c, &p2), 0);
	assert_int_equal(rig_wait(p2, 60 * SECOND_NS), RIG_ELOST);
	assert_why("room answered RIG_LATER for value", "with every value before it reached");
	assert_non_null(rig_lost(p.d));
	assert_non_null(strstr(rig_lost(p.d), "room answered RIG_LATER"));
	lag.idle_laters = 0;
	pair_close(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_later_while_the_device_reaches_its_values),
		cmocka_unit_test(test_later_with_nothing_in_flight_asks_again),
		cmocka_unit_test(test_later_for_good_loses_the_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
