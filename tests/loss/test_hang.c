/* SPDX-License-Identifier: MIT */
/*
 * test_hang: hang_ms (docs/loss.md, Hangs). A device whose word stays below a
 * committed value for hang_ms while someone waits is lost with exactly
 * "no progress for <n> ms"; with nobody waiting it is never lost; and the
 * clock starts again whenever the word moves, so slow progress is no hang.
 * Someone is also another device that waits for the stalled device's
 * value, on the host (its submission thread) or in its queues: the clock
 * runs without a gap, and the waiting device is lost "lost with" the
 * stalled one, never for no progress of its own (issue 14, items 10a, 10b
 * and 11).
 */
#include <pthread.h>

#include "loss.h"

struct waiter {
	struct rig_point p;
	int ret;
	uint64_t waited_ns;
};

static void *
wait_thread(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = rig_now_ns();

	w->ret = rig_wait(w->p, UINT64_MAX);
	w->waited_ns = rig_now_ns() - t0;
	return NULL;
}

static void
test_lost_while_a_thread_waits(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H1", .hang_ms = RIG_SOME(50) });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct waiter w = { 0 };
	pthread_t t;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &w.p), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	pthread_join(t, NULL);
	assert_int_equal(w.ret, RIG_ELOST);
	assert_string_equal(rig_lost(pd.d), "no progress for 50 ms");
	assert_true(w.waited_ns >= 50 * MS_NS);
	print_message("lost after %.1f ms of waiting (hang_ms 50)\n", w.waited_ns / 1e6);
	/* The loss names the value that made no progress. */
	assert_int_equal(rig_loss(pd.d)->value, w.p.value);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_not_lost_with_no_waiter(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H2", .hang_ms = RIG_SOME(300) });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	sleep_ms(1200);				/* four hang_ms, nobody waiting */
	assert_null(rig_lost(pd.d));
	/* Unstalled, the value ends: seen by looks, which start no clock (a
	 * wait would give the worker hang_ms to end it, and a loaded machine
	 * may not run it that soon: 50 ms ran out once at load 30); then
	 * the wait returns at once. */
	rig_polled_stall(pd.p, false);
	while (!rig_reached(p))
		sleep_ms(1);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	assert_null(rig_lost(pd.d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

/* Each value takes 20 ms: far less than hang_ms, far more in all. */
static void
slow(void *arg, uint64_t value, int end)
{
	(void)arg;
	(void)value;
	if (!end)
		sleep_ms(20);
}

static void
test_progress_restarts_the_clock(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){
		.name = "H3", .hang_ms = RIG_SOME(1000), .ran = slow, .lag = 1 });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p = { 0 };
	uint64_t t0 = rig_now_ns();

	/* 20 ms a value, 2.2 s in all: past 2 hang_ms, which is 50 values'
	 * time, so a loaded machine's pause between two values does not
	 * reach it. */
	for (int i = 0; i < 110; i++)
		assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, UINT64_MAX), 0);
	assert_true(rig_now_ns() - t0 >= 110 * 20 * MS_NS);	/* > 2 hang_ms */
	assert_null(rig_lost(pd.d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

/* ---- Issue 14, items 10a, 10b, 11: hangs another device waits on ---- */

/* Keep a core busy until told to stop (the load that made the clock
 * start again between a host wait's slices). */
static void *
busy_loop(void *arg)
{
	_Atomic bool *stop = arg;
	volatile uint64_t n = 0;

	while (!atomic_load(stop))
		n++;
	return NULL;
}

struct watched_wait {
	struct rig_point p;
	_Atomic int ret;
	_Atomic bool done;
};

static void *
wait_done(void *arg)
{
	struct watched_wait *w = arg;

	atomic_store(&w->ret, rig_wait(w->p, UINT64_MAX));
	atomic_store(&w->done, true);
	return NULL;
}

/*
 * P (hang_ms 100) stalls under a write that C's copy reads; C waits for it
 * on the host (queue_waits false) or in its queue (true), and nothing else
 * waits on P. A program's wait on C must end (30 s: only a wait that never
 * ends reaches it), with P lost "no progress for 100 ms" and C with P.
 */
static void
stalled_producer(const char *pname, const char *cname, bool queue_waits,
		 int busy)
{
	struct polled_dev p = polled_open((struct rig_polled_config){
		.name = pname, .hang_ms = RIG_SOME(100) });
	struct polled_dev c = polled_open((struct rig_polled_config){
		.name = cname, .waits = { .hosts = queue_waits } });
	struct rig_buffer *src = buffer_new(p.d, 64), *x = buffer_new(p.d, 64);
	struct rig_buffer *xc = NULL, *y = buffer_new(c.d, 64);
	struct watched_wait w = { 0 };
	_Atomic bool stop = false;
	pthread_t t, load[4];
	struct rig_point pp;
	int k;

	assert_int_equal(rig_buffer_borrow(x, c.d, &xc), 0);
	for (int i = 0; i < busy; i++)
		assert_int_equal(pthread_create(&load[i], NULL, busy_loop, &stop), 0);
	rig_polled_stall(p.p, true);
	assert_int_equal(rig_buffer_copy(src, x, &pp), 0);
	assert_int_equal(rig_buffer_copy(xc, y, &w.p), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_done, &w), 0);
	for (k = 0; k < 30000 && !atomic_load(&w.done); k++)
		sleep_ms(1);
	atomic_store(&stop, true);
	for (int i = 0; i < busy; i++)
		pthread_join(load[i], NULL);
	if (!atomic_load(&w.done)) {
		rig_polled_stall(p.p, false);	/* let it end, then fail */
		pthread_join(t, NULL);
		fail_msg("%s: the wait on %s did not end in 30 s (%s: %s)", cname, cname,
			 pname, rig_lost(p.d) ? rig_lost(p.d) : "live");
	}
	pthread_join(t, NULL);
	assert_int_equal(atomic_load(&w.ret), RIG_ELOST);
	assert_string_equal(rig_lost(p.d), "no progress for 100 ms");
	assert_non_null(strstr(rig_lost(c.d), "lost with "));
	assert_non_null(strstr(rig_lost(c.d), pname));
	assert_false(rig_reached(w.p));
	rig_buffer_release(xc);
	rig_buffer_release(y);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(c);
	polled_close(p);
}

/* 10a: the only waiter on P is C's submission thread, on the host, with
 * two busy loops on the machine. */
static void
test_host_waiting_device_starts_the_clock(void **state)
{
	for (int i = 0; i < 5; i++)
		stalled_producer("HP1", "HC1", false, 2);
}

/* 10b: the only waiter on P is C's queue: the driver waits, not the host. */
static void
test_queue_waiting_device_starts_the_clock(void **state)
{
	stalled_producer("HP2", "HC2", true, 0);
}

/*
 * 11: C (hang_ms 50) waits in its queue for P (hang_ms 300), which
 * stalls; a program waits on C from the start, so C's clock would run out
 * first. The hang is P's: C is lost "lost with HP3", not for no progress.
 */
static void
test_a_waiting_device_is_lost_with_its_producer(void **state)
{
	struct polled_dev p = polled_open((struct rig_polled_config){
		.name = "HP3", .hang_ms = RIG_SOME(300) });
	struct polled_dev c = polled_open((struct rig_polled_config){
		.name = "HC3", .hang_ms = RIG_SOME(50), .waits = { .hosts = true } });
	struct rig_buffer *src = buffer_new(p.d, 64), *x = buffer_new(p.d, 64);
	struct rig_buffer *xc = NULL, *y = buffer_new(c.d, 64);
	struct rig_point pp, pc;

	assert_int_equal(rig_buffer_borrow(x, c.d, &xc), 0);
	rig_polled_stall(p.p, true);
	assert_int_equal(rig_buffer_copy(src, x, &pp), 0);
	assert_int_equal(rig_buffer_copy(xc, y, &pc), 0);
	assert_int_equal(rig_wait(pc, UINT64_MAX), RIG_ELOST);
	assert_string_equal(rig_lost(p.d), "no progress for 300 ms");
	assert_string_equal(rig_lost(c.d), "lost with HP3");
	assert_false(rig_reached(pc));
	rig_buffer_release(xc);
	rig_buffer_release(y);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(c);
	polled_close(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_while_a_thread_waits),
		cmocka_unit_test(test_not_lost_with_no_waiter),
		cmocka_unit_test(test_progress_restarts_the_clock),
		cmocka_unit_test(test_host_waiting_device_starts_the_clock),
		cmocka_unit_test(test_queue_waiting_device_starts_the_clock),
		cmocka_unit_test(test_a_waiting_device_is_lost_with_its_producer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
