/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/sim/gpu.h: what the sim's tests do as a driver would, written
 * here from amd-facts and not from the sim's code or the driver's
 * encoders: page tables in each PTE format (§3.6), a compute queue's HQD
 * registers (§3.10), the SDMA queue's registers (§3.11), the IH ring
 * (§3.7), and rings the tests write hand-assembled dwords into. Register
 * indices are the driver's tables' (src/amd/regs/) resolved against the
 * sim's discovery table, as an open resolves them. VRAM is
 * mapped at GPU VA = its offset (VA_VRAM + offset), so a test reaches a
 * buffer at va through vram + (va - VA_VRAM). A helper that fails aborts.
 */
#ifndef TESTS_AMD_SIM_GPU_H
#define TESTS_AMD_SIM_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "amd/regs/regs.h"
#include "amd/sim/priv.h"

#define VA_VRAM		0x200000000000ull	/* tinygrad's VA base (§3.2) */
#define VA_HOST		0x300000000000ull	/* host memory mapped from here */
#define PT_AT		(16u << 20)		/* page tables from VRAM 16 MiB */
#define RING_AT		(32u << 20)		/* rings from VRAM 32 MiB */
#define DATA_AT		(64u << 20)		/* data from VRAM 64 MiB */
#define IH_AT		(8u << 20)		/* IH ring, 64 KiB, at MC 8 MiB */
#define IH_WPTR_AT	(IH_AT + (64u << 10))

/* PTE bits of §3.6. */
#define PTE_V		(1ull << 0)
#define PTE_SYS		(1ull << 1)
#define PTE_SNOOP	(1ull << 2)
#define PTE_X		(1ull << 4)
#define PTE_R		(1ull << 5)
#define PTE_W		(1ull << 6)
#define PTE_RWX		(PTE_V | PTE_R | PTE_W | PTE_X)

struct gpu {
	struct amd_sim *sim;
	char root[256];
	uint8_t *vram;
	uint64_t pt_next;		/* next free page-table page */
	uint64_t ring_next;
	uint32_t ih_rptr;		/* bytes */
	struct amd_regs regs;		/* every register's index */
};

/* A register's index on g (aborts for one its tables lack). */
uint32_t gpu_reg(struct gpu *g, enum amd_reg r);

/* A sim of gc in a new folder, VRAM 1 GiB; page tables set up (context 0,
 * 4 levels) and the first 256 MiB of VRAM mapped at VA_VRAM in 2 MiB
 * leaves; the IH ring on. */
void gpu_open(struct gpu *g, const char *gc);
void gpu_close(struct gpu *g);

/* Maps [va, va + bytes) to pa (VRAM offset or bus address with PTE_SYS)
 * in pages of 4 KiB (huge false) or 2 MiB, flags as given. */
void gpu_map(struct gpu *g, uint64_t va, uint64_t pa, uint64_t bytes,
	     uint64_t flags, bool huge);
/* Removes the 4 KiB leaf of va (mapped with huge false). */
void gpu_unmap(struct gpu *g, uint64_t va);

/* A host pointer to VRAM VA va (inside the first 256 MiB). */
void *gpu_ptr(struct gpu *g, uint64_t va);
/* Register by dword index through the sim. */
void gpu_wreg(struct gpu *g, uint32_t index, uint32_t value);
uint32_t gpu_rreg(struct gpu *g, uint32_t index);
/* The same past BAR5 too, through the RSMU pair (amd-facts §0.3). */
void gpu_wreg_any(struct gpu *g, uint32_t index, uint32_t value);

/* A ring: a VRAM VA, its size in bytes, what is written (CP: dwords; SDMA:
 * bytes), its doorbell (BAR2 byte offset) and its engine. */
struct ring {
	struct gpu *g;
	uint64_t va, bytes, wptr;
	uint64_t doorbell;
	bool sdma;
	uint64_t rptr_va;		/* the engine's read-pointer write-back */
};
/* Compute queue qi (HQD ME1 pipe 0 queue qi) of bytes; doorbell slot 3 + qi. */
void gpu_cp_queue(struct gpu *g, int qi, uint64_t bytes, struct ring *r);
/* SDMA0 queue 0 of bytes; doorbell slot 256 (§3.12), routed on NBIO 7.9. */
void gpu_sdma_queue(struct gpu *g, uint64_t bytes, struct ring *r);
/* Appends dwords (wrapping), then rings the doorbell. */
void ring_put(struct ring *r, const uint32_t *dw, unsigned n);
/* Waits for the sim to go idle (aborts after 10 s). */
void gpu_idle(struct gpu *g);

/* The next IH entry (8 dwords) into e; false when none. */
bool gpu_ih_next(struct gpu *g, uint32_t e[8]);

/* PM4 header (§4.1). */
static inline uint32_t
pkt3(uint32_t op, uint32_t count)
{
	return 3u << 30 | (count & 0x3fff) << 16 | (op & 0xff) << 8;
}

#endif
