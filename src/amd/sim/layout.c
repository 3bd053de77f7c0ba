/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/layout.c: the GC versions the sim models, their blocks'
 * versions and the offsets of the registers the sim gives meaning to,
 * resolved against the bases of the discovery table it carries (as a
 * driver resolves them at open, amd-facts §0.3).
 *
 * Sources. GC, SDMA0, MP0 and MP1 versions: amd-facts §0.2 (linux's
 * dgpu-asic-info-table). MMHUB, NBIF, OSSSYS and HDP versions: those
 * tests/amd/synth.c builds (the GC 12.0.0 row is tinygrad's mock, §9).
 * Bases: the Navi bases of §0.3 (Vega's GC and SDMA0 bases for GC 9).
 * Offsets of §3.13 and §3.10 are the facts' (GC 11.0.0; GC 12 and 9.4.3
 * where §3.13 names them). Those marked U are not in amd-facts: linux's
 * asic_reg headers as the author read them, and where test_amd_sim_regs
 * found that reading wrong (GC 11's fault status, SDMA 7's queue, MMHUB
 * 1.8/3.0.1/4.1's FB location, MP1 14's C2PMSG_90, GC 9's fault status),
 * as src/amd/regs/regs.def carries them from the same headers. That test
 * compares every register here with the driver's tables, so the two
 * cannot drift apart unseen.
 */
#include <errno.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/discovery/discovery.h"
#include "amd/sim/priv.h"

/* Offsets within a block: (segment, offset). */
struct reg { uint8_t seg; uint32_t off; };

struct gc_regs {
	struct reg scratch6, scratch7, grbm_gfx_cntl, cp_stat, rlc_bootload, hqd;
	struct reg vm_cntl, vm_base_lo, vm_start_lo, vm_end_lo, vm_fault_status;
	struct reg sdma_q0;
	/* The MEC's gate (mec.c): GC 9's CP_MEC_CNTL, GC 11/12's program
	 * counter CP_MEC_RS64_PRGRM_CNTR_START and _HI (§3.10, §3.13) and
	 * CP_MEC_RS64_CNTL (regs.def, from linux's gc_11_0_0_offset.h). */
	struct reg mec_cntl, mec_pc, mec_pc_hi, mec_rs64_cntl;
	/* GC 9.4.3's per-XCC setup the sim checks (xcc.c; §3.10 step 6):
	 * GRBM_CNTL is at offset 0 of segment 0, so has_grbm_cntl says. */
	struct reg gb_addr_config, tcp_utcl1_cntl2, sh_mem_config, sh_mem_bases;
	struct reg db_lower, db_upper;
	bool has_grbm_cntl;
};

static const struct gc_regs gc11_regs = {
	.scratch6 = { 1, 0x2046 }, .scratch7 = { 1, 0x2047 },
	.grbm_gfx_cntl = { 1, 0x900 }, .cp_stat = { 0, 0xf40 },
	.rlc_bootload = { 1, 0x4e82 }, .hqd = { 0, 0x1fa9 },
	.vm_cntl = { 0, 0x1688 },
	.vm_base_lo = { 0, 0x16f3 }, .vm_start_lo = { 0, 0x1713 },	/* U */
	.vm_end_lo = { 0, 0x1733 }, .vm_fault_status = { 0, 0x15c8 },	/* U */
	.sdma_q0 = { 0, 0x80 },
	.mec_pc = { 1, 0x2900 }, .mec_pc_hi = { 1, 0x2938 },
	.mec_rs64_cntl = { 1, 0x2904 },
};

/* GC 12 moves GCVM by -0x64 (§3.13: CONTEXT0_CNTL 0x1688 -> 0x1624). */
static const struct gc_regs gc12_regs = {
	.scratch6 = { 1, 0x2046 }, .scratch7 = { 1, 0x2047 },
	.grbm_gfx_cntl = { 1, 0x900 }, .cp_stat = { 0, 0xf40 },
	.rlc_bootload = { 1, 0x4e7c }, .hqd = { 0, 0x1fa9 },
	.vm_cntl = { 0, 0x1624 },
	.vm_base_lo = { 0, 0x168f }, .vm_start_lo = { 0, 0x16af },	/* U */
	.vm_end_lo = { 0, 0x16cf }, .vm_fault_status = { 0, 0x15d0 },
	.sdma_q0 = { 0, 0x80 },
	.mec_pc = { 1, 0x2900 }, .mec_pc_hi = { 1, 0x2938 },	/* GC 11's */
	.mec_rs64_cntl = { 1, 0x2904 },
};

/* GC 9.4.3: no RLC autoload register (it stays 0); SDMA 4.4's SDMA_GFX_
 * queue registers keep SDMA 6's offsets (U). */
static const struct gc_regs gc9_regs = {
	.scratch6 = { 1, 0x2046 }, .scratch7 = { 1, 0x2047 },
	.grbm_gfx_cntl = { 0, 0x22 }, .cp_stat = { 0, 0x1a0 },
	.hqd = { 0, 0x1245 }, .vm_cntl = { 0, 0x860 },
	.vm_base_lo = { 0, 0x8cb }, .vm_start_lo = { 0, 0x8eb },	/* U */
	.vm_end_lo = { 0, 0x90b }, .vm_fault_status = { 0, 0x82b },	/* U */
	.sdma_q0 = { 0, 0x80 },
	.mec_cntl = { 0, 0x8d },
	.gb_addr_config = { 0, 0x63e }, .tcp_utcl1_cntl2 = { 0, 0x12b6 },
	.sh_mem_config = { 0, 0x30d }, .sh_mem_bases = { 0, 0x30a },
	.db_lower = { 0, 0x105c }, .db_upper = { 0, 0x105d },
	.has_grbm_cntl = true,
};

/* Offsets that follow the MMHUB, MP1 and SDMA versions (U). */
struct block_regs {
	struct reg fb_base;		/* MMMC_VM_FB_LOCATION_BASE */
	struct reg mp1_c2pmsg_90;
	uint8_t sdma_rptr_lo, sdma_rptr_hi, sdma_doorbell, sdma_doorbell_offset;
	uint32_t sdma_count_mask;
};

static const struct block_regs mi300 = { { 0, 0xc9c }, { 0, 0x29a }, 0x09, 0x08, 0x12, 0x2b, 0x3fffff };
static const struct block_regs navi31 = { { 0, 0x8ec }, { 0, 0x29a }, 0x09, 0x08, 0x12, 0x2b, 0x3fffffff };
static const struct block_regs navi33 = { { 1, 0x8ec }, { 0, 0x29a }, 0x09, 0x08, 0x12, 0x2b, 0x3fffffff };
static const struct block_regs navi4x = { { 0, 0x554 }, { 1, 0x9a }, 0x07, 0x08, 0x0f, 0x11, 0x3fffffff };

struct gc_def {
	struct sim_layout lay;
	const struct gc_regs *regs;
	const struct block_regs *blocks;
};

static const struct gc_def defs[] = {
	{ { .gc = "9.4.3", .ver = { {9,4,3}, {4,4,2}, {13,0,6}, {13,0,6}, {1,8,0}, {7,9,0}, {4,4,2}, {4,4,2} },
	    .soc = 15, .pte = PTE_VG10, .gfx12 = false }, &gc9_regs, &mi300 },
	{ { .gc = "11.0.0", .ver = { {11,0,0}, {6,0,0}, {13,0,0}, {13,0,0}, {3,0,0}, {4,3,0}, {6,0,0}, {6,0,0} },
	    .soc = 21, .pte = PTE_NV10, .gfx12 = false }, &gc11_regs, &navi31 },
	{ { .gc = "11.0.2", .ver = { {11,0,2}, {6,0,2}, {13,0,7}, {13,0,7}, {3,0,1}, {4,3,0}, {6,0,1}, {6,0,0} },
	    .soc = 21, .pte = PTE_NV10, .gfx12 = false }, &gc11_regs, &navi33 },
	{ { .gc = "12.0.0", .ver = { {12,0,0}, {7,0,0}, {14,0,2}, {14,0,2}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} },
	    .soc = 21, .pte = PTE_GFX12, .gfx12 = true }, &gc12_regs, &navi4x },
	{ { .gc = "12.0.1", .ver = { {12,0,1}, {7,0,1}, {14,0,3}, {14,0,3}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} },
	    .soc = 21, .pte = PTE_GFX12, .gfx12 = true }, &gc12_regs, &navi4x },
};

const struct sim_layout *
sim_layout_find(const char *gc)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!strcmp(defs[i].lay.gc, gc))
			return &defs[i].lay;
	return NULL;
}

static const struct gc_def *
def_of(const struct sim_layout *l)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!strcmp(defs[i].lay.gc, l->gc))
			return &defs[i];
	return NULL;
}

/* A block's segment base as linux keeps it (the low 30 bits, §2.4):
 * instance inst's (GC's XCCs; 0 for every other block). */
static int
base_in(const struct amd_discovery *t, uint16_t hw_id, unsigned inst, int seg,
	uint32_t *out)
{
	const struct amd_block *b = NULL;

	*out = 0;	/* set on a refusal too: -O3 cannot tell amd_fail() is < 0 */
	for (size_t i = 0; i < t->nblocks && !b; i++)
		if (t->blocks[i].hw_id == hw_id && t->blocks[i].instance == inst)
			b = &t->blocks[i];
	if (!b || seg >= b->nbases)
		return amd_fail(-EPROTO, "the sim's table has no %s instance %u segment %d",
				amd_hw_name(hw_id), inst, seg);
	*out = (uint32_t)(b->base[seg] & 0x3FFFFFFF);
	return 0;
}

static int
base_of(const struct amd_discovery *t, uint16_t hw_id, int seg, uint32_t *out)
{
	return base_in(t, hw_id, 0, seg, out);
}

static uint32_t
at(const uint32_t *bases, struct reg r)
{
	return r.off ? bases[r.seg] + r.off : 0;
}

/* Each XCC's registers at its GC instance's bases; NBIO 7.9's fence
 * (regs.def: XCC_DOORBELL_FENCE, segment 5, 0x740c) and its indirect
 * window to the other AIDs (ext.c), its segment-8 registers and the S2A
 * ports (nbio.c). */
static int
xccs_resolve(struct sim_layout *l, const struct amd_discovery *t,
	     const struct gc_regs *r)
{
	uint32_t gc[4], nbif5, nbif0, nbif8;
	int ret = 0;

	for (unsigned x = 0; x < l->xccs; x++) {
		struct sim_xcc *c = &l->xcc[x];

		for (int k = 0; k < 4 && !ret; k++)
			ret = base_in(t, GC_HWID, x, k, &gc[k]);
		if (ret < 0)
			return ret;
		c->vm_cntl = at(gc, r->vm_cntl);
		c->vm_base_lo = at(gc, r->vm_base_lo);
		c->mec_cntl = at(gc, r->mec_cntl);
		c->gb_addr_config = at(gc, r->gb_addr_config);
		c->tcp_utcl1_cntl2 = at(gc, r->tcp_utcl1_cntl2);
		c->grbm_cntl = r->has_grbm_cntl ? gc[0] : 0;
		c->sh_mem_config = at(gc, r->sh_mem_config);
		c->sh_mem_bases = at(gc, r->sh_mem_bases);
		c->db_lower = at(gc, r->db_lower);
		c->db_upper = at(gc, r->db_upper);
	}
	l->xcc_fence = l->pcie_index2 = l->pcie_data2 = l->pcie_index2_hi = 0;
	l->bifc_int_monitor = l->bifc_db_access = l->db_ctrl_entry0 = l->s2a_entry0 = 0;
	if (l->ver[0][0] == 9) {
		if ((ret = base_of(t, NBIF_HWID, 5, &nbif5)) < 0 ||
		    (ret = base_of(t, NBIF_HWID, 0, &nbif0)) < 0 ||
		    (ret = base_of(t, NBIF_HWID, 8, &nbif8)) < 0)
			return ret;
		l->xcc_fence = nbif5 + 0x740c;
		/* regs.def: PCIE_INDEX2 0xe, DATA2 0xf, INDEX2_HI 0x11, segment 0. */
		l->pcie_index2 = nbif0 + 0xe;
		l->pcie_data2 = nbif0 + 0xf;
		l->pcie_index2_hi = nbif0 + 0x11;
		/* linux's nbio_7_9_0_offset.h: BIFC_GFX_INT_MONITOR_MASK 0xe8ad,
		 * BIFC_DOORBELL_ACCESS_EN_PF 0xcf6e, DOORBELL0_CTRL_ENTRY_0
		 * 0xcd00, segment 8; S2A_DOORBELL_ENTRY_0_CTRL 0x7a80, segment 5. */
		l->bifc_int_monitor = nbif8 + 0xe8ad;
		l->bifc_db_access = nbif8 + 0xcf6e;
		l->db_ctrl_entry0 = nbif8 + 0xcd00;
		l->s2a_entry0 = nbif5 + 0x7a80;
	}
	return 0;
}

int
sim_layout_resolve(struct sim_layout *l, const uint8_t *table, size_t len)
{
	static _Thread_local struct amd_discovery t;	/* 60 KiB: off the stack */
	const struct gc_def *d = def_of(l);
	const struct gc_regs *r = d->regs;
	const struct block_regs *b = d->blocks;
	uint32_t gc[4], sdma[4], oss = 0, mmhub[2], mp0 = 0, mp1[2], nbif = 0;
	int ret;

	ret = amd_discovery_parse(table, len, &t);
	for (int k = 0; k < 4 && !ret; k++)
		ret = base_of(&t, GC_HWID, k, &gc[k]);
	for (int k = 0; k < 4 && !ret; k++)
		ret = base_of(&t, SDMA0_HWID, k, &sdma[k]);
	for (int k = 0; k < 2 && !ret; k++)
		ret = base_of(&t, MMHUB_HWID, k, &mmhub[k]);
	for (int k = 0; k < 2 && !ret; k++)
		ret = base_of(&t, MP1_HWID, k, &mp1[k]);
	if (!ret)
		ret = base_of(&t, OSSSYS_HWID, 0, &oss);
	if (!ret)
		ret = base_of(&t, MP0_HWID, 0, &mp0);
	if (!ret)
		ret = base_of(&t, NBIF_HWID, 1, &nbif);
	if (ret < 0)
		return ret;
	l->scratch6 = at(gc, r->scratch6);
	l->scratch7 = at(gc, r->scratch7);
	l->grbm_gfx_cntl = at(gc, r->grbm_gfx_cntl);
	l->cp_stat = at(gc, r->cp_stat);
	l->rlc_bootload = at(gc, r->rlc_bootload);
	l->hqd = at(gc, r->hqd);
	l->vm_cntl = at(gc, r->vm_cntl);
	l->vm_base_lo = at(gc, r->vm_base_lo);
	l->vm_start_lo = at(gc, r->vm_start_lo);
	l->vm_end_lo = at(gc, r->vm_end_lo);
	l->vm_fault_status = at(gc, r->vm_fault_status);
	l->sdma_q0 = at(sdma, r->sdma_q0);
	l->mec_cntl = at(gc, r->mec_cntl);
	l->mec_pc = at(gc, r->mec_pc);
	l->mec_pc_hi = at(gc, r->mec_pc_hi);
	l->mec_rs64_cntl = at(gc, r->mec_rs64_cntl);
	l->sdma_rptr_lo = b->sdma_rptr_lo;
	l->sdma_rptr_hi = b->sdma_rptr_hi;
	l->sdma_doorbell = b->sdma_doorbell;
	l->sdma_doorbell_offset = b->sdma_doorbell_offset;
	l->sdma_count_mask = b->sdma_count_mask;
	l->ih = oss + 0x80;				/* §3.13 IH_RB_CNTL */
	l->ih_v7 = l->ver[6][0] >= 7;
	l->fb_base = at(mmhub, b->fb_base);		/* §3.13 for MMHUB 3.0.0 */
	l->c2pmsg_81 = mp0 + 0x91;			/* §3.13 */
	l->mp1_c2pmsg_90 = at(mp1, b->mp1_c2pmsg_90);	/* §3.13 for MP1 13 */
	l->rsmu_index = nbif + 0x0;			/* §3.13, NBIO segment 1 */
	l->rsmu_data = nbif + 0x1;
	return xccs_resolve(l, &t, r);
}
