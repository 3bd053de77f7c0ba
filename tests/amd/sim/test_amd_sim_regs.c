/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_regs: every register the sim gives meaning to sits where
 * the driver's register tables (src/amd/regs/, extracted from linux's
 * asic_reg headers by scripts/amd_regs.py) put it, for each GC the sim
 * models, both resolved against the sim's own discovery table. The two
 * come from different hands (the sim's offsets are written from amd-facts
 * and the author's reading of linux's headers), so a register either
 * places wrongly fails here, naming it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"
#include "amd/discovery/read.h"
#include "amd/regs/regs.h"
#include "gpu.h"
#include "../fake.h"

struct pair {
	const char *what;
	uint64_t sim;
	enum amd_reg reg;
};

static int
compare(const char *gc, const struct pair *p, size_t n, const struct amd_regs *r)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t want = r->index[p[i].reg];

		if (want == AMD_REG_NONE || p[i].sim == 0)
			continue;	/* a register one side does not have */
		if (want != p[i].sim) {
			fprintf(stderr, "GC %s: %s at 0x%llx in the sim, 0x%llx in the tables\n",
				gc, p[i].what, (unsigned long long)p[i].sim,
				(unsigned long long)want);
			bad++;
		}
	}
	return bad;
}

static void
test_sim_registers_match_the_tables(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "11.0.2", "12.0.0", "12.0.1" };
	static struct amd_discovery t;
	static struct amd_regs r;
	int bad = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(gcs) / sizeof(gcs[0]); k++) {
		const struct rig_pci_machine *m;
		struct pci_function *fs;
		uint8_t *bytes;
		uint64_t vram;
		size_t n, len;
		struct gpu g;

		gpu_open(&g, gcs[k]);
		const struct sim_layout *l = &g.sim->lay;
		bool v7 = l->ih_v7;
		uint32_t sq = l->sdma_q0, h = l->hqd, db = l->db_ctrl_entry0, s2a = l->s2a_entry0;
		const struct pair p[] = {
			{ "SCRATCH_REG6", l->scratch6, AMD_REG_GC_SCRATCH_REG6 },
			{ "SCRATCH_REG7", l->scratch7, AMD_REG_GC_SCRATCH_REG7 },
			{ "GRBM_GFX_CNTL", l->grbm_gfx_cntl, AMD_REG_GC_GRBM_GFX_CNTL },
			{ "CP_STAT", l->cp_stat, AMD_REG_GC_CP_STAT },
			{ "RLC_RLCS_BOOTLOAD_STATUS", l->rlc_bootload, AMD_REG_GC_RLC_RLCS_BOOTLOAD_STATUS },
			{ "CP_MQD_BASE_ADDR", h, AMD_REG_GC_CP_MQD_BASE_ADDR },
			{ "CP_MQD_BASE_ADDR_HI", h + 1, AMD_REG_GC_CP_MQD_BASE_ADDR_HI },
			{ "CP_HQD_ACTIVE", h + 2, AMD_REG_GC_CP_HQD_ACTIVE },
			{ "CP_HQD_VMID", h + 3, AMD_REG_GC_CP_HQD_VMID },
			{ "CP_HQD_PQ_BASE", h + 8, AMD_REG_GC_CP_HQD_PQ_BASE },
			{ "CP_HQD_PQ_RPTR", h + 10, AMD_REG_GC_CP_HQD_PQ_RPTR },
			{ "CP_HQD_PQ_DOORBELL_CONTROL", h + 15, AMD_REG_GC_CP_HQD_PQ_DOORBELL_CONTROL },
			{ "CP_HQD_PQ_CONTROL", h + 17, AMD_REG_GC_CP_HQD_PQ_CONTROL },
			{ "CP_HQD_DEQUEUE_REQUEST", h + 24, AMD_REG_GC_CP_HQD_DEQUEUE_REQUEST },
			{ "CP_HQD_PQ_WPTR_LO", h + 54, AMD_REG_GC_CP_HQD_PQ_WPTR_LO },
			{ "CP_HQD_PQ_WPTR_HI", h + 55, AMD_REG_GC_CP_HQD_PQ_WPTR_HI },
			{ "GCVM_CONTEXT0_CNTL", l->vm_cntl, AMD_REG_GC_GCVM_CONTEXT0_CNTL },
			{ "PAGE_TABLE_BASE_ADDR_LO32", l->vm_base_lo,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32 },
			{ "PAGE_TABLE_BASE_ADDR_HI32", l->vm_base_lo + 1,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32 },
			{ "PAGE_TABLE_START_ADDR_LO32", l->vm_start_lo,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32 },
			{ "PAGE_TABLE_START_ADDR_HI32", l->vm_start_lo + 1,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32 },
			{ "PAGE_TABLE_END_ADDR_LO32", l->vm_end_lo,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32 },
			{ "PAGE_TABLE_END_ADDR_HI32", l->vm_end_lo + 1,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32 },
			{ "GCVM_L2_PROTECTION_FAULT_STATUS", l->vm_fault_status,
			  AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS },
			{ "SDMA0 RB_CNTL", sq, AMD_REG_SDMA0_RB_CNTL },
			{ "SDMA0 RB_BASE", sq ? sq + 0x01 : 0, AMD_REG_SDMA0_RB_BASE },
			{ "SDMA0 RB_BASE_HI", sq ? sq + 0x02 : 0, AMD_REG_SDMA0_RB_BASE_HI },
			{ "SDMA0 RB_RPTR", sq ? sq + 0x03 : 0, AMD_REG_SDMA0_RB_RPTR },
			{ "SDMA0 RB_RPTR_HI", sq ? sq + 0x04 : 0, AMD_REG_SDMA0_RB_RPTR_HI },
			{ "SDMA0 RB_WPTR", sq ? sq + 0x05 : 0, AMD_REG_SDMA0_RB_WPTR },
			{ "SDMA0 RB_WPTR_HI", sq ? sq + 0x06 : 0, AMD_REG_SDMA0_RB_WPTR_HI },
			{ "SDMA0 RB_RPTR_ADDR_HI", sq ? sq + l->sdma_rptr_hi : 0, AMD_REG_SDMA0_RB_RPTR_ADDR_HI },
			{ "SDMA0 RB_RPTR_ADDR_LO", sq ? sq + l->sdma_rptr_lo : 0, AMD_REG_SDMA0_RB_RPTR_ADDR_LO },
			{ "SDMA0 DOORBELL", sq ? sq + l->sdma_doorbell : 0, AMD_REG_SDMA0_DOORBELL },
			{ "SDMA0 DOORBELL_OFFSET", sq ? sq + l->sdma_doorbell_offset : 0, AMD_REG_SDMA0_DOORBELL_OFFSET },
			{ "IH_RB_CNTL", l->ih, AMD_REG_OSSSYS_IH_RB_CNTL },
			{ "IH_RB_BASE", l->ih + (v7 ? 3 : 1), AMD_REG_OSSSYS_IH_RB_BASE },
			{ "IH_RB_BASE_HI", l->ih + (v7 ? 4 : 2), AMD_REG_OSSSYS_IH_RB_BASE_HI },
			{ "IH_RB_RPTR", l->ih + (v7 ? 1 : 3), AMD_REG_OSSSYS_IH_RB_RPTR },
			{ "IH_RB_WPTR", l->ih + (v7 ? 2 : 4), AMD_REG_OSSSYS_IH_RB_WPTR },
			{ "IH_RB_WPTR_ADDR_HI", l->ih + 5, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_HI },
			{ "IH_RB_WPTR_ADDR_LO", l->ih + 6, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_LO },
			{ "MMMC_VM_FB_LOCATION_BASE", l->fb_base, AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_BASE },
			{ "MMMC_VM_FB_LOCATION_TOP", l->fb_base + 1, AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_TOP },
			{ "MP0_C2PMSG_81", l->c2pmsg_81, AMD_REG_MP0_C2PMSG_81 },
			{ "MP1_C2PMSG_90", l->mp1_c2pmsg_90, AMD_REG_MP1_C2PMSG_90 },
			{ "BIF_BX_PF0_RSMU_INDEX", l->rsmu_index, AMD_REG_NBIF_BIF_BX_PF0_RSMU_INDEX },
			{ "BIF_BX_PF0_RSMU_DATA", l->rsmu_data, AMD_REG_NBIF_BIF_BX_PF0_RSMU_DATA },
			{ "XCC_DOORBELL_FENCE", l->xcc_fence, AMD_REG_NBIF_XCC_DOORBELL_FENCE },
			{ "PCIE_INDEX2", l->pcie_index2, AMD_REG_NBIF_PCIE_INDEX2 },
			{ "PCIE_DATA2", l->pcie_data2, AMD_REG_NBIF_PCIE_DATA2 },
			{ "PCIE_INDEX2_HI", l->pcie_index2_hi, AMD_REG_NBIF_PCIE_INDEX2_HI },
			{ "BIFC_GFX_INT_MONITOR_MASK", l->bifc_int_monitor,
			  AMD_REG_NBIF_BIFC_GFX_INT_MONITOR_MASK },
			{ "BIFC_DOORBELL_ACCESS_EN_PF", l->bifc_db_access,
			  AMD_REG_NBIF_BIFC_DOORBELL_ACCESS_EN_PF },
			{ "DOORBELL0_CTRL_ENTRY_1", db ? db + 1 : 0, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1 },
			{ "DOORBELL0_CTRL_ENTRY_2", db ? db + 2 : 0, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_2 },
			{ "DOORBELL0_CTRL_ENTRY_3", db ? db + 3 : 0, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_3 },
			{ "DOORBELL0_CTRL_ENTRY_4", db ? db + 4 : 0, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_4 },
			{ "S2A_DOORBELL_ENTRY_1_CTRL", s2a ? s2a + 1 : 0,
			  AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL },
			{ "S2A_DOORBELL_ENTRY_2_CTRL", s2a ? s2a + 2 : 0,
			  AMD_REG_NBIF_S2A_DOORBELL_ENTRY_2_CTRL },
			{ "S2A_DOORBELL_ENTRY_5_CTRL", s2a ? s2a + 5 : 0,
			  AMD_REG_NBIF_S2A_DOORBELL_ENTRY_5_CTRL },
			{ "S2A_DOORBELL_ENTRY_6_CTRL", s2a ? s2a + 6 : 0,
			  AMD_REG_NBIF_S2A_DOORBELL_ENTRY_6_CTRL },
		};

		m = amd_sim_machine(g.sim);
		assert_int_equal(pci_amd_gpus(m, &fs, &n), 0);
		assert_int_equal(amd_discovery_read(m, &fs[0], &bytes, &len, &vram), 0);
		assert_int_equal(amd_discovery_parse(bytes, len, &t), 0);
		if (amd_regs_resolve(&t, &r))
			fail_msg("GC %s: %s", gcs[k], rig_why());
		/* NBIO 7.9's are compared, not skipped as one side's absence. */
		if (l->ver[0][0] == 9)
			assert_true(db && s2a && l->bifc_int_monitor && l->xcc_fence &&
				    r.index[AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1] != AMD_REG_NONE);
		bad += compare(gcs[k], p, sizeof(p) / sizeof(p[0]), &r);
		free(bytes);
		free(fs);
		gpu_close(&g);
	}
	assert_int_equal(bad, 0);
}

/*
 * GC 9.4.3 with 4 XCCs: the sim's table lists 4 GC instances, and each
 * XCC's registers the sim checks sit where the driver's tables resolve
 * that XCC's (amd_regs_xcc), each past BAR5 but XCC 0's, none on
 * another's; NBIO's XCC_DOORBELL_FENCE where the tables put it.
 */
static void
test_sim_xccs_match_the_tables(void **state)
{
	static struct amd_discovery t;
	static struct amd_regs r;
	struct amd_sim_opts o = { .gc = "9.4.3", .mark = 0xA0000008, .xccs = 4, .aids = 2 };
	const struct rig_pci_machine *m;
	struct pci_function *fs;
	struct amd_sim *sim;
	char root[256];
	uint8_t *bytes;
	uint64_t vram;
	size_t n, len;
	int bad = 0;

	(void)state;
	fake_root(root);
	o.root = root;
	assert_int_equal(amd_sim_create(&o, &sim), 0);
	m = amd_sim_machine(sim);
	assert_int_equal(pci_amd_gpus(m, &fs, &n), 0);
	assert_int_equal(amd_discovery_read(m, &fs[0], &bytes, &len, &vram), 0);
	assert_int_equal(amd_discovery_parse(bytes, len, &t), 0);
	if (amd_regs_resolve(&t, &r))
		fail_msg("%s", rig_why());
	assert_int_equal(r.xccs, 4);
	for (unsigned x = 0; x < 4; x++) {
		const struct sim_xcc *c = &sim->lay.xcc[x];
		const struct pair p[] = {
			{ "GCVM_CONTEXT0_CNTL", c->vm_cntl, AMD_REG_GC_GCVM_CONTEXT0_CNTL },
			{ "PAGE_TABLE_BASE_ADDR_LO32", c->vm_base_lo,
			  AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32 },
			{ "CP_MEC_CNTL", c->mec_cntl, AMD_REG_GC_CP_MEC_CNTL },
			{ "GB_ADDR_CONFIG", c->gb_addr_config, AMD_REG_GC_GB_ADDR_CONFIG },
			{ "TCP_UTCL1_CNTL2", c->tcp_utcl1_cntl2, AMD_REG_GC_TCP_UTCL1_CNTL2 },
			{ "GRBM_CNTL", c->grbm_cntl, AMD_REG_GC_GRBM_CNTL },
			{ "SH_MEM_CONFIG", c->sh_mem_config, AMD_REG_GC_SH_MEM_CONFIG },
			{ "SH_MEM_BASES", c->sh_mem_bases, AMD_REG_GC_SH_MEM_BASES },
			{ "CP_MEC_DOORBELL_RANGE_LOWER", c->db_lower,
			  AMD_REG_GC_CP_MEC_DOORBELL_RANGE_LOWER },
			{ "CP_MEC_DOORBELL_RANGE_UPPER", c->db_upper,
			  AMD_REG_GC_CP_MEC_DOORBELL_RANGE_UPPER },
		};

		for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
			uint64_t want = amd_regs_xcc(&r, x, p[i].reg);

			if (want != p[i].sim || (x > 0) != (want >= SIM_REGS)) {
				fprintf(stderr, "XCC %u: %s at 0x%llx in the sim, 0x%llx in "
					"the tables\n", x, p[i].what,
					(unsigned long long)p[i].sim,
					(unsigned long long)want);
				bad++;
			}
		}
		assert_int_equal(r.xcc_instance[x], x);
		assert_int_equal(r.xcc_die[x], x / 2);	/* 2 AIDs: XCCs 2, 3 on die 1 */
	}
	assert_int_equal(r.index[AMD_REG_NBIF_PCIE_INDEX2], sim->lay.pcie_index2);
	assert_int_equal(r.index[AMD_REG_NBIF_PCIE_DATA2], sim->lay.pcie_data2);
	assert_int_equal(r.index[AMD_REG_NBIF_PCIE_INDEX2_HI], sim->lay.pcie_index2_hi);
	/* Not a GC register, or an XCC it lacks: none. */
	assert_true(amd_regs_xcc(&r, 1, AMD_REG_MP0_C2PMSG_81) == AMD_REG_NONE);
	assert_true(amd_regs_xcc(&r, 4, AMD_REG_GC_GB_ADDR_CONFIG) == AMD_REG_NONE);
	assert_int_equal(r.index[AMD_REG_NBIF_XCC_DOORBELL_FENCE], sim->lay.xcc_fence);
	free(bytes);
	free(fs);
	amd_sim_destroy(sim);
	fake_remove(root);
	assert_int_equal(bad, 0);
}

/* The window as linux's indirect_wreg_ext drives it: addr's low 32 bits,
 * then bits 39:32, then the value, then the high bits back to 0. */
static void
window_write(struct amd_sim *s, uint64_t addr, uint32_t v)
{
	assert_int_equal(amd_sim_reg_write(s, s->lay.pcie_index2, (uint32_t)addr), 0);
	assert_int_equal(amd_sim_reg_write(s, s->lay.pcie_index2_hi,
					   (uint32_t)(addr >> 32) & 0xff), 0);
	assert_int_equal(amd_sim_reg_write(s, s->lay.pcie_data2, v), 0);
	assert_int_equal(amd_sim_reg_write(s, s->lay.pcie_index2_hi, 0), 0);
}

/* A register past BAR5 through the RSMU pair (§0.3). */
static uint32_t
far_read(struct amd_sim *s, uint32_t index)
{
	uint32_t v = 0;

	assert_int_equal(amd_sim_reg_write(s, s->lay.rsmu_index, index * 4), 0);
	assert_int_equal(amd_sim_reg_read(s, s->lay.rsmu_data, &v), 0);
	return v;
}

/*
 * NBIO 7.9's PCIE_INDEX2 window (src/amd/sim/ext.c) on a GC 9.4.3 of 4
 * XCCs on 2 AIDs: a write with linux's cross-AID bits (bit 34, AID 1 in
 * bits 33:32) lands in AID 1's store, not in AID 0's register; one with
 * no high bits is AID 0's own register; AID 2 (past the sim's), a pattern
 * without bit 34, and AID 0 with bit 34 go nowhere.
 */
static void
test_sim_aid_window(void **state)
{
	struct amd_sim_opts o = { .gc = "9.4.3", .mark = 0xA0000008, .xccs = 4, .aids = 2 };
	struct amd_sim *sim;
	char root[256];
	uint32_t v, fence;

	(void)state;
	fake_root(root);
	o.root = root;
	assert_int_equal(amd_sim_create(&o, &sim), 0);
	fence = sim->lay.xcc_fence;
	assert_int_equal(amd_sim_aid_reg(sim, 1, fence, &v), -ENOENT);
	window_write(sim, fence * 4ull + (1ull << 34 | 1ull << 32), 1u << 16);
	assert_int_equal(amd_sim_aid_reg(sim, 1, fence, &v), 0);
	assert_int_equal(v, 1u << 16);
	assert_int_not_equal(far_read(sim, fence), 1u << 16);	/* AID 0's untouched */
	window_write(sim, fence * 4ull, 0x5a);		/* local: AID 0's own */
	assert_int_equal(far_read(sim, fence), 0x5a);
	window_write(sim, fence * 4ull + (1ull << 34 | 2ull << 32), 7);	/* no AID 2 */
	window_write(sim, fence * 4ull + (1ull << 32), 7);		/* no bit 34 */
	window_write(sim, fence * 4ull + (1ull << 34), 7);		/* AID 0, cross */
	assert_int_equal(amd_sim_aid_reg(sim, 1, fence, &v), 0);
	assert_int_equal(v, 1u << 16);
	assert_int_equal(far_read(sim, fence), 0x5a);
	/* A reset clears them, as AID 0's registers. */
	assert_int_equal(amd_sim_inject(sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	assert_int_equal(amd_sim_aid_reg(sim, 1, fence, &v), -ENOENT);
	assert_int_equal(amd_sim_aid_reg(sim, 2, fence, &v), -EINVAL);
	assert_int_equal(amd_sim_aid_reg(sim, 0, fence, &v), -EINVAL);
	assert_int_equal(amd_sim_aid_reg(sim, 1, fence, NULL), -EINVAL);
	amd_sim_destroy(sim);
	fake_remove(root);
	/* AIDs must divide the XCCs; at most 4. */
	o.aids = 3;
	assert_int_equal(amd_sim_create(&o, &sim), -EINVAL);
	o.aids = 8;
	o.xccs = 8;
	assert_int_equal(amd_sim_create(&o, &sim), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_registers_match_the_tables),
		cmocka_unit_test(test_sim_xccs_match_the_tables),
		cmocka_unit_test(test_sim_aid_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
