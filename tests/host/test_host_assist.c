/* SPDX-License-Identifier: MIT */
/*
 * test_host_assist: a wait with no deadline runs chunks of the launch it
 * waits for on its own thread (ops.assist, src/host/assist.c), and
 * nothing else changes: every group runs once, several waiters of one
 * value (and of earlier ones) hand the launch's end between them (a
 * stress, for ThreadSanitizer), a fault in a chunk the waiter runs is
 * contained as on the device's threads (the device lost naming the
 * kernel, the culprit; the program goes on, the name opens anew), a hang
 * there is lost by the hang clock and stopped, a wait with a timeout runs
 * nothing (so it times out), and neither does one on a device opened on
 * a set of cores. Whether the waiter ran a call: its stack holds the
 * call's frame (kernels/assist.c).
 */
#include <pthread.h>
#include <sched.h>

#include "../core/common.h"
#include "rig_host.h"
#include "assist_kernel.h"

#define FOREVER UINT64_MAX
#define ON_WAITER() __atomic_load_n(&on_waiter, __ATOMIC_RELAXED)
#define MAX_GROUPS 256

static uint32_t hits[MAX_GROUPS];
static int64_t on_waiter;
static volatile int64_t begun, release_flag;

static struct rig_device *
host_open(const char *name, unsigned cores, uint32_t hang_ms, const int *cpus, size_t ncpus)
{
	struct rig_host_config c = { .name = name, .cores = cores, .cpus = cpus,
				     .ncpus = ncpus, .hang_ms = hang_ms };
	struct rig_device *d = NULL;

	if (rig_host_open(&c, &d) != 0)
		fail_msg("rig_host_open(%s): %s", name, rig_why());
	return d;
}

/* Params whose calls count as the waiter's when they run on the stack of
 * the thread that calls this (below its caller's frame: inlined). */
static inline __attribute__((always_inline)) struct assist_params
params_here(int64_t wait_for_waiter, int64_t work)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);

	memset(hits, 0, sizeof(hits));
	__atomic_store_n(&on_waiter, 0, __ATOMIC_RELAXED);
	begun = 0;
	return (struct assist_params){ hits, &on_waiter, frame - (1u << 20), frame, &begun,
				       wait_for_waiter, work, &release_flag, 0 };
}

static void
each_group_once(int64_t groups)
{
	for (int64_t g = 0; g < groups; g++)
		if (__atomic_load_n(&hits[g], __ATOMIC_RELAXED) != 1)
			fail_msg("group %lld ran %u times", (long long)g, hits[g]);
}

/* A wait with no deadline takes chunks: the others' groups wait for it. */
static void
test_waiter_runs_chunks(void **state)
{
	struct rig_device *d = host_open("HOST:AS1", 2, 0, NULL, 0);
	struct kernel k = kernel_load(d, "mark");

	for (int i = 0; i < 40; i++) {
		struct assist_params p = params_here(1, 2000);
		struct rig_point pt = launch(&k, &p, 64);

		assert_int_equal(rig_wait(pt, FOREVER), 0);
		each_group_once(64);
		assert_true(ON_WAITER() >= 1);
	}
	kernel_release(&k);
	rig_device_release(d);
}

/* The stress: launches of random sizes, one to three at a time, each
 * waited for by every thread at once (three with no deadline, which run
 * chunks, one with a timeout, which does not), on its own value or an
 * earlier one; every group runs once, and each wait sees the launch's
 * writes. */
#define WAITERS 4
#define ROUNDS 300

static struct rig_point round_points[3];
static int64_t round_groups[3];
static int round_n;
static pthread_barrier_t round_start, round_end;
static _Atomic int wait_errors;

static void *
waiter(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, seed = id * 7919u + 1;

	for (int r = 0; r < ROUNDS; r++) {
		int which;

		pthread_barrier_wait(&round_start);
		which = (int)(rand_r(&seed) % (unsigned)round_n);
		if (rig_wait(round_points[which], id == 0 ? 60 * SECOND_NS : FOREVER) != 0)
			atomic_fetch_add(&wait_errors, 1);
		for (int64_t g = 0; g < round_groups[which]; g++)
			if (__atomic_load_n(&hits[(which * MAX_GROUPS / 3) + g], __ATOMIC_RELAXED) != 1)
				atomic_fetch_add(&wait_errors, 1);
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

static void
test_stress_waiters_hand_off(void **state)
{
	struct rig_device *d = host_open("HOST:AS2", 2, 0, NULL, 0);
	struct kernel k = kernel_load(d, "mark");
	pthread_t t[WAITERS];
	unsigned seed = 12345;

	pthread_barrier_init(&round_start, NULL, WAITERS + 1);
	pthread_barrier_init(&round_end, NULL, WAITERS + 1);
	for (unsigned i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, waiter, (void *)(uintptr_t)i), 0);
	for (int r = 0; r < ROUNDS; r++) {
		memset(hits, 0, sizeof(hits));
		round_n = 1 + (int)(rand_r(&seed) % 3);
		for (int j = 0; j < round_n; j++) {
			/* No waiter's stack: the stress is of the hand-off. */
			struct assist_params p = { hits + j * MAX_GROUPS / 3, &on_waiter, 0, 0,
						   &begun, 0, (int64_t)(rand_r(&seed) % 400),
						   &release_flag, 0 };

			round_groups[j] = 1 + (int64_t)(rand_r(&seed) % (MAX_GROUPS / 3));
			round_points[j] = launch(&k, &p, round_groups[j]);
		}
		pthread_barrier_wait(&round_start);
		/* This thread waits too, on the last, with no deadline. */
		assert_int_equal(rig_wait(round_points[round_n - 1], FOREVER), 0);
		pthread_barrier_wait(&round_end);
	}
	for (unsigned i = 0; i < WAITERS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&wait_errors), 0);
	pthread_barrier_destroy(&round_start);
	pthread_barrier_destroy(&round_end);
	kernel_release(&k);
	assert_null(rig_lost(d));
	rig_device_release(d);
}

/* A fault in a chunk the waiter runs: contained, and named. */
static void
test_fault_on_waiter_contained(void **state)
{
	struct rig_device *other = host_open("HOST:AS3O", 2, 0, NULL, 0);
	struct rig_device *d = host_open("HOST:AS3", 2, 0, NULL, 0);
	struct kernel k = kernel_load(d, "on_waiter"), ko;
	struct assist_params p = params_here(1, 0);
	struct rig_point pt = launch(&k, &p, 64);
	const struct rig_loss *l;

	assert_int_equal(rig_wait(pt, FOREVER), RIG_ELOST);
	l = rig_loss(d);
	assert_non_null(l);
	if (!strstr(l->reason, "kernel 'on_waiter' faulted: SIGSEGV (address not mapped) at address 0x0"))
		fail_msg("the loss says \"%s\"", l->reason);
	assert_int_equal(l->value, pt.value);
	assert_ptr_equal(l->submission, k.s);
	assert_int_equal(l->part, 0);
	assert_null(rig_lost(other));
	kernel_release(&k);
	rig_device_release(d);
	/* The program goes on: the other device and the name, anew, run
	 * with the waiter's help. */
	ko = kernel_load(other, "mark");
	p = params_here(1, 100);
	assert_int_equal(rig_wait(launch(&ko, &p, 64), FOREVER), 0);
	each_group_once(64);
	kernel_release(&ko);
	rig_device_release(other);
	d = host_open("HOST:AS3", 2, 0, NULL, 0);
	assert_null(rig_lost(d));
	k = kernel_load(d, "mark");
	p = params_here(1, 100);
	assert_int_equal(rig_wait(launch(&k, &p, 64), FOREVER), 0);
	each_group_once(64);
	assert_true(ON_WAITER() >= 1);
	kernel_release(&k);
	rig_device_release(d);
}

/* Under ThreadSanitizer an interrupt reaches no uninstrumented loop (it
 * delivers signals at its own calls): the kernel is let go once the device
 * is lost, from another thread, since the waiter is in it. */
static void *
release_once_lost(void *arg)
{
	struct rig_device *d = arg;

	while (!rig_lost(d))
		sched_yield();
	release_flag = 1;
	return NULL;
}

/* A kernel that never returns on the waiter's thread: the hang clock
 * loses the device, whose stop interrupts the waiter's call too. */
static void
test_hang_on_waiter_lost(void **state)
{
	struct rig_device *d = host_open("HOST:AS4", 2, 2000, NULL, 0);
	struct kernel k = kernel_load(d, "spin_release");
	struct assist_params p = params_here(1, 0);
	struct rig_point pt;
	pthread_t t;

	release_flag = 0;
	pt = launch(&k, &p, 64);
	if (UNDER_TSAN)
		assert_int_equal(pthread_create(&t, NULL, release_once_lost, d), 0);
	assert_int_equal(rig_wait(pt, FOREVER), RIG_ELOST);
	if (UNDER_TSAN)
		pthread_join(t, NULL);
	assert_non_null(strstr(rig_lost(d), "no progress for 2000 ms"));
	/* One call, unless ThreadSanitizer's late interrupt let it go on. */
	assert_true(ON_WAITER() >= 1);
	kernel_release(&k);
	rig_device_release(d);
	release_flag = 0;
}

/* A wait with a timeout (and no hang clock) runs nothing: it times out,
 * its thread free, and a later wait with none ends the launch. */
static void
test_timed_wait_runs_nothing(void **state)
{
	struct rig_device *d = host_open("HOST:AS5", 2, 0, NULL, 0);
	struct kernel k = kernel_load(d, "spin_release");
	struct assist_params p = params_here(0, 0);
	struct rig_point pt;

	release_flag = 0;
	pt = launch(&k, &p, 64);
	assert_int_equal(rig_wait(pt, 30 * 1000000ull), RIG_ETIMEDOUT);
	assert_int_equal(ON_WAITER(), 0);
	release_flag = 1;
	assert_int_equal(rig_wait(pt, FOREVER), 0);
	release_flag = 0;
	kernel_release(&k);
	assert_null(rig_lost(d));
	rig_device_release(d);
}

/* A device opened on a set of cores runs its kernels there alone. */
static void
test_pinned_device_waiter_runs_nothing(void **state)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE];
	size_t n = 0;
	struct rig_device *d;
	struct kernel k;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	d = host_open("HOST:AS6", 2, 0, cpus, n);
	k = kernel_load(d, "mark");
	for (int i = 0; i < 20; i++) {
		struct assist_params p = params_here(0, 2000);

		assert_int_equal(rig_wait(launch(&k, &p, 64), FOREVER), 0);
		each_group_once(64);
		assert_int_equal(ON_WAITER(), 0);
	}
	kernel_release(&k);
	rig_device_release(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waiter_runs_chunks),
		cmocka_unit_test(test_stress_waiters_hand_off),
		cmocka_unit_test(test_fault_on_waiter_contained),
		cmocka_unit_test(test_hang_on_waiter_lost),
		cmocka_unit_test(test_timed_wait_runs_nothing),
		cmocka_unit_test(test_pinned_device_waiter_runs_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
