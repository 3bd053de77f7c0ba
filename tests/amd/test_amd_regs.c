/* SPDX-License-Identifier: MIT */
/*
 * test_amd_regs: the register tables (src/amd/regs/) resolved against a
 * discovery table's bases give the dword indices of ../shared/docs/
 * amd-facts.md §3.13 (GC 11.0.0 offsets with Navi bases) and of its GC 12
 * and OSSSYS 7 differences; every supported GC's blocks have tables; a
 * block version with none is refused naming block and version, and a
 * register in a segment the table does not give is refused too, naming
 * the block, its version, the segment and the bases it has (NBIO 7.9's
 * segment 8 on a table of 6 NBIO bases).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "amd/discovery/discovery.h"
#include "amd/regs/regs.h"
#include "synth.h"

static struct amd_discovery table;
static struct amd_regs regs;

static void
resolve(const char *gc, int want)
{
	struct synth s;

	synth_build(&s, gc, 0);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	assert_int_equal(amd_regs_resolve(&table, &regs), want);
}

#define AT(reg, want) do { \
	if (regs.index[reg] != (uint64_t)(want)) \
		fail_msg("%s is at 0x%llx, expected 0x%llx (amd-facts §3.13)", \
			 #reg, (unsigned long long)regs.index[reg], \
			 (unsigned long long)(want)); \
} while (0)

/* §3.13's table: absolute dword indices on GC 11.0.0 with Navi bases. */
static void
test_gc_11_0_0_indices(void **state)
{
	(void)state;
	resolve("11.0.0", 0);
	AT(AMD_REG_GC_SCRATCH_REG6, 0xc046);
	AT(AMD_REG_GC_SCRATCH_REG7, 0xc047);
	AT(AMD_REG_GC_GRBM_GFX_CNTL, 0xa900);
	AT(AMD_REG_GC_GRBM_SOFT_RESET, 0x2008);
	AT(AMD_REG_GC_CP_STAT, 0x21a0);
	AT(AMD_REG_GC_RLC_RLCS_BOOTLOAD_STATUS, 0xee82);
	AT(AMD_REG_GC_CP_MEC_RS64_CNTL, 0xc904);
	AT(AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START, 0xc900);
	AT(AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START_HI, 0xc938);
	AT(AMD_REG_GC_CP_MEC_DOORBELL_RANGE_LOWER, 0x305c);
	AT(AMD_REG_GC_CP_MQD_BASE_ADDR, 0x3209);
	AT(AMD_REG_GC_CP_HQD_ACTIVE, 0x320b);
	AT(AMD_REG_GC_CP_HQD_DEQUEUE_REQUEST, 0x3221);
	AT(AMD_REG_GC_CP_HQD_PQ_WPTR_HI, 0x3240);
	AT(AMD_REG_GC_COMPUTE_PGM_LO, 0x2e0c);
	AT(AMD_REG_GC_COMPUTE_USER_DATA_0, 0x2e40);
	AT(AMD_REG_GC_GCVM_CONTEXT0_CNTL, 0x28e8);
	AT(AMD_REG_GC_GCVM_INVALIDATE_ENG17_REQ, 0x291c);
	AT(AMD_REG_GC_GCMC_VM_FB_LOCATION_BASE, 0x28d8);
	AT(AMD_REG_SDMA0_RB_CNTL, 0x12e0);		/* SDMA0_QUEUE0_RB_CNTL */
	AT(AMD_REG_SDMA0_HALT_CNTL, 0xf89a);		/* SDMA0_F32_CNTL */
	AT(AMD_REG_MP0_C2PMSG_35, 0x16063);
	AT(AMD_REG_MP0_C2PMSG_36, 0x16064);
	AT(AMD_REG_MP0_C2PMSG_64, 0x16080);
	AT(AMD_REG_MP0_C2PMSG_67, 0x16083);
	AT(AMD_REG_MP0_C2PMSG_81, 0x16091);
	AT(AMD_REG_MP1_C2PMSG_53, 0x16275);
	AT(AMD_REG_MP1_C2PMSG_66, 0x16282);
	AT(AMD_REG_MP1_C2PMSG_90, 0x1629a);
	AT(AMD_REG_OSSSYS_IH_RB_CNTL, 0x1120);
	AT(AMD_REG_OSSSYS_IH_RB_BASE, 0x1121);
	AT(AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_LO, 0x1126);
	AT(AMD_REG_NBIF_BIF_BX_PF0_RSMU_INDEX, 0x14);
	AT(AMD_REG_NBIF_BIF_BX_PF0_RSMU_DATA, 0x15);
	AT(AMD_REG_NBIF_RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN, 0xde0);
	AT(AMD_REG_NBIF_BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL, 0xe4d);
	AT(AMD_REG_NBIF_BIF_BX_PF0_GPU_HDP_FLUSH_REQ, 0xe26);
	AT(AMD_REG_NBIF_BIF_BX_PF0_GPU_HDP_FLUSH_DONE, 0xe27);
	AT(AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_BASE, 0x1a8ec);
	AT(AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_TOP, 0x1a8ed);
	AT(AMD_REG_MMHUB_MMVM_INVALIDATE_ENG17_REQ, 0x1a774);
	AT(AMD_REG_MMHUB_MMVM_INVALIDATE_ENG17_ACK, 0x1a786);
	AT(AMD_REG_MMHUB_MMVM_INVALIDATE_ENG17_SEM, 0x1a762);
	/* a register GC 11's header lacks, and SMUIO the table does not list */
	AT(AMD_REG_GC_CP_MEC_CNTL, 0xa000 + 0x802);
	assert_true(regs.index[AMD_REG_SMUIO_GOLDEN_TSC_COUNT_LOWER] == AMD_REG_NONE);
	assert_string_equal(regs.table[GC_HWID]->header, "gc_11_0_0");
	assert_string_equal(regs.table[MP1_HWID]->header, "mp_13_0_0");
}

/* §3.13's notes: GC 12 moves GCVM (fault status is _LO32 at 0x15d0) and
 * RLC_RLCS_BOOTLOAD_STATUS (0x4e7c); §3.7: OSSSYS 7.0's RPTR is 0x81;
 * §3.11: SDMA 7 halts through SDMA0_MCU_CNTL. */
static void
test_gc_12_indices(void **state)
{
	(void)state;
	resolve("12.0.1", 0);
	AT(AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0x1260 + 0x15d0);
	AT(AMD_REG_GC_RLC_RLCS_BOOTLOAD_STATUS, 0xa000 + 0x4e7c);
	AT(AMD_REG_OSSSYS_IH_RB_RPTR, 0x10a0 + 0x81);
	AT(AMD_REG_OSSSYS_IH_RB_BASE, 0x10a0 + 0x83);
	assert_string_equal(regs.table[SDMA0_HWID]->header, "gc_12_0_0");
	assert_int_equal(regs.table[MP0_HWID]->versions[1].rev, 3);
}

/* §3.13: GC 9.4.3 offsets (CP_HQD_ACTIVE 0x1247, GRBM_GFX_CNTL 0x22);
 * its 64-bit bases keep their low 30 bits. */
static void
test_gc_9_4_3_indices(void **state)
{
	(void)state;
	resolve("9.4.3", 0);
	AT(AMD_REG_GC_CP_HQD_ACTIVE, 0x1260 + 0x1247);
	AT(AMD_REG_GC_GRBM_GFX_CNTL, 0x1260 + 0x22);
	AT(AMD_REG_GC_CP_MEC_CNTL, 0x1260 + 0x8d);
	assert_true(regs.index[AMD_REG_GC_CP_MEC_RS64_CNTL] == AMD_REG_NONE);
	assert_string_equal(regs.table[SDMA0_HWID]->header, "sdma_4_4_2");
}

/* Every block of every supported GC has a table, and every table's
 * registers resolve. */
static void
test_every_supported_gc(void **state)
{
	static const char *const gcs[] = { "9.4.3", "9.5.0", "11.0.0", "11.0.2",
					   "12.0.0", "12.0.1" };
	static const uint16_t programmed[] = { GC_HWID, SDMA0_HWID, MMHUB_HWID,
		NBIF_HWID, OSSSYS_HWID, HDP_HWID, MP0_HWID, MP1_HWID };

	(void)state;
	for (size_t g = 0; g < 6; g++) {
		resolve(gcs[g], 0);
		for (size_t b = 0; b < 8; b++)
			if (!regs.table[programmed[b]])
				fail_msg("GC %s: %s has no table", gcs[g],
					 amd_hw_name(programmed[b]));
		assert_true(regs.index[AMD_REG_GC_SCRATCH_REG6] != AMD_REG_NONE);
		assert_true(regs.index[AMD_REG_SDMA0_RB_CNTL] != AMD_REG_NONE);
		assert_true(regs.index[AMD_REG_OSSSYS_IH_RB_CNTL] != AMD_REG_NONE);
		assert_true(regs.index[AMD_REG_MP0_C2PMSG_81] != AMD_REG_NONE);
	}
}

static void
test_mmhub_99_9_9_refused(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	synth_set_version(&s, MMHUB_HWID, 99, 9, 9);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	assert_int_equal(amd_regs_resolve(&table, &regs), -ENOTSUP);
	assert_string_equal(rig_why(), "amd_regs_resolve: MMHUB 99.9.9 has no "
			    "register table (rig holds MMHUB tables for 1.8.0, "
			    "1.8.1, 3.0.0, 3.0.1, 3.0.2 and 4.1.0)");
	synth_build(&s, "12.0.0", 0);
	synth_set_version(&s, OSSSYS_HWID, 7, 1, 0);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	assert_int_equal(amd_regs_resolve(&table, &regs), -ENOTSUP);
	assert_string_equal(rig_why(), "amd_regs_resolve: OSSSYS (IH) 7.1.0 has no "
			    "register table (rig holds OSSSYS (IH) tables for 4.4.2, "
			    "4.4.5, 6.0.0, 6.0.1 and 7.0.0)");
}

/* A block whose table gives fewer bases than its registers' segments. */
static void
test_segment_missing_refused(void **state)
{
	(void)state;
	resolve("11.0.0", 0);
	for (size_t b = 0; b < table.nblocks; b++)
		if (table.blocks[b].hw_id == GC_HWID)
			table.blocks[b].nbases = 1;
	assert_int_equal(amd_regs_resolve(&table, &regs), -EPROTO);
	assert_non_null(strstr(rig_why(), "amd_regs_resolve: GC "));
	assert_non_null(strstr(rig_why(), " is in segment 1, but the discovery "
			       "table gives GC 11.0.0 1 base"));
}

/*
 * NBIO 7.9 (GC 9.4.3): BIFC_GFX_INT_MONITOR_MASK, BIFC_DOORBELL_ACCESS_EN_PF
 * and the SDMA doorbell routing's DOORBELL0_CTRL_ENTRY_n are in segment 8
 * (linux's nbio_7_9_0_offset.h), so a table giving NBIO 9 bases resolves
 * them on base 8, and one giving the 6 every other NBIO here has is
 * refused, naming the block, its version, the segment and the count.
 */
static void
test_nbio_7_9_segment_8(void **state)
{
	const struct amd_block *nbif;

	(void)state;
	resolve("9.4.3", 0);
	assert_non_null(nbif = amd_discovery_block(&table, NBIF_HWID));
	assert_int_equal(nbif->nbases, 9);
	AT(AMD_REG_NBIF_BIFC_GFX_INT_MONITOR_MASK, 0x11000 + 0xe8ad);
	AT(AMD_REG_NBIF_BIFC_DOORBELL_ACCESS_EN_PF, 0x11000 + 0xcf6e);
	AT(AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1, 0x11000 + 0xcd01);
	AT(AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_4, 0x11000 + 0xcd04);
	AT(AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL, 0x4040000 + 0x7a81);
	AT(AMD_REG_NBIF_S2A_DOORBELL_ENTRY_6_CTRL, 0x4040000 + 0x7a86);
	for (size_t b = 0; b < table.nblocks; b++)
		if (table.blocks[b].hw_id == NBIF_HWID)
			table.blocks[b].nbases = 6;
	assert_int_equal(amd_regs_resolve(&table, &regs), -EPROTO);
	assert_string_equal(rig_why(), "amd_regs_resolve: NBIF (NBIO) "
			    "BIFC_GFX_INT_MONITOR_MASK is in segment 8, but the discovery "
			    "table gives NBIF (NBIO) 7.9.0 6 bases");
	/* Other NBIOs' tables hold none of them (scripts/amd_regs.py's ONLY_IN). */
	resolve("11.0.0", 0);
	assert_true(regs.index[AMD_REG_NBIF_BIFC_GFX_INT_MONITOR_MASK] == AMD_REG_NONE);
	assert_true(regs.index[AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1] == AMD_REG_NONE);
	assert_true(regs.index[AMD_REG_NBIF_PCIE_INDEX2] == AMD_REG_NONE);
	resolve("12.0.0", 0);
	assert_true(regs.index[AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL] == AMD_REG_NONE);
	assert_true(regs.index[AMD_REG_NBIF_PCIE_DATA2] == AMD_REG_NONE);
}

/* GC 9.4.3 with xccs GC instances, XCC k's bases moved by k * 0x40000. */
static void
xccs_table(unsigned xccs)
{
	struct synth s;

	synth_build_xccs(&s, "9.4.3", 0, xccs);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	for (size_t b = 0; b < table.nblocks; b++)
		if (table.blocks[b].hw_id == GC_HWID)
			for (unsigned k = 0; k < table.blocks[b].nbases; k++)
				table.blocks[b].base[k] += table.blocks[b].instance * 0x40000ull;
}

static struct amd_block *
gc_instance(unsigned inst)
{
	for (size_t b = 0; b < table.nblocks; b++)
		if (table.blocks[b].hw_id == GC_HWID && table.blocks[b].instance == inst)
			return &table.blocks[b];
	fail_msg("no GC instance %u", inst);
	return NULL;
}

/* Each XCC's GC register at its instance's base of the register's
 * segment plus the offset; other blocks' registers have no XCC copies. */
static void
test_xcc_indices(void **state)
{
	(void)state;
	xccs_table(4);
	assert_int_equal(amd_regs_resolve(&table, &regs), 0);
	assert_int_equal(regs.xccs, 4);
	for (unsigned x = 0; x < 4; x++) {
		assert_int_equal(regs.xcc_instance[x], x);
		assert_true(amd_regs_xcc(&regs, x, AMD_REG_GC_CP_MEC_CNTL) ==
			    0x1260 + 0x40000ull * x + 0x8d);
		assert_true(amd_regs_xcc(&regs, x, AMD_REG_GC_SCRATCH_REG7) ==
			    regs.index[AMD_REG_GC_SCRATCH_REG7] + 0x40000ull * x);
	}
	assert_true(amd_regs_xcc(&regs, 1, AMD_REG_MP0_C2PMSG_81) == AMD_REG_NONE);
	assert_true(amd_regs_xcc(&regs, 4, AMD_REG_GC_CP_MEC_CNTL) == AMD_REG_NONE);
	assert_true(amd_regs_xcc(&regs, 1, AMD_REG_GC_CP_MEC_RS64_CNTL) == AMD_REG_NONE);
	/* A harvested instance is no XCC: the next one takes its place. */
	gc_instance(1)->harvested = true;
	assert_int_equal(amd_regs_resolve(&table, &regs), 0);
	assert_int_equal(regs.xccs, 3);
	assert_int_equal(regs.xcc_instance[1], 2);
	assert_true(amd_regs_xcc(&regs, 1, AMD_REG_GC_CP_MEC_CNTL) ==
		    0x1260 + 0x40000ull * 2 + 0x8d);
}

/* An XCC of another version than instance 0's, one short of a segment,
 * and an instance past 7 (XCC_DOORBELL_FENCE fences 0 to 7) are refused
 * by name. */
static void
test_xcc_refusals(void **state)
{
	(void)state;
	xccs_table(2);
	gc_instance(1)->minor = 5;
	assert_int_equal(amd_regs_resolve(&table, &regs), -EPROTO);
	assert_non_null(strstr(rig_why(), "GC instance 1 is 9.5.3, instance 0 9.4.3"));
	xccs_table(2);
	gc_instance(1)->nbases = 1;
	assert_int_equal(amd_regs_resolve(&table, &regs), -EPROTO);
	assert_non_null(strstr(rig_why(), "GC instance 1 has 1 base; GC's registers "
			       "use 2 segments"));
	xccs_table(8);
	assert_true(table.nblocks < AMD_BLOCKS);
	table.blocks[table.nblocks] = *gc_instance(7);
	table.blocks[table.nblocks++].instance = 8;
	assert_int_equal(amd_regs_resolve(&table, &regs), -ENOTSUP);
	assert_non_null(strstr(rig_why(), "GC instance 8 is unharvested: "
			       "XCC_DOORBELL_FENCE fences GC instances (XCCs) 0 to 7 only"));
	/* So does instance 8 with instance 7 harvested: 8 XCCs, but 8's bit
	 * is past the fence's. */
	gc_instance(7)->harvested = true;
	assert_int_equal(amd_regs_resolve(&table, &regs), -ENOTSUP);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xcc_indices),
		cmocka_unit_test(test_xcc_refusals),
		cmocka_unit_test(test_gc_11_0_0_indices),
		cmocka_unit_test(test_gc_12_indices),
		cmocka_unit_test(test_gc_9_4_3_indices),
		cmocka_unit_test(test_every_supported_gc),
		cmocka_unit_test(test_mmhub_99_9_9_refused),
		cmocka_unit_test(test_segment_missing_refused),
		cmocka_unit_test(test_nbio_7_9_segment_8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
