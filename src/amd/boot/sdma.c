/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/sdma.c: SDMA0 queue 0 (amd-facts §3.11): a 256 KiB ring, its
 * read pointer written back, doorbell 256, write-pointer polling; SDMA
 * ring pointers are bytes. The engine's unhalt (SDMA0_MCU_CNTL on SDMA 7)
 * is not written: its fields are not in the tables (unverified on
 * hardware; the sim runs SDMA once its ring is enabled). Fini disables
 * the ring without waiting for it.
 */
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

int
amd_boot_sdma_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	uint64_t va = AMD_VA_VRAM + AMD_SDMA_RING_AT, rp = AMD_VA_VRAM + AMD_SDMA_RPTR_AT;

	memset(d->vram + AMD_SDMA_RING_AT, 0, AMD_RING_BYTES);
	BW(b, AMD_REG_SDMA0_RB_CNTL, 0, 0);
	BW(b, AMD_REG_SDMA0_RB_BASE, 0, (uint32_t)(va >> 8));
	BW(b, AMD_REG_SDMA0_RB_BASE_HI, 0, (uint32_t)(va >> 40));
	BW(b, AMD_REG_SDMA0_RB_RPTR, 0, 0);
	BW(b, AMD_REG_SDMA0_RB_RPTR_HI, 0, 0);
	BW(b, AMD_REG_SDMA0_RB_WPTR, 0, 0);
	BW(b, AMD_REG_SDMA0_RB_WPTR_HI, 0, 0);
	BW(b, AMD_REG_SDMA0_RB_RPTR_ADDR_HI, 0, (uint32_t)(rp >> 32));
	BW(b, AMD_REG_SDMA0_RB_RPTR_ADDR_LO, 0, (uint32_t)rp);
	BW(b, AMD_REG_SDMA0_DOORBELL_OFFSET, 0, AMD_SDMA_DOORBELL * 2 << 2);
	BW(b, AMD_REG_SDMA0_DOORBELL, 0, 1u << 28);
	/* rb_enable, rb_size, wptr poll (11), rptr write-back (12) */
	BW(b, AMD_REG_SDMA0_RB_CNTL, 0, 1 | amd_boot_log2(AMD_RING_BYTES / 4) << 1 | 1u << 11 |
	   1u << 12);
	return 0;
}

void
amd_boot_sdma_fini(struct amd_dev *d, bool clean)
{
	(void)clean;
	(void)amd_dev_wreg(d, AMD_REG_SDMA0_RB_CNTL, 0, 0);
}
