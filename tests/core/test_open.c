/* SPDX-License-Identifier: MIT */
/*
 * test_open: one device per name; each refusal of a device's facts with its
 * own message; a failed make or a refused open leaves nothing behind.
 */
#include "common.h"

/* A driver whose facts each test sets, counting makes and stops. */
struct fake {
	const struct rig_driver *drv;
};
static struct rig_facts fake_facts;
static int fake_fault;
static int makes, stops;
static _Atomic uint64_t *last_word;
static struct rig_device *inner_open_device;
static int inner_open_status;
static bool open_inside_make;

static int fake_room(void *e, struct rig_part *p, size_t n, size_t w) { return RIG_FITS; }
static int fake_commit(void *e, uint64_t v, const char **f) { return RIG_OK; }
static int
fake_submit(void *e, uint64_t v, struct rig_part *p, size_t n,
	    const struct rig_wait *w, size_t nw, struct rig_times *t, const char **f)
{
	return RIG_COMMITTED;
}
static const struct rig_driver fake_driver = { fake_room, fake_submit, fake_commit, NULL, NULL, NULL };
static const struct rig_queue fake_queues[] = {
	{ "COMPUTE:0", RIG_RUNS(RIG_LAUNCH_PART) },
	{ "COPY:0", RIG_RUNS(RIG_COPY_PART) },
};

static int
fake_facts_op(void *t, struct rig_facts *out, const char **fault)
{
	if (fake_fault) {
		*fault = "the fake faulted";
		return RIG_FAULT;
	}
	*out = fake_facts;
	if (out->edge == (void *)1)
		out->edge = t;		/* "the state made by make" */
	return RIG_OK;
}
static int fake_alloc(void *t, uint64_t b, enum rig_memory k, void **r, const char **f) { return RIG_NO_ROOM; }
static void fake_free(void *t, void *r) { }
static void fake_locate(void *t, void *r, struct rig_location *o) { }
static void fake_stop(void *t, const char *why) { stops++; }
static void fake_release(void *t) { free(t); }
static const struct rig_ops fake_ops = {
	.facts = fake_facts_op, .alloc = fake_alloc, .free = fake_free,
	.locate = fake_locate, .stop = fake_stop, .release = fake_release,
};

static int
fake_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	  char *why, size_t len)
{
	struct fake *f = malloc(sizeof(*f));

	if (open_inside_make) {
		struct rig_opener again = *o;

		inner_open_status = rig_open(&again, &inner_open_device);
	}
	makes++;
	last_word = word;
	f->drv = &fake_driver;
	*handle = f;
	return 0;
}
static const struct rig_opener fake_opener = { "FAKE", &fake_ops, fake_make, NULL };

/* The same driver with memory and a word of its own, read through
 * ops.signaled: its submit never moves rig's word. */
static _Atomic uint64_t own_word;
static uint64_t own_signaled(void *t) { return atomic_load(&own_word); }
static const struct rig_ops own_ops = {
	.facts = fake_facts_op, .alloc = fake_host_alloc, .free = fake_host_free,
	.locate = fake_host_locate, .signaled = own_signaled, .stop = fake_stop,
	.release = fake_release,
};
static const struct rig_opener own_opener = { "OWN", &own_ops, fake_make, NULL };

static int
setup(void **state)
{
	fake_facts = (struct rig_facts){
		.arch = "fake", .budget = 1 << 20, .queues = fake_queues,
		.nqueues = 2, .copy_engine = 1, .completion = RIG_BY_HOST,
		.alignment = 64, .edge = (void *)1,
	};
	fake_fault = 0;
	makes = stops = 0;
	open_inside_make = false;
	return 0;
}

static void
test_one_device_per_name(void **state)
{
	struct rig_device *a, *b, *c;

	assert_int_equal(rig_open(&fake_opener, &a), 0);
	assert_int_equal(rig_open(&fake_opener, &b), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(makes, 1);
	assert_string_equal(rig_name(a), "FAKE");
	assert_string_equal(rig_arch(a), "fake");
	assert_int_equal(rig_budget(a), 1 << 20);
	assert_int_equal(rig_cache_bytes(a), -1);
	assert_null(rig_lost(a));
	rig_device_release(b);
	assert_int_equal(stops, 0);	/* a still holds it */
	rig_device_release(a);
	assert_int_equal(stops, 1);
	/* Released: the name opens anew. */
	assert_int_equal(rig_open(&fake_opener, &c), 0);
	assert_int_equal(makes, 2);
	rig_device_release(c);
}

static void
test_memory_devices_by_name(void **state)
{
	struct rig_device *a, *b, *c;

	assert_int_equal(rig_memory_device("M", &a), 0);
	assert_int_equal(rig_memory_device("M", &b), 0);
	assert_int_equal(rig_memory_device("M2", &c), 0);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_string_equal(rig_arch(a), "host-memory");
	rig_device_release(a);
	rig_device_release(b);
	rig_device_release(c);
}

/* Open with the facts as set; expect a refusal naming cause. */
static void
refused(const char *cause)
{
	struct rig_device *d = NULL;
	_Atomic uint64_t *first;

	assert_int_equal(rig_open(&fake_opener, &d), RIG_EINVAL);
	assert_null(d);
	assert_why("rig_open: FAKE: ", cause);
	assert_int_equal(makes, 1);
	assert_int_equal(stops, 1);	/* the handle made was stopped */
	first = last_word;
	/* Nothing left: the next open gets the same word and succeeds. */
	setup(NULL);
	assert_int_equal(rig_open(&fake_opener, &d), 0);
	assert_ptr_equal(last_word, first);
	rig_device_release(d);
}

/* A wait ends when the driver's own word shows the value (fails without
 * the core reading ops.signaled: the wait runs out). */
static void
test_own_word_read_through_signaled(void **state)
{
	struct rig_device *d;
	struct rig_buffer *a, *b;
	struct rig_point p = { 0 };

	assert_int_equal(rig_open(&own_opener, &d), 0);
	assert_int_equal(rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_false(rig_signaled(p));
	assert_int_equal(*last_word, p.value - 1);	/* rig's word stays */
	atomic_store(&own_word, p.value);
	assert_true(rig_signaled(p));
	assert_int_equal(rig_wait(p, 10 * 1000000000ull), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(d);
}

/* A device whose queues wait on the GPU-like way (the host device waits
 * for stores) for a producer with a word of its own and no hang clock:
 * rig's copy of that word moves only when someone reads it through
 * ops.signaled, so the poller must read it while a queue waits (the
 * consumer's wait ran out, its word never raised, before). */
static void
test_queue_waits_on_own_word_without_hang_clock(void **state)
{
	struct rig_device *own, *host;
	struct rig_buffer *a, *b, *view, *out;
	struct rig_point p = { 0 }, q = { 0 };

	fake_facts.completion = RIG_BY_STORE;	/* no hang_ms: setup's RIG_NONE */
	fake_facts.host_addresses = true;
	assert_int_equal(rig_open(&own_opener, &own), 0);
	assert_int_equal(rig_host_device(&host), 0);
	assert_int_equal(rig_buffer_create(own, 64, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(own, 64, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(host, 64, RIG_MEMORY_DEVICE, &out), 0);
	if (rig_buffer_borrow(b, host, &view) != 0)
		fail_msg("%s", rig_why());
	atomic_store(&own_word, 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_buffer_copy(view, out, &q), 0);	/* waits for p */
	assert_false(rig_signaled(q));
	atomic_store(&own_word, p.value);	/* the producer's store: nobody reads */
	assert_int_equal(rig_wait(q, 10 * 1000000000ull), 0);
	rig_buffer_release(view);
	rig_buffer_release(out);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(host);
	rig_device_release(own);
}

static void
test_copy_engine_names_no_queue(void **state)
{
	fake_facts.copy_engine = 2;
	refused("copy_engine 2 names no queue (the device has 2)");
}

static void
test_copy_engine_without_copies(void **state)
{
	fake_facts.copy_engine = 0;
	refused("copy_engine names queue COMPUTE:0, which does not run copies");
}

static void
test_hang_ms_below_one(void **state)
{
	fake_facts.hang_ms = RIG_SOME(0);
	refused("hang_ms 0 is below 1");
}

static void
test_cache_bytes_below_one(void **state)
{
	fake_facts.cache_bytes = RIG_SOME(-4);
	refused("cache_bytes -4 is below 1");
}

static void
test_alignment_not_power_of_two(void **state)
{
	fake_facts.alignment = 48;
	refused("alignment 48 is not a power of two");
}

static void
test_edge_null(void **state)
{
	fake_facts.edge = NULL;
	refused("edge is NULL");
}

static void
test_edge_first_member_null(void **state)
{
	static const struct rig_driver *null_driver = NULL;

	fake_facts.edge = (void *)&null_driver;
	refused("the edge's first member (its struct rig_driver) is NULL");
}

static void
test_counters_without_measures(void **state)
{
	static const struct rig_counter counters[] = { { "cycles", 1 } };

	fake_facts.counters = counters;
	fake_facts.ncounters = 1;
	refused("lists 1 counters but its measures is NULL");
}

static void
test_events_fd_without_events(void **state)
{
	fake_facts.events_fd = RIG_SOME(0);
	refused("facts give events_fd 0 but ops has no events");
}

static void
test_facts_fault(void **state)
{
	struct rig_device *d = NULL;

	fake_fault = 1;
	assert_int_equal(rig_open(&fake_opener, &d), -EIO);
	assert_why("rig_open: FAKE: facts faulted: the fake faulted");
	assert_int_equal(stops, 1);
}

static void
test_failed_make_leaves_nothing(void **state)
{
	struct rig_polled_config c = { .size = sizeof(c) };
	struct rig_polled *p;
	struct rig_device *d = NULL;

	assert_int_equal(rig_polled_create(&c, &p), 0);
	assert_int_equal(rig_polled_fail(p, "make"), 0);
	assert_int_equal(rig_open(rig_polled_opener(p), &d), -EIO);
	assert_null(d);
	assert_why("rig_open: POLLED: injected make failure");
	assert_false(rig_polled_open(p));
	/* The name was never taken: it opens now. */
	assert_int_equal(rig_open(rig_polled_opener(p), &d), 0);
	assert_true(rig_polled_open(p));
	rig_device_release(d);
	assert_false(rig_polled_open(p));
	rig_polled_destroy(p);
}

static void
test_bad_openers(void **state)
{
	struct rig_opener o = fake_opener;
	struct rig_device *d = NULL;

	assert_int_equal(rig_open(NULL, &d), RIG_EINVAL);
	assert_why("rig_open: the opener is NULL");
	o.name = "";
	assert_int_equal(rig_open(&o, &d), RIG_EINVAL);
	assert_why("rig_open: the opener has no name");
	o = fake_opener;
	o.make = NULL;
	assert_int_equal(rig_open(&o, &d), RIG_EINVAL);
	assert_why("rig_open: opener FAKE has no make");
	assert_int_equal(rig_memory_device("", &d), RIG_EINVAL);
	assert_why("rig_memory_device: the name is empty");
	assert_int_equal(makes, 0);
}

static void
test_open_inside_make_refused(void **state)
{
	struct rig_device *d;

	open_inside_make = true;
	assert_int_equal(rig_open(&fake_opener, &d), 0);
	assert_int_equal(inner_open_status, RIG_EINVAL);
	assert_int_equal(makes, 1);
	rig_device_release(d);
}

static void
test_close_then_calls_report_loss(void **state)
{
	struct rig_device *d;
	struct rig_buffer *b = NULL;

	assert_int_equal(rig_open(&fake_opener, &d), 0);
	assert_int_equal(rig_close(d), 0);
	assert_string_equal(rig_lost(d), "closed");
	assert_int_equal(stops, 1);
	assert_int_equal(rig_buffer_create(d, 16, RIG_MEMORY_DEVICE, &b), RIG_ELOST);
	assert_why("rig_buffer_create: ", "FAKE is lost: closed");
	assert_int_equal(rig_close(d), 0);	/* closing twice is harmless */
	assert_int_equal(stops, 1);
	rig_device_release(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_one_device_per_name, setup),
		cmocka_unit_test_setup(test_memory_devices_by_name, setup),
		cmocka_unit_test_setup(test_own_word_read_through_signaled, setup),
		cmocka_unit_test_setup(test_queue_waits_on_own_word_without_hang_clock, setup),
		cmocka_unit_test_setup(test_copy_engine_names_no_queue, setup),
		cmocka_unit_test_setup(test_copy_engine_without_copies, setup),
		cmocka_unit_test_setup(test_hang_ms_below_one, setup),
		cmocka_unit_test_setup(test_cache_bytes_below_one, setup),
		cmocka_unit_test_setup(test_alignment_not_power_of_two, setup),
		cmocka_unit_test_setup(test_edge_null, setup),
		cmocka_unit_test_setup(test_edge_first_member_null, setup),
		cmocka_unit_test_setup(test_counters_without_measures, setup),
		cmocka_unit_test_setup(test_events_fd_without_events, setup),
		cmocka_unit_test_setup(test_facts_fault, setup),
		cmocka_unit_test_setup(test_failed_make_leaves_nothing, setup),
		cmocka_unit_test_setup(test_bad_openers, setup),
		cmocka_unit_test_setup(test_open_inside_make_refused, setup),
		cmocka_unit_test_setup(test_close_then_calls_report_loss, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
