/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/soc.c: the SOC unit (NBIO; amd-facts §3.5). Init turns bus
 * mastering off (gfx.c turns it on once both hubs translate), reads where
 * the memory controller placed VRAM (MMMC_VM_FB_LOCATION_BASE, in 16 MiB
 * units: MC address of VRAM offset 0, §3.2) and, in a full boot, opens
 * the doorbell aperture. Fini writes the session's mark: SCRATCH_REG7
 * says rig booted the GPU and SCRATCH_REG6 is 0 for a clean stop, so the
 * next open boots in part. The S2A doorbell routing §3.5 names is not
 * written (its registers are not in the tables, and the sim routes every
 * doorbell); unverified on hardware.
 */
#include "amd/amd.h"
#include "amd/boot/boot.h"

int
amd_boot_soc_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	int ret;

	/* Off until both hubs translate (gfx.c), whatever the last driver left. */
	if ((ret = pci_bus_master(d->m, &d->t, false)) < 0)
		return amd_boot_fail(b, ret, "SOC: bus mastering off: %s", amd_cause());
	if (b->full)
		BW(b, AMD_REG_NBIF_RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN, 0, 1);
	d->fb_base = (uint64_t)(amd_dev_rreg(d, AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_BASE, 0)
				& 0xFFFFFF) << 24;
	return 0;
}

void
amd_boot_soc_fini(struct amd_dev *d, bool clean)
{
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG7, 0, AMD_MARK);
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG6, 0, clean ? 0 : 1);
}
