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
 * Bases: the Navi bases of §0.3 (Vega's GC bases for GC 9). Offsets of
 * §3.13 and §3.10 are the facts' (GC 11.0.0; GC 12 and 9.4.3 where §3.13
 * names them). Those marked U are linux's gc_10_1_0 / gc_11_0_0 headers
 * as the author knows them, not in amd-facts: UNVERIFIED, and
 * docs/amd.md says so. A driver built from other tables finds any
 * disagreement as a test on the sim that fails.
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
};

static const struct gc_regs gc11_regs = {
	.scratch6 = { 1, 0x2046 }, .scratch7 = { 1, 0x2047 },
	.grbm_gfx_cntl = { 1, 0x900 }, .cp_stat = { 0, 0xf40 },
	.rlc_bootload = { 1, 0x4e82 }, .hqd = { 0, 0x1fa9 },
	.vm_cntl = { 0, 0x1688 },
	.vm_base_lo = { 0, 0x16f3 }, .vm_start_lo = { 0, 0x1713 },	/* U */
	.vm_end_lo = { 0, 0x1733 }, .vm_fault_status = { 0, 0x15de },	/* U */
	.sdma_q0 = { 0, 0x80 },
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
};

/* GC 9.4.3: no RLC autoload register, SDMA's queues not modelled (§3.11:
 * SDMA_GFX_ offsets are not in the facts), so those stay 0. */
static const struct gc_regs gc9_regs = {
	.scratch6 = { 1, 0x2046 }, .scratch7 = { 1, 0x2047 },
	.grbm_gfx_cntl = { 0, 0x22 }, .cp_stat = { 0, 0x1a0 },
	.hqd = { 0, 0x1245 }, .vm_cntl = { 0, 0x860 },
	.vm_base_lo = { 0, 0x8cb }, .vm_start_lo = { 0, 0x8eb },	/* U */
	.vm_end_lo = { 0, 0x90b },					/* U */
};

struct gc_def {
	struct sim_layout lay;
	const struct gc_regs *regs;
};

static const struct gc_def defs[] = {
	{ { .gc = "9.4.3", .ver = { {9,4,3}, {4,4,2}, {13,0,6}, {13,0,6}, {1,8,0}, {7,9,0}, {4,4,2}, {4,4,2} },
	    .soc = 15, .pte = PTE_VG10, .gfx12 = false }, &gc9_regs },
	{ { .gc = "11.0.0", .ver = { {11,0,0}, {6,0,0}, {13,0,0}, {13,0,0}, {3,0,0}, {4,3,0}, {6,0,0}, {6,0,0} },
	    .soc = 21, .pte = PTE_NV10, .gfx12 = false }, &gc11_regs },
	{ { .gc = "11.0.2", .ver = { {11,0,2}, {6,0,2}, {13,0,7}, {13,0,7}, {3,0,1}, {4,3,0}, {6,0,1}, {6,0,0} },
	    .soc = 21, .pte = PTE_NV10, .gfx12 = false }, &gc11_regs },
	{ { .gc = "12.0.0", .ver = { {12,0,0}, {7,0,0}, {14,0,2}, {14,0,2}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} },
	    .soc = 21, .pte = PTE_GFX12, .gfx12 = true }, &gc12_regs },
	{ { .gc = "12.0.1", .ver = { {12,0,1}, {7,0,1}, {14,0,3}, {14,0,3}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} },
	    .soc = 21, .pte = PTE_GFX12, .gfx12 = true }, &gc12_regs },
};

const struct sim_layout *
sim_layout_find(const char *gc)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!strcmp(defs[i].lay.gc, gc))
			return &defs[i].lay;
	return NULL;
}

static const struct gc_regs *
regs_of(const struct sim_layout *l)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!strcmp(defs[i].lay.gc, l->gc))
			return defs[i].regs;
	return NULL;
}

/* A block's segment base as linux keeps it (the low 30 bits, §2.4). */
static int
base_of(const struct amd_discovery *t, uint16_t hw_id, int seg, uint32_t *out)
{
	const struct amd_block *b = amd_discovery_block(t, hw_id);

	if (!b || seg >= b->nbases)
		return amd_fail(-EPROTO, "the sim's table has no %s segment %d",
				amd_hw_name(hw_id), seg);
	*out = (uint32_t)(b->base[seg] & 0x3FFFFFFF);
	return 0;
}

static uint32_t
at(const uint32_t gc[4], struct reg r)
{
	return r.off ? gc[r.seg] + r.off : 0;
}

int
sim_layout_resolve(struct sim_layout *l, const uint8_t *table, size_t len)
{
	static _Thread_local struct amd_discovery t;	/* 60 KiB: off the stack */
	const struct gc_regs *r = regs_of(l);
	uint32_t gc[4], oss, mmhub, mp0, mp1;
	int ret;

	ret = amd_discovery_parse(table, len, &t);
	for (int k = 0; k < 4 && !ret; k++)
		ret = base_of(&t, GC_HWID, k, &gc[k]);
	if (!ret)
		ret = base_of(&t, OSSSYS_HWID, 0, &oss);
	if (!ret)
		ret = base_of(&t, MMHUB_HWID, 0, &mmhub);
	if (!ret)
		ret = base_of(&t, MP0_HWID, 0, &mp0);
	if (!ret)
		ret = base_of(&t, MP1_HWID, 0, &mp1);
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
	l->sdma_q0 = at(gc, r->sdma_q0);
	l->ih = oss + 0x80;				/* §3.13 IH_RB_CNTL */
	l->ih_v7 = l->ver[6][0] >= 7;
	l->fb_base = mmhub + 0x8ec;			/* §3.13 */
	l->c2pmsg_81 = mp0 + 0x91;			/* §3.13 */
	l->mp1_c2pmsg_90 = mp1 + 0x29a;			/* §3.13 */
	return 0;
}
