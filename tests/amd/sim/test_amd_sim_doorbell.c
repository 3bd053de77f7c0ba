/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_doorbell: no doorbell is lost to an engine going to sleep.
 * A ringer stores the write pointer and looks at asleep with only a
 * compiler barrier between; the engine's membarrier makes that safe
 * (src/amd/sim/sim.c, engine.c). Here the engines' spin is 0, so an engine goes to
 * sleep at every pass that finds nothing to do. Two sims, each with a
 * compute queue and an SDMA queue, and a thread per queue (four threads
 * ringing at once, each its engine's one ringer): each puts a packet,
 * rings, waits for the packet's store and at once puts the next, so its
 * doorbell comes just as the engine, done with the last, goes to sleep.
 * Nothing else wakes the engine, so a lost doorbell leaves its packet
 * undone: each must land within BOUND_NS. The same with the fallback
 * where membarrier is missing (ringers fence). And an idle sim, its engines
 * asleep after their spin, takes no CPU. Run under ThreadSanitizer and
 * AddressSanitizer too (./check --sanitize thread / address); argv[1], if
 * given, is how many times to run it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "rig.h"
#include "gpu.h"

#define SIMS		2
#define RINGERS		(2 * SIMS)	/* per sim: compute queue 0, SDMA */
#define PACKETS		4000		/* a ringer's, each run */
#define BOUND_NS	5000000000ull	/* a lost doorbell's packet never lands */
#define DATA		(VA_VRAM + DATA_AT)

struct ringer {
	struct gpu *g;
	struct ring r;
	bool sdma;
	uint32_t next;			/* the next packet's number */
	uint32_t missing;		/* the packet that never landed, or 0 */
	uint64_t worst_ns;
};

static struct gpu gs[SIMS];
static _Atomic bool lost;
static int runs = 1;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
word_va(const struct ringer *p)
{
	return DATA + (p->sdma ? 64u : 0u);
}

static uint32_t *
word_of(const struct ringer *p)
{
	return gpu_ptr(p->g, word_va(p));
}

/* Packet i: a WRITE_DATA of i (compute), a FENCE of i (SDMA). */
static void
put(struct ringer *p, uint32_t i)
{
	uint64_t word = word_va(p);

	if (p->sdma) {
		uint32_t d[4] = { 5, (uint32_t)word, (uint32_t)(word >> 32), i };

		ring_put(&p->r, d, 4);
	} else {
		uint32_t d[5] = { pkt3(0x37, 3), 5u << 8, (uint32_t)word,
				  (uint32_t)(word >> 32), i };

		ring_put(&p->r, d, 5);
	}
}

/* Whether packet i's store landed within BOUND_NS (its latency kept). */
static bool
landed(struct ringer *p, uint32_t i)
{
	uint64_t t0 = now_ns(), t;

	while (__atomic_load_n(word_of(p), __ATOMIC_ACQUIRE) != i) {
		if (now_ns() - t0 > BOUND_NS || atomic_load(&lost))
			return false;
		sched_yield();
	}
	if ((t = now_ns() - t0) > p->worst_ns)
		p->worst_ns = t;
	return true;
}

static void *
ringer_main(void *arg)
{
	struct ringer *p = arg;

	for (uint32_t n = 0; n < PACKETS; n++, p->next++) {
		put(p, p->next);
		if (!landed(p, p->next)) {
			if (!atomic_exchange(&lost, true))
				p->missing = p->next;
			break;
		}
	}
	return NULL;
}

static void
run_once(struct ringer *p)
{
	pthread_t t[RINGERS];

	for (int k = 0; k < RINGERS; k++)
		assert_int_equal(pthread_create(&t[k], NULL, ringer_main, &p[k]), 0);
	for (int k = 0; k < RINGERS; k++)
		pthread_join(t[k], NULL);
	for (int k = 0; k < RINGERS; k++)
		if (p[k].missing)
			fail_msg("sim %d's %s queue: packet %u's doorbell lost (no store in "
				 "%llu ns)", k / 2, p[k].sdma ? "SDMA" : "compute",
				 p[k].missing, (unsigned long long)BOUND_NS);
	assert_false(atomic_load(&lost));
}

static uint64_t
sleeps_of(struct gpu *g)
{
	return amd_sim_sleeps(g->sim, AMD_SIM_CP) + amd_sim_sleeps(g->sim, AMD_SIM_SDMA);
}

/* The ringers' race with sleeping engines, runs times; fenced: as where
 * membarrier is missing (ringers fence, sleeps end every poll). */
static void
ping_pong(bool fenced)
{
	struct ringer p[RINGERS] = { 0 };
	uint64_t sleeps = 0, worst = 0;

	for (int k = 0; k < SIMS; k++) {
		gpu_open(&gs[k], "11.0.0");
		assert_int_equal(amd_sim_spin(gs[k].sim, 0), 0);
		atomic_store(&gs[k].sim->cp.ring_fences,
			     fenced || atomic_load(&gs[k].sim->cp.ring_fences));
		atomic_store(&gs[k].sim->sdma.ring_fences,
			     fenced || atomic_load(&gs[k].sim->sdma.ring_fences));
		p[2 * k] = (struct ringer){ .g = &gs[k], .next = 1 };
		p[2 * k + 1] = (struct ringer){ .g = &gs[k], .sdma = true, .next = 1 };
		gpu_cp_queue(&gs[k], 0, 4096, &p[2 * k].r);
		gpu_sdma_queue(&gs[k], 4096, &p[2 * k + 1].r);
		gpu_idle(&gs[k]);
		sleeps -= sleeps_of(&gs[k]);
	}
	for (int r = 0; r < runs; r++)
		run_once(p);
	for (int k = 0; k < RINGERS; k++) {
		assert_false(amd_sim_halted(p[k].g->sim, p[k].sdma ? AMD_SIM_SDMA : AMD_SIM_CP,
					    0, NULL, 0));
		if (p[k].worst_ns > worst)
			worst = p[k].worst_ns;
	}
	for (int k = 0; k < SIMS; k++)
		sleeps += sleeps_of(&gs[k]);
	print_message("%s%d x %d packets on each of %d queues: %llu sleeps, slowest "
		      "store %llu us\n", fenced ? "fenced: " : "", runs, PACKETS, RINGERS,
		      (unsigned long long)sleeps,
		      (unsigned long long)worst / 1000);
	/* The engines went to sleep between packets, many times: the race
	 * was run. (Not at every packet: a ringer quick enough puts the next
	 * before the engine's pass after the last: under ThreadSanitizer
	 * some 2000 sleeps in 16000 packets were seen.) */
	assert_true(sleeps >= (uint64_t)runs * PACKETS * RINGERS / 16);
	for (int k = 0; k < SIMS; k++)
		gpu_close(&gs[k]);
}

static void
test_no_doorbell_lost_to_a_sleeping_engine(void **state)
{
	(void)state;
	ping_pong(false);
}

/* The fallback where membarrier cannot be had loses none either. */
static void
test_fenced_ringers_lose_none(void **state)
{
	(void)state;
	ping_pong(true);
}

static uint64_t
cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* With the default spin, an engine that ran out of work goes to sleep
 * soon after: a sim with nothing to do takes no CPU (well under a tenth
 * of a core here, where two engines spinning would take two cores). */
static void
test_idle_sim_takes_no_cpu(void **state)
{
	struct ringer p[2] = { { .g = &gs[0], .next = 1 },
			       { .g = &gs[0], .sdma = true, .next = 1 } };
	struct timespec nap = { 0, 300000000 };
	uint64_t cpu;

	(void)state;
	gpu_open(&gs[0], "11.0.0");
	gpu_cp_queue(&gs[0], 0, 4096, &p[0].r);
	gpu_sdma_queue(&gs[0], 4096, &p[1].r);
	for (uint32_t i = 1; i <= 100; i++)
		for (int k = 0; k < 2; k++) {
			put(&p[k], i);
			assert_true(landed(&p[k], i));
		}
	cpu = cpu_ns();
	nanosleep(&nap, NULL);
	cpu = cpu_ns() - cpu;
	print_message("idle 300 ms: %llu us of CPU\n", (unsigned long long)cpu / 1000);
	assert_true(cpu < 30000000u);
	gpu_close(&gs[0]);
}

static void
test_spin_checks(void **state)
{
	(void)state;
	assert_int_equal(amd_sim_spin(NULL, 0), -EINVAL);
	gpu_open(&gs[0], "11.0.0");
	assert_int_equal(amd_sim_spin(gs[0].sim, 1000000001ull), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_spin"));
	assert_int_equal(amd_sim_sleeps(gs[0].sim, (enum amd_sim_engine)7), 0);
	assert_int_equal(amd_sim_spin(gs[0].sim, AMD_SIM_SPIN_NS), 0);
	gpu_close(&gs[0]);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_doorbell_lost_to_a_sleeping_engine),
		cmocka_unit_test(test_fenced_ringers_lose_none),
		cmocka_unit_test(test_idle_sim_takes_no_cpu),
		cmocka_unit_test(test_spin_checks),
	};

	if (argc > 1 && (runs = atoi(argv[1])) < 1)
		runs = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
