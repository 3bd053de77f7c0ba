/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/boot.c: the partial boot of a GPU a clean session left (seed
 * "Sessions"; amd-facts §3.1): its firmware runs, so only what this
 * process owns is programmed, through the machine's register and doorbell
 * operations: context 0's page tables in the GC and MM hubs (every byte of
 * VRAM mapped at AMD_VA_VRAM in 2 MiB leaves, §3.6), bus mastering once
 * both hubs translate, the IH ring (§3.7), compute queue 0 of ME1 pipe 0
 * (its HQD registers under GRBM_GFX_CNTL, §3.10) and SDMA0 queue 0 (§3.11).
 * The undoing (amd_dev_unboot) dequeues both queues without waiting for
 * them and writes the session's mark: SCRATCH_REG6 0 for a clean stop.
 * Page-table entries are written through the VRAM window, as the GPU's
 * walker reads them; the sim models no TLB, and a real GPU's flush
 * (GCVM_INVALIDATE_ENG17) is written after the tables, as linux does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/dev/dev.h"
#include "amd/fail.h"

/* The mark of a GPU this library booted (amd-facts §3.1: AMDev.Version). */
#define AMD_MARK	0xA0000008u

/*
 * A register past the MMIO window (MMHUB's second segment on GC 9.4.3, an
 * AID's) is reached through NBIO's RSMU index/data pair (amd-facts §0.3):
 * its byte address into RSMU_INDEX, then RSMU_DATA. Only the boot and the
 * stop reach such registers, one at a time, so the pair needs no lock.
 */
static int
far_access(struct amd_dev *d, uint64_t index, uint32_t *v, bool write)
{
	uint64_t ri = d->regs.index[AMD_REG_NBIF_BIF_BX_PF0_RSMU_INDEX];
	uint64_t rd = d->regs.index[AMD_REG_NBIF_BIF_BX_PF0_RSMU_DATA];
	int ret;

	if (ri == AMD_REG_NONE || rd == AMD_REG_NONE || index * 4 > UINT32_MAX)
		return amd_fail(-ERANGE, "register 0x%llx is past the MMIO window and "
				"the RSMU pair", (unsigned long long)index);
	if ((ret = d->m->ops->reg_write(d->m, &d->t, ri, (uint32_t)(index * 4))) < 0)
		return ret;
	return write ? d->m->ops->reg_write(d->m, &d->t, rd, *v)
		     : d->m->ops->reg_read(d->m, &d->t, rd, v);
}

int
amd_dev_wreg(struct amd_dev *d, enum amd_reg r, uint64_t plus, uint32_t v)
{
	int ret;

	if (d->regs.index[r] == AMD_REG_NONE)
		return amd_fail(-ENOTSUP, "GC %u.%u.%u has no %s", d->gc_major,
				d->gc_minor, d->gc_rev, amd_reg_names[r]);
	ret = d->m->ops->reg_write(d->m, &d->t, d->regs.index[r] + plus, v);
	if (ret == -ERANGE)
		ret = far_access(d, d->regs.index[r] + plus, &v, true);
	return ret;
}

uint32_t
amd_dev_rreg(struct amd_dev *d, enum amd_reg r, uint64_t plus)
{
	uint32_t v = 0;

	if (d->regs.index[r] != AMD_REG_NONE &&
	    d->m->ops->reg_read(d->m, &d->t, d->regs.index[r] + plus, &v) == -ERANGE)
		(void)far_access(d, d->regs.index[r] + plus, &v, false);
	return v;
}

/* §3.6: a huge leaf above the PTB carries bit 63 on GC 12, 54 on GC 9-11. */
static uint64_t
huge_flag(const struct amd_dev *d)
{
	return d->gfx == AMD_GFX12 ? 1ull << 63 : 1ull << 54;
}

static _Atomic uint64_t *
pte(struct amd_dev *d, uint64_t table, uint64_t va, int shift)
{
	return (_Atomic uint64_t *)(d->vram + table + ((va >> shift) & 511) * 8);
}

/* The table below entry e, made if absent (0 when the pages ran out). */
static uint64_t
below(struct amd_dev *d, _Atomic uint64_t *e)
{
	uint64_t v = atomic_load_explicit(e, memory_order_relaxed);

	if (!(v & AMD_PTE_V)) {
		uint64_t t = d->pt_next;

		if (t + 4096 > AMD_PT_END)
			return 0;
		d->pt_next += 4096;
		memset(d->vram + t, 0, 4096);
		v = (d->fb_base + t) | AMD_PTE_V;
		atomic_store_explicit(e, v, memory_order_release);
	}
	return (v & 0x0000FFFFFFFFF000ull) - d->fb_base;
}

void
amd_dev_map(struct amd_dev *d, uint64_t va, uint64_t pa, uint64_t bytes,
	    uint64_t flags)
{
	for (uint64_t off = 0; off < bytes; off += PCI_DMA_PAGE) {
		uint64_t t = AMD_PT_AT;

		if (!(t = below(d, pte(d, t, va + off, 39))) ||
		    !(t = below(d, pte(d, t, va + off, 30))))
			return;
		atomic_store_explicit(pte(d, t, va + off, 21),
				      (pa + off) | flags | (flags ? huge_flag(d) : 0),
				      memory_order_release);
	}
}

static uint32_t
log2u(uint64_t v)
{
	uint32_t n = 0;

	while ((1ull << n) < v)
		n++;
	return n;
}

#define W(r, plus, v) do {						\
		int w_ = amd_dev_wreg(d, (r), (plus), (v));		\
		if (w_ < 0)						\
			return snprintf(cause, len, "%s", amd_cause()), w_; \
	} while (0)

static int
vm_on(struct amd_dev *d, char *cause, size_t len)
{
	uint64_t root = d->fb_base + AMD_PT_AT, end = (1ull << 36) - 1;

	memset(d->vram + AMD_PT_AT, 0, 4096);
	d->pt_next = AMD_PT_AT + 4096;
	amd_dev_map(d, AMD_VA_VRAM, d->fb_base, d->vram_bytes, AMD_PTE_RWX);
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, 0, (uint32_t)root | 1);
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32, 0, (uint32_t)(root >> 32));
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32, 0, 0);
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32, 0, 0);
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32, 0, (uint32_t)end);
	W(AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32, 0, (uint32_t)(end >> 32));
	/* enable_context [0], page_table_depth [2:1] = 3: four levels */
	W(AMD_REG_GC_GCVM_CONTEXT0_CNTL, 0, 1 | 3 << 1);
	/* The MM hub (SDMA's, on hardware) walks the same tables. */
	W(AMD_REG_MMHUB_MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, 0, (uint32_t)root | 1);
	W(AMD_REG_MMHUB_MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32, 0, (uint32_t)(root >> 32));
	W(AMD_REG_MMHUB_MMVM_CONTEXT0_CNTL, 0, 1 | 3 << 1);
	W(AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0, 0);
	return 0;
}

static int
ih_on(struct amd_dev *d, char *cause, size_t len)
{
	uint64_t mc = d->fb_base + AMD_IH_AT, wb = d->fb_base + AMD_IH_WPTR_AT;

	memset(d->vram + AMD_IH_AT, 0, AMD_IH_BYTES);
	memset(d->vram + AMD_IH_WPTR_AT, 0, 8);
	W(AMD_REG_OSSSYS_IH_RB_CNTL, 0, 0);
	W(AMD_REG_OSSSYS_IH_RB_BASE, 0, (uint32_t)(mc >> 8));
	W(AMD_REG_OSSSYS_IH_RB_BASE_HI, 0, (uint32_t)(mc >> 40));
	W(AMD_REG_OSSSYS_IH_RB_RPTR, 0, 0);
	W(AMD_REG_OSSSYS_IH_RB_WPTR, 0, 0);
	W(AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_HI, 0, (uint32_t)(wb >> 32));
	W(AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_LO, 0, (uint32_t)wb);
	/* rb_enable, rb_size (log2 dwords), enable_intr */
	W(AMD_REG_OSSSYS_IH_RB_CNTL, 0, 1 | log2u(AMD_IH_BYTES / 4) << 1 | 1u << 17);
	d->ih_rptr = 0;
	return 0;
}

/* HQD registers by their place among the 56 from CP_MQD_BASE_ADDR (§3.10). */
enum { HQD_ACTIVE = 2, HQD_PQ_BASE = 8, HQD_PQ_BASE_HI = 9, HQD_PQ_RPTR = 10,
       HQD_RPTR_REPORT = 11, HQD_DOORBELL = 15, HQD_PQ_CONTROL = 17,
       HQD_DEQUEUE = 24, HQD_WPTR_LO = 54, HQD_WPTR_HI = 55 };

static int
cp_on(struct amd_dev *d, char *cause, size_t len)
{
	uint64_t va = AMD_VA_VRAM + AMD_CP_RING_AT, rp = AMD_VA_VRAM + AMD_CP_RPTR_AT;
	enum amd_reg q = AMD_REG_GC_CP_MQD_BASE_ADDR;

	memset(d->vram + AMD_CP_RING_AT, 0, AMD_RING_BYTES);
	memset(d->vram + AMD_CP_RPTR_AT, 0, 64);
	W(AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);	/* meid 1, pipe 0, queue 0 */
	W(q, HQD_PQ_BASE, (uint32_t)(va >> 8));
	W(q, HQD_PQ_BASE_HI, (uint32_t)(va >> 40));
	W(q, HQD_PQ_RPTR, 0);
	W(q, HQD_RPTR_REPORT, (uint32_t)rp);
	W(q, HQD_RPTR_REPORT + 1, (uint32_t)(rp >> 32));
	W(q, HQD_DOORBELL, AMD_CP_DOORBELL * 2 << 2 | 1u << 30);
	W(q, HQD_PQ_CONTROL, log2u(AMD_RING_BYTES / 4) - 1);
	W(q, HQD_WPTR_LO, 0);
	W(q, HQD_WPTR_HI, 0);
	W(q, HQD_ACTIVE, 1);
	W(AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	return 0;
}

static int
sdma_on(struct amd_dev *d, char *cause, size_t len)
{
	uint64_t va = AMD_VA_VRAM + AMD_SDMA_RING_AT, rp = AMD_VA_VRAM + AMD_SDMA_RPTR_AT;

	memset(d->vram + AMD_SDMA_RING_AT, 0, AMD_RING_BYTES);
	W(AMD_REG_SDMA0_RB_CNTL, 0, 0);
	W(AMD_REG_SDMA0_RB_BASE, 0, (uint32_t)(va >> 8));
	W(AMD_REG_SDMA0_RB_BASE_HI, 0, (uint32_t)(va >> 40));
	W(AMD_REG_SDMA0_RB_RPTR, 0, 0);
	W(AMD_REG_SDMA0_RB_RPTR_HI, 0, 0);
	W(AMD_REG_SDMA0_RB_WPTR, 0, 0);
	W(AMD_REG_SDMA0_RB_WPTR_HI, 0, 0);
	W(AMD_REG_SDMA0_RB_RPTR_ADDR_HI, 0, (uint32_t)(rp >> 32));
	W(AMD_REG_SDMA0_RB_RPTR_ADDR_LO, 0, (uint32_t)rp);
	W(AMD_REG_SDMA0_DOORBELL_OFFSET, 0, AMD_SDMA_DOORBELL * 2 << 2);
	W(AMD_REG_SDMA0_DOORBELL, 0, 1u << 28);
	/* rb_enable, rb_size, wptr poll (11), rptr write-back (12) */
	W(AMD_REG_SDMA0_RB_CNTL, 0, 1 | log2u(AMD_RING_BYTES / 4) << 1 | 1u << 11 |
	  1u << 12);
	return 0;
}

int
amd_dev_boot(struct amd_dev *d, char *cause, size_t len)
{
	uint32_t mark = amd_dev_rreg(d, AMD_REG_GC_SCRATCH_REG7, 0);
	uint32_t dirty = amd_dev_rreg(d, AMD_REG_GC_SCRATCH_REG6, 0);
	uint32_t fault = amd_dev_rreg(d, AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0);
	int ret;

	if (mark != AMD_MARK || dirty || fault) {
		snprintf(cause, len, "the full boot of GC %u.%u.%u is not built yet "
			 "(%s passed every check before the boot; no clean session of "
			 "rig left it: SCRATCH_REG7 0x%x, SCRATCH_REG6 0x%x, VM fault "
			 "status 0x%x)", d->gc_major, d->gc_minor, d->gc_rev, d->bus,
			 mark, dirty, fault);
		return -ENOTSUP;
	}
	d->fb_base = (uint64_t)(amd_dev_rreg(d, AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_BASE, 0)
				& 0xFFFFFF) << 24;
	if ((ret = vm_on(d, cause, len)) < 0)
		return ret;
	/* Both hubs translate: only now may the GPU reach host memory. */
	if ((ret = pci_bus_master(d->m, &d->t, true)) < 0)
		return snprintf(cause, len, "bus mastering: %s", amd_cause()), ret;
	if ((ret = ih_on(d, cause, len)) < 0 || (ret = cp_on(d, cause, len)) < 0 ||
	    (ret = sdma_on(d, cause, len)) < 0)
		return ret;
	/* This session holds it: a stop without a fault writes 0 again. */
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG6, 0, 1);
	return 0;
}

void
amd_dev_unboot(struct amd_dev *d, bool clean)
{
	enum amd_reg q = AMD_REG_GC_CP_MQD_BASE_ADDR;

	/* Dequeue without waiting: a hung or faulted queue never drains. */
	(void)amd_dev_wreg(d, AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);
	(void)amd_dev_wreg(d, q, HQD_DEQUEUE, 1);
	(void)amd_dev_wreg(d, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	(void)amd_dev_wreg(d, AMD_REG_SDMA0_RB_CNTL, 0, 0);
	(void)amd_dev_wreg(d, AMD_REG_OSSSYS_IH_RB_CNTL, 0, 0);
	(void)pci_bus_master(d->m, &d->t, false);
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG7, 0, AMD_MARK);
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG6, 0, clean ? 0 : 1);
}
