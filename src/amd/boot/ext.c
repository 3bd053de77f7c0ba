/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/ext.c: a write to a register of another AID of an MI300-class
 * GPU (NBIO 7.9), through NBIO's indirect window, as linux's
 * amdgpu_device_indirect_wreg_ext makes it for WREG32_SOC15_EXT: the
 * register's byte address plus the AID's extended SMN part in
 * PCIE_INDEX2 (its low 32 bits) and PCIE_INDEX2_HI (bits 39:32), the value
 * in PCIE_DATA2, then PCIE_INDEX2_HI back to 0. The extended part is
 * linux's aqua_vanjaram.c aqua_vanjaram_encode_ext_smn_addressing: 0 for
 * AID 0 (local), else bit 34 (cross-AID) with the AID in bits 33:32, so
 * AIDs 0 to 3. The register's address is its index on this GPU's own NBIO
 * bases: linux adds NBIO instance i's bases (reg_offset[NBIO][i]); the
 * tables here list one NBIO instance, and that every AID's lies at the
 * same bases is unverified on hardware. Only the boot writes the window,
 * one write at a time, so it needs no lock.
 */
#include <errno.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

uint64_t
amd_boot_ext_smn(unsigned aid)
{
	return aid == 0 ? 0 : (uint64_t)(aid & 3) << 32 | 1ull << 34;
}

int
amd_boot_wext(struct amd_boot *b, const char *unit, unsigned aid, enum amd_reg r,
	      uint32_t v)
{
	struct amd_dev *d = b->d;
	uint64_t at = d->regs.index[r], addr;
	enum amd_reg window[3] = { AMD_REG_NBIF_PCIE_INDEX2, AMD_REG_NBIF_PCIE_INDEX2_HI,
				   AMD_REG_NBIF_PCIE_DATA2 };

	if (aid > 3)
		return amd_boot_fail(b, -ENOTSUP, "%s: AID %u: the extended SMN "
				     "address names AIDs 0 to 3", unit, aid);
	for (int k = 0; k < 3; k++)
		if (d->regs.index[window[k]] == AMD_REG_NONE)
			return amd_boot_fail(b, -ENOTSUP, "%s: AID %u's %s: this NBIO's "
					     "table has no %s", unit, aid,
					     amd_reg_names[r], amd_reg_names[window[k]]);
	if (at == AMD_REG_NONE)
		return amd_boot_fail(b, -ENOTSUP, "%s: AID %u: this GPU's tables have "
				     "no %s", unit, aid, amd_reg_names[r]);
	addr = at * 4 + amd_boot_ext_smn(aid);
	BW(b, AMD_REG_NBIF_PCIE_INDEX2, 0, (uint32_t)addr);
	BW(b, AMD_REG_NBIF_PCIE_INDEX2_HI, 0, (uint32_t)(addr >> 32) & 0xff);
	BW(b, AMD_REG_NBIF_PCIE_DATA2, 0, v);
	BW(b, AMD_REG_NBIF_PCIE_INDEX2_HI, 0, 0);
	return 0;
}
