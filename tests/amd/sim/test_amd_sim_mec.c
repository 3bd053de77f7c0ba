/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/sim/test_amd_sim_mec.c: the sim's MEC gate (src/amd/sim/mec.c)
 * driven as a driver would. On a GPU a clean session left, a compute
 * queue runs; once the MEC is halted (GC 9.4.3: CP_MEC_CNTL written with
 * its halt bits, §3.10 step 3; GC 11 and 12: CP_MEC_RS64_CNTL as linux's
 * cp_compute_enable(false) writes it) work put on a queue stays there,
 * not run, until the MEC starts again (CP_MEC_CNTL 0; GC 11/12: the
 * image's start address, read here from the image file as amd-facts §1.5
 * says, and the un-halt). A start at another address, or with no
 * un-halt (or pipe 0 left inactive or reset), runs nothing.
 * After a reset no image is in place, and the same start writes leave
 * the MEC halted. GC 9.4.3 with several XCCs: a gate per XCC.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "gpu.h"
#include "../fake.h"

#define DATA	(VA_VRAM + DATA_AT)

/* The MEC image's START and START_HI (§1.5), from gc_X_Y_Z_mec.bin. */
static void
image_start(const char *gc, uint32_t *start, uint32_t *start_hi)
{
	char path[512], name[16];
	uint8_t h[0x3c];
	FILE *f;
	uint32_t lo, hi;

	snprintf(name, sizeof(name), "%s", gc);
	for (char *c = name; *c; c++)
		if (*c == '.')
			*c = '_';
	snprintf(path, sizeof(path), "%s/gc_%s_mec.bin", getenv("RIG_TEST_FIRMWARE"), name);
	assert_non_null(f = fopen(path, "rb"));
	assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	memcpy(&lo, h + 0x34, 4);
	memcpy(&hi, h + 0x38, 4);
	*start = lo >> 2 | hi << 30;
	*start_hi = hi >> 2;
}

/* CP_MEC_RS64_CNTL as linux's cp_compute_enable(false) and (true) write
 * it (gc_11_0_0/gc_12_0_0_sh_mask.h: icache invalidate [4], pipe resets
 * [19:16], pipe actives [29:26], halt [30]). */
#define RS64_HALTED	(1u << 4 | 0xfu << 16 | 1u << 30)
#define RS64_RUNNING	(0xfu << 26)

static void
rs64_cntl(struct gpu *g, uint32_t v)
{
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_CP_MEC_RS64_CNTL), v);
}

/* GC 11/12: the program counter at the image's START plus start_off. */
static void
mec_pc(struct gpu *g, const char *gc, uint32_t start_off)
{
	uint32_t pc, pc_hi;

	image_start(gc, &pc, &pc_hi);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GRBM_GFX_CNTL), 1u << 2);	/* me 1, pipe 0 */
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START), pc + start_off);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START_HI), pc_hi);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GRBM_GFX_CNTL), 0);
}

/* Halts (start false) or starts g's MEC as a driver would: GC 11/12's
 * start is the counter (start_off added to the image's START: another
 * address), then the un-halt; its halt is CP_MEC_RS64_CNTL's. */
static void
mec(struct gpu *g, const char *gc, bool start, uint32_t start_off)
{
	if (!strcmp(gc, "9.4.3")) {
		/* Any value but 0: the facts name the bits, not where they are. */
		gpu_wreg(g, gpu_reg(g, AMD_REG_GC_CP_MEC_CNTL), start ? 0 : 0xffffffffu);
		return;
	}
	if (!start) {
		rs64_cntl(g, RS64_HALTED);
		return;
	}
	mec_pc(g, gc, start_off);
	rs64_cntl(g, RS64_RUNNING);
}

/* WRITE_DATA of v to va (§4.3), 5 dwords. */
static void
write_data(struct ring *r, uint64_t va, uint32_t v)
{
	uint32_t p[5] = { pkt3(0x37, 3), 5u << 8 | 1u << 20, (uint32_t)va,
			  (uint32_t)(va >> 32), v };

	ring_put(r, p, 5);
}

static uint32_t
word(struct gpu *g, uint64_t va)
{
	return atomic_load_explicit((_Atomic uint32_t *)gpu_ptr(g, va), memory_order_acquire);
}

static void
gate(const char *gc)
{
	struct gpu g;
	struct ring r;

	gpu_open(&g, gc);
	*(uint32_t *)gpu_ptr(&g, DATA) = 0;
	gpu_cp_queue(&g, 0, 4096, &r);
	/* A clean session's MEC runs. */
	write_data(&r, DATA, 1);
	gpu_idle(&g);
	assert_int_equal(word(&g, DATA), 1);
	assert_int_equal(word(&g, r.rptr_va), r.wptr);

	/* Halted: the queue keeps its work (the engine passed over it twice). */
	mec(&g, gc, false, 0);
	write_data(&r, DATA, 2);
	gpu_idle(&g);
	assert_int_equal(word(&g, DATA), 1);
	assert_int_equal(word(&g, r.rptr_va), r.wptr - 5);
	if (strcmp(gc, "9.4.3")) {
		/* GC 11/12: a start one dword off the image's runs nothing. */
		mec(&g, gc, true, 4);
		gpu_idle(&g);
		assert_int_equal(word(&g, DATA), 1);
		/* Nor the right start with no un-halt (a driver that forgets
		 * it), nor an un-halt that leaves pipe 0 inactive or reset. */
		rs64_cntl(&g, RS64_HALTED);
		mec_pc(&g, gc, 0);
		gpu_idle(&g);
		assert_int_equal(word(&g, DATA), 1);
		rs64_cntl(&g, RS64_RUNNING & ~(1u << 26));
		assert_false(sim_mec_runs(g.sim));
		rs64_cntl(&g, RS64_RUNNING | 1u << 16);
		assert_false(sim_mec_runs(g.sim));
		rs64_cntl(&g, RS64_RUNNING);
		gpu_idle(&g);
		assert_int_equal(word(&g, DATA), 2);
		mec(&g, gc, false, 0);
		write_data(&r, DATA, 2);
		gpu_idle(&g);
		assert_int_equal(word(&g, DATA), 2);
		assert_int_equal(word(&g, r.rptr_va), r.wptr - 5);
	}
	/* Started at the image's start: the work runs. */
	mec(&g, gc, true, 0);
	gpu_idle(&g);
	assert_int_equal(word(&g, DATA), 2);
	assert_int_equal(word(&g, r.rptr_va), r.wptr);

	/* After a reset no image is in place: the same start leaves it halted. */
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	if (strcmp(gc, "9.4.3"))	/* power-on: as cp_compute_enable(false) leaves it */
		assert_int_equal(gpu_rreg(&g, gpu_reg(&g, AMD_REG_GC_CP_MEC_RS64_CNTL)),
				 RS64_HALTED);
	mec(&g, gc, true, 0);
	assert_false(sim_mec_runs(g.sim));
	gpu_close(&g);
}

/* The injected fault: writes that would start it are ignored until cleared. */
static void
test_stays_halted(void **state)
{
	struct gpu g;
	struct ring r;

	(void)state;
	gpu_open(&g, "12.0.1");
	*(uint32_t *)gpu_ptr(&g, DATA) = 0;
	gpu_cp_queue(&g, 0, 4096, &r);
	mec(&g, "12.0.1", false, 0);
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_MEC_STAYS_HALTED, 0, true), 0);
	mec(&g, "12.0.1", true, 0);
	write_data(&r, DATA, 7);
	gpu_idle(&g);
	assert_int_equal(word(&g, DATA), 0);
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_MEC_STAYS_HALTED, 0, false), 0);
	mec(&g, "12.0.1", true, 0);
	gpu_idle(&g);
	assert_int_equal(word(&g, DATA), 7);
	gpu_close(&g);
}

static void test_gate_12_0_1(void **s) { (void)s; gate("12.0.1"); }
static void test_gate_12_0_0(void **s) { (void)s; gate("12.0.0"); }
static void test_gate_11_0_0(void **s) { (void)s; gate("11.0.0"); }
static void test_gate_11_0_2(void **s) { (void)s; gate("11.0.2"); }
static void test_gate_9_4_3(void **s) { (void)s; gate("9.4.3"); }

/* A register past BAR5 (an XCC's but 0's) through the RSMU pair (§0.3). */
static void
far_write(struct gpu *g, uint32_t index, uint32_t v)
{
	assert_int_equal(amd_sim_reg_write(g->sim, g->sim->lay.rsmu_index, index * 4), 0);
	assert_int_equal(amd_sim_reg_write(g->sim, g->sim->lay.rsmu_data, v), 0);
}

/*
 * GC 9.4.3 with 4 XCCs: each XCC's MEC has its own gate. A clean session
 * leaves them running; XCC 2's CP_MEC_CNTL halt bits halt XCC 2's alone,
 * and 0 starts it again. After a reset no image is in place: 0 leaves
 * it halted, as XCC 0's.
 */
static void
test_gate_per_xcc(void **state)
{
	struct amd_sim_opts o = { .gc = "9.4.3", .mark = 0xA0000008, .xccs = 4 };
	struct amd_sim *sim;
	struct gpu g;
	char root[256];

	(void)state;
	fake_root(root);
	o.root = root;
	assert_int_equal(amd_sim_create(&o, &sim), 0);
	memset(&g, 0, sizeof(g));
	g.sim = sim;
	for (unsigned x = 0; x < 4; x++)
		assert_true(sim_mec_xcc_runs(sim, x));
	far_write(&g, sim->lay.xcc[2].mec_cntl, 1u << 28 | 1u << 30);
	assert_false(sim_mec_xcc_runs(sim, 2));
	assert_true(sim_mec_xcc_runs(sim, 1) && sim_mec_xcc_runs(sim, 3) &&
		    sim_mec_xcc_runs(sim, 0));
	far_write(&g, sim->lay.xcc[2].mec_cntl, 0);
	assert_true(sim_mec_xcc_runs(sim, 2));
	assert_int_equal(amd_sim_inject(sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	for (unsigned x = 0; x < 4; x++)
		assert_false(sim_mec_xcc_runs(sim, x));
	far_write(&g, sim->lay.xcc[1].mec_cntl, 0);
	assert_false(sim_mec_xcc_runs(sim, 1));
	amd_sim_destroy(sim);
	fake_remove(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_12_0_1),
		cmocka_unit_test(test_gate_12_0_0),
		cmocka_unit_test(test_gate_11_0_0),
		cmocka_unit_test(test_gate_11_0_2),
		cmocka_unit_test(test_gate_9_4_3),
		cmocka_unit_test(test_stays_halted),
		cmocka_unit_test(test_gate_per_xcc),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the gate checks the images\n");
		return 0;
	}
	/* The sim searches rig's firmware directory for the images it checks. */
	setenv("RIG_FIRMWARE_DIR", getenv("RIG_TEST_FIRMWARE"), 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
