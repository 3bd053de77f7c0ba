/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/sim/test_amd_sim_psp.c: the sim's security processor and power
 * manager (src/amd/sim/psp.c, smu.c), driven by hand as amd-facts §3.8 and
 * §3.9 say a driver drives them, with the real images at
 * RIG_TEST_FIRMWARE: what it takes and what it refuses, with which status.
 * The bootloader refuses a component out of linux's order (status 1) or
 * not the pinned image's bytes (2); the sOS refuses a command buffer of
 * another version (BAD_PARAMETERS), LOAD_IP_FW before LOAD_TOC or of
 * another piece than the next (BAD_STATE), a piece with one byte changed
 * (SECURITY), an unknown command (NOT_SUPPORTED); the SMU answers each
 * message as §3.9 lists, and its debug mailbox resets the GPU whole, as
 * does the sOS's GFX_CTRL_CMD_ID_MODE1_RST (C2PMSG_33's bit 31 then set).
 * GC 9.4.3 (MP0, MP1 13.0.6): SETUP_TMR with buffer 0 and size 0 before
 * the first piece (BAD_PARAMETERS otherwise, BAD_STATE twice or after a
 * piece), the P2S table first, AUTOLOAD_RLC refused (NOT_SUPPORTED),
 * SRIOV_SPATIAL_PART before the RLC runs refused (BAD_STATE), the
 * SMU's 13.0.6 message ids and GfxDriverReset(1) as the mode-1 reset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

#define MSG1_AT		0x100000u	/* VRAM offsets (the FB at MC 0) */
#define PSP_RING_AT		0x200000u
#define CMD_AT		0x210000u
#define FENCE_AT	0x211000u

struct file {
	uint8_t *b;
	size_t n;
};

static struct file
slurp(const char *name)
{
	char path[600];
	struct file f = { 0 };
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", getenv("RIG_TEST_FIRMWARE"), name);
	assert_non_null(in = fopen(path, "rb"));
	fseek(in, 0, SEEK_END);
	f.n = (size_t)ftell(in);
	rewind(in);
	f.b = malloc(f.n);
	assert_int_equal(fread(f.b, 1, f.n, in), f.n);
	fclose(in);
	return f;
}

static uint32_t
u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The sOS image's component of fw_type, or NULL (psp v2.0: descriptors
 * at 0x24; v2.1: at 0x28, the primary set before psp_aux_fw_bin_index). */
static const uint8_t *
sos_has(const struct file *f, uint32_t type, uint32_t *len)
{
	bool v21 = u32(f->b + 8) >> 16 == 1;
	uint32_t n = v21 ? u32(f->b + 0x24) : u32(f->b + 0x20);

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = f->b + (v21 ? 0x28 : 0x24) + 16 * i;

		if (u32(d) == type) {
			*len = u32(d + 12);
			return f->b + u32(f->b + 0x18) + u32(d + 8);
		}
	}
	return NULL;
}

static const uint8_t *
sos_part(const struct file *f, uint32_t type, uint32_t *len)
{
	const uint8_t *p = sos_has(f, type, len);

	if (!p)
		fail_msg("no component %u", type);
	return p;
}

static uint32_t
mp0(struct gpu *g, uint32_t n)
{
	return gpu_reg(g, n == 33 ? AMD_REG_MP0_C2PMSG_33 :
		       n == 35 ? AMD_REG_MP0_C2PMSG_35 : n == 36 ? AMD_REG_MP0_C2PMSG_36 :
		       n == 64 ? AMD_REG_MP0_C2PMSG_64 : n == 67 ? AMD_REG_MP0_C2PMSG_67 :
		       n == 69 ? AMD_REG_MP0_C2PMSG_69 : n == 70 ? AMD_REG_MP0_C2PMSG_70 :
		       n == 71 ? AMD_REG_MP0_C2PMSG_71 : AMD_REG_MP0_C2PMSG_81);
}

/* A component through the bootloader: C2PMSG_35 after. */
static uint32_t
component(struct gpu *g, const uint8_t *bytes, uint32_t len, uint32_t cmd)
{
	memcpy(g->vram + MSG1_AT, bytes, len);
	gpu_wreg(g, mp0(g, 36), MSG1_AT >> 20);
	gpu_wreg(g, mp0(g, 35), cmd);
	return gpu_rreg(g, mp0(g, 35));
}

static void
sos_up(struct gpu *g, const struct file *sos)
{
	static const uint32_t order[][2] = {
		{ 3, 0x80000 }, { 5, 0x10000000 }, { 2, 0x10000 }, { 7, 0xB0000 },
		{ 8, 0xD0000 }, { 9, 0xC0000 }, { 10, 0xE0000 }, { 11, 0xF0000 },
		{ 1, 0x20000 },
	};
	uint32_t len = 0;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		const uint8_t *p = sos_has(sos, order[k][0], &len);

		if (!p)
			continue;	/* 13.0.6 has no SPL, no IPKEYMGR_DRV */
		assert_int_equal(component(g, p, len, order[k][1]),
				 order[k][0] == 1 ? 0 : 0x80000000u);
	}
	assert_int_not_equal(gpu_rreg(g, mp0(g, 81)), 0);
	gpu_wreg(g, mp0(g, 69), PSP_RING_AT);
	gpu_wreg(g, mp0(g, 70), 0);
	gpu_wreg(g, mp0(g, 71), 64u << 10);
	gpu_wreg(g, mp0(g, 64), 2u << 16);
	assert_int_equal(gpu_rreg(g, mp0(g, 64)), 0x80000000u);
}

/* One command on the ring: its status (the fence must arrive). */
static uint32_t
command(struct gpu *g, uint32_t *wptr, uint32_t id, uint32_t version,
	const uint32_t *payload, size_t n, uint32_t *tmr)
{
	uint8_t *cmd = g->vram + CMD_AT, *frame = g->vram + PSP_RING_AT + *wptr * 4;
	static uint32_t fence;

	memset(cmd, 0, 1024);
	put32(cmd, 1024);
	put32(cmd + 4, version);
	put32(cmd + 8, id);
	for (size_t i = 0; i < n; i++)
		put32(cmd + 0x1c + 4 * i, payload[i]);
	memset(frame, 0, 64);
	put32(frame, CMD_AT);
	put32(frame + 8, 1024);
	put32(frame + 0xc, FENCE_AT);
	put32(frame + 0x14, ++fence);
	*wptr += 16;
	gpu_wreg(g, mp0(g, 67), *wptr);
	assert_int_equal(u32(g->vram + FENCE_AT), fence);
	if (tmr)
		*tmr = u32(cmd + 0x370);
	return u32(cmd + 0x360);
}

static void
test_bootloader_order_and_bytes(void **state)
{
	struct file sos = slurp("psp_14_0_3_sos.bin");
	uint8_t zeros[64] = { 0 };
	uint32_t len = 0;
	const uint8_t *kdb = sos_part(&sos, 3, &len);
	struct gpu g;

	(void)state;
	gpu_open(&g, "12.0.1");
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 35)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 81)), 0);
	/* SYS_DRV before KDB: out of order. */
	assert_int_equal(component(&g, kdb, len, 0x10000), 0x80000001u);
	/* KDB's command with other bytes. */
	assert_int_equal(component(&g, zeros, sizeof(zeros), 0x80000), 0x80000002u);
	assert_int_equal(component(&g, kdb, len, 0x80000), 0x80000000u);
	gpu_close(&g);
	free(sos.b);
}

static void
test_sos_commands(void **state)
{
	struct file sos = slurp("psp_14_0_3_sos.bin"), smu = slurp("smu_14_0_3.bin");
	uint32_t m = MSG1_AT, wptr = 0, tmr = 0, len = 0;
	const uint8_t *toc = sos_part(&sos, 4, &len);
	uint32_t toc_cmd[3] = { m, 0, len };
	uint32_t smu_len = u32(smu.b + 0x14), smu_at = u32(smu.b + 0x18);
	uint32_t load_smu[4] = { m, 0, smu_len, 18 }, load_th0[4] = { m, 0, smu_len, 71 };
	struct gpu g;

	(void)state;
	gpu_open(&g, "12.0.1");
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	sos_up(&g, &sos);
	assert_int_equal(command(&g, &wptr, 0x20, 2, toc_cmd, 3, NULL), 0xFFFF0006u);
	memcpy(g.vram + MSG1_AT, smu.b + smu_at, smu_len);
	assert_int_equal(command(&g, &wptr, 6, 1, load_smu, 4, NULL), 0xFFFF0007u);
	assert_int_equal(command(&g, &wptr, 0x99, 1, NULL, 0, NULL), 0xFFFF000Au);
	memcpy(g.vram + MSG1_AT, toc, len);
	assert_int_equal(command(&g, &wptr, 0x20, 1, toc_cmd, 3, &tmr), 0);
	assert_int_not_equal(tmr, 0);
	/* SDMA's TH0 before the SMU's firmware: not the next piece. */
	memcpy(g.vram + MSG1_AT, smu.b + smu_at, smu_len);
	assert_int_equal(command(&g, &wptr, 6, 1, load_th0, 4, NULL), 0xFFFF0007u);
	g.vram[MSG1_AT + 100] ^= 1;
	assert_int_equal(command(&g, &wptr, 6, 1, load_smu, 4, NULL), 0xFFFF000Fu);
	g.vram[MSG1_AT + 100] ^= 1;
	assert_int_equal(command(&g, &wptr, 6, 1, load_smu, 4, NULL), 0);
	assert_int_equal(amd_sim_psp_loads(g.sim, NULL), 1);
	/* AUTOLOAD_RLC before the last piece. */
	assert_int_equal(command(&g, &wptr, 0x21, 1, NULL, 0, NULL), 0xFFFF0007u);
	gpu_close(&g);
	free(sos.b);
	free(smu.b);
}

static uint32_t
mp1(struct gpu *g, uint32_t n)
{
	return gpu_reg(g, n == 53 ? AMD_REG_MP1_C2PMSG_53 : n == 54 ? AMD_REG_MP1_C2PMSG_54 :
		       n == 66 ? AMD_REG_MP1_C2PMSG_66 : n == 75 ? AMD_REG_MP1_C2PMSG_75 :
		       n == 82 ? AMD_REG_MP1_C2PMSG_82 : AMD_REG_MP1_C2PMSG_90);
}

static uint32_t
message(struct gpu *g, uint32_t msg, uint32_t arg)
{
	gpu_wreg(g, mp1(g, 90), 0);
	gpu_wreg(g, mp1(g, 82), arg);
	gpu_wreg(g, mp1(g, 66), msg);
	return gpu_rreg(g, mp1(g, 90));
}

static void
test_smu_mailbox(void **state)
{
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");		/* MP1 13.0.0: its mailbox inside BAR5 */
	assert_int_equal(message(&g, 2, 0), 1);
	assert_int_not_equal(gpu_rreg(&g, mp1(&g, 82)), 0);
	assert_int_equal(message(&g, 6, 0), 0xFD);	/* no driver table yet */
	assert_int_equal(message(&g, 0xF, 0x100000), 0xFD);	/* Low before High */
	assert_int_equal(message(&g, 0xE, 0), 1);
	assert_int_equal(message(&g, 0xF, 0xFFFFF000u), 0xFF);	/* past VRAM */
	assert_int_equal(message(&g, 0xF, 0x100000), 1);
	assert_int_equal(message(&g, 6, 0), 1);
	assert_int_equal(message(&g, 0x77, 0), 0xFE);
	/* Silenced: nothing answers. */
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	assert_int_equal(message(&g, 2, 0), 0);
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_SMU_SILENT, 0, false), 0);
	/* The debug mailbox's mode-1 reset: no firmware runs, the bootloader
	 * is ready, the registers are as at power-on. */
	gpu_wreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7), 0x1234);
	gpu_wreg(&g, mp1(&g, 75), 2);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 81)), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 35)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7)), 0);
	assert_int_equal(message(&g, 2, 0), 0);		/* no SMU firmware */
	gpu_close(&g);
}

/* The sOS's mode-1 reset (GFX_CTRL_CMD_ID_MODE1_RST in C2PMSG_64, linux's
 * psp_v11_0.c), which needs no SMU: the GPU as at power-on, C2PMSG_33's
 * bit 31 set. Silenced, the sOS takes it and does nothing; with no sOS,
 * nothing takes it. On each MP0 the sim models. */
static void
sos_mode1(const char *gc)
{
	struct gpu g;

	gpu_open(&g, gc);		/* a clean session's: the sOS runs */
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 64)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 33)), 0);
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_SOS_MODE1_SILENT, 0, true), 0);
	gpu_wreg(&g, mp0(&g, 64), 0x00070000u);
	assert_int_not_equal(gpu_rreg(&g, mp0(&g, 81)), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 33)), 0);
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_SOS_MODE1_SILENT, 0, false), 0);
	gpu_wreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7), 0x1234);
	gpu_wreg(&g, mp0(&g, 64), 0x00070000u);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 81)), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 35)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 33)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7)), 0);
	/* No sOS now: the command goes nowhere. */
	gpu_wreg(&g, mp0(&g, 33), 0);
	gpu_wreg(&g, mp0(&g, 64), 0x00070000u);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 33)), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 35)), 0x80000000u);
	gpu_close(&g);
}

static void
test_sos_mode1(void **state)
{
	(void)state;
	sos_mode1("12.0.1");
	sos_mode1("11.0.0");
	sos_mode1("9.4.3");
}

/* MP0 13.0.6's sOS commands, and MP1 13.0.6's mailbox after the P2S table. */
static void
test_gc_9_4_3(void **state)
{
	struct file sos = slurp("psp_13_0_6_sos.bin"), smu = slurp("smu_13_0_6.bin");
	uint32_t m = MSG1_AT, wptr = 0;
	/* The P2S pptable: smu_13_0_6.bin's second entry, "XS2P" (§1.3). */
	uint32_t entries = u32(smu.b + 0x28), p2s_at = u32(smu.b + entries + 12 + 4);
	uint32_t p2s_len = u32(smu.b + entries + 12 + 8);
	uint32_t load_p2s[4] = { m, 0, p2s_len, 129 };
	uint32_t tmr_sized[6] = { 0, 0, 0x1000000, 2, 0, 0 }, tmr[6] = { 0, 0, 0, 2, 0, 0 };
	struct gpu g;

	(void)state;
	assert_int_equal(u32(smu.b + entries + 12), 0x50325358u);
	gpu_open(&g, "9.4.3");
	assert_int_equal(amd_sim_inject(g.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	sos_up(&g, &sos);
	memcpy(g.vram + MSG1_AT, smu.b + p2s_at, p2s_len);
	assert_int_equal(command(&g, &wptr, 6, 1, load_p2s, 4, NULL), 0xFFFF0007u);
	assert_int_equal(command(&g, &wptr, 0x21, 1, NULL, 0, NULL), 0xFFFF000Au);
	assert_int_equal(command(&g, &wptr, 5, 1, tmr_sized, 6, NULL), 0xFFFF0006u);
	assert_int_equal(command(&g, &wptr, 5, 1, tmr, 6, NULL), 0);
	assert_int_equal(command(&g, &wptr, 5, 1, tmr, 6, NULL), 0xFFFF0007u);
	assert_int_equal(message(&g, 2, 0), 0);		/* no SMU yet */
	/* SRIOV_SPATIAL_PART before the RLC runs: BAD_STATE. */
	assert_int_equal(command(&g, &wptr, 0x27, 1, (const uint32_t[]){ 1 }, 1, NULL),
			 0xFFFF0007u);
	assert_int_equal(command(&g, &wptr, 6, 1, load_p2s, 4, NULL), 0);
	assert_int_equal(amd_sim_psp_loads(g.sim, NULL), 1);
	/* MP1 13.0.6's ids: EnableAllSmuFeatures 5, DramAddrHigh 0xD, Low 0xE. */
	assert_int_equal(message(&g, 2, 0), 1);
	assert_int_equal(message(&g, 5, 0), 0xFD);
	assert_int_equal(message(&g, 0xD, 0), 1);
	assert_int_equal(message(&g, 0xE, 0x100000), 1);
	assert_int_equal(message(&g, 5, 0), 1);
	assert_int_equal(message(&g, 3, 0), 0xFF);	/* GfxDriverReset(0) */
	gpu_wreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7), 0x1234);
	(void)message(&g, 3, 1);			/* mode 1: its answer cleared */
	assert_int_equal(gpu_rreg(&g, mp0(&g, 81)), 0);
	assert_int_equal(gpu_rreg(&g, mp0(&g, 35)), 0x80000000u);
	assert_int_equal(gpu_rreg(&g, gpu_reg(&g, AMD_REG_GC_SCRATCH_REG7)), 0);
	assert_int_equal(message(&g, 2, 0), 0);
	gpu_close(&g);
	free(sos.b);
	free(smu.b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bootloader_order_and_bytes),
		cmocka_unit_test(test_sos_commands),
		cmocka_unit_test(test_smu_mailbox),
		cmocka_unit_test(test_gc_9_4_3),
		cmocka_unit_test(test_sos_mode1),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the sim checks the images\n");
		return 0;
	}
	/* The sim searches rig's firmware directory for the images it checks. */
	setenv("RIG_FIRMWARE_DIR", getenv("RIG_TEST_FIRMWARE"), 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
