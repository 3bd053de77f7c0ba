/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/vm.c: every memory access an engine makes, through the GC hub's
 * context 0 page tables (amd-facts §3.6) in the generation's PTE format
 * (§3.14): VG10 (GC 9: a PDB0 entry descends only with TF, bit 56),
 * NV10 (GC 10/11: bit 54 in a PDE makes it a huge-page leaf) and GFX12
 * (bit 63 does). Tables are 4 KiB of 512 u64 entries in VRAM at the
 * entry's address bits 47:12; levels are VM_CONTEXT0_CNTL's
 * page_table_depth + 1, 9 bits each above 4 KiB pages. A leaf's SYSTEM bit
 * makes its address a bus address of host memory, reached only while bus
 * mastering is on. Not modelled: other VMIDs and contexts, GC 9's
 * page_table_block_size, fragments, the TLB (a write to the tables takes
 * effect at once: no flush is needed or checked), the MM hub.
 *
 * Engines share memory as hardware does: the CP and the SDMA may write the
 * same bytes at once when a driver makes them, so every access an engine
 * makes to VRAM or host memory, page-table entries included, is a relaxed
 * atomic (8 bytes where both sides are so aligned, else 4, else bytes).
 * That is a well-defined C program whatever the driver does; the order a
 * driver relies on comes from the release stores of fences and signals.
 */
#include <errno.h>
#include <string.h>

#include "amd/sim/priv.h"

#define PTE_VALID	(1ull << 0)
#define PTE_SYSTEM	(1ull << 1)
#define PTE_READABLE	(1ull << 5)
#define PTE_WRITEABLE	(1ull << 6)
#define PDE_PTE_NV10	(1ull << 54)
#define PDE_TF_VG10	(1ull << 56)
#define PDE_PTE_GFX12	(1ull << 63)
#define PTE_ADDR	0x0000FFFFFFFFF000ull

void
sim_copy(uint8_t *to, const uint8_t *from, size_t n)
{
	uintptr_t skew = (uintptr_t)to ^ (uintptr_t)from;

	if (!(skew & 7)) {
		for (; n && ((uintptr_t)to & 7); n--)
			__atomic_store_n(to++, __atomic_load_n(from++, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		for (; n >= 8; n -= 8, to += 8, from += 8)
			__atomic_store_n((uint64_t *)to,
					 __atomic_load_n((const uint64_t *)from, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
	} else if (!(skew & 3)) {
		/* Dwords: the CP's packets, read into dword arrays. */
		for (; n && ((uintptr_t)to & 3); n--)
			__atomic_store_n(to++, __atomic_load_n(from++, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		for (; n >= 4; n -= 4, to += 4, from += 4)
			__atomic_store_n((uint32_t *)to,
					 __atomic_load_n((const uint32_t *)from, __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
	}
	for (; n; n--)
		__atomic_store_n(to++, __atomic_load_n(from++, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}

void *
sim_bus_ptr(struct amd_sim *s, uint64_t bus, size_t bytes)
{
	/* Pairs with the release store of nhost in amd_sim_host_alloc(). */
	size_t n = atomic_load_explicit(&s->nhost, memory_order_acquire);

	if (!atomic_load_explicit(s->bus_master, memory_order_acquire)) {
		atomic_fetch_add_explicit(&s->dropped_dma, 1, memory_order_relaxed);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_host_region *r = &s->host[i];

		if (bus >= r->bus && bus - r->bus + bytes <= r->bytes)
			return (uint8_t *)r->ptr + (bus - r->bus);
	}
	return sim_bus_peer_ptr(s, bus, bytes);	/* a peer's BAR0 (peer.c) */
}

void *
sim_mc_ptr(struct amd_sim *s, uint64_t mc, size_t bytes)
{
	uint64_t base = (uint64_t)(sim_reg(s, s->lay.fb_base) & 0xFFFFFF) << 24;
	uint64_t top = (uint64_t)(sim_reg(s, s->lay.fb_base + 1) & 0xFFFFFF) << 24
		       | 0xFFFFFF;

	if (mc >= base && mc + bytes - 1 <= top) {
		if (mc - base + bytes > s->vram_bytes)
			return NULL;
		return s->vram + (mc - base);
	}
	return sim_bus_ptr(s, mc, bytes);
}

static uint64_t
reg64(struct amd_sim *s, uint32_t lo)
{
	return (uint64_t)sim_reg(s, lo + 1) << 32 | sim_reg(s, lo);
}

static void *
fault(struct sim_fault *f, uint64_t va, bool write, uint32_t status)
{
	f->va = va;
	f->write = write;
	f->status = status | (write ? FAULT_RW : 0);
	f->dropped = false;
	return NULL;
}

static bool
is_leaf(enum sim_pte_format fmt, uint64_t e)
{
	return fmt == PTE_GFX12 ? (e & PDE_PTE_GFX12) : (e & PDE_PTE_NV10);
}

void *
sim_vm_ptr(struct amd_sim *s, uint64_t va, size_t bytes, bool write,
	   struct sim_fault *f)
{
	const struct sim_layout *l = &s->lay;
	uint32_t cntl = sim_reg(s, l->vm_cntl);
	int depth = (int)((cntl >> 1) & 3);
	uint64_t table = reg64(s, l->vm_base_lo);
	uint64_t start = reg64(s, l->vm_start_lo) << 12;
	uint64_t end = reg64(s, l->vm_end_lo) << 12 | 0xfff;
	uint64_t rel, e = 0, page = 0;
	void *p;

	if (!(cntl & 1) || !(table & PTE_VALID))
		return fault(f, va, write, FAULT_WALKER_ERROR);
	if (va < start || bytes == 0 || va + bytes - 1 > end || va + bytes < va)
		return fault(f, va, write, FAULT_MAPPING_ERROR);
	rel = va - start;
	table &= PTE_ADDR;
	for (int level = 0; level <= depth; level++) {
		int shift = 12 + 9 * (depth - level);

		if (table + 4096 > s->vram_bytes)
			return fault(f, va, write, FAULT_WALKER_ERROR);
		e = __atomic_load_n((uint64_t *)(s->vram + table + ((rel >> shift) & 511) * 8),
				    __ATOMIC_RELAXED);
		if (!(e & PTE_VALID))
			return fault(f, va, write, FAULT_MAPPING_ERROR);
		page = 1ull << shift;
		if (level == depth || is_leaf(l->pte, e))
			break;
		if (l->pte == PTE_VG10 && shift == 21 && !(e & PDE_TF_VG10))
			return fault(f, va, write, FAULT_MAPPING_ERROR);
		table = e & PTE_ADDR;
	}
	if ((rel & (page - 1)) + bytes > page)
		return fault(f, va, write, FAULT_MAPPING_ERROR);
	if (write ? !(e & PTE_WRITEABLE) : !(e & PTE_READABLE))
		return fault(f, va, write, write ? FAULT_PERM_WRITE : FAULT_PERM_READ);
	if (e & PTE_SYSTEM) {
		bool on = atomic_load_explicit(s->bus_master, memory_order_acquire);

		p = sim_bus_ptr(s, ((e & PTE_ADDR) & ~(page - 1)) + (rel & (page - 1)),
				bytes);
		if (!p && !on) {
			fault(f, va, write, 0);
			f->dropped = true;
			return NULL;
		}
		return p ? p : fault(f, va, write, FAULT_MAPPING_ERROR);
	}
	e = ((e & PTE_ADDR) & ~(page - 1)) + (rel & (page - 1));
	if (e + bytes > s->vram_bytes)
		return fault(f, va, write, FAULT_MAPPING_ERROR);
	return s->vram + e;
}

static int
copy(struct amd_sim *s, uint64_t va, uint8_t *host, size_t bytes, bool write,
     struct sim_fault *f)
{
	while (bytes) {
		size_t n = 4096 - (va & 4095);
		uint8_t *p;

		n = n < bytes ? n : bytes;
		p = sim_vm_ptr(s, va, n, write, f);
		if (!p)
			return -EFAULT;
		if (write)
			sim_copy(p, host, n);
		else
			sim_copy(host, p, n);
		va += n;
		host += n;
		bytes -= n;
	}
	return 0;
}

int
sim_vm_read(struct amd_sim *s, uint64_t va, void *to, size_t bytes,
	    struct sim_fault *f)
{
	return copy(s, va, to, bytes, false, f);
}

int
sim_vm_write(struct amd_sim *s, uint64_t va, const void *from, size_t bytes,
	     struct sim_fault *f)
{
	return copy(s, va, (uint8_t *)from, bytes, true, f);
}
