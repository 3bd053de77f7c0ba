/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_stress: the sim is concurrent as hardware is. Four threads
 * each drive a compute queue of a small ring (it wraps every few packets),
 * one drives the SDMA queue, one reads the IH ring as entries arrive, one
 * reads and writes registers and rings doorbells no queue owns, all at
 * once; every packet runs once and in its ring's order, every interrupt
 * arrives once and in order. Run under ThreadSanitizer (./check --sanitize
 * thread) it proves the sim's shared state race-free.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "rig.h"
#include "gpu.h"

#define QUEUES	4
#define N	10000			/* packets a producer */
#define EVERY	50			/* a RELEASE_MEM with interrupt every EVERY */
#define DATA	(VA_VRAM + DATA_AT)

struct producer {
	struct ring r;
	int q;
};

static struct gpu g;
static _Atomic bool done;
static int eops[QUEUES];
static uint32_t last_ctx[QUEUES];
static bool in_order = true;

static void *
cp_producer(void *arg)
{
	struct producer *p = arg;
	uint64_t word = DATA + 64u * (uint32_t)p->q;

	for (uint32_t i = 1; i <= N; i++) {
		uint32_t d[8];

		if (i % EVERY == 0) {
			d[0] = pkt3(0x49, 6);		/* RELEASE_MEM, 32-bit, int_sel 2 */
			d[1] = 0x14 | 5u << 8;
			d[2] = 1u << 29 | 2u << 24;
			d[3] = (uint32_t)word;
			d[4] = (uint32_t)(word >> 32);
			d[5] = i;
			d[6] = 0;
			d[7] = (uint32_t)p->q << 16 | i;
			ring_put(&p->r, d, 8);
		} else {
			d[0] = pkt3(0x37, 3);		/* WRITE_DATA, memory */
			d[1] = 5u << 8;
			d[2] = (uint32_t)word;
			d[3] = (uint32_t)(word >> 32);
			d[4] = i;
			ring_put(&p->r, d, 5);
		}
	}
	return NULL;
}

static void *
sdma_producer(void *arg)
{
	struct ring *r = arg;
	uint64_t word = DATA + 0x1000;

	for (uint32_t i = 1; i <= N; i++) {
		uint32_t d[4] = { 5, (uint32_t)word, (uint32_t)(word >> 32), i };	/* FENCE */

		ring_put(r, d, 4);
	}
	return NULL;
}

static void
take(const uint32_t e[8])
{
	uint32_t q = e[4] >> 16, i = e[4] & 0xffff;

	if ((e[0] >> 8 & 0xff) != 181 || q >= QUEUES || ((e[0] >> 16) & 0xff) != (1u << 2 | q << 4)) {
		in_order = false;
		return;
	}
	if (i <= last_ctx[q])
		in_order = false;
	last_ctx[q] = i;
	eops[q]++;
}

static void *
ih_reader(void *arg)
{
	uint32_t e[8];

	(void)arg;
	while (!atomic_load(&done))
		if (gpu_ih_next(&g, e))
			take(e);
	return NULL;
}

static void *
meddler(void *arg)
{
	uint32_t v;

	(void)arg;
	for (uint32_t i = 0; !atomic_load(&done); i++) {
		gpu_wreg(&g, g.sim->lay.scratch6, i);
		v = gpu_rreg(&g, g.sim->lay.hqd + 2);
		(void)v;
		amd_sim_doorbell(g.sim, 100 * 8, i);		/* no queue's */
	}
	return NULL;
}

static void
test_everything_at_once(void **state)
{
	struct producer p[QUEUES];
	struct ring sr;
	pthread_t t[QUEUES + 3];
	uint32_t e[8];

	(void)state;
	gpu_open(&g, "11.0.0");
	for (int q = 0; q < QUEUES; q++) {
		p[q].q = q;
		gpu_cp_queue(&g, q, 512, &p[q].r);
	}
	gpu_sdma_queue(&g, 512, &sr);
	pthread_create(&t[QUEUES], NULL, ih_reader, NULL);
	pthread_create(&t[QUEUES + 1], NULL, meddler, NULL);
	for (int q = 0; q < QUEUES; q++)
		pthread_create(&t[q], NULL, cp_producer, &p[q]);
	pthread_create(&t[QUEUES + 2], NULL, sdma_producer, &sr);
	for (int q = 0; q < QUEUES; q++)
		pthread_join(t[q], NULL);
	pthread_join(t[QUEUES + 2], NULL);
	gpu_idle(&g);
	atomic_store(&done, true);
	pthread_join(t[QUEUES], NULL);
	pthread_join(t[QUEUES + 1], NULL);
	while (gpu_ih_next(&g, e))
		take(e);
	for (int q = 0; q < QUEUES; q++) {
		assert_int_equal(*(uint32_t *)gpu_ptr(&g, DATA + 64u * (uint32_t)q), N);
		assert_int_equal(eops[q], N / EVERY);
		assert_false(amd_sim_halted(g.sim, AMD_SIM_CP, q, NULL, 0));
	}
	assert_true(in_order);
	assert_int_equal(*(uint32_t *)gpu_ptr(&g, DATA + 0x1000), N);
	assert_false(amd_sim_halted(g.sim, AMD_SIM_SDMA, 0, NULL, 0));
	gpu_close(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everything_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
