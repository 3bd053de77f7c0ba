/* SPDX-License-Identifier: MIT */
/*
 * test_propagation: a loss spreads to the devices whose work waits for
 * the values it dropped, as a chain (docs/loss.md; README, Loss). B's queues
 * wait for A's value (B's facts say its queues wait for host-written
 * words); A faults: B is lost "lost with A", its record names A's loss as
 * the cause, and a wait on B names both. C's thread waited on the host
 * for the same value: no work runs on memory whose last write was
 * dropped, so C is lost "lost with A" too (issue 14, item 12), its work
 * never runs, and a read of what it would have written reports the loss.
 * A submit made after the loss is refused instead, and its device goes
 * on. A dependent's value is never reached while the producer's value it
 * waited for is dropped (issue 14, item 11).
 */
#include <pthread.h>
#include <sched.h>

#include "loss.h"

static void
test_queue_waiter_and_host_waiter_are_lost(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PA" });
	struct polled_dev b = polled_open((struct rig_polled_config){
		.name = "PB", .waits = { .hosts = true } });
	struct polled_dev c = polled_open((struct rig_polled_config){ .name = "PC" });
	struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
	struct rig_buffer *xb = NULL, *xc = NULL, *yb = buffer_new(b.d, 64),
			  *yc = buffer_new(c.d, 64);
	struct rig_point pa, pb, pc;
	const struct rig_loss *l;
	char seen[64];
	int ret;

	assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
	assert_int_equal(rig_buffer_borrow(x, c.d, &xc), 0);
	rig_polled_stall(a.p, true);
	assert_int_equal(rig_buffer_copy(src, x, &pa), 0);	/* A writes x */
	assert_int_equal(rig_buffer_copy(xb, yb, &pb), 0);	/* B's queue waits */
	assert_int_equal(rig_buffer_copy(xc, yc, &pc), 0);	/* C's host waits */
	await(rig_polled_submits(b.p) == 1);			/* B's driver has it */

	rig_polled_fault(a.p, pa.value, 0);
	rig_polled_stall(a.p, false);

	ret = rig_wait(pb, 30 * SECOND_NS);
	if (ret != RIG_ELOST)
		fail_msg("the wait on B returned %d (%s); B: %s; A: %s", ret, rig_why(),
			 rig_lost(b.d) ? rig_lost(b.d) : "live",
			 rig_lost(a.d) ? rig_lost(a.d) : "live");
	assert_why("PB is lost: lost with PA; PA is lost: fault: injected fault at part 0");
	assert_string_equal(rig_lost(b.d), "lost with PA");
	l = rig_loss(b.d);
	assert_non_null(l);
	assert_string_equal(l->device, "PB");
	assert_non_null(l->cause);
	assert_string_equal(l->cause->device, "PA");
	assert_non_null(strstr(l->cause->reason, "fault: injected fault"));
	assert_int_equal(l->cause->value, pa.value);
	assert_null(l->cause->cause);

	/* C waited on the host: its work would read bytes A never wrote.
	 * It never runs, its point is dropped, and whoever reads what it
	 * would have written learns of the loss. */
	ret = rig_wait(pc, 30 * SECOND_NS);
	if (ret != RIG_ELOST)
		fail_msg("the wait on C returned %d (%s); C: %s", ret, rig_why(),
			 rig_lost(c.d) ? rig_lost(c.d) : "live");
	assert_why("PC is lost: lost with PA; PA is lost: fault: injected fault at part 0");
	assert_string_equal(rig_lost(c.d), "lost with PA");
	assert_false(rig_reached(pc));
	assert_true(rig_signaled(pc));
	l = rig_loss(c.d);
	assert_non_null(l->cause);
	assert_string_equal(l->cause->device, "PA");
	assert_int_equal(rig_buffer_read(yc, 0, seen, sizeof(seen)), RIG_ELOST);

	rig_buffer_release(xb);
	rig_buffer_release(xc);
	rig_buffer_release(yb);
	rig_buffer_release(yc);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(b);
	polled_close(c);
	polled_close(a);
}

/* A device whose loss drops nothing another waits for spreads nowhere. */
static void
test_completed_values_spread_nothing(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PD" });
	struct polled_dev b = polled_open((struct rig_polled_config){
		.name = "PE", .waits = { .hosts = true } });
	struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
	struct rig_buffer *xb = NULL, *yb = buffer_new(b.d, 64);
	struct rig_point pa, pb;

	assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
	assert_int_equal(rig_buffer_copy(src, x, &pa), 0);
	assert_int_equal(rig_wait(pa, 30 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_copy(xb, yb, &pb), 0);
	assert_int_equal(rig_wait(pb, 30 * SECOND_NS), 0);
	assert_int_equal(rig_close(a.d), 0);
	assert_null(rig_lost(b.d));
	{
		struct rig_buffer *zb = buffer_new(b.d, 64);

		assert_int_equal(rig_buffer_copy(yb, zb, &pb), 0);	/* B goes on */
		assert_int_equal(rig_wait(pb, 30 * SECOND_NS), 0);
		rig_buffer_release(zb);
	}
	rig_buffer_release(xb);
	rig_buffer_release(yb);
	rig_buffer_release(src);
	rig_buffer_release(x);
	polled_close(b);
	polled_close(a);
}

/*
 * A submit that would wait for a value a loss already dropped is refused:
 * A was to write C's memory through a borrow, and A faulted first. C stays
 * live, and its other memory goes on.
 */
static void
test_a_submit_on_dropped_work_is_refused(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PF" });
	struct polled_dev c = polled_open((struct rig_polled_config){ .name = "PG" });
	struct rig_buffer *src = buffer_new(a.d, 64), *y = buffer_new(c.d, 64),
			  *z = buffer_new(c.d, 64), *z2 = buffer_new(c.d, 64), *ya = NULL;
	struct rig_point pa, pc;

	assert_int_equal(rig_buffer_borrow(y, a.d, &ya), 0);
	rig_polled_stall(a.p, true);
	assert_int_equal(rig_buffer_copy(src, ya, &pa), 0);	/* A writes C's y */
	rig_polled_fault(a.p, pa.value, 0);
	rig_polled_stall(a.p, false);
	assert_int_equal(rig_wait(pa, 30 * SECOND_NS), RIG_ELOST);

	assert_int_equal(rig_buffer_copy(y, z, &pc), RIG_ELOST);
	assert_why("rig_buffer_copy: the work of value", "on PF was dropped: PF is lost: fault");
	assert_null(rig_lost(c.d));
	/* Host access to it reports the drop too; C's other memory goes on. */
	assert_int_equal(rig_buffer_read(y, 0, (char[64]){ 0 }, 64), RIG_ELOST);
	assert_int_equal(rig_buffer_write(y, 0, "again", 5), RIG_ELOST);
	assert_int_equal(rig_buffer_copy(z, z2, &pc), 0);
	assert_int_equal(rig_wait(pc, 30 * SECOND_NS), 0);

	rig_buffer_release(ya);
	rig_buffer_release(src);
	rig_buffer_release(y);
	rig_buffer_release(z);
	rig_buffer_release(z2);
	polled_close(c);
	polled_close(a);
}

/* A value that takes no time: the worker stores the word as soon as it
 * wakes. */
static void
spin_for(unsigned ns)
{
	uint64_t until = rig_now_ns() + ns;

	while (rig_now_ns() < until)
		sched_yield();
}

/*
 * Item 11: A's loss races with A's worker, which finishes A's value just
 * as A is closed, while B's queue reads A's word itself. Whatever the
 * order, B's value is never reached while A's value it waited for was
 * dropped, and B is lost with A exactly when A's value was dropped.
 */
static void
test_no_dependent_reached_over_a_dropped_value(void **state)
{
	int reached = 0, dropped = 0;

	for (int run = 0; run < 300; run++) {
		struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PR" });
		struct polled_dev b = polled_open((struct rig_polled_config){
			.name = "PS", .waits = { .hosts = true } });
		struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
		struct rig_buffer *xb = NULL, *y = buffer_new(b.d, 64);
		struct rig_point pa, pb;
		bool ra, rb;

		assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
		rig_polled_stall(a.p, true);
		assert_int_equal(rig_buffer_copy(src, x, &pa), 0);
		assert_int_equal(rig_buffer_copy(xb, y, &pb), 0);
		await(rig_polled_submits(b.p) == 1);	/* B's queue waits */
		rig_polled_stall(a.p, false);
		spin_for((unsigned)(run % 30) * 2000);
		assert_int_equal(rig_close(a.d), 0);	/* A lost: "closed" */
		/* B's value ends: reached, or dropped with B lost with A. */
		(void)rig_wait(pb, 30 * SECOND_NS);
		ra = rig_reached(pa);
		rb = rig_reached(pb);
		if (rb && !ra)
			fail_msg("run %d: B's value %llu reached over A's value %llu, dropped",
				 run, (unsigned long long)pb.value, (unsigned long long)pa.value);
		if (!ra && (!rig_lost(b.d) || strcmp(rig_lost(b.d), "lost with PR")))
			fail_msg("run %d: A's value dropped, B %s", run,
				 rig_lost(b.d) ? rig_lost(b.d) : "live");
		reached += ra;
		dropped += !ra;
		rig_buffer_release(xb);
		rig_buffer_release(y);
		rig_buffer_release(src);
		rig_buffer_release(x);
		polled_close(b);
		rig_device_release(a.d);
		rig_polled_destroy(a.p);
	}
	print_message("# A's value reached in %d runs, dropped in %d\n", reached, dropped);
}

/* Holds A's worker after A's value's work and before its word shows it,
 * until A is lost: the word then moves while the loss is on its way. */
struct hold_word {
	struct rig_device *_Atomic a;
	_Atomic uint64_t value;
};

static void
hold_word_until_lost(void *arg, uint64_t value, int end)
{
	struct hold_word *h = arg;
	struct rig_device *a = atomic_load(&h->a);

	if (!end || !a || value != atomic_load(&h->value))
		return;
	for (int i = 0; i < 5000000 && !rig_lost(a); i++)
		sched_yield();
}

static void *
close_a(void *arg)
{
	rig_close(arg);
	return NULL;
}

/*
 * Item 11, made likely: A's worker stores the word just after A's loss is
 * seen, so B's queue may run over A's value while the loss spreads. B's
 * value must not be reached, A's value is dropped, and B is lost with A.
 */
static void
test_no_dependent_reached_while_the_loss_spreads(void **state)
{
	for (int run = 0; run < 50; run++) {
		struct hold_word h = { NULL, 0 };
		struct polled_dev a = polled_open((struct rig_polled_config){
			.name = "PT", .ran = hold_word_until_lost, .ran_arg = &h });
		struct polled_dev b = polled_open((struct rig_polled_config){
			.name = "PU", .waits = { .hosts = true } });
		struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64);
		struct rig_buffer *xb = NULL, *y = buffer_new(b.d, 64);
		struct rig_point pa, pb;
		pthread_t t;

		assert_int_equal(rig_buffer_borrow(x, b.d, &xb), 0);
		rig_polled_stall(a.p, true);
		assert_int_equal(rig_buffer_copy(src, x, &pa), 0);
		assert_int_equal(rig_buffer_copy(xb, y, &pb), 0);
		await(rig_polled_submits(b.p) == 1);	/* B's queue waits */
		atomic_store(&h.value, pa.value);
		atomic_store(&h.a, a.d);
		rig_polled_stall(a.p, false);
		assert_int_equal(pthread_create(&t, NULL, close_a, a.d), 0);
		(void)rig_wait(pb, 30 * SECOND_NS);
		pthread_join(t, NULL);
		if (rig_reached(pb) && !rig_reached(pa))
			fail_msg("run %d: B's value reached over A's dropped value", run);
		if (!rig_reached(pa) && (!rig_lost(b.d) || strcmp(rig_lost(b.d), "lost with PT")))
			fail_msg("run %d: A's value dropped, B %s", run,
				 rig_lost(b.d) ? rig_lost(b.d) : "live");
		rig_buffer_release(xb);
		rig_buffer_release(y);
		rig_buffer_release(src);
		rig_buffer_release(x);
		polled_close(b);
		rig_device_release(a.d);
		rig_polled_destroy(a.p);
	}
}

/*
 * A memory device runs its work in the submitting call, so a copy on it
 * that waited on the host for A's dropped value ends with the loss. Its
 * dropped value is settled at once (the device is stopped after the
 * call), not at the memory device's own end: A, whose memory the copy
 * read, closes while the memory device is still held (its close waited
 * for ever on that value).
 */
struct inline_copy {
	struct rig_buffer *from, *to;
	int ret;
};

static void *
copy_on_memory_device(void *arg)
{
	struct inline_copy *c = arg;

	struct rig_point p;

	c->ret = rig_buffer_copy(c->from, c->to, &p);
	if (c->ret == 0)
		c->ret = rig_wait(p, 30 * SECOND_NS);
	return NULL;
}

struct closer {
	struct polled_dev pd;
	_Atomic bool done;
};

static void *
close_device(void *arg)
{
	struct closer *c = arg;

	polled_close(c->pd);
	atomic_store(&c->done, true);
	return NULL;
}

static void
test_inline_consumer_settles_at_its_loss(void **state)
{
	struct polled_dev a = polled_open((struct rig_polled_config){ .name = "PI" });
	struct rig_device *m;
	struct rig_buffer *src = buffer_new(a.d, 64), *x = buffer_new(a.d, 64), *xm, *ym;
	struct rig_point pa;
	struct inline_copy c;
	struct closer closer = { .pd = a };
	pthread_t t;

	assert_int_equal(rig_memory_device("MI", &m), 0);
	assert_int_equal(rig_buffer_create(m, 64, RIG_MEMORY_DEVICE, &ym), 0);
	assert_int_equal(rig_buffer_borrow(x, m, &xm), 0);
	rig_polled_stall(a.p, true);
	assert_int_equal(rig_buffer_copy(src, x, &pa), 0);	/* A writes x */
	c = (struct inline_copy){ xm, ym, 1 };
	assert_int_equal(pthread_create(&t, NULL, copy_on_memory_device, &c), 0);
	/* The copy most likely waits by now; whether it does or not, it
	 * ends lost or refused. */
	sleep_ms(50);
	rig_polled_fault(a.p, pa.value, 0);
	rig_polled_stall(a.p, false);
	pthread_join(t, NULL);
	assert_true(c.ret == RIG_ELOST || c.ret == RIG_EINVAL);
	rig_buffer_release(xm);
	rig_buffer_release(src);
	rig_buffer_release(x);
	assert_int_equal(pthread_create(&t, NULL, close_device, &closer), 0);
	await(atomic_load(&closer.done));
	pthread_join(t, NULL);
	rig_buffer_release(ym);
	rig_device_release(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_waiter_and_host_waiter_are_lost),
		cmocka_unit_test(test_completed_values_spread_nothing),
		cmocka_unit_test(test_a_submit_on_dropped_work_is_refused),
		cmocka_unit_test(test_no_dependent_reached_over_a_dropped_value),
		cmocka_unit_test(test_no_dependent_reached_while_the_loss_spreads),
		cmocka_unit_test(test_inline_consumer_settles_at_its_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
