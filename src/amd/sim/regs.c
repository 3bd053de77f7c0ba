/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/regs.c: the register file (BAR5) and the registers that do
 * something when written: the HQD bank GRBM_GFX_CNTL selects (cp.c), the
 * SDMA queue's (sdma.c), the IH ring's (ih.c), MP0's (psp.c) and MP1's
 * mailboxes (smu.c), XCCs 1..7's CP_MEC_CNTL (mec.c), NBIO 7.9's SDMA
 * doorbell routing (nbio.c). Every other register keeps
 * what was written, as scratch registers do; docs/amd.md lists those the
 * sim gives meaning to. Registers past BAR5 (MP1 14's mailbox, MMHUB's
 * second segment) are reached as on hardware through the RSMU index/data
 * pair (amd-facts §0.3: index * 4 to RSMU_INDEX, then RSMU_DATA); the sim
 * keeps the few that are written in a small table.
 */
#include <errno.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

static uint32_t
far_get(struct amd_sim *s, uint32_t index)
{
	uint32_t v = 0;

	pthread_mutex_lock(&s->far_lock);
	for (size_t i = 0; i < (*s->nfar); i++)
		if (s->far[i].index == index)
			v = s->far[i].value;
	pthread_mutex_unlock(&s->far_lock);
	return v;
}

static void
far_set(struct amd_sim *s, uint32_t index, uint32_t value)
{
	size_t i;

	pthread_mutex_lock(&s->far_lock);
	for (i = 0; i < (*s->nfar) && s->far[i].index != index; i++)
		;
	if (i < SIM_FAR_REGS) {		/* past 64 registers, writes are lost */
		s->far[i].index = index;
		s->far[i].value = value;
		(*s->nfar) += i == (*s->nfar);
	}
	pthread_mutex_unlock(&s->far_lock);
}

uint32_t
sim_reg(struct amd_sim *s, uint32_t index)
{
	if (index >= SIM_REGS)
		return far_get(s, index);
	return atomic_load_explicit(&s->regs[index], memory_order_acquire);
}

void
sim_reg_set(struct amd_sim *s, uint32_t index, uint32_t value)
{
	if (index >= SIM_REGS)
		far_set(s, index, value);
	else
		atomic_store_explicit(&s->regs[index], value, memory_order_release);
}

static bool
in(uint32_t index, uint32_t start, uint32_t n)
{
	return start && index >= start && index < start + n;
}

/* GRBM_GFX_CNTL's queue, when it selects ME1 pipe 0 (linux's fields:
 * pipeid[1:0], meid[3:2], queueid[10:8]); -1 for another. */
static int
selected_queue(struct amd_sim *s)
{
	uint32_t v = sim_reg(s, s->lay.grbm_gfx_cntl);

	if ((v & 3) != 0 || ((v >> 2) & 3) != 1)
		return -1;
	return (int)((v >> 8) & 7);
}

int
amd_sim_reg_read(struct amd_sim *s, uint32_t index, uint32_t *out)
{
	int q;

	if (!s || !out)
		return amd_fail(-EINVAL, "sim or out is NULL");
	if (index >= SIM_REGS)
		return amd_fail(-EINVAL, "register 0x%x is past BAR5 (0x%x dwords)",
				index, SIM_REGS);
	if (in(index, s->lay.hqd, SIM_HQD_REGS) && (q = selected_queue(s)) >= 0) {
		sim_engine_lock(&s->cp);
		*out = s->cp.q[q].hqd[index - s->lay.hqd];
		sim_engine_unlock(&s->cp);
		return 0;
	}
	if (index == s->lay.rsmu_data)
		index = sim_reg(s, s->lay.rsmu_index) / 4;
	*out = sim_reg(s, index);
	return 0;
}

int
amd_sim_reg_write(struct amd_sim *s, uint32_t index, uint32_t value)
{
	unsigned x;
	int q;

	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	if (index >= SIM_REGS)
		return amd_fail(-EINVAL, "register 0x%x is past BAR5 (0x%x dwords)",
				index, SIM_REGS);
	atomic_fetch_add_explicit(&s->reg_writes, 1, memory_order_relaxed);
	if (in(index, s->lay.hqd, SIM_HQD_REGS)) {
		if ((q = selected_queue(s)) < 0)
			return 0;	/* another ME's or pipe's: not modelled */
		sim_engine_lock(&s->cp);
		s->cp.q[q].hqd[index - s->lay.hqd] = value;
		cp_hqd_write(s, (uint32_t)q << 8 | (index - s->lay.hqd));
		sim_engine_route(&s->cp);
		sim_engine_unlock(&s->cp);
		return 0;
	}
	if (index == s->lay.rsmu_data)
		index = sim_reg(s, s->lay.rsmu_index) / 4;
	else if (s->lay.pcie_data2 && index == s->lay.pcie_data2 &&
		 sim_ext_write(s, &index, value))
		return 0;		/* another AID's, or nothing */
	if ((x = sim_xcc_of(s, index)) &&
	    atomic_load_explicit(&s->mp->xcc_writes_fail, memory_order_relaxed) == x)
		return amd_fail(-EIO, "the sim's injected fault: XCC %u's register 0x%x "
				"takes no write", x, index);
	if (sim_psp_write(s, index, value) || sim_smu_write(s, index, value))
		return 0;
	sim_reg_set(s, index, value);
	if (x && index == s->lay.xcc[x].mec_cntl) {
		sim_mec_xcc_write(s, x, value);
	} else if (in(index, s->lay.mec_cntl, 1) || in(index, s->lay.mec_pc, 1) ||
	    in(index, s->lay.mec_pc_hi, 1) || in(index, s->lay.mec_rs64_cntl, 1)) {
		sim_mec_write(s, index, value);
	} else if (in(index, s->lay.sdma_q0, 0x40)) {
		sim_engine_lock(&s->sdma);
		sdma_reg_write(s, index - s->lay.sdma_q0);
		sim_engine_route(&s->sdma);
		sim_engine_unlock(&s->sdma);
	} else if (in(index, s->lay.ih, 8)) {
		sim_ih_reg_write(s, index - s->lay.ih);
	} else {
		sim_nbio_write(s, index);
	}
	return 0;
}

/*
 * A GPU a clean session left (amd-facts §3.1): its security processor's
 * OS and its power manager answer, RLC autoload is complete, the MEC
 * runs (mec.c) and the CP idle, the mark in SCRATCH_REG7 with SCRATCH_REG6 = 0 (clean), no VM
 * fault pending, the frame buffer at MC 0 (FB_LOCATION_BASE/TOP in 16 MiB
 * units, §3.2).
 */
void
sim_regs_clean_session(struct amd_sim *s, uint32_t mark)
{
	const struct sim_layout *l = &s->lay;

	sim_reg_set(s, 0xde3, (uint32_t)(s->vram_bytes >> 20));	/* RCC_CONFIG_MEMSIZE */
	sim_reg_set(s, l->c2pmsg_81, 1);
	sim_reg_set(s, l->mp1_c2pmsg_90, 1);
	sim_mp_running(s);
	sim_mec_clean(s);
	if (l->rlc_bootload)
		sim_reg_set(s, l->rlc_bootload, 1u << 31);
	sim_reg_set(s, l->cp_stat, 0);
	sim_reg_set(s, l->scratch7, mark);
	sim_reg_set(s, l->scratch6, 0);
	if (l->vm_fault_status)
		sim_reg_set(s, l->vm_fault_status, 0);
	sim_reg_set(s, l->fb_base, 0);
	sim_reg_set(s, l->fb_base + 1, (uint32_t)((s->vram_bytes - 1) >> 24));
}
