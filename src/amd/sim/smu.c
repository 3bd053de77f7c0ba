/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/smu.c: the power manager (MP1) as amd-facts §3.9 says a driver
 * finds it. Its firmware runs once the PSP loaded it (or as a session
 * left it). A message in C2PMSG_66 with its argument in C2PMSG_82 is
 * answered in C2PMSG_90: GetSmuVersion (the loaded image's ucode_version
 * in C2PMSG_82), SetDriverDramAddrHigh/Low (an address in VRAM, else
 * 0xFF failed), EnableAllSmuFeatures (0xFD, prerequisite, before the
 * driver table's address), TestMessage; 0xFE for any other. Its debug
 * mailbox's message 2 in C2PMSG_75 resets the GPU whole (mode 1, below).
 * With no firmware running, or silenced (amd_sim_inject), nothing answers.
 * Message ids are MP1 13.0.0's and 14.0.2's (identical for these); MP1
 * 13.0.6 (GC 9.4.3) numbers them otherwise (§3.9: EnableAllSmuFeatures 5,
 * SetDriverDramAddrHigh 0xD, Low 0xE) and takes GfxDriverReset(1),
 * message 3, as its mode-1 reset; its debug mailbox answers nothing here.
 */
#include "amd/sim/priv.h"

static uint32_t
c2p(const struct amd_sim *s, uint32_t n)
{
	return s->lay.mp1_c2pmsg_90 - 90 + n;
}

/*
 * Mode 1: the whole GPU resets, as at power-on. The engines stop and the
 * registers clear (a function reset's loss, tree.c), VRAM keeps its bytes,
 * the VRAM size and the frame buffer's place are set again as the
 * firmware sets them before any driver runs (§3.2), the bootloader is
 * ready and no sOS or SMU firmware runs, unless injected to survive (and
 * never for a power cycle). Called without mp_lock: the engines' locks
 * first, then mp_lock for the processors' state, never one under the
 * other (a CP packet's register write takes mp_lock under the CP's).
 */
void
sim_mode1_reset(struct amd_sim *s, bool power_cycle)
{
	struct sim_mp *m = s->mp;
	uint32_t survives;

	sim_function_reset(s);
	pthread_mutex_lock(&s->mp_lock);
	survives = m->sos_survives;
	if (power_cycle)
		m->sos_survives = 0;
	sim_reg_set(s, s->lay.fb_base, 0);
	sim_reg_set(s, s->lay.fb_base + 1, (uint32_t)((s->vram_bytes - 1) >> 24));
	sim_mp_power_on(s, true);
	m->sos_survives = survives;
	pthread_mutex_unlock(&s->mp_lock);
}

/* MP1 13.0.6's ids as 13.0.0's (§3.9); GfxDriverReset as 0x100. */
static uint32_t
as_13_0_0(uint32_t msg)
{
	switch (msg) {
	case 3: return 0x100;
	case 5: return 6;
	case 0xD: return 0xE;
	case 0xE: return 0xF;
	case 1: case 2: return msg;
	}
	return 0;	/* unknown */
}

/* The answer to msg; 0 with *reset set where it resets the GPU (the
 * caller resets it once mp_lock is released: sim_mode1_reset()). */
static uint32_t
message(struct amd_sim *s, uint32_t msg, uint32_t arg, bool *reset)
{
	struct sim_mp *m = s->mp;

	if (s->lay.ver[3][0] == 13 && s->lay.ver[3][2] == 6)
		msg = as_13_0_0(msg);
	switch (msg) {
	case 0x100:		/* 13.0.6's GfxDriverReset(1): mode 1 */
		if (arg != 1)
			return 0xFF;
		*reset = true;	/* the answer is lost with the registers */
		return 0;
	case 1:			/* TestMessage */
		sim_reg_set(s, c2p(s, 82), arg + 1);
		return 1;
	case 2:			/* GetSmuVersion */
		sim_reg_set(s, c2p(s, 82), m->smu_version);
		return 1;
	case 0xE:		/* SetDriverDramAddrHigh */
		m->dram_hi = true;
		m->dram_high = arg;
		return 1;
	case 0xF:		/* SetDriverDramAddrLow: 16 KiB of VRAM */
		if (!m->dram_hi)
			return 0xFD;
		m->dram_lo = sim_mc_ptr(s, (uint64_t)m->dram_high << 32 | arg,
					16u << 10) != NULL;
		return m->dram_lo ? 1 : 0xFF;
	case 6:			/* EnableAllSmuFeatures */
		if (!m->dram_lo)
			return 0xFD;
		m->features = true;
		return 1;
	}
	return 0xFE;
}

bool
sim_smu_write(struct amd_sim *s, uint32_t index, uint32_t value)
{
	struct sim_mp *m = s->mp;
	bool live, reset = false;

	if (!s->lay.mp1_c2pmsg_90 || (index != c2p(s, 66) && index != c2p(s, 75)))
		return false;
	pthread_mutex_lock(&s->mp_lock);
	sim_reg_set(s, index, value);
	live = m->smu && !m->smu_silent;
	if (live && index == c2p(s, 66)) {
		uint32_t answer = message(s, value, sim_reg(s, c2p(s, 82)), &reset);

		if (answer)		/* 0: reset, the registers cleared */
			sim_reg_set(s, c2p(s, 90), answer);
	} else if (live && index == c2p(s, 75) && s->lay.ver[0][0] != 9) {
		if (value == 2)
			reset = true;	/* the answer is lost with the registers */
		else
			sim_reg_set(s, c2p(s, 54), 0xFE);
	}
	pthread_mutex_unlock(&s->mp_lock);
	if (reset)
		sim_mode1_reset(s, false);
	return true;
}
