/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/boot.c: the device's register access and its page tables, which
 * the boot (amd/boot/: the full and the partial boot and their undoing)
 * and the device share: registers by role through the machine, those past
 * the MMIO window through NBIO's RSMU pair, and context 0's entries (2 MiB
 * leaves, §3.6) written through the VRAM window as the GPU's walker reads
 * them; the sim models no TLB.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/dev/dev.h"
#include "amd/fail.h"

/*
 * A register past the MMIO window (MMHUB's second segment on GC 9.4.3, an
 * AID's, an XCC's whose bases lie past it: tinygrad reaches MI300's so) is reached through NBIO's RSMU index/data pair (amd-facts §0.3):
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
amd_dev_wreg_xcc(struct amd_dev *d, unsigned xcc, enum amd_reg r, uint64_t plus,
		 uint32_t v)
{
	uint64_t at = amd_regs_xcc(&d->regs, xcc, r);
	int ret;

	if (at == AMD_REG_NONE && xcc)
		return amd_fail(-ENOTSUP, "GC %u.%u.%u has no %s on XCC %u", d->gc_major,
				d->gc_minor, d->gc_rev, amd_reg_names[r], xcc);
	if (at == AMD_REG_NONE)
		return amd_fail(-ENOTSUP, "GC %u.%u.%u has no %s", d->gc_major,
				d->gc_minor, d->gc_rev, amd_reg_names[r]);
	ret = d->m->ops->reg_write(d->m, &d->t, at + plus, v);
	if (ret == -ERANGE)
		ret = far_access(d, at + plus, &v, true);
	return ret;
}

uint32_t
amd_dev_rreg_xcc(struct amd_dev *d, unsigned xcc, enum amd_reg r, uint64_t plus)
{
	uint64_t at = amd_regs_xcc(&d->regs, xcc, r);
	uint32_t v = 0;

	if (at != AMD_REG_NONE &&
	    d->m->ops->reg_read(d->m, &d->t, at + plus, &v) == -ERANGE)
		(void)far_access(d, at + plus, &v, false);
	return v;
}

int
amd_dev_wreg(struct amd_dev *d, enum amd_reg r, uint64_t plus, uint32_t v)
{
	return amd_dev_wreg_xcc(d, 0, r, plus, v);
}

uint32_t
amd_dev_rreg(struct amd_dev *d, enum amd_reg r, uint64_t plus)
{
	return amd_dev_rreg_xcc(d, 0, r, plus);
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
