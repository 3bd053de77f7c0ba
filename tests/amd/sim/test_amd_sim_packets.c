/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_packets: the sim's command processor and copy engine run
 * the PM4 and SDMA subsets from rings and doorbells, strictly; each raises
 * the IH entries the hardware would, in its format; a queue that stops
 * consuming, a full IH ring and bus mastering off behave as on hardware;
 * on NBIO 7.9 an SDMA doorbell reaches the engine only through its routing.
 * Every packet is assembled here as dwords from amd-facts (§4.3, §5), with
 * its fields named, never by the driver's encoders.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "rig.h"
#include "gpu.h"

#define DATA	(VA_VRAM + DATA_AT)
#define LO(a)	((uint32_t)(a))
#define HI(a)	((uint32_t)((a) >> 32))

static uint32_t
w32(struct gpu *g, uint64_t va)
{
	return atomic_load_explicit((_Atomic uint32_t *)gpu_ptr(g, va), memory_order_acquire);
}

static uint64_t
w64(struct gpu *g, uint64_t va)
{
	return atomic_load_explicit((_Atomic uint64_t *)gpu_ptr(g, va), memory_order_acquire);
}

/* §4.3 WRITE_DATA: count N + 2; dst_sel 5 (memory) [11:8], wr_confirm [20]. */
static void
write_data(uint32_t *p, uint64_t va, uint32_t v)
{
	p[0] = pkt3(0x37, 3);
	p[1] = 5u << 8 | 1u << 20;
	p[2] = LO(va);
	p[3] = HI(va);
	p[4] = v;
}

/* §4.3 RELEASE_MEM: event 0x14 index 5; data_sel [31:29], int_sel [26:24]. */
static void
release_mem(uint32_t *p, uint64_t va, uint64_t v, uint32_t data_sel,
	    uint32_t int_sel, uint32_t ctxid)
{
	p[0] = pkt3(0x49, 6);
	p[1] = 0x14 | 5u << 8;
	p[2] = data_sel << 29 | int_sel << 24;
	p[3] = LO(va);
	p[4] = HI(va);
	p[5] = LO(v);
	p[6] = HI(v);
	p[7] = ctxid;
}

static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };

static void
test_write_and_release(void **state)
{
	uint32_t p[13], e[8];
	struct ring r;
	struct gpu g;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		gpu_open(&g, gcs[k]);
		gpu_cp_queue(&g, 0, 4096, &r);
		write_data(p, DATA, 0x1234);
		release_mem(p + 5, DATA + 8, 0x1122334455667788ull, 2, 2, 0xc0ffee);
		ring_put(&r, p, 13);
		gpu_idle(&g);
		assert_int_equal(w32(&g, DATA), 0x1234);
		assert_true(w64(&g, DATA + 8) == 0x1122334455667788ull);
		assert_int_equal(w32(&g, r.rptr_va), 13);	/* rptr written back */
		/* §6.1/§6.4: EOP from GRBM_CP (20), src 181, ring = me 1, pipe 0, queue 0 */
		assert_true(gpu_ih_next(&g, e));
		assert_int_equal(e[0] & 0xff, 20);
		assert_int_equal((e[0] >> 8) & 0xff, 181);
		assert_int_equal((e[0] >> 16) & 0xff, 1 << 2);
		assert_int_equal(e[4], 0xc0ffee);
		assert_false(gpu_ih_next(&g, e));
		assert_false(amd_sim_halted(g.sim, AMD_SIM_CP, 0, NULL, 0));
		gpu_close(&g);
	}
}

static void
test_waits(void **state)
{
	uint32_t p[32];
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	gpu_cp_queue(&g, 1, 4096, &r);
	/* §4.3 WAIT_REG_MEM64: count 7; function 5 (>=), mem_space 1 [5:4] */
	p[0] = pkt3(0x93, 7);
	p[1] = 5 | 1u << 4;
	p[2] = LO(DATA + 0x100);
	p[3] = HI(DATA + 0x100);
	p[4] = 0;		/* reference: 1 << 32 */
	p[5] = 1;
	p[6] = 0xffffffff;	/* mask */
	p[7] = 0xffffffff;
	p[8] = 4;		/* poll_interval */
	release_mem(p + 9, DATA + 0x108, 7, 1, 0, 0);		/* 32-bit data */
	/* §4.3 WAIT_REG_MEM: count 5; function 3 (==), memory */
	p[17] = pkt3(0x3C, 5);
	p[18] = 3 | 1u << 4;
	p[19] = LO(DATA + 0x110);
	p[20] = HI(DATA + 0x110);
	p[21] = 0x50;		/* reference */
	p[22] = 0xf0;		/* mask */
	p[23] = 4;
	write_data(p + 24, DATA + 0x118, 9);
	ring_put(&r, p, 29);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x108), 0);	/* still waiting */
	atomic_store((_Atomic uint64_t *)gpu_ptr(&g, DATA + 0x100), 1ull << 32);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x108), 7);
	assert_int_equal(w32(&g, DATA + 0x118), 0);
	atomic_store((_Atomic uint32_t *)gpu_ptr(&g, DATA + 0x110), 0x5f);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x118), 9);
	gpu_close(&g);
}

static void
test_ib_sh_fillers(void **state)
{
	uint32_t ib[16], p[32], n = 0;
	uint64_t ib_va = DATA + 0x1000;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "12.0.0");
	gpu_cp_queue(&g, 2, 4096, &r);
	/* The IB: SET_SH_REG USER_DATA_0 (0x240) = 2 values, then a WRITE_DATA */
	ib[0] = pkt3(0x76, 2);
	ib[1] = 0x240;
	ib[2] = 0xaaaa;
	ib[3] = 0xbbbb;
	write_data(ib + 4, DATA + 0x200, 0x1b);
	memcpy(gpu_ptr(&g, ib_va), ib, 9 * 4);
	/* §4.3 ACQUIRE_MEM GFX10+: count 6; full range, GCR_CNTL in DW7 */
	p[n++] = pkt3(0x58, 6);
	p[n++] = 0;
	p[n++] = 0xffffffff;
	p[n++] = 0xffffff;
	p[n++] = 0;
	p[n++] = 0;
	p[n++] = 0x0a;
	p[n++] = 0x3 << 14;		/* GL2_INV | GL2_WB */
	p[n++] = 0x80000000;		/* type-2 filler */
	p[n++] = pkt3(0x10, 0x3fff);	/* linux's one-dword NOP */
	p[n++] = pkt3(0x10, 1);		/* NOP with 2 dwords after it */
	p[n++] = 0xdead;
	p[n++] = 0xbeef;
	/* §4.3 INDIRECT_BUFFER: count 2; size [19:0], valid [23] */
	p[n++] = pkt3(0x3F, 2);
	p[n++] = LO(ib_va);
	p[n++] = HI(ib_va);
	p[n++] = 9 | 1u << 23;
	/* §4.3 EVENT_WRITE CS_PARTIAL_FLUSH: type 7, index 4 */
	p[n++] = pkt3(0x46, 0);
	p[n++] = 7 | 4u << 8;
	write_data(p + n, DATA + 0x204, 0x2b);
	n += 5;
	ring_put(&r, p, n);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x200), 0x1b);
	assert_int_equal(w32(&g, DATA + 0x204), 0x2b);
	assert_int_equal(g.sim->cp.q[2].sh[0x240], 0xaaaa);
	assert_int_equal(g.sim->cp.q[2].sh[0x241], 0xbbbb);
	assert_false(amd_sim_halted(g.sim, AMD_SIM_CP, 2, NULL, 0));
	gpu_close(&g);
}

/* A bad packet halts its queue with the CP error entry; nothing after runs. */
static void
expect_cp_error(const char *gc, const uint32_t *bad, unsigned n, uint32_t src,
		const char *why)
{
	uint32_t p[64], e[8];
	char reason[160];
	struct ring r;
	struct gpu g;

	gpu_open(&g, gc);
	gpu_cp_queue(&g, 0, 4096, &r);
	memcpy(p, bad, n * 4);
	write_data(p + n, DATA + 0x300, 1);
	ring_put(&r, p, n + 5);
	gpu_idle(&g);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_CP, 0, reason, sizeof(reason)));
	assert_non_null(strstr(reason, why));
	assert_int_equal(w32(&g, DATA + 0x300), 0);
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal(e[0] & 0xff, 20);			/* GRBM_CP */
	assert_int_equal((e[0] >> 8) & 0xff, src);
	assert_int_equal(e[4], bad[0]);				/* the header */
	gpu_close(&g);
}

static void
test_cp_strict(void **state)
{
	uint32_t p[8];

	(void)state;
	p[0] = pkt3(0x42, 0);			/* no such opcode in the subset */
	p[1] = 0;
	expect_cp_error("11.0.0", p, 2, 183, "opcode the sim does not take");
	p[0] = 0x00000000;			/* a type-0 packet */
	expect_cp_error("11.0.0", p, 1, 183, "not a type-3 packet");
	release_mem(p, DATA, 1, 1, 0, 0);
	p[0] = pkt3(0x49, 5);			/* RELEASE_MEM of count 5 */
	expect_cp_error("12.0.1", p, 7, 180, "RELEASE_MEM count is not 6");
	write_data(p, DATA + 2, 1);		/* address not 4-byte aligned */
	expect_cp_error("11.0.2", p, 5, 180, "not 4-byte aligned");
	release_mem(p, DATA + 4, 1, 2, 0, 0);	/* 64-bit data, 4-aligned */
	expect_cp_error("9.4.3", p, 8, 180, "not 8-byte aligned");
	p[0] = pkt3(0x3F, 2);			/* IB without valid */
	p[1] = LO(DATA);
	p[2] = HI(DATA);
	p[3] = 4;
	expect_cp_error("11.0.0", p, 4, 180, "INDIRECT_BUFFER misaligned, not valid");
	p[0] = pkt3(0x10, 0x3000);		/* a NOP longer than the 1024-dword ring */
	expect_cp_error("11.0.0", p, 1, 180, "packet longer than its ring");
	p[0] = pkt3(0x58, 6);			/* GFX9's ACQUIRE_MEM is count 5 */
	memset(p + 1, 0, 6 * 4);
	expect_cp_error("9.4.3", p, 8, 180, "ACQUIRE_MEM count wrong");
}

static void
test_ring_wrap(void **state)
{
	uint32_t p[5];
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	gpu_cp_queue(&g, 0, 256, &r);		/* 64 dwords: 12 packets a lap */
	for (uint32_t i = 1; i <= 200; i++) {
		write_data(p, DATA + 0x400, i);
		ring_put(&r, p, 5);
	}
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x400), 200);
	assert_int_equal(w32(&g, r.rptr_va), 1000);
	gpu_close(&g);
}

static void
test_sdma_subset(void **state)
{
	uint32_t p[64], e[8], n = 0;
	uint64_t src = DATA + 0x10000, dst = DATA + 0x20000;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	gpu_sdma_queue(&g, 4096, &r);
	/* §5 CONSTANT_FILL: fillsize 2 (dwords) [31:30]; count = bytes - 1 */
	p[n++] = 11 | 2u << 30;
	p[n++] = LO(src);
	p[n++] = HI(src);
	p[n++] = 0x01020304;
	p[n++] = 8192 - 1;
	/* §5 COPY_LINEAR: count = bytes - 1; parameter; src; dst */
	p[n++] = 1;
	p[n++] = 6000 - 1;
	p[n++] = 0;
	p[n++] = LO(src);
	p[n++] = HI(src);
	p[n++] = LO(dst + 3);
	p[n++] = HI(dst + 3);
	/* §5 FENCE: mtype 3 (UC) [18:16]; addr; data */
	p[n++] = 5 | 3u << 16;
	p[n++] = LO(DATA + 0x30000);
	p[n++] = HI(DATA + 0x30000);
	p[n++] = 0x77;
	/* §5 TIMESTAMP GET_GLOBAL: op 13, sub_op 2 */
	p[n++] = 13 | 2u << 8;
	p[n++] = LO(DATA + 0x30008);
	p[n++] = HI(DATA + 0x30008);
	/* §5 TRAP: int_context [27:0] */
	p[n++] = 6;
	p[n++] = 0x5a5;
	/* §5 POLL_REGMEM: func 5 (>=) [30:28], mem_poll [31]; then a FENCE */
	p[n++] = 8 | 5u << 28 | 1u << 31;
	p[n++] = LO(DATA + 0x30010);
	p[n++] = HI(DATA + 0x30010);
	p[n++] = 3;
	p[n++] = 0xffffffff;
	p[n++] = 4 | 0xfffu << 16;
	p[n++] = 5 | 3u << 16;
	p[n++] = LO(DATA + 0x30014);
	p[n++] = HI(DATA + 0x30014);
	p[n++] = 0x88;
	p[n++] = 0;			/* NOP */
	ring_put(&r, p, n);
	gpu_idle(&g);
	for (int i = 0; i < 6000; i++)
		assert_int_equal(((uint8_t *)gpu_ptr(&g, dst + 3))[i], 4 - i % 4);
	assert_int_equal(((uint8_t *)gpu_ptr(&g, dst))[6003], 0);
	assert_int_equal(w32(&g, DATA + 0x30000), 0x77);
	assert_true(w64(&g, DATA + 0x30008) != 0);
	assert_int_equal(w32(&g, DATA + 0x30014), 0);		/* polling */
	atomic_store((_Atomic uint32_t *)gpu_ptr(&g, DATA + 0x30010), 3);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x30014), 0x88);
	assert_true(w64(&g, r.rptr_va) == (uint64_t)n * 4);	/* bytes */
	/* §6.3: SOC21 SDMA_TRAP arrives from client GFX (10), src 49 */
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal(e[0] & 0xff, 10);
	assert_int_equal((e[0] >> 8) & 0xff, 49);
	assert_int_equal(e[4], 0x5a5);
	gpu_close(&g);
}

static void
expect_sdma_error(const uint32_t *bad, unsigned n, const char *why)
{
	uint32_t p[16], e[8];
	char reason[160];
	struct ring r;
	struct gpu g;

	gpu_open(&g, "12.0.1");
	gpu_sdma_queue(&g, 4096, &r);
	memcpy(p, bad, n * 4);
	p[n] = 5;
	p[n + 1] = LO(DATA + 0x500);
	p[n + 2] = HI(DATA + 0x500);
	p[n + 3] = 1;
	ring_put(&r, p, n + 4);
	gpu_idle(&g);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_SDMA, 0, reason, sizeof(reason)));
	assert_non_null(strstr(reason, why));
	assert_int_equal(w32(&g, DATA + 0x500), 0);
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal((e[0] >> 8) & 0xff, 255);
	assert_int_equal(e[4], bad[0]);
	gpu_close(&g);
}

static void
test_sdma_strict(void **state)
{
	uint32_t p[8] = { 0x7f };

	(void)state;
	expect_sdma_error(p, 1, "op the sim does not take");
	p[0] = 1 | 1u << 8;			/* COPY_LINEAR sub_op 1 */
	expect_sdma_error(p, 7, "sub_op");
	p[0] = 1;
	p[1] = 1u << 30;			/* count's reserved bits */
	expect_sdma_error(p, 7, "COPY_LINEAR count's reserved bits");
	p[0] = 5;
	p[1] = LO(DATA + 2);			/* FENCE misaligned */
	p[2] = HI(DATA);
	expect_sdma_error(p, 4, "FENCE address not 4-byte aligned");
	p[0] = 0x3fffu << 16;			/* a NOP of 16 Ki dwords, ring 1 Ki */
	expect_sdma_error(p, 1, "packet longer than its ring");
	p[0] = 11 | 2u << 30;			/* dword fill of 6 bytes */
	p[1] = LO(DATA);
	p[2] = HI(DATA);
	p[4] = 5;
	expect_sdma_error(p, 5, "CONSTANT_FILL of dwords misaligned");
}

/* SDMA 4.4 on GC 9.4.3: SOC15's SDMA0 client and source 224 for TRAP,
 * 22-bit copy counts (§5). */
static void
test_sdma_gc9(void **state)
{
	uint32_t p[16], e[8];
	char why[160];
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "9.4.3");
	gpu_sdma_queue(&g, 4096, &r);
	p[0] = 1;				/* COPY_LINEAR of 64 bytes */
	p[1] = 64 - 1;
	p[2] = 0;
	p[3] = LO(DATA);
	p[4] = HI(DATA);
	p[5] = LO(DATA + 0x800);
	p[6] = HI(DATA + 0x800);
	p[7] = 6;				/* TRAP */
	p[8] = 0x42;
	memset(gpu_ptr(&g, DATA), 0x5c, 64);
	ring_put(&r, p, 9);
	gpu_idle(&g);
	assert_int_equal(((uint8_t *)gpu_ptr(&g, DATA + 0x800))[63], 0x5c);
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal(e[0] & 0xff, 8);			/* SDMA0 */
	assert_int_equal((e[0] >> 8) & 0xff, 224);		/* SDMA_TRAP */
	assert_int_equal(e[4], 0x42);
	p[1] = 0x400000;			/* past 22 bits */
	ring_put(&r, p, 7);
	gpu_idle(&g);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_SDMA, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "COPY_LINEAR count's reserved bits"));
	gpu_close(&g);
}

/*
 * NBIO 7.9 (GC 9.4.3): the SDMA queue's doorbell reaches the engine only
 * through AID 0's routing of SDMA instance 0 (src/amd/sim/nbio.c): with
 * DOORBELL0_CTRL_ENTRY_1 cleared, with a range that misses dword 512, or
 * with S2A port 1 naming another awid, a doorbell is dropped and the copy
 * never runs; routed again, the next doorbell runs it.
 */
static void
test_sdma_gc9_routing(void **state)
{
	uint32_t p[7], entry1, port1;
	uint8_t *dst;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "9.4.3");
	gpu_sdma_queue(&g, 4096, &r);		/* routed, as the boot routes it */
	entry1 = gpu_reg(&g, AMD_REG_NBIF_DOORBELL0_CTRL_ENTRY_1);
	port1 = gpu_reg(&g, AMD_REG_NBIF_S2A_DOORBELL_ENTRY_1_CTRL);
	p[0] = 1;				/* COPY_LINEAR of 64 bytes */
	p[1] = 64 - 1;
	p[2] = 0;
	p[3] = LO(DATA);
	p[4] = HI(DATA);
	p[5] = LO(DATA + 0x800);
	p[6] = HI(DATA + 0x800);
	dst = gpu_ptr(&g, DATA + 0x800);
	memset(gpu_ptr(&g, DATA), 0x6d, 64);
	memset(dst, 0, 64);
	gpu_wreg_any(&g, entry1, 0);
	ring_put(&r, p, 7);
	gpu_idle(&g);
	assert_int_equal(dst[63], 0);		/* dropped */
	gpu_wreg_any(&g, entry1, 532 | 20u << 10);	/* instance 1's range */
	assert_int_equal(amd_sim_doorbell(g.sim, r.doorbell, r.wptr), 0);
	gpu_idle(&g);
	assert_int_equal(dst[63], 0);
	gpu_wreg_any(&g, entry1, 512 | 20u << 10);
	gpu_wreg_any(&g, port1, 1 | 0x8u << 1 | 0xeu << 7 | 20u << 17 | 1u << 28);
	assert_int_equal(amd_sim_doorbell(g.sim, r.doorbell, r.wptr), 0);
	gpu_idle(&g);
	assert_int_equal(dst[63], 0);		/* awid 8: SDMA instance 1's */
	gpu_wreg_any(&g, port1, 1 | 0xeu << 1 | 0xeu << 7 | 20u << 17 | 1u << 28);
	assert_int_equal(amd_sim_doorbell(g.sim, r.doorbell, r.wptr), 0);
	gpu_idle(&g);
	assert_int_equal(dst[63], 0x6d);
	gpu_close(&g);
}

/* A queue that stops consuming: its doorbells are ignored until it resumes. */
static void
test_stalled_queue(void **state)
{
	uint32_t p[5];
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	gpu_cp_queue(&g, 0, 4096, &r);
	assert_int_equal(amd_sim_stall(g.sim, AMD_SIM_CP, 0, true), 0);
	write_data(p, DATA + 0x600, 3);
	ring_put(&r, p, 5);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x600), 0);
	assert_int_equal(w32(&g, r.rptr_va), 0);
	assert_int_equal(amd_sim_stall(g.sim, AMD_SIM_CP, 0, false), 0);
	gpu_idle(&g);
	assert_int_equal(w32(&g, DATA + 0x600), 3);
	gpu_close(&g);
}

/* IH overflow: a full ring drops entries and says so until cleared. */
static void
test_ih_overflow(void **state)
{
	uint32_t p[8], e[8], ih;
	struct ring r;
	struct gpu g;
	int got = 0;

	(void)state;
	gpu_open(&g, "11.0.0");
	ih = g.sim->lay.ih;
	gpu_wreg(&g, ih, 0);				/* off */
	gpu_wreg(&g, ih + 4, 0);			/* IH_RB_WPTR */
	gpu_wreg(&g, ih + 3, 0);			/* IH_RB_RPTR */
	*(uint32_t *)(g.vram + IH_WPTR_AT) = 0;
	g.ih_rptr = 0;
	gpu_wreg(&g, ih, 1 | 6 << 1 | 1u << 17);	/* 64 dwords: 8 entries */
	gpu_cp_queue(&g, 0, 4096, &r);
	for (uint32_t i = 0; i < 10; i++) {
		release_mem(p, DATA + 0x700, i, 1, 2, i);
		ring_put(&r, p, 8);
	}
	gpu_idle(&g);
	assert_true(gpu_rreg(&g, ih + 4) & 1);		/* rb_overflow */
	while (gpu_ih_next(&g, e))
		assert_int_equal(e[4], (uint32_t)got++);
	assert_int_equal(got, 7);			/* one slot stays empty */
	release_mem(p, DATA + 0x700, 10, 1, 2, 10);
	ring_put(&r, p, 8);
	gpu_idle(&g);
	assert_false(gpu_ih_next(&g, e));		/* dropped: overflow holds */
	gpu_wreg(&g, ih, 1 | 6 << 1 | 1u << 17 | 1u << 31);	/* wptr_overflow_clear */
	assert_false(gpu_rreg(&g, ih + 4) & 1);
	release_mem(p, DATA + 0x700, 11, 1, 2, 11);
	ring_put(&r, p, 8);
	gpu_idle(&g);
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal(e[4], 11);
	gpu_close(&g);
}

/* Bus mastering off: the engine reaches no host memory. */
static void
test_bus_master_off(void **state)
{
	uint32_t p[8];
	uint16_t command;
	char reason[160];
	uint64_t bus;
	void *host;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	assert_int_equal(amd_sim_host_alloc(g.sim, 4096, &host, &bus), 0);
	gpu_map(&g, VA_HOST, bus, 4096, PTE_RWX | PTE_SYS | PTE_SNOOP, false);
	gpu_sdma_queue(&g, 4096, &r);
	p[0] = 5;					/* FENCE to host memory */
	p[1] = LO(VA_HOST);
	p[2] = HI(VA_HOST);
	p[3] = 0x11;
	ring_put(&r, p, 4);
	gpu_idle(&g);
	assert_int_equal(atomic_load((_Atomic uint32_t *)host), 0x11);
	assert_int_equal(amd_sim_config_read(g.sim, 4, &command, 2), 0);
	command &= (uint16_t)~4;
	assert_int_equal(amd_sim_config_write(g.sim, 4, &command, 2), 0);
	p[3] = 0x22;
	ring_put(&r, p, 4);
	gpu_idle(&g);
	assert_int_equal(atomic_load((_Atomic uint32_t *)host), 0x11);
	assert_true(amd_sim_dropped_dma(g.sim) > 0);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_SDMA, 0, reason, sizeof(reason)));
	assert_non_null(strstr(reason, "bus mastering off"));
	gpu_close(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_release),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_ib_sh_fillers),
		cmocka_unit_test(test_cp_strict),
		cmocka_unit_test(test_ring_wrap),
		cmocka_unit_test(test_sdma_subset),
		cmocka_unit_test(test_sdma_strict),
		cmocka_unit_test(test_sdma_gc9),
		cmocka_unit_test(test_sdma_gc9_routing),
		cmocka_unit_test(test_stalled_queue),
		cmocka_unit_test(test_ih_overflow),
		cmocka_unit_test(test_bus_master_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
