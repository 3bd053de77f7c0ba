/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/soc.c: the SOC unit (NBIO; amd-facts §3.5). Init turns bus
 * mastering off (gfx.c turns it on once both hubs translate), reads where
 * the memory controller placed VRAM (MMMC_VM_FB_LOCATION_BASE, in 16 MiB
 * units: MC address of VRAM offset 0, §3.2) and, in a full boot, opens
 * the doorbell aperture, on NBIO 7.9 (GC 9.4.3) first fencing the
 * doorbells of the XCCs the GPU lacks (XCC_DOORBELL_FENCE = 0xff & ~the
 * live XCCs' mask, §3.5), then, on each other AID an XCC lies on (the
 * die of its discovery entry, taken for its AID), that AID's
 * XCC_DOORBELL_FENCE = shub_slv_mode (bit 16, linux's nbio_7_9_0 sh_mask
 * as tinygrad's regs/nbio_7_9_0.py carries it) through the indirect window
 * (ext.c), as linux's nbio_v7_9_init_registers writes it, with AID 0's
 * BIFC_GFX_INT_MONITOR_MASK = 0x7ff between the two as linux has it; and
 * before the aperture AID 0's BIFC_DOORBELL_ACCESS_EN_PF = 0xfffff (linux's
 * nbio_v7_9_enable_doorbell_aperture). Both are in NBIO's segment 8, so
 * an MI300 whose discovery entry gives NBIO fewer than 9 bases is refused
 * at open (resolve.c). SDMA's per-AID doorbell routing is sdma.c's. Fini
 * writes the session's mark: SCRATCH_REG7 says rig booted the GPU and
 * SCRATCH_REG6 is 0 for a clean stop, so the next open boots in part. The
 * S2A doorbell routing §3.5 names for other NBIOs is not written (its
 * registers are not in the tables, and the sim routes their doorbells);
 * unverified on hardware, as is everything NBIO 7.9 writes here (run on
 * the sim only).
 */
#include <errno.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

/* Linux's xcc_mask: a bit per unharvested GC instance number (§2.4). */
uint32_t
amd_boot_xcc_mask(const struct amd_dev *d)
{
	uint32_t m = 0;

	for (unsigned x = 0; x < d->regs.xccs; x++)
		m |= 1u << d->regs.xcc_instance[x];
	return m ? m : 1;
}

int
amd_boot_aids(struct amd_boot *b, const char *unit, uint32_t *mask)
{
	const struct amd_regs *g = &b->d->regs;

	*mask = 1;
	for (unsigned x = 0; x < g->xccs; x++) {
		if (g->xcc_die[x] > 3)
			return amd_boot_fail(b, -ENOTSUP, "%s: AID %u: the extended SMN "
					     "address names AIDs 0 to 3", unit,
					     g->xcc_die[x]);
		*mask |= 1u << g->xcc_die[x];
	}
	return 0;
}

#define SHUB_SLV_MODE	(1u << 16)

/* shub_slv_mode on every AID but 0 that an XCC lies on, once each. */
static int
other_aids(struct amd_boot *b)
{
	uint32_t aids;
	int ret;

	if ((ret = amd_boot_aids(b, "SOC", &aids)) < 0)
		return ret;
	for (unsigned aid = 1; aid < 4; aid++)
		if ((aids >> aid & 1) &&
		    (ret = amd_boot_wext(b, "SOC", aid, AMD_REG_NBIF_XCC_DOORBELL_FENCE,
					 SHUB_SLV_MODE)) < 0)
			return ret;
	return 0;
}

/* NBIO 7.9's, where the table has them (none on another NBIO). */
static bool
has(const struct amd_dev *d, enum amd_reg r)
{
	return d->regs.index[r] != AMD_REG_NONE;
}

int
amd_boot_soc_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	int ret;

	/* Off until both hubs translate (gfx.c), whatever the last driver left. */
	if ((ret = pci_bus_master(d->m, &d->t, false)) < 0)
		return amd_boot_fail(b, ret, "SOC: bus mastering off: %s", amd_cause());
	if (b->full && has(d, AMD_REG_NBIF_XCC_DOORBELL_FENCE)) {
		BW(b, AMD_REG_NBIF_XCC_DOORBELL_FENCE, 0, 0xffu & ~amd_boot_xcc_mask(d));
		if (has(d, AMD_REG_NBIF_BIFC_GFX_INT_MONITOR_MASK))
			BW(b, AMD_REG_NBIF_BIFC_GFX_INT_MONITOR_MASK, 0, 0x7ff);
		if ((ret = other_aids(b)) < 0)
			return ret;
	}
	if (b->full && has(d, AMD_REG_NBIF_BIFC_DOORBELL_ACCESS_EN_PF))
		BW(b, AMD_REG_NBIF_BIFC_DOORBELL_ACCESS_EN_PF, 0, 0xfffff);
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
