/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_garbage: whatever a driver writes, the sim never aborts the
 * process nor stops answering. Rings of random dwords, half of them
 * headers of packets of the subset with random counts and fields, run on
 * each generation's compute and copy queues (seeded, so a failure
 * repeats); each round the sim goes idle (every queue done, waiting or
 * halted) and is destroyed. Under ASan and UBSan it also proves no access
 * outside the sim's memory and no undefined arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "rig.h"
#include "gpu.h"

#define ROUNDS	24
#define DWORDS	600

/* The subset's opcodes with their usual counts, and two outside it. */
static const struct { uint8_t op, count; } pm4[] = {
	{ 0x10, 1 }, { 0x15, 3 }, { 0x37, 3 }, { 0x3C, 5 }, { 0x3F, 2 }, { 0x46, 0 },
	{ 0x49, 6 }, { 0x58, 6 }, { 0x58, 5 }, { 0x76, 2 }, { 0x93, 7 }, { 0x42, 1 },
};
/* SDMA ops with sub_op and length, and one outside the subset. */
static const struct { uint8_t op, sub, len; } sdma[] = {
	{ 0, 0, 1 }, { 1, 0, 7 }, { 5, 0, 4 }, { 6, 0, 2 }, { 8, 0, 6 }, { 11, 0, 5 },
	{ 13, 2, 3 }, { 0x7f, 0, 2 },
};

static uint32_t
rnd(unsigned *seed)
{
	return (uint32_t)rand_r(seed) << 16 ^ (uint32_t)rand_r(seed);
}

/* A payload dword: a VRAM address's halves, a small number, or noise. */
static uint32_t
payload(unsigned *seed)
{
	switch (rand_r(seed) % 5) {
	case 0:
		return (uint32_t)(VA_VRAM + DATA_AT) + (rnd(seed) % (8u << 20) & ~7u);
	case 1:
		return (uint32_t)(VA_VRAM >> 32);
	case 2:
		return rnd(seed) % 4096;
	case 3:
		return 0;
	}
	return rnd(seed);
}

/* A VRAM data address, 8-aligned, and its high half. */
static uint64_t
addr(unsigned *seed)
{
	return VA_VRAM + DATA_AT + (rnd(seed) % (8u << 20) & ~7u);
}

/* A well-formed packet of the subset with random values: its length. */
static uint32_t
good(unsigned *seed, bool copy_engine, uint32_t *p)
{
	uint64_t a = addr(seed), b = addr(seed);
	uint32_t v = rnd(seed);

	if (copy_engine) {
		switch (rand_r(seed) % 7) {
		case 0: p[0] = 5; p[1] = (uint32_t)a; p[2] = (uint32_t)(a >> 32); p[3] = v; return 4;
		case 1: p[0] = 6; p[1] = v & 0x0fffffff; return 2;
		case 2: p[0] = 1; p[1] = v % 8192; p[2] = 0; p[3] = (uint32_t)a;
			p[4] = (uint32_t)(a >> 32); p[5] = (uint32_t)b; p[6] = (uint32_t)(b >> 32);
			return 7;
		case 3: p[0] = 11 | 2u << 30; p[1] = (uint32_t)a; p[2] = (uint32_t)(a >> 32);
			p[3] = v; p[4] = 4 * (v % 1024) + 3; return 5;
		case 4: p[0] = 13 | 2u << 8; p[1] = (uint32_t)a; p[2] = (uint32_t)(a >> 32); return 3;
		case 5: p[0] = 8 | 1u << 31; p[1] = (uint32_t)a; p[2] = (uint32_t)(a >> 32);
			p[3] = 0; p[4] = 0; p[5] = 4; return 6;		/* func 0: always */
		}
		p[0] = 0;
		return 1;
	}
	switch (rand_r(seed) % 6) {
	case 0: p[0] = pkt3(0x37, 3); p[1] = 5u << 8; p[2] = (uint32_t)a;
		p[3] = (uint32_t)(a >> 32); p[4] = v; return 5;
	case 1: p[0] = pkt3(0x49, 6); p[1] = 0x14 | 5u << 8;
		p[2] = (1 + v % 3) << 29 | (v >> 8) % 3 << 24; p[3] = (uint32_t)a;
		p[4] = (uint32_t)(a >> 32); p[5] = v; p[6] = v; p[7] = v; return 8;
	case 2: p[0] = pkt3(0x3C, 5); p[1] = 1u << 4; p[2] = (uint32_t)a;	/* always */
		p[3] = (uint32_t)(a >> 32); p[4] = v; p[5] = v; p[6] = 4; return 7;
	case 3: p[0] = pkt3(0x76, 2); p[1] = v % 0x3fe; p[2] = v; p[3] = v; return 4;
	case 4: p[0] = pkt3(0x46, 0); p[1] = 7 | 4u << 8; return 2;
	}
	p[0] = pkt3(0x10, 1); p[1] = v; p[2] = v;
	return 3;
}

/* n dwords of packets: mostly well formed, one in 16 with random fields. */
static void
stream(unsigned *seed, bool copy_engine, uint32_t *d, int n)
{
	for (int i = 0; i < n; ) {
		uint32_t len, tmp[16];

		if (rand_r(seed) % 16) {
			len = good(seed, copy_engine, tmp);
			for (uint32_t j = 0; j < len && i + (int)j < n; j++)
				d[i + (int)j] = tmp[j];
			i += (int)len;
			continue;
		}
		if (copy_engine) {
			unsigned k = (unsigned)rand_r(seed) % (sizeof(sdma) / sizeof(sdma[0]));

			d[i] = sdma[k].op | (uint32_t)sdma[k].sub << 8 |
			       (rand_r(seed) % 4 == 0 ? rnd(seed) & 0xffff0000u : 0);
			len = sdma[k].len;
		} else {
			unsigned k = (unsigned)rand_r(seed) % (sizeof(pm4) / sizeof(pm4[0]));
			uint32_t count = rand_r(seed) % 6 == 0 ? (uint32_t)rand_r(seed) % 12
							       : pm4[k].count;

			d[i] = pkt3(pm4[k].op, count);
			len = count + 2;
		}
		for (uint32_t j = 1; j < len && i + (int)j < n; j++)
			d[i + (int)j] = payload(seed);
		i += (int)len;
	}
}

static void
test_garbage_never_aborts(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };
	uint64_t ran = 0;

	(void)state;
	for (unsigned round = 0; round < ROUNDS; round++) {
		unsigned seed = 1000 + round;
		uint32_t d[DWORDS + 16];
		struct ring cp, dma;
		struct gpu g;

		gpu_open(&g, gcs[round % 3]);
		gpu_cp_queue(&g, (int)(round % 4), 8192, &cp);
		gpu_sdma_queue(&g, 8192, &dma);
		stream(&seed, false, d, DWORDS);
		ring_put(&cp, d, DWORDS);
		stream(&seed, true, d, DWORDS);
		ring_put(&dma, d, DWORDS);
		assert_int_equal(amd_sim_idle(g.sim, 30ull * 1000000000u), 0);
		ran += *(uint32_t *)gpu_ptr(&g, cp.rptr_va) + *(uint64_t *)gpu_ptr(&g, dma.rptr_va) / 4;
		gpu_close(&g);
	}
	print_message("# %llu dwords ran\n", (unsigned long long)ran);
	/* The garbage ran: on average far more than its first packet. */
	assert_true(ran > ROUNDS * 2 * 40);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage_never_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
