/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/ih.c: the interrupt ring (amd-facts §3.7): 64 KiB of VRAM, its
 * write pointer written back to VRAM, enabled with its interrupt. Fini
 * turns it off. amd/dev/ih.c reads it while the device runs.
 */
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

int
amd_boot_ih_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	uint64_t mc = d->fb_base + AMD_IH_AT, wb = d->fb_base + AMD_IH_WPTR_AT;

	memset(d->vram + AMD_IH_AT, 0, AMD_IH_BYTES);
	memset(d->vram + AMD_IH_WPTR_AT, 0, 8);
	BW(b, AMD_REG_OSSSYS_IH_RB_CNTL, 0, 0);
	BW(b, AMD_REG_OSSSYS_IH_RB_BASE, 0, (uint32_t)(mc >> 8));
	BW(b, AMD_REG_OSSSYS_IH_RB_BASE_HI, 0, (uint32_t)(mc >> 40));
	BW(b, AMD_REG_OSSSYS_IH_RB_RPTR, 0, 0);
	BW(b, AMD_REG_OSSSYS_IH_RB_WPTR, 0, 0);
	BW(b, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_HI, 0, (uint32_t)(wb >> 32));
	BW(b, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_LO, 0, (uint32_t)wb);
	/* rb_enable, rb_size (log2 dwords), enable_intr */
	BW(b, AMD_REG_OSSSYS_IH_RB_CNTL, 0, 1 | amd_boot_log2(AMD_IH_BYTES / 4) << 1 | 1u << 17);
	d->ih_rptr = 0;
	return 0;
}

void
amd_boot_ih_fini(struct amd_dev *d, bool clean)
{
	(void)clean;
	(void)amd_dev_wreg(d, AMD_REG_OSSSYS_IH_RB_CNTL, 0, 0);
}
