/* SPDX-License-Identifier: MIT */
/*
 * amd/pm4/dispatch.h: a launch as the compute queue runs it: the COMPUTE_*
 * registers a kernel descriptor gives (amd-facts §7.1-7.3) set with
 * SET_SH_REG, then DISPATCH_DIRECT and a CS partial flush, in the order of
 * amd-facts §4.5 (tinygrad's exec(), which its mock and hardware run).
 * struct pm4_dispatch is what entry derives once per function (its
 * dispatch template, its packets encoded once); pm4_launch() is what a
 * submit writes per launch: a copy of them with the launch's kernargs,
 * group and grid.
 *
 * Two forms. SET_SH_REG state stays on the queue from one dispatch to the
 * next (the registers are the queue's until a packet sets them again;
 * radeonsi and RADV emit a compute program's registers only when the
 * program changes), so a launch of the function the queue launched last
 * needs only what changes per launch: the acquire, the kernarg address,
 * the group, the dispatch and the flush ("again", 24 dwords on GFX11
 * where "full" is 49). The device says which form a launch takes
 * (amd/dev/queue.c): full after anything else set SH registers.
 * Register indices are the SH window's, fixed on every generation but
 * COMPUTE_PGM_RSRC3 (§4.5).
 */
#ifndef AMD_PM4_DISPATCH_H
#define AMD_PM4_DISPATCH_H

#include <string.h>

#include "amd/pm4/pm4.h"

/* §4.5: COMPUTE_* dword indices in the SH window. */
#define regCOMPUTE_START_X		0x2e04
#define regCOMPUTE_NUM_THREAD_X		0x2e07
#define regCOMPUTE_PGM_LO		0x2e0c
#define regCOMPUTE_PGM_RSRC1		0x2e12
#define regCOMPUTE_RESOURCE_LIMITS	0x2e15
#define regCOMPUTE_TMPRING_SIZE		0x2e18
#define regCOMPUTE_RESTART_X		0x2e1b
#define regCOMPUTE_USER_DATA_0		0x2e40
#define regCOMPUTE_PGM_RSRC3_GFX9	0x2e2d
#define regCOMPUTE_PGM_RSRC3_GFX11	0x2e28

/* The user SGPRs a launch sets, COMPUTE_USER_DATA_0..15 (§7.3). */
#define PM4_USER_SGPRS	16

/* The most dwords a launch takes (16 user SGPRs, GFX11/12). */
#define PM4_LAUNCH_MAX	64

/*
 * A function's dispatch template. The caller fills the registers: code,
 * the entry's address (256-aligned: COMPUTE_PGM_LO holds it >> 8); rsrc1-3
 * as the descriptor gives them (rsrc2 with its LDS granules); tmpring:
 * COMPUTE_TMPRING_SIZE; resource_limits; user: the user SGPRs in order,
 * nuser of them (2 to 16), the kernarg address going into
 * user[kernarg_at] and user[kernarg_at + 1]; initiator: its
 * COMPUTE_DISPATCH_INITIATOR (wave32 included). pm4_dispatch_build()
 * then encodes the launch's packets once into dwords, noting where the
 * kernarg address, the group and the grid go, so a launch is one copy and
 * eight stores. serial: the maker's name for the function, never 0 and
 * never another function's of the queue (a form chosen by it outlives
 * a freed template whose address a new one takes).
 */
struct pm4_form {
	uint32_t dwords[PM4_LAUNCH_MAX];
	uint32_t ndwords;
	uint32_t at_kernarg, at_group, at_grid;
};

struct pm4_dispatch {
	uint64_t code;
	uint32_t rsrc1, rsrc2, rsrc3;
	uint32_t tmpring;
	uint32_t resource_limits;
	uint32_t user[PM4_USER_SGPRS];
	uint32_t nuser;
	uint32_t kernarg_at;
	uint32_t initiator;
	uint64_t serial;
	/* built: every register (full), or only the per-launch ones (again) */
	struct pm4_form full, again;
};

/* The acquire before a launch: what a kernel reads fresh (§4.5 step 1;
 * host memory is snooped, so L2 stays). */
#define PM4_LAUNCH_ACQUIRE	(PM4_INV_K | PM4_INV_V | PM4_INV_L1)

/* Dwords a launch of a template of nuser user SGPRs takes. */
static inline uint32_t
pm4_launch_dwords(enum amd_gfx gen, uint32_t nuser)
{
	return pm4_acquire_mem_dwords(gen) + 4 + 4 + 3 + 3 + 5 + (2 + nuser) +
	       3 + 8 + PM4_DISPATCH_DIRECT_DWORDS + PM4_EVENT_WRITE_DWORDS;
}

/* Dwords a launch in the again form takes (any number of user SGPRs). */
static inline uint32_t
pm4_again_dwords(enum amd_gfx gen)
{
	return pm4_acquire_mem_dwords(gen) + 4 + 5 + PM4_DISPATCH_DIRECT_DWORDS +
	       PM4_EVENT_WRITE_DWORDS;
}

/*
 * pm4_dispatch_build() - encode t's launch for gen into t->full: the
 * acquire, the registers, the dispatch and a CS partial flush, in §4.5's
 * order, with the kernarg address, group and grid left 0 for
 * pm4_launch() to fill; and into t->again the same with only the
 * registers a launch changes: the kernarg address's two user SGPRs and
 * NUM_THREAD_X..Z. Never fails: nuser is 2 to 16 and kernarg_at at
 * most nuser - 2 (the caller's template, checked where it is made).
 */
static inline void
pm4_dispatch_build(struct pm4_dispatch *t, enum amd_gfx gen)
{
	const uint32_t pgm[2] = { (uint32_t)(t->code >> 8),
				  (uint32_t)(t->code >> 40) };
	const uint32_t rsrc[2] = { t->rsrc1, t->rsrc2 };
	const uint32_t zero[6] = { 0 };
	struct pm4_form *f = &t->full;
	uint32_t *p = f->dwords;

	p = pm4_acquire_mem(p, gen, PM4_LAUNCH_ACQUIRE);
	p = pm4_set_sh_reg(p, regCOMPUTE_PGM_LO, pgm, 2);
	p = pm4_set_sh_reg(p, regCOMPUTE_PGM_RSRC1, rsrc, 2);
	p = pm4_set_sh_reg1(p, gen == AMD_GFX9 ? regCOMPUTE_PGM_RSRC3_GFX9 :
			    regCOMPUTE_PGM_RSRC3_GFX11, t->rsrc3);
	p = pm4_set_sh_reg1(p, regCOMPUTE_TMPRING_SIZE, t->tmpring);
	p = pm4_set_sh_reg(p, regCOMPUTE_RESTART_X, zero, 3);
	f->at_kernarg = (uint32_t)(p - f->dwords) + 2 + t->kernarg_at;
	p = pm4_set_sh_reg(p, regCOMPUTE_USER_DATA_0, t->user, t->nuser);
	p = pm4_set_sh_reg1(p, regCOMPUTE_RESOURCE_LIMITS, t->resource_limits);
	f->at_group = (uint32_t)(p - f->dwords) + 2 + 3;	/* NUM_THREAD_X */
	p = pm4_set_sh_reg(p, regCOMPUTE_START_X, zero, 6);
	f->at_grid = (uint32_t)(p - f->dwords) + 1;
	p = pm4_dispatch_direct(p, 0, 0, 0, t->initiator);
	p = pm4_event_write(p, PM4_EVENT_CS_PARTIAL_FLUSH,
			    PM4_EVENT_INDEX_CS_PARTIAL_FLUSH);
	f->ndwords = (uint32_t)(p - f->dwords);

	f = &t->again;
	p = pm4_acquire_mem(f->dwords, gen, PM4_LAUNCH_ACQUIRE);
	f->at_kernarg = (uint32_t)(p - f->dwords) + 2;
	p = pm4_set_sh_reg(p, regCOMPUTE_USER_DATA_0 + t->kernarg_at, zero, 2);
	f->at_group = (uint32_t)(p - f->dwords) + 2;
	p = pm4_set_sh_reg(p, regCOMPUTE_NUM_THREAD_X, zero, 3);
	f->at_grid = (uint32_t)(p - f->dwords) + 1;
	p = pm4_dispatch_direct(p, 0, 0, 0, t->initiator);
	p = pm4_event_write(p, PM4_EVENT_CS_PARTIAL_FLUSH,
			    PM4_EVENT_INDEX_CS_PARTIAL_FLUSH);
	f->ndwords = (uint32_t)(p - f->dwords);
}

/*
 * pm4_launch() - one launch in form f (a built template's full or again)
 * over grid groups (each >= 1) of group threads, its kernargs at kernarg:
 * f->ndwords dwords.
 */
static inline uint32_t *
pm4_launch(uint32_t *p, const struct pm4_form *f, uint64_t kernarg,
	   const uint32_t grid[3], const uint32_t group[3])
{
	memcpy(p, f->dwords, f->ndwords * sizeof(uint32_t));
	p[f->at_kernarg] = (uint32_t)kernarg;
	p[f->at_kernarg + 1] = (uint32_t)(kernarg >> 32);
	p[f->at_group] = group[0];
	p[f->at_group + 1] = group[1];
	p[f->at_group + 2] = group[2];
	p[f->at_grid] = grid[0];
	p[f->at_grid + 1] = grid[1];
	p[f->at_grid + 2] = grid[2];
	return p + f->ndwords;
}

#endif
