/* SPDX-License-Identifier: MIT */
/*
 * test_host_here: a host device opened with run_at_submit runs a value
 * on the submitting thread when it finds the device idle
 * (src/host/here.c), and nothing else changes: every group runs once,
 * the word shows the value when the submit returns, a device not asked
 * (or a launch the pool would split) never runs on the submitter, a fault
 * there is contained and names the kernel as on the device's threads, and
 * several threads submitting at once (some values run at submit, some by
 * the busy device's thread: a stress, for ThreadSanitizer) each see every
 * group of theirs run once. Whether the submitter ran a call: its stack
 * holds the call's frame (kernels/assist.c).
 */
#include <pthread.h>
#include <sched.h>

#include "../core/common.h"
#include "rig_host.h"
#include "assist_kernel.h"

#define MAX_GROUPS 256
#define TIMEOUT (60 * SECOND_NS)	/* a wait with a timeout runs no chunk */

static uint32_t hits[MAX_GROUPS];
static int64_t on_submitter;
static volatile int64_t begun, release_flag;

#define ON_SUBMITTER() __atomic_load_n(&on_submitter, __ATOMIC_RELAXED)

static struct rig_device *
host_open(const char *name, unsigned cores, uint32_t at_submit)
{
	struct rig_host_config c = { .name = name, .cores = cores, .run_at_submit = at_submit };
	struct rig_device *d = NULL;

	if (rig_host_open(&c, &d) != 0)
		fail_msg("rig_host_open(%s): %s", name, rig_why());
	return d;
}

/* Params whose calls count as the submitter's when they run on the stack
 * of the thread that calls this (below its caller's frame: inlined). */
static inline __attribute__((always_inline)) struct assist_params
params_here(int64_t work)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);

	memset(hits, 0, sizeof(hits));
	__atomic_store_n(&on_submitter, 0, __ATOMIC_RELAXED);
	begun = 0;
	return (struct assist_params){ hits, &on_submitter, frame - (1u << 20), frame, &begun,
				       0, work, &release_flag, 0 };
}

static void
each_group_once(const uint32_t *h, int64_t groups)
{
	for (int64_t g = 0; g < groups; g++)
		if (__atomic_load_n(&h[g], __ATOMIC_RELAXED) != 1)
			fail_msg("group %lld ran %u times", (long long)g, h[g]);
}

/* An idle device's submit runs the value: done when the submit returns,
 * every group once, on the submitter's stack. A value rig hands to its
 * submission thread instead (its driver lock was taken at that moment)
 * runs there, so the count of submits that ran here is at least one, not
 * all of them. */
static void
test_idle_submit_runs_here(void **state)
{
	struct rig_device *d = host_open("HOST:HE1", 1, 1);
	struct kernel k = kernel_load(d, "mark");
	int here = 0;

	for (int i = 0; i < 50; i++) {
		struct assist_params p = params_here(100);
		struct rig_point pt = launch(&k, &p, 8);

		if (ON_SUBMITTER()) {
			/* All of it, before the submit returned. */
			assert_int_equal(ON_SUBMITTER(), 8);
			assert_int_equal(rig_wait(pt, 0), 0);
			here++;
		}
		assert_int_equal(rig_wait(pt, TIMEOUT), 0);
		each_group_once(hits, 8);
	}
	assert_true(here >= 1);
	kernel_release(&k);
	assert_null(rig_lost(d));
	rig_device_release(d);
}

/* Not asked, or a launch the device's pool would split: the device's
 * threads run it, never the submitter. */
static void
test_never_here_unless_one_thread(void **state)
{
	struct rig_device *plain = host_open("HOST:HE2", 1, 0);
	struct rig_device *two = host_open("HOST:HE2T", 2, 1);
	struct kernel kp = kernel_load(plain, "mark"), kt = kernel_load(two, "mark");

	for (int i = 0; i < 20; i++) {
		struct assist_params p = params_here(100);

		assert_int_equal(rig_wait(launch(&kp, &p, 8), TIMEOUT), 0);
		each_group_once(hits, 8);
		assert_int_equal(ON_SUBMITTER(), 0);
		p = params_here(100);
		assert_int_equal(rig_wait(launch(&kt, &p, 64), TIMEOUT), 0);
		each_group_once(hits, 64);
		assert_int_equal(ON_SUBMITTER(), 0);
	}
	kernel_release(&kp);
	kernel_release(&kt);
	rig_device_release(plain);
	rig_device_release(two);
}

/* A fault in a kernel the submitter runs: contained, and named; the
 * program goes on and the name opens anew. on_waiter faults only on the
 * submitter's stack: a value rig handed to its thread ends as it is (see
 * test_idle_submit_runs_here), so the test tries a fresh device again. */
static void
test_fault_here_contained(void **state)
{
	const struct rig_loss *l = NULL;
	struct rig_device *d = NULL;
	struct kernel k;
	struct rig_point pt;

	for (int tries = 0; tries < 20 && !l; tries++) {
		struct assist_params p = params_here(0);

		d = host_open("HOST:HE3", 1, 1);
		k = kernel_load(d, "on_waiter");
		begun = 1;	/* no wait in its calls that do not fault */
		pt = launch(&k, &p, 1);
		if (rig_wait(pt, TIMEOUT) == RIG_ELOST) {
			l = rig_loss(d);
			assert_non_null(l);
			if (!strstr(l->reason, "kernel 'on_waiter' faulted: SIGSEGV (address not mapped) at address 0x0"))
				fail_msg("the loss says \"%s\"", l->reason);
			assert_int_equal(l->value, pt.value);
			assert_ptr_equal(l->submission, k.s);
			assert_int_equal(l->part, 0);
		} else {
			assert_int_equal(ON_SUBMITTER(), 0);
		}
		kernel_release(&k);
		rig_device_release(d);
	}
	assert_non_null(l);
	d = host_open("HOST:HE3", 1, 1);
	assert_null(rig_lost(d));
	k = kernel_load(d, "mark");
	for (int i = 0; i < 5; i++) {
		struct assist_params p = params_here(100);

		assert_int_equal(rig_wait(launch(&k, &p, 8), TIMEOUT), 0);
		each_group_once(hits, 8);
	}
	kernel_release(&k);
	rig_device_release(d);
}

/* The stress: threads submitting to one device at once, each its own
 * hits, launches of random sizes and work (a long one keeps the device
 * busy, so the next goes to its thread; one that finds it idle runs at
 * submit), some waited for at once. Every group of every thread's runs
 * once. */
#define SUBMITTERS 3
#define ROUNDS 300

static struct kernel stress_kernel;
static uint32_t stress_hits[SUBMITTERS][ROUNDS][8];
static _Atomic int stress_errors;

static void *
submitter(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id * 7919u + 3;
	struct rig_point last = { 0 };

	for (int r = 0; r < ROUNDS; r++) {
		struct assist_params p = { stress_hits[id][r], &on_submitter, 0, 0, &begun, 0,
					   (int64_t)(rand_r(&seed) % 3000), &release_flag, 0 };
		int64_t groups = 1 + (int64_t)(rand_r(&seed) % 8);
		const uint32_t grid[3] = { (uint32_t)groups, 1, 1 }, one[3] = { 1, 1, 1 };
		struct rig_run *run;

		if (rig_run_take(stress_kernel.s, &run) != 0 ||
		    rig_run_store(run, 0, grid, one, &p, sizeof(p)) != 0 ||
		    rig_submit(run, NULL, 0, NULL, 0, &last) != 0) {
			atomic_fetch_add(&stress_errors, 1);
			break;
		}
		if (rand_r(&seed) % 4 == 0) {
			if (rig_wait(last, TIMEOUT) != 0)
				atomic_fetch_add(&stress_errors, 1);
			for (int64_t g = 0; g < groups; g++)
				if (__atomic_load_n(&stress_hits[id][r][g], __ATOMIC_RELAXED) != 1)
					atomic_fetch_add(&stress_errors, 1);
		}
	}
	if (last.device && rig_wait(last, TIMEOUT) != 0)
		atomic_fetch_add(&stress_errors, 1);
	return NULL;
}

static void
test_stress_submitters(void **state)
{
	struct rig_device *d = host_open("HOST:HE4", 1, 1);
	pthread_t t[SUBMITTERS];

	stress_kernel = kernel_load(d, "mark");
	for (unsigned i = 0; i < SUBMITTERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, submitter, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < SUBMITTERS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&stress_errors), 0);
	for (unsigned i = 0; i < SUBMITTERS; i++)
		for (int r = 0; r < ROUNDS; r++)
			for (int g = 0; g < 8; g++)
				if (stress_hits[i][r][g] > 1)
					fail_msg("thread %u, round %d, group %d ran %u times", i, r, g,
						 stress_hits[i][r][g]);
	kernel_release(&stress_kernel);
	assert_null(rig_lost(d));
	rig_device_release(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_submit_runs_here),
		cmocka_unit_test(test_never_here_unless_one_thread),
		cmocka_unit_test(test_fault_here_contained),
		cmocka_unit_test(test_stress_submitters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
