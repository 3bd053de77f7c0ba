/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/mec.c: the MEC's gate. The CP's compute engine runs a queue's
 * packets only while the MEC runs: after the RLC placed the MEC's image
 * (the PSP's AUTOLOAD_RLC on GC 11 and 12, GC 9.4.3's REG_LIST:
 * amd-facts §3.3, §3.14) and then, GC 9, CP_MEC_CNTL written 0 (§3.10
 * step 7: _config_mec's halt and pipe-reset bits are 1, _enable_mec's
 * 0), or, GC 11 and 12, both the program counter CP_MEC_RS64_PRGRM_CNTR_
 * START and _HI written, under GRBM_GFX_CNTL me 1 pipe 0, with that
 * image's start address (START = (lo >> 2) | (hi << 30), START_HI = hi >>
 * 2, §1.5), and CP_MEC_RS64_CNTL un-halted as linux's gfx_v11_0.c and
 * gfx_v12_0.c cp_compute_enable(true) write it, which their kiq_resume
 * does before any queue: mec_halt [30] 0, mec_pipe0_reset [16] 0 and
 * mec_pipe0_active [26] 1 (bit positions of linux's gc_11_0_0_sh_mask.h
 * and gc_12_0_0_sh_mask.h; pipes 1..3, whose queues the sim does not
 * model, are not looked at). CP_MEC_RS64_CNTL reads at power-on as
 * cp_compute_enable(false) leaves it (icache invalidate [4], the four
 * pipe resets [19:16], halt [30]): what the hardware's reset value is
 * is not in the facts, so a driver that forgets the un-halt fails here
 * as it would on a GPU that comes up halted. A reset halts the MEC and
 * drops the image; a clean session leaves it running, so a partial boot
 * finds it so. A queue of a halted MEC stays idle, as on hardware: its
 * driver's own wait names the step. GC 9.4.3 with several XCCs: each
 * XCC's MEC has a gate of its own, its CP_MEC_CNTL's (sim_mec_xcc_write);
 * only XCC 0's runs queues.
 *
 * Not gated, for want of their fields in amd-facts: GC 9's separate bits
 * (any value but 0 halts here), and RLC_CNTL: with the PSP's autoload
 * linux starts no RLC of its own, so the RLC runs once its images are in
 * place; PFP and ME (no graphics queue here).
 *
 * Locks. The state is atomics in the shared block (priv.h's sim_mp):
 * the PSP stores the load under mp_lock and takes no other lock here;
 * the register path and the CP read and store them with no lock, and a
 * start only kicks the CP's event count. So nothing here takes a CP
 * lock under mp_lock, which keeps priv.h's order (an engine's lock, then
 * mp_lock: a CP packet's register write may reach the mailboxes).
 */
#include "amd/sim/priv.h"

/* CP_MEC_RS64_CNTL's fields (linux gc_11_0_0/gc_12_0_0_sh_mask.h). */
#define RS64_INVALIDATE_ICACHE	(1u << 4)
#define RS64_PIPE_RESETS	(0xfu << 16)	/* pipes 0..3 */
#define RS64_PIPE0_RESET	(1u << 16)
#define RS64_PIPE_ACTIVES	(0xfu << 26)
#define RS64_PIPE0_ACTIVE	(1u << 26)
#define RS64_HALT		(1u << 30)
#define RS64_HALTED		(RS64_INVALIDATE_ICACHE | RS64_PIPE_RESETS | RS64_HALT)

/* Whether CP_MEC_RS64_CNTL lets pipe 0 run (GC 9 has none: true). */
static bool
rs64_unhalted(struct amd_sim *s)
{
	uint32_t v;

	if (!s->lay.mec_rs64_cntl)
		return true;
	v = sim_reg(s, s->lay.mec_rs64_cntl);
	return !(v & (RS64_HALT | RS64_PIPE0_RESET)) && (v & RS64_PIPE0_ACTIVE);
}

void
sim_mec_power_on(struct amd_sim *s)
{
	if (s->lay.mec_rs64_cntl)
		sim_reg_set(s, s->lay.mec_rs64_cntl, RS64_HALTED);
	for (unsigned x = 0; x < SIM_XCCS; x++)
		atomic_store_explicit(&s->mp->xcc_mec_runs[x], false, memory_order_release);
	atomic_store_explicit(&s->mp->mec_runs, false, memory_order_release);
	atomic_store_explicit(&s->mp->mec_loaded, false, memory_order_release);
}

void
sim_mec_loaded(struct amd_sim *s, uint64_t start)
{
	uint32_t lo = (uint32_t)start, hi = (uint32_t)(start >> 32);

	atomic_store_explicit(&s->mp->mec_pc_want,
			      (uint64_t)(hi >> 2) << 32 | (uint32_t)(lo >> 2 | hi << 30),
			      memory_order_relaxed);
	/* Release: the start address before the flag. */
	atomic_store_explicit(&s->mp->mec_loaded, true, memory_order_release);
}

void
sim_mec_clean(struct amd_sim *s)
{
	/* At the start address of the image the sim expects (with none
	 * found, 0: a driver's counter write then stops it). */
	pthread_mutex_lock(&s->mp_lock);
	sim_fw_load(s);
	sim_mec_loaded(s, s->fw.ready ? s->fw.mec_start : 0);
	pthread_mutex_unlock(&s->mp_lock);
	if (s->lay.mec_rs64_cntl)
		sim_reg_set(s, s->lay.mec_rs64_cntl, RS64_PIPE_ACTIVES);
	for (unsigned x = 1; x < s->lay.xccs; x++)
		atomic_store_explicit(&s->mp->xcc_mec_runs[x], true, memory_order_release);
	atomic_store_explicit(&s->mp->mec_runs, true, memory_order_release);
}

/* Whether GRBM_GFX_CNTL selects ME1 pipe 0 (pipeid[1:0], meid[3:2]). */
static bool
me1_pipe0(struct amd_sim *s)
{
	return (sim_reg(s, s->lay.grbm_gfx_cntl) & 0xf) == 1u << 2;
}

void
sim_mec_write(struct amd_sim *s, uint32_t index, uint32_t value)
{
	const struct sim_layout *l = &s->lay;
	struct sim_mp *m = s->mp;
	bool runs;

	if (index == l->mec_cntl)
		runs = value == 0;
	else if (index == l->mec_rs64_cntl)
		runs = true;	/* one register for every pipe: no selection */
	else if (!me1_pipe0(s))
		return;		/* another pipe's counter: not modelled */
	else
		runs = true;
	/* Acquire: pairs with sim_mec_loaded()'s release, so mec_pc_want
	 * below is the loaded image's. */
	runs = runs && atomic_load_explicit(&m->mec_loaded, memory_order_acquire) &&
	       !atomic_load_explicit(&m->mec_stays_halted, memory_order_relaxed);
	if (runs && index != l->mec_cntl) {
		uint64_t want = atomic_load_explicit(&m->mec_pc_want, memory_order_relaxed);

		/* The counter is ME1 pipe 0's bank: a write of the control
		 * register reads the bank as last written under that
		 * selection, which the sim keeps in the one register. */
		runs = sim_reg(s, l->mec_pc) == (uint32_t)want &&
		       sim_reg(s, l->mec_pc_hi) == (uint32_t)(want >> 32) &&
		       rs64_unhalted(s);
	}
	atomic_store_explicit(&m->mec_runs, runs, memory_order_release);
	if (runs)
		sim_engine_kick(&s->cp);
}

/* XCC xcc's (> 0) gate: as GC 9's XCC 0, CP_MEC_CNTL 0 once the RLC
 * placed the image; its queues are not modelled (rig's run on XCC 0). */
void
sim_mec_xcc_write(struct amd_sim *s, unsigned xcc, uint32_t value)
{
	struct sim_mp *m = s->mp;
	bool runs = value == 0 &&
		    atomic_load_explicit(&m->mec_loaded, memory_order_acquire) &&
		    !atomic_load_explicit(&m->mec_stays_halted, memory_order_relaxed);

	if (xcc > 0 && xcc < SIM_XCCS)
		atomic_store_explicit(&m->xcc_mec_runs[xcc], runs, memory_order_release);
}

bool
sim_mec_xcc_runs(struct amd_sim *s, unsigned xcc)
{
	if (xcc == 0)
		return sim_mec_runs(s);
	return xcc < SIM_XCCS &&
	       atomic_load_explicit(&s->mp->xcc_mec_runs[xcc], memory_order_acquire);
}

bool
sim_mec_runs(struct amd_sim *s)
{
	return atomic_load_explicit(&s->mp->mec_runs, memory_order_acquire);
}
