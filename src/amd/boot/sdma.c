/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/sdma.c: SDMA0 queue 0 (amd-facts §3.11): a 256 KiB ring, its
 * read pointer written back, doorbell 256, write-pointer polling; SDMA
 * ring pointers are bytes. The engine's unhalt (SDMA0_MCU_CNTL on SDMA 7)
 * is not written: its fields are not in the tables (unverified on
 * hardware; the sim runs SDMA once its ring is enabled). Fini disables
 * the ring without waiting for it.
 *
 * NBIO 7.9 (MI300): an SDMA doorbell reaches its engine only through the
 * routing linux's nbio_v7_9_sdma_doorbell_range writes for each SDMA
 * instance (called from soc15.c's soc15_doorbell_range_init with
 * doorbell_index.sdma_doorbell_range). Here SDMA writes it, as
 * tinygrad's AM_SDMA does, every boot (the partial one too), for each AID
 * the GPU's XCCs lie on (soc.c's amd_boot_aids) and its four instances
 * (MI300's 16 over 4 AIDs, amd-facts §3.11), rig's one queue being
 * instance 0 of AID 0. Instance i
 * = 4 * AID + n gets aqua_vanjaram_doorbell_index_init's doorbell range:
 * dword offset (256 + 10 * i) * 2 (sdma_engine[i] << 1, so rig's doorbell
 * 256 is instance 0's) and size sdma_doorbell_range = 20, in AID 0's
 * DOORBELL0_CTRL_ENTRY_{1 + n} + 4 * AID (fields offset [9:0], size
 * [14:10]); and the AID's own S2A port for n (1, 2, 5, 6) through the
 * PCIE_INDEX2 window (ext.c, AID 0's too, as WREG32_SOC15_EXT writes it):
 * enable [0], awid [5:1], range offset [16:7], range size [24:17] = 20,
 * awaddr_31_28 [31:28], with linux's awid, offset and awaddr per n. Field
 * positions: linux's nbio_7_9_0 sh_mask as tinygrad's regs.py carries
 * them. The other AIDs' NBIO bases are taken for AID 0's (ext.c): run on
 * the sim only, unverified on hardware.
 */
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

#define SDMA_PER_AID		4
#define SDMA_DOORBELL_RANGE	20	/* dwords per instance */

struct sdma_port {
	enum amd_reg range, s2a;
	uint32_t awid, offset, awaddr;
};

static const struct sdma_port ports[SDMA_PER_AID] = {
	{ AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL,
	  0xe, 0xe, 0x1 },
	{ AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_2, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_2_CTRL,
	  0x8, 0x8, 0x2 },
	{ AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_3, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_5_CTRL,
	  0x9, 0x9, 0x8 },
	{ AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_4, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_6_CTRL,
	  0xa, 0xa, 0x9 },
};

static int
route_instance(struct amd_boot *b, unsigned aid, unsigned n)
{
	const struct sdma_port *p = &ports[n];
	uint32_t dw = (AMD_SDMA_DOORBELL + 10 * (SDMA_PER_AID * aid + n)) * 2;
	uint32_t s2a = 1 | p->awid << 1 | p->offset << 7 | SDMA_DOORBELL_RANGE << 17 |
		       p->awaddr << 28;

	BW(b, p->range, 4 * aid, dw | SDMA_DOORBELL_RANGE << 10);
	return amd_boot_wext(b, "SDMA", aid, p->s2a, s2a);
}

static int
route_doorbells(struct amd_boot *b)
{
	uint32_t aids;
	int ret;

	if (b->d->regs.index[ports[0].range] == AMD_REG_NONE)
		return 0;		/* not NBIO 7.9: none written (soc.c) */
	if ((ret = amd_boot_aids(b, "SDMA", &aids)) < 0)
		return ret;
	for (unsigned aid = 0; aid < 4; aid++)
		for (unsigned n = 0; (aids >> aid & 1) && n < SDMA_PER_AID; n++)
			if ((ret = route_instance(b, aid, n)) < 0)
				return ret;
	return 0;
}

int
amd_boot_sdma_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	uint64_t va = AMD_VA_VRAM + AMD_SDMA_RING_AT, rp = AMD_VA_VRAM + AMD_SDMA_RPTR_AT;
	int ret;

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
	if ((ret = route_doorbells(b)) < 0)
		return ret;
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
