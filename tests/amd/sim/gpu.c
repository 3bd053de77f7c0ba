/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/sim/gpu.c: a driver's side of the sim for its tests (gpu.h).
 * PTE bits and queue programming are written from amd-facts here;
 * register indices come from the driver's tables (src/amd/regs/), and
 * HQD registers the tables do not name from their place among the 56
 * CP_MQD_BASE_ADDR starts (§3.10: MQD dwords 0x80..0xB7, 1:1).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "amd/discovery/read.h"
#include "gpu.h"
#include "../fake.h"

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); abort(); } while (0)

void
gpu_wreg(struct gpu *g, uint32_t index, uint32_t value)
{
	if (amd_sim_reg_write(g->sim, index, value))
		DIE("register write 0x%x failed\n", index);
}

uint32_t
gpu_rreg(struct gpu *g, uint32_t index)
{
	uint32_t v;

	if (amd_sim_reg_read(g->sim, index, &v))
		DIE("register read 0x%x failed\n", index);
	return v;
}

uint32_t
gpu_reg(struct gpu *g, enum amd_reg r)
{
	if (g->regs.index[r] == AMD_REG_NONE)
		DIE("GC %s has no %s\n", g->sim->lay.gc, amd_reg_names[r]);
	return (uint32_t)g->regs.index[r];
}

static void
resolve(struct gpu *g)
{
	static struct amd_discovery t;
	const struct rig_pci_machine *m = amd_sim_machine(g->sim);
	struct pci_function *fs;
	uint8_t *bytes;
	uint64_t vram;
	size_t n, len;

	if (pci_amd_gpus(m, &fs, &n) || n != 1 ||
	    amd_discovery_read(m, &fs[0], &bytes, &len, &vram) ||
	    amd_discovery_parse(bytes, len, &t) || amd_regs_resolve(&t, &g->regs))
		DIE("resolving the sim's registers: %s\n", rig_why());
	free(bytes);
	free(fs);
}

void *
gpu_ptr(struct gpu *g, uint64_t va)
{
	if (va < VA_VRAM || va >= VA_VRAM + (256u << 20))
		DIE("gpu_ptr: 0x%llx is not in mapped VRAM\n", (unsigned long long)va);
	return g->vram + (va - VA_VRAM);
}

static bool
gfx12(const struct gpu *g)
{
	return g->sim->lay.gc[0] == '1' && g->sim->lay.gc[1] == '2';
}

static bool
gfx9(const struct gpu *g)
{
	return g->sim->lay.gc[0] == '9';
}

/* §3.6: GC 12 leaves above the PTB carry bit 63, GC 9-11 bit 54. */
static uint64_t
huge_flag(const struct gpu *g)
{
	return gfx12(g) ? 1ull << 63 : 1ull << 54;
}

static uint64_t *
entry(struct gpu *g, uint64_t table, uint64_t va, int shift)
{
	return (uint64_t *)(g->vram + table + ((va >> shift) & 511) * 8);
}

/* The table below entry e (allocated if absent). */
static uint64_t
below(struct gpu *g, uint64_t *e, int shift)
{
	if (!(*e & PTE_V)) {
		uint64_t t = g->pt_next;

		g->pt_next += 4096;
		memset(g->vram + t, 0, 4096);
		/* §3.6: GC 9's PDB0 entries that point at a PTB carry TF (56). */
		*e = t | PTE_V | (gfx9(g) && shift == 21 ? 1ull << 56 : 0);
	}
	return *e & 0x0000FFFFFFFFF000ull;
}

void
gpu_map(struct gpu *g, uint64_t va, uint64_t pa, uint64_t bytes,
	uint64_t flags, bool huge)
{
	uint64_t page = huge ? 2u << 20 : 4096;

	for (uint64_t off = 0; off < bytes; off += page) {
		uint64_t t = PT_AT;		/* root: PDB2 */

		t = below(g, entry(g, t, va + off, 39), 39);
		t = below(g, entry(g, t, va + off, 30), 30);
		if (huge) {
			*entry(g, t, va + off, 21) = (pa + off) | flags | huge_flag(g);
			continue;
		}
		t = below(g, entry(g, t, va + off, 21), 21);
		*entry(g, t, va + off, 12) = (pa + off) | flags;
	}
}

void
gpu_unmap(struct gpu *g, uint64_t va)
{
	uint64_t t = PT_AT;

	for (int shift = 39; shift > 12; shift -= 9)
		t = *entry(g, t, va, shift) & 0x0000FFFFFFFFF000ull;
	*entry(g, t, va, 12) = 0;
}

static void
vm_on(struct gpu *g)
{
	uint64_t end = (1ull << 36) - 1;	/* 48-bit VA in pages */

	memset(g->vram + PT_AT, 0, 4096);
	g->pt_next = PT_AT + 4096;
	/* §3.6: root | 1 (valid) */
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32), PT_AT | 1);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32), (uint32_t)end);
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32),
		 (uint32_t)(end >> 32));
	/* enable_context [0], page_table_depth [2:1] = 3 */
	gpu_wreg(g, gpu_reg(g, AMD_REG_GC_GCVM_CONTEXT0_CNTL), 1 | 3 << 1);
	gpu_map(g, VA_VRAM, 0, 256u << 20, PTE_RWX, true);
}

/* §3.7: ring 0 of 64 KiB at MC IH_AT (FB at MC 0), wptr written back. */
static void
ih_on(struct gpu *g)
{
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_BASE), IH_AT >> 8);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_BASE_HI), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_RPTR), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_WPTR), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_HI), 0);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_WPTR_ADDR_LO), IH_WPTR_AT);
	/* rb_enable, rb_size = log2(16 Ki dwords), enable_intr */
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_CNTL), 1 | 14 << 1 | 1u << 17);
	g->ih_rptr = 0;
}

void
gpu_open(struct gpu *g, const char *gc)
{
	struct amd_sim_opts o = { .gc = gc, .root = g->root, .mark = 0xA0000008 };

	memset(g, 0, sizeof(*g));
	fake_root(g->root);
	o.root = g->root;
	if (amd_sim_create(&o, &g->sim))
		DIE("amd_sim_create: %s\n", rig_why());
	g->vram = amd_sim_vram(g->sim);
	resolve(g);
	vm_on(g);
	ih_on(g);
}

void
gpu_close(struct gpu *g)
{
	amd_sim_destroy(g->sim);
	fake_remove(g->root);
	g->sim = NULL;
}

bool
gpu_ih_next(struct gpu *g, uint32_t e[8])
{
	uint32_t wptr = atomic_load_explicit((_Atomic uint32_t *)(g->vram + IH_WPTR_AT),
					     memory_order_acquire);

	if (wptr == g->ih_rptr)
		return false;
	for (int i = 0; i < 8; i++)
		e[i] = atomic_load_explicit((_Atomic uint32_t *)(g->vram + IH_AT +
								   g->ih_rptr) + i,
					    memory_order_relaxed);
	g->ih_rptr = (g->ih_rptr + 32) % (64u << 10);
	gpu_wreg(g, gpu_reg(g, AMD_REG_OSSSYS_IH_RB_RPTR), g->ih_rptr);
	return true;
}

static uint32_t
log2u(uint64_t v)
{
	uint32_t n = 0;

	while ((1ull << n) < v)
		n++;
	return n;
}

void
gpu_cp_queue(struct gpu *g, int qi, uint64_t bytes, struct ring *r)
{
	uint32_t hqd = gpu_reg(g, AMD_REG_GC_CP_MQD_BASE_ADDR);
	uint32_t grbm = gpu_reg(g, AMD_REG_GC_GRBM_GFX_CNTL);
	uint32_t slot = 3 + (uint32_t)qi;	/* MEC_RING0 + qi (§3.12) */

	*r = (struct ring){ .g = g, .va = VA_VRAM + RING_AT + g->ring_next,
			    .bytes = bytes, .doorbell = slot * 8,
			    .rptr_va = VA_VRAM + (48u << 20) + 64u * (uint32_t)qi };
	g->ring_next += bytes;
	memset(gpu_ptr(g, r->va), 0, bytes);
	*(uint64_t *)gpu_ptr(g, r->rptr_va) = 0;
	gpu_wreg(g, grbm, 1u << 2 | (uint32_t)qi << 8);	/* meid 1, queueid */
	gpu_wreg(g, hqd + 8, (uint32_t)(r->va >> 8));		/* PQ_BASE */
	gpu_wreg(g, hqd + 9, (uint32_t)(r->va >> 40));		/* PQ_BASE_HI */
	gpu_wreg(g, hqd + 10, 0);				/* PQ_RPTR */
	gpu_wreg(g, hqd + 11, (uint32_t)r->rptr_va);		/* RPTR_REPORT */
	gpu_wreg(g, hqd + 12, (uint32_t)(r->rptr_va >> 32));
	gpu_wreg(g, hqd + 15, slot * 2 << 2 | 1u << 30);	/* DOORBELL_CONTROL */
	gpu_wreg(g, hqd + 17, log2u(bytes / 4) - 1);		/* PQ_CONTROL */
	gpu_wreg(g, hqd + 54, 0);
	gpu_wreg(g, hqd + 55, 0);
	gpu_wreg(g, hqd + 2, 1);				/* HQD_ACTIVE */
	gpu_wreg(g, grbm, 0);
}

void
gpu_wreg_any(struct gpu *g, uint32_t index, uint32_t value)
{
	if (index < SIM_REGS) {
		gpu_wreg(g, index, value);
		return;
	}
	gpu_wreg(g, gpu_reg(g, AMD_REG_NBIF_BIF_BX_PF0_RSMU_INDEX), index * 4);
	gpu_wreg(g, gpu_reg(g, AMD_REG_NBIF_BIF_BX_PF0_RSMU_DATA), value);
}

/* NBIO 7.9 (GC 9.4.3): AID 0's routing of SDMA instance 0's doorbells
 * (dword 512, 20 dwords; port 1 with awid 0xe, offset 0xe, awaddr 1), as
 * src/amd/boot/sdma.c writes it from linux's nbio_v7_9.c, without which
 * the sim drops the queue's doorbells (src/amd/sim/nbio.c). */
static void
gpu_sdma_route(struct gpu *g)
{
	if (g->regs.index[AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1] == AMD_REG_NONE)
		return;
	gpu_wreg_any(g, gpu_reg(g, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1), 512 | 20u << 10);
	gpu_wreg_any(g, gpu_reg(g, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL),
		     1 | 0xeu << 1 | 0xeu << 7 | 20u << 17 | 1u << 28);
}

void
gpu_sdma_queue(struct gpu *g, uint64_t bytes, struct ring *r)
{
#define R(name) gpu_reg(g, AMD_REG_SDMA0_##name)

	*r = (struct ring){ .g = g, .va = VA_VRAM + RING_AT + g->ring_next,
			    .bytes = bytes, .doorbell = 256 * 8, .sdma = true,
			    .rptr_va = VA_VRAM + (48u << 20) + 0x1000 };
	g->ring_next += bytes;
	memset(gpu_ptr(g, r->va), 0, bytes);
	*(uint64_t *)gpu_ptr(g, r->rptr_va) = 0;
	gpu_wreg(g, R(RB_BASE), (uint32_t)(r->va >> 8));
	gpu_wreg(g, R(RB_BASE_HI), (uint32_t)(r->va >> 40));
	gpu_wreg(g, R(RB_RPTR), 0);
	gpu_wreg(g, R(RB_RPTR_HI), 0);
	gpu_wreg(g, R(RB_WPTR), 0);
	gpu_wreg(g, R(RB_WPTR_HI), 0);
	gpu_wreg(g, R(RB_RPTR_ADDR_HI), (uint32_t)(r->rptr_va >> 32));
	gpu_wreg(g, R(RB_RPTR_ADDR_LO), (uint32_t)r->rptr_va);
	gpu_wreg(g, R(DOORBELL_OFFSET), 256 * 2 << 2);		/* offset [27:2], dwords */
	gpu_wreg(g, R(DOORBELL), 1u << 28);			/* enable */
	gpu_sdma_route(g);
	/* rb_enable, rb_size, wptr poll (11), rptr write-back (12) */
	gpu_wreg(g, R(RB_CNTL), 1 | log2u(bytes / 4) << 1 | 1u << 11 | 1u << 12);
#undef R
}

static uint64_t
rptr_of(struct ring *r)
{
	void *p = gpu_ptr(r->g, r->rptr_va);

	/* Acquire: the engine read the slots before it wrote this. */
	return r->sdma ? atomic_load_explicit((_Atomic uint64_t *)p, memory_order_acquire)
		       : atomic_load_explicit((_Atomic uint32_t *)p, memory_order_acquire);
}

void
ring_put(struct ring *r, const uint32_t *dw, unsigned n)
{
	uint64_t size_dw = r->bytes / 4, unit = r->sdma ? 4 : 1;
	uint32_t *base = gpu_ptr(r->g, r->va);

	for (unsigned i = 0; i < n; i++) {
		uint64_t at = r->wptr / unit;

		for (int spins = 0; at - rptr_of(r) / unit >= size_dw - 1; spins++) {
			if (spins > 1000000)
				DIE("ring_put: the ring stays full\n");
			if (spins == 0)	/* what is written so far: the engine frees room */
				(void)amd_sim_doorbell(r->g->sim, r->doorbell, r->wptr);
			usleep(10);
		}
		base[at % size_dw] = dw[i];
		r->wptr += unit;
	}
	if (amd_sim_doorbell(r->g->sim, r->doorbell, r->wptr))
		DIE("doorbell: %s\n", rig_why());
}

void
gpu_idle(struct gpu *g)
{
	if (amd_sim_idle(g->sim, 10ull * 1000000000u))
		DIE("the sim did not go idle in 10 s\n");
}
