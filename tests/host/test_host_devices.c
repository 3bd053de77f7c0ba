/* SPDX-License-Identifier: MIT */
/*
 * test_host_devices: several host devices (rig_host_open) run unrelated
 * work side by side: a kernel that waits on one holds up nothing on the
 * other. The order rules across them are those across any devices: work
 * submitted after another host device's point runs after it, in a chain
 * of three devices, and a launch stamps the counter in that order. Each
 * device's core count and core set are its own. A stress: threads each
 * with their own host device launch over and over while another thread's
 * device faults and reopens, again and again (the faults' handler, the
 * interrupts at stop and the opens race with every worker's arming).
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "../core/common.h"
#include "rig_host.h"
#include "fault_run.h"

static struct rig_device *
host_open(const char *name, unsigned cores, const int *cpus, size_t ncpus)
{
	struct rig_host_config c = { .name = name, .cores = cores, .cpus = cpus, .ncpus = ncpus };
	struct rig_device *d = NULL;

	if (rig_host_open(&c, &d) != 0)
		fail_msg("rig_host_open(%s): %s", name, rig_why());
	assert_string_equal(rig_name(d), name);
	return d;
}

static int64_t
first_out(struct fault_run *r)
{
	int64_t v = 0;

	assert_int_equal(rig_buffer_read(r->out, 0, &v, 8), 0);
	return v;
}

/* A kernel blocked on A holds up nothing on B. */
static void
test_side_by_side(void **state)
{
	static volatile int64_t release;
	const char *spin[] = { "spin" }, *fine[] = { "fine" };
	struct rig_device *a = host_open("HOST:A", 1, NULL, 0);
	struct rig_device *b = host_open("HOST:B", 1, NULL, 0);
	struct fault_run ra, rb;

	release = 0;
	assert_int_equal(fault_run_start(a, spin, 1, 1, 0, &release, &ra), 0);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(fault_run_start(b, fine, 1, 64, -1, NULL, &rb), 0);
		assert_int_equal(rig_wait(rb.p, 10 * SECOND_NS), 0);
		fault_run_end(&rb);
	}
	assert_false(rig_reached(ra.p));
	release = 1;
	assert_int_equal(rig_wait(ra.p, 10 * SECOND_NS), 0);
	fault_run_end(&ra);
	rig_device_release(a);
	rig_device_release(b);
}

/* A -> B -> C: each waits for the one before it, and stamps after it. */
static void
test_order_across_devices(void **state)
{
	static volatile int64_t release;
	const char *spin_stamp[] = { "spin", "stamp" }, *stamp[] = { "stamp" };
	struct rig_device *a = host_open("HOST:A", 0, NULL, 0);
	struct rig_device *b = host_open("HOST:B", 2, NULL, 0);
	struct rig_device *c = host_open("HOST:C", 1, NULL, 0);
	struct fault_run ra, rb, rc;

	for (int round = 0; round < 10; round++) {
		release = 0;
		fault_counter = 0;
		assert_int_equal(fault_run_start(a, spin_stamp, 2, 1, 0, &release, &ra), 0);
		assert_int_equal(fault_run_after(b, stamp, 1, 1, -1, NULL, &ra.p, 1, &rb), 0);
		assert_int_equal(fault_run_after(c, stamp, 1, 1, -1, NULL, &rb.p, 1, &rc), 0);
		/* C waits (through B) on A's spinning kernel. */
		assert_int_equal(rig_wait(rc.p, 20 * 1000000ull), RIG_ETIMEDOUT);
		assert_false(rig_reached(rb.p));
		release = 1;
		assert_int_equal(rig_wait(rc.p, 10 * SECOND_NS), 0);
		assert_true(rig_reached(ra.p) && rig_reached(rb.p));
		assert_int_equal(first_out(&ra), 1);
		assert_int_equal(first_out(&rb), 2);
		assert_int_equal(first_out(&rc), 3);
		fault_run_end(&ra);
		fault_run_end(&rb);
		fault_run_end(&rc);
	}
	rig_device_release(a);
	rig_device_release(b);
	rig_device_release(c);
}

/* One name, one device: a second open finds it, whatever its config. */
static void
test_names(void **state)
{
	static const int core0[] = { 0 };
	struct rig_device *a = host_open("HOST:A", 1, core0, 1);
	struct rig_device *again = host_open("HOST:A", 3, NULL, 0);
	struct rig_device *host = NULL;

	assert_ptr_equal(a, again);
	assert_int_equal(rig_host_device(&host), 0);
	assert_ptr_not_equal(host, a);
	assert_string_equal(rig_name(host), "HOST");
	rig_device_release(again);
	rig_device_release(a);
	rig_device_release(host);
}

struct stress {
	const char *name;
	int faults;		/* this thread's device faults each round */
	int rounds;
};

static void *
stress_thread(void *arg)
{
	const struct stress *st = arg;
	const char *fine[] = { "fine" }, *bad[] = { "null_write" };
	struct rig_device *d = host_open(st->name, 2, NULL, 0);
	struct fault_run r;

	for (int i = 0; i < st->rounds; i++) {
		int64_t groups = 1 + (i * 37) % 300;

		assert_int_equal(fault_run_start(d, st->faults ? bad : fine, 1, groups,
						 st->faults ? groups / 2 : -1, NULL, &r), 0);
		assert_int_equal(rig_wait(r.p, 20 * SECOND_NS), st->faults ? RIG_ELOST : 0);
		fault_run_end(&r);
		if (st->faults) {
			rig_device_release(d);
			d = host_open(st->name, 2, NULL, 0);
		}
	}
	rig_device_release(d);
	return NULL;
}

static void
test_stress_with_faults(void **state)
{
	struct stress st[] = {
		{ "HOST:S0", 0, 150 }, { "HOST:S1", 0, 150 }, { "HOST:S2", 0, 150 },
		{ "HOST:SF", 1, 60 },
	};
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, stress_thread, &st[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_order_across_devices),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_stress_with_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
