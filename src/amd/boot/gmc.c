/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/gmc.c: the memory hubs' context 0 (amd-facts §3.6): one set of
 * page tables mapping every byte of VRAM at AMD_VA_VRAM in 2 MiB leaves,
 * walked by the MM hub (SDMA's, on hardware: programmed here) and the GC
 * hub of every XCC (programmed by GFX's unit once the RLC is up, gfx.c). Entries are
 * written through the VRAM window, as the GPU's walker reads them. Fini
 * turns bus mastering off: no engine reaches host memory after a stop.
 */
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

#define END	((1ull << 36) - 1)	/* the last 4 KiB page of context 0 */

static uint64_t
root(const struct amd_dev *d)
{
	return d->fb_base + AMD_PT_AT;
}

int
amd_boot_gmc_init(struct amd_boot *b)
{
	struct amd_dev *d = b->d;

	memset(d->vram + AMD_PT_AT, 0, 4096);
	d->pt_next = AMD_PT_AT + 4096;
	amd_dev_map(d, AMD_VA_VRAM, d->fb_base, d->vram_bytes, AMD_PTE_RWX);
	BW(b, AMD_REG_MMHUB_MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, 0,
	   (uint32_t)root(d) | 1);
	BW(b, AMD_REG_MMHUB_MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32, 0,
	   (uint32_t)(root(d) >> 32));
	/* enable_context [0], page_table_depth [2:1] = 3: four levels */
	BW(b, AMD_REG_MMHUB_MMVM_CONTEXT0_CNTL, 0, 1 | 3 << 1);
	return 0;
}

/* One XCC's GC hub: context 0 on the one set of tables. */
static int
gchub(struct amd_boot *b, unsigned x)
{
	uint64_t r = root(b->d);

	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, 0,
	    (uint32_t)r | 1);
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32, 0,
	    (uint32_t)(r >> 32));
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32, 0, 0);
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32, 0, 0);
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32, 0,
	    (uint32_t)END);
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32, 0,
	    (uint32_t)(END >> 32));
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_CONTEXT0_CNTL, 0, 1 | 3 << 1);
	BWX(b, "GFX", x, AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0, 0);
	return 0;
}

/* Every XCC's GC hub (§3.10 step 2: init_hub("GC", xccs)), every boot. */
int
amd_boot_gchub_init(struct amd_boot *b)
{
	for (unsigned x = 0; x < b->d->regs.xccs || x == 0; x++) {
		int ret = gchub(b, x);

		if (ret < 0)
			return ret;
	}
	return 0;
}

void
amd_boot_gmc_fini(struct amd_dev *d, bool clean)
{
	(void)clean;
	(void)pci_bus_master(d->m, &d->t, false);
}
