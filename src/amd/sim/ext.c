/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/ext.c: NBIO 7.9's indirect window to another AID's registers
 * (GC 9.4.3 with several AIDs), as a driver finds it: PCIE_INDEX2 holds
 * a byte address's low 32 bits, PCIE_INDEX2_HI its bits 39:32, and a
 * write to PCIE_DATA2 writes the register there (linux's
 * amdgpu_device_indirect_wreg_ext). Bits 39:32 are linux's extended SMN
 * part (aqua_vanjaram.c's encode_ext_smn_addressing): 0 is this AID's own
 * register, which the write path then writes as any other; bit 34 with an
 * AID in bits 33:32 is that AID's, kept in its own small store (the sim
 * models no other block of another AID: its NBIO registers at the same
 * offsets as AID 0's, which amd_sim_xcc_check reads). Any other pattern,
 * an AID past the sim's, or a store full, goes nowhere, as a write to
 * nothing on hardware would. The stores live in the shared block under
 * far_lock (the registers past BAR5 share it); a reset clears them with
 * AID 0's registers (tree.c).
 */
#include <errno.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

#define CROSS_AID	(1ull << 34)

bool
sim_ext_write(struct amd_sim *s, uint32_t *index, uint32_t value)
{
	uint64_t addr = (uint64_t)(sim_reg(s, s->lay.pcie_index2_hi) & 0xff) << 32 |
			sim_reg(s, s->lay.pcie_index2);
	unsigned aid = (unsigned)(addr >> 32) & 3;
	uint32_t at = (uint32_t)addr / 4;
	struct sim_shared *sh = s->sh;

	if (addr >> 32 == 0) {
		*index = at;		/* this AID's: the caller writes it */
		return false;
	}
	if ((addr >> 32) != (CROSS_AID >> 32 | aid) || aid == 0 || aid >= s->lay.aids)
		return true;		/* no register there */
	pthread_mutex_lock(&s->far_lock);
	for (uint32_t i = 0; i <= sh->naid[aid] && i < SIM_AID_REGS; i++)
		if (i == sh->naid[aid] || sh->aid[aid][i].index == at) {
			sh->aid[aid][i].index = at;
			sh->aid[aid][i].value = value;
			sh->naid[aid] += i == sh->naid[aid];
			break;
		}
	pthread_mutex_unlock(&s->far_lock);
	return true;
}

bool
sim_aid_get(struct amd_sim *s, unsigned aid, uint32_t index, uint32_t *out)
{
	struct sim_shared *sh = s->sh;
	bool found = false;

	*out = 0;
	pthread_mutex_lock(&s->far_lock);
	for (uint32_t i = 0; i < sh->naid[aid]; i++)
		if (sh->aid[aid][i].index == index) {
			*out = sh->aid[aid][i].value;
			found = true;
		}
	pthread_mutex_unlock(&s->far_lock);
	return found;
}

int
amd_sim_aid_reg(struct amd_sim *s, unsigned aid, uint32_t index, uint32_t *out)
{
	if (!s || !out)
		return amd_fail(-EINVAL, "sim or out is NULL");
	if (aid == 0 || aid >= s->lay.aids)
		return amd_fail(-EINVAL, "AID %u is not one of the sim's AIDs past 0 (it "
				"has %u)", aid, s->lay.aids);
	if (!sim_aid_get(s, aid, index, out))
		return amd_fail(-ENOENT, "AID %u's register 0x%x was never written",
				aid, index);
	return 0;
}
