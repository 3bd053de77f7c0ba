/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/gfx.c: the GFX unit (amd-facts §3.10). A full boot first waits
 * for the RLC's autoload of the images the PSP placed (linux's condition:
 * CP_STAT 0 and RLC_RLCS_BOOTLOAD_STATUS's bootload_complete, bit 31).
 * Then the GC hub's context 0 of every XCC (gmc.c), and only once both
 * hubs translate bus mastering on. GC 9.4.3's full boot sets up each
 * XCC as §3.10 steps 3, 6 and 7 say (mec_gc9, below), then on a part of
 * several XCCs asks the PSP for one partition (SRIOV_SPATIAL_PART(1),
 * step 8); rig's queues stay on XCC 0, the partition's first. GC 11 and
 * 12's full boot sets the MEC's program counter to its image's start
 * address (START = (lo >> 2) | (hi << 30), START_HI = hi >> 2, under
 * GRBM_GFX_CNTL me 1 pipe 0, §1.5), then un-halts it as linux's
 * gfx_v11_0.c/gfx_v12_0.c cp_compute_enable(true) does from kiq_resume
 * before any queue (CP_MEC_RS64_CNTL, read-modify-write: mec_invalidate_
 * icache [4], mec_pipe0..3_reset [19:16] and mec_halt [30] 0,
 * mec_pipe0..3_active [29:26] 1; bit positions of linux's
 * gc_11_0_0_sh_mask.h and gc_12_0_0_sh_mask.h). The pipe reset pulse
 * linux gives with the counter when it loads the MEC itself, and PFP/ME's
 * counters (GC 12), are not written: unverified on hardware. Last, compute queue 0 of
 * ME1 pipe 0 through its HQD registers, and a check that the MEC runs:
 * one NOP through that queue, its read pointer written back (a MEC left
 * halted, started before its image was loaded or at another address
 * than its image's runs nothing, and the boot stops here with the step's
 * message), then the queue dequeued and set up again from dword 0, where
 * the device's rings start (dev/queue.c). Fini dequeues it without
 * waiting: a hung or faulted queue never drains.
 */
#include <stdatomic.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"
#include "amd/pm4/pm4.h"

#define MS	1000

/* HQD registers by their place among the 56 from CP_MQD_BASE_ADDR (§3.10). */
enum { HQD_ACTIVE = 2, HQD_PQ_BASE = 8, HQD_PQ_BASE_HI = 9, HQD_PQ_RPTR = 10,
       HQD_RPTR_REPORT = 11, HQD_DOORBELL = 15, HQD_PQ_CONTROL = 17,
       HQD_DEQUEUE = 24, HQD_WPTR_LO = 54, HQD_WPTR_HI = 55 };

static int
autoload_done(struct amd_boot *b)
{
	int ret = amd_boot_wait(b, "GFX", "RLC autoload not complete",
				AMD_REG_GC_RLC_RLCS_BOOTLOAD_STATUS, 1u << 31, 1u << 31,
				MS, NULL);

	return ret < 0 ? ret : amd_boot_wait(b, "GFX", "CP not idle after the RLC "
					     "autoload", AMD_REG_GC_CP_STAT,
					     0xFFFFFFFFu, 0, MS, NULL);
}

/* CP_MEC_RS64_CNTL: what cp_compute_enable(true) clears and sets. */
#define RS64_STOPS	(1u << 4 | 0xfu << 16 | 1u << 30)
#define RS64_ACTIVES	(0xfu << 26)

static int
mec_start(struct amd_boot *b)
{
	uint32_t lo = (uint32_t)b->mec_start, hi = (uint32_t)(b->mec_start >> 32);
	uint32_t cntl;

	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);	/* meid 1, pipe 0 */
	BW(b, AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START, 0, lo >> 2 | hi << 30);
	BW(b, AMD_REG_GC_CP_MEC_RS64_PRGRM_CNTR_START_HI, 0, hi >> 2);
	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	cntl = amd_dev_rreg(b->d, AMD_REG_GC_CP_MEC_RS64_CNTL, 0);
	BW(b, AMD_REG_GC_CP_MEC_RS64_CNTL, 0, (cntl & ~RS64_STOPS) | RS64_ACTIVES);
	return 0;
}

static int
queue_on(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	uint64_t va = AMD_VA_VRAM + AMD_CP_RING_AT, rp = AMD_VA_VRAM + AMD_CP_RPTR_AT;
	enum amd_reg q = AMD_REG_GC_CP_MQD_BASE_ADDR;

	memset(d->vram + AMD_CP_RING_AT, 0, AMD_RING_BYTES);
	memset(d->vram + AMD_CP_RPTR_AT, 0, 64);
	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);	/* meid 1, pipe 0, queue 0 */
	BW(b, q, HQD_PQ_BASE, (uint32_t)(va >> 8));
	BW(b, q, HQD_PQ_BASE_HI, (uint32_t)(va >> 40));
	BW(b, q, HQD_PQ_RPTR, 0);
	BW(b, q, HQD_RPTR_REPORT, (uint32_t)rp);
	BW(b, q, HQD_RPTR_REPORT + 1, (uint32_t)(rp >> 32));
	BW(b, q, HQD_DOORBELL, AMD_CP_DOORBELL * 2 << 2 | 1u << 30);
	BW(b, q, HQD_PQ_CONTROL, amd_boot_log2(AMD_RING_BYTES / 4) - 1);
	BW(b, q, HQD_WPTR_LO, 0);
	BW(b, q, HQD_WPTR_HI, 0);
	BW(b, q, HQD_ACTIVE, 1);
	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	return 0;
}

/* One NOP through queue 0, its read pointer back, then the queue anew. */
static int
mec_runs(struct amd_boot *b)
{
	struct amd_dev *d = b->d;
	int ret;

	pm4_nop((uint32_t *)(d->vram + AMD_CP_RING_AT), 1);
	atomic_thread_fence(memory_order_release);	/* the NOP before the doorbell */
	if ((ret = d->m->ops->doorbell_write(d->m, &d->t, AMD_CP_DOORBELL * 8, 1)) < 0)
		return amd_boot_fail(b, ret, "GFX: compute queue 0's doorbell: %s",
				     amd_cause());
	if ((ret = amd_boot_wait_mem(b, "GFX", "MEC not running: compute queue 0 "
				     "read no packet", AMD_CP_RPTR_AT, 1, MS)) < 0)
		return ret;
	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);	/* meid 1, pipe 0, queue 0 */
	BW(b, AMD_REG_GC_CP_MQD_BASE_ADDR, HQD_DEQUEUE, 1);
	ret = amd_boot_wait(b, "GFX", "compute queue 0 not dequeued after its check",
			    AMD_REG_GC_CP_HQD_ACTIVE, 1, 0, MS, NULL);
	BW(b, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	return ret < 0 ? ret : queue_on(b);
}

/*
 * GC 9.4.3, every XCC (§3.10 steps 3, 6, 7; fields from linux's
 * gc_9_4_3 sh_mask as regs.py carries them): the MEC halted with its
 * pipes reset and its icache invalidated (CP_MEC_CNTL mec_invalidate_icache
 * [4], mec_me1_pipe0_reset [16], mec_me2_pipe0_reset [20], mec_me2_halt
 * [28], mec_me1_halt [30]); the golden GB_ADDR_CONFIG, TCP_UTCL1_CNTL2's
 * spare [7:0] = 1, GRBM_CNTL's read_timeout [7:0] = 0xff; for vmid 0..15
 * (GRBM_GFX_CNTL vmid [7:4]) SH_MEM_CONFIG {address_mode [0] 64-bit,
 * alignment_mode [4:3] unaligned (3), f8_mode [8], retry_disable [12]}
 * and SH_MEM_BASES {shared_base [31:16] 1, private_base [15:0] 2}; the
 * XCC's MEC doorbell range; then, once every XCC is set, each MEC
 * un-halted (CP_MEC_CNTL 0) and 50 ms for them to start.
 */
#define MEC_HALTED	(1u << 4 | 1u << 16 | 1u << 20 | 1u << 28 | 1u << 30)
#define GOLDEN_GB_ADDR_CONFIG	0x2a114042u
#define SH_MEM_CONFIG_GC9	(3u << 3 | 1u << 8 | 1u << 12)
#define SH_MEM_BASES_GC9	(1u << 16 | 2u)

static int
xcc_gc9(struct amd_boot *b, unsigned x)
{
	struct amd_dev *d = b->d;
	uint32_t v;

	BWX(b, "GFX", x, AMD_REG_GC_CP_MEC_CNTL, 0, MEC_HALTED);
	BWX(b, "GFX", x, AMD_REG_GC_GB_ADDR_CONFIG, 0, GOLDEN_GB_ADDR_CONFIG);
	v = amd_dev_rreg_xcc(d, x, AMD_REG_GC_TCP_UTCL1_CNTL2, 0);
	BWX(b, "GFX", x, AMD_REG_GC_TCP_UTCL1_CNTL2, 0, (v & ~0xffu) | 1);
	v = amd_dev_rreg_xcc(d, x, AMD_REG_GC_GRBM_CNTL, 0);
	BWX(b, "GFX", x, AMD_REG_GC_GRBM_CNTL, 0, (v & ~0xffu) | 0xff);
	for (uint32_t vmid = 0; vmid < 16; vmid++) {
		BWX(b, "GFX", x, AMD_REG_GC_GRBM_GFX_CNTL, 0, vmid << 4);
		BWX(b, "GFX", x, AMD_REG_GC_SH_MEM_CONFIG, 0, SH_MEM_CONFIG_GC9);
		BWX(b, "GFX", x, AMD_REG_GC_SH_MEM_BASES, 0, SH_MEM_BASES_GC9);
	}
	BWX(b, "GFX", x, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
	BWX(b, "GFX", x, AMD_REG_GC_CP_MEC_DOORBELL_RANGE_LOWER, 0, 0x100 * x);
	BWX(b, "GFX", x, AMD_REG_GC_CP_MEC_DOORBELL_RANGE_UPPER, 0, 0x100 * x + 0xf8);
	return 0;
}

static int
mec_gc9(struct amd_boot *b)
{
	unsigned n = b->d->regs.xccs ? b->d->regs.xccs : 1;
	int ret;

	for (unsigned x = 0; x < n; x++)
		if ((ret = xcc_gc9(b, x)) < 0)
			return ret;
	for (unsigned x = 0; x < n; x++)
		BWX(b, "GFX", x, AMD_REG_GC_CP_MEC_CNTL, 0, 0);
	amd_boot_sleep(50);
	/* Several XCCs: one partition of them all (§3.10 step 8). */
	return n > 1 ? amd_boot_psp_spatial(b, 1) : 0;
}

int
amd_boot_gfx_init(struct amd_boot *b)
{
	bool gc9 = b->d->gc_major == 9;
	int ret;

	if (b->full && !gc9 && (ret = autoload_done(b)) < 0)
		return ret;
	if ((ret = amd_boot_gchub_init(b)) < 0)
		return ret;
	/* Both hubs translate: only now may the GPU reach host memory. */
	if ((ret = pci_bus_master(b->d->m, &b->d->t, true)) < 0)
		return amd_boot_fail(b, ret, "GFX: bus mastering on: %s", amd_cause());
	if (b->full && (ret = gc9 ? mec_gc9(b) : mec_start(b)) < 0)
		return ret;
	if ((ret = queue_on(b)) < 0)
		return ret;
	return mec_runs(b);
}

void
amd_boot_gfx_fini(struct amd_dev *d, bool clean)
{
	(void)clean;
	(void)amd_dev_wreg(d, AMD_REG_GC_GRBM_GFX_CNTL, 0, 1u << 2);
	(void)amd_dev_wreg(d, AMD_REG_GC_CP_MQD_BASE_ADDR, HQD_DEQUEUE, 1);
	(void)amd_dev_wreg(d, AMD_REG_GC_GRBM_GFX_CNTL, 0, 0);
}
