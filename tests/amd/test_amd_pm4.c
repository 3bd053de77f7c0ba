/* SPDX-License-Identifier: MIT */
/*
 * test_amd_pm4: every PM4 encoder (src/amd/pm4/) writes the dwords the
 * byte layouts of ../shared/docs/amd-facts.md §4 give. Each expected dword
 * is written out here from the facts' bit positions (the section named
 * beside it), not from the encoder's own macros, so a field moved in the
 * encoder fails here. The ring's padding keeps every packet whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "amd/pm4/dispatch.h"
#include "amd/pm4/pm4.h"
#include "amd/pm4/ring.h"

#include "golden.h"

/* §4.1: header = type 3 [31:30], count [29:16] = dwords - 2, opcode [15:8]. */
static void
test_header(void **state)
{
	(void)state;
	assert_int_equal(PACKET3(0x49, 6), 3u << 30 | 6u << 16 | 0x49u << 8);
	assert_int_equal(PACKET3(0x10, 0x3FFF), 0xFFFF1000);	/* linux's nop */
}

/* §4.1: one dword of NOP is count 0x3FFF; more are count n - 2 + payload. */
static void
test_nop(void **state)
{
	(void)state;
	GOLDEN(pm4_nop(buf, 1), "NOP 1", 0xFFFF1000);
	GOLDEN(pm4_nop(buf, 3), "NOP 3", 3u << 30 | 1u << 16 | 0x10u << 8, 0, 0);
	GOLDEN(pm4_nop(buf, 2), "NOP 2", 3u << 30 | 0u << 16 | 0x10u << 8, 0);
}

/*
 * §4.3 RELEASE_MEM (0x49, 8 dw): DW1 event_type [5:0] = 0x14
 * (CACHE_FLUSH_AND_INV_TS), event_index [11:8] = 5; gcr bits §4.4
 * (GFX10/11: GLM_WB 12, GL2_WB 21, SEQ 23:22 = 1, cache_policy 26:25);
 * DW2 dst_sel [17:16] 0, int_sel [26:24], data_sel [31:29]; DW3/4 address;
 * DW5/6 data; DW7 int_ctxid.
 */
static void
test_release_mem_64bit_interrupt(void **state)
{
	const uint64_t addr = 0x123456789AB8ull, data = 0x1122334455667788ull;

	(void)state;
	GOLDEN(pm4_release_mem(buf, AMD_GFX11, PM4_WB_L2, PM4_DATA_64,
			       PM4_INT_AFTER_WRITE, addr, data, 0xC0FFEE),
	       "RELEASE_MEM GFX11",
	       3u << 30 | 6u << 16 | 0x49u << 8,
	       0x14 | 5u << 8 | 1u << 12 | 1u << 21 | 1u << 22 | 3u << 25,
	       2u << 29 | 2u << 24,
	       0x56789AB8, 0x1234, 0x55667788, 0x11223344, 0xC0FFEE);
	/* §4.4 GFX12: no GLM bits (reserved), no cache_policy */
	GOLDEN(pm4_release_mem(buf, AMD_GFX12, PM4_WB_L2, PM4_DATA_64,
			       PM4_INT_AFTER_WRITE, addr, data, 7),
	       "RELEASE_MEM GFX12",
	       3u << 30 | 6u << 16 | 0x49u << 8,
	       0x14 | 5u << 8 | 1u << 21 | 1u << 22,
	       2u << 29 | 2u << 24,
	       0x56789AB8, 0x1234, 0x55667788, 0x11223344, 7);
	/* §4.3 GFX9: EOP_TC_WB_ACTION_EN [15] */
	GOLDEN(pm4_release_mem(buf, AMD_GFX9, PM4_WB_L2, PM4_DATA_64,
			       PM4_INT_NONE, addr, data, 0),
	       "RELEASE_MEM GFX9",
	       3u << 30 | 6u << 16 | 0x49u << 8,
	       0x14 | 5u << 8 | 1u << 15,
	       2u << 29,
	       0x56789AB8, 0x1234, 0x55667788, 0x11223344, 0);
	/* §4.5: a timestamp is data_sel 3 (the GPU clock) */
	GOLDEN(pm4_release_mem(buf, AMD_GFX11, 0, PM4_DATA_GPU_CLOCK, 0, 0x1000,
			       0, 0), "RELEASE_MEM clock",
	       0xC0064900, 0x14 | 5u << 8 | 3u << 25, 3u << 29, 0x1000, 0, 0, 0, 0);
}

/* §4.3: setting a written RELEASE_MEM's int_sel [26:24] later changes
 * DW2's int_sel only, both ways. */
static void
test_release_mem_interrupt_later(void **state)
{
	const uint64_t addr = 0x123456789AB8ull, data = 0x1122334455667788ull;

	(void)state;
	pm4_release_mem(buf, AMD_GFX11, PM4_WB_L2, PM4_DATA_64, PM4_INT_NONE, addr,
			data, 9);
	pm4_release_mem_interrupt(buf, PM4_INT_AFTER_WRITE);
	GOLDEN(buf + 8, "RELEASE_MEM interrupt set later",
	       3u << 30 | 6u << 16 | 0x49u << 8,
	       0x14 | 5u << 8 | 1u << 12 | 1u << 21 | 1u << 22 | 3u << 25,
	       2u << 29 | 2u << 24,
	       0x56789AB8, 0x1234, 0x55667788, 0x11223344, 9);
	pm4_release_mem_interrupt(buf, PM4_INT_NONE);
	assert_int_equal(buf[2], 2u << 29);
}

/* §4.3: a RELEASE_MEM copied from a template with other data and ctxid is
 * the packet pm4_release_mem() writes with them. */
static void
test_release_mem_copy(void **state)
{
	const uint64_t addr = 0x123456789AB8ull, data = 0x1122334455667788ull;
	uint32_t tmpl[PM4_RELEASE_MEM_DWORDS], direct[PM4_RELEASE_MEM_DWORDS];

	(void)state;
	pm4_release_mem(tmpl, AMD_GFX11, PM4_WB_L2, PM4_DATA_64, PM4_INT_NONE, addr, 0, 0);
	pm4_release_mem(direct, AMD_GFX11, PM4_WB_L2, PM4_DATA_64, PM4_INT_NONE, addr,
			data, 9);
	assert_ptr_equal(pm4_release_mem_copy(buf, tmpl, data, 9), buf + 8);
	assert_memory_equal(buf, direct, sizeof(direct));
}

/*
 * §4.3 WAIT_REG_MEM64 (0x93, 9 dw): DW1 function [2:0] (5: >=),
 * mem_space [5:4] = 1; DW2/3 address (8-aligned); DW4/5 reference lo/hi;
 * DW6/7 mask lo/hi; DW8 poll_interval [15:0].
 */
static void
test_wait_reg_mem64_ge(void **state)
{
	(void)state;
	GOLDEN(pm4_wait_reg_mem64(buf, PM4_FUNC_GE, 0x100000008ull,
				  0x0000000500000007ull, ~0ull, 4),
	       "WAIT_REG_MEM64",
	       3u << 30 | 7u << 16 | 0x93u << 8,
	       5 | 1u << 4, 0x8, 0x1, 7, 5, 0xFFFFFFFF, 0xFFFFFFFF, 4);
}

/*
 * §4.3 WAIT_REG_MEM (0x3C, 7 dw): DW1 function, mem_space [5:4]; memory:
 * DW2/3 address; register: DW2 reg_poll_addr [17:0]; DW4 reference; DW5
 * mask; DW6 poll_interval.
 */
static void
test_wait_reg_mem(void **state)
{
	(void)state;
	GOLDEN(pm4_wait_reg_mem(buf, PM4_FUNC_EQ, true, 0x200000004ull, 9,
				0xFFFF, 4),
	       "WAIT_REG_MEM memory",
	       3u << 30 | 5u << 16 | 0x3Cu << 8, 3 | 1u << 4, 4, 2, 9, 0xFFFF, 4);
	GOLDEN(pm4_wait_reg_mem(buf, PM4_FUNC_GE, false, 0x16091, 1, 1, 10),
	       "WAIT_REG_MEM register",
	       3u << 30 | 5u << 16 | 0x3Cu << 8, 5, 0x16091, 0, 1, 1, 10);
}

/*
 * §4.3 ACQUIRE_MEM: GFX10-12 8 dw (count 6): DW1 0, DW2 coher_size
 * 0xffffffff, DW3 0xffffff, DW4/5 base 0, DW6 poll 0x0A, DW7 gcr_cntl
 * (§4.4: GLI_INV [1:0] = 1, GLM_WB 4, GLM_INV 5, GLK_INV 7, GLV_INV 8,
 * GL1_INV 9, GL2_INV 14, GL2_WB 15; GFX12 has no GLM nor GL1). GFX9 7 dw
 * (count 5): DW1 CP_COHER_CNTL (SH_ICACHE 29, SH_KCACHE 27, TCL1 22, TC 23,
 * TC_WB 18).
 */
static void
test_acquire_mem_per_generation(void **state)
{
	const uint32_t all = PM4_INV_I | PM4_INV_K | PM4_INV_V | PM4_INV_L1 |
			     PM4_INV_L2 | PM4_WB_L2;

	(void)state;
	/* linux gfx_v11_0_emit_mem_sync's set: GL2_INV|GL2_WB|GLM_INV|GLM_WB|
	 * GL1_INV|GLV_INV|GLK_INV|GLI_INV(1) */
	GOLDEN(pm4_acquire_mem(buf, AMD_GFX11, all), "ACQUIRE_MEM GFX11",
	       3u << 30 | 6u << 16 | 0x58u << 8, 0, 0xFFFFFFFF, 0x00FFFFFF, 0, 0,
	       0x0A, 1u | 1u << 4 | 1u << 5 | 1u << 7 | 1u << 8 | 1u << 9 |
	       1u << 14 | 1u << 15);
	GOLDEN(pm4_acquire_mem(buf, AMD_GFX12, all), "ACQUIRE_MEM GFX12",
	       3u << 30 | 6u << 16 | 0x58u << 8, 0, 0xFFFFFFFF, 0x00FFFFFF, 0, 0,
	       0x0A, 1u | 1u << 7 | 1u << 8 | 1u << 14 | 1u << 15);
	GOLDEN(pm4_acquire_mem(buf, AMD_GFX9, all), "ACQUIRE_MEM GFX9",
	       3u << 30 | 5u << 16 | 0x58u << 8,
	       1u << 29 | 1u << 27 | 1u << 22 | 1u << 23 | 1u << 18,
	       0xFFFFFFFF, 0x00FFFFFF, 0, 0, 0x0A);
	assert_int_equal(pm4_acquire_mem_dwords(AMD_GFX9), 7);
	assert_int_equal(pm4_acquire_mem_dwords(AMD_GFX12), 8);
}

/* §4.3 SET_SH_REG (0x76, 2+N dw, count N): DW1 reg - 0x2C00; §4.5: PGM_LO
 * is 0x2e0c (offset 0x20c). */
static void
test_set_sh_reg(void **state)
{
	const uint32_t v[2] = { 0x10, 0x7F };

	(void)state;
	GOLDEN(pm4_set_sh_reg(buf, 0x2e0c, v, 2), "SET_SH_REG",
	       3u << 30 | 2u << 16 | 0x76u << 8, 0x20c, 0x10, 0x7F);
	GOLDEN(pm4_set_sh_reg1(buf, 0x2e18, 5), "SET_SH_REG 1",
	       3u << 30 | 1u << 16 | 0x76u << 8, 0x218, 5);
}

/* §4.3 DISPATCH_DIRECT (0x15, 5 dw): dims, then the initiator:
 * compute_shader_en [0], force_start_at_000 [2], cs_w32_en [15]. */
static void
test_dispatch_direct(void **state)
{
	(void)state;
	GOLDEN(pm4_dispatch_direct(buf, 4, 2, 1, PM4_DISPATCH_COMPUTE_SHADER_EN |
				   PM4_DISPATCH_FORCE_START_AT_000 |
				   PM4_DISPATCH_CS_W32_EN), "DISPATCH_DIRECT",
	       3u << 30 | 3u << 16 | 0x15u << 8, 4, 2, 1, 1u | 1u << 2 | 1u << 15);
}

/* §4.3 INDIRECT_BUFFER (0x3F, 4 dw): DW1 base lo [31:2], DW2 hi, DW3
 * ib_size [19:0], valid [23], vmid [27:24]. */
static void
test_indirect_buffer(void **state)
{
	(void)state;
	GOLDEN(pm4_indirect_buffer(buf, 0x7FFF00001000ull, 64, 3),
	       "INDIRECT_BUFFER", 3u << 30 | 2u << 16 | 0x3Fu << 8, 0x00001000,
	       0x7FFF, 64 | 1u << 23 | 3u << 24);
}

/* §4.3 EVENT_WRITE (0x46, 2 dw for flushes): event_type [5:0],
 * event_index [11:8]; CS_PARTIAL_FLUSH 7, index 4. */
static void
test_event_write(void **state)
{
	(void)state;
	GOLDEN(pm4_event_write(buf, PM4_EVENT_CS_PARTIAL_FLUSH,
			       PM4_EVENT_INDEX_CS_PARTIAL_FLUSH), "EVENT_WRITE",
	       3u << 30 | 0x46u << 8, 7 | 4u << 8);
}

/* §4.3 WRITE_DATA (0x37, 4+N dw, count N+2): DW1 dst_sel [11:8] = 5
 * (memory), wr_confirm [20]; DW2/3 address; data. */
static void
test_write_data(void **state)
{
	const uint32_t v[2] = { 0xAAAA5555, 0x12345678 };

	(void)state;
	GOLDEN(pm4_write_data(buf, 0x300000010ull, v, 2), "WRITE_DATA",
	       3u << 30 | 4u << 16 | 0x37u << 8, 5u << 8 | 1u << 20, 0x10, 3,
	       0xAAAA5555, 0x12345678);
}

/* A function's template for the launch tests: two user SGPRs, the
 * kernarg pointer in the first two, wave32; launched over 4 x 2 x 1
 * groups of 64. */
static const struct pm4_dispatch sample_fn = {
	.code = 0x7F0000001000ull, .rsrc1 = 0x60AF0041, .rsrc2 = 0x8C,
	.user = { 0, 0 }, .nuser = 2, .kernarg_at = 0,
	.initiator = 0x8005,
};
static const uint32_t grid[3] = { 4, 2, 1 }, group[3] = { 64, 1, 1 };

/*
 * §4.5's exec() order on GFX11: ACQUIRE_MEM, PGM_LO/HI = code >> 8,
 * RSRC1/2, RSRC3 (0x2e28 on GFX11), TMPRING_SIZE, RESTART_X..Z = 0,
 * USER_DATA (kernarg pointer), RESOURCE_LIMITS, START_X..Z = 0 and
 * NUM_THREAD_X..Z = the group, DISPATCH_DIRECT, CS_PARTIAL_FLUSH.
 */
static void
test_launch(void **state)
{
	struct pm4_dispatch t = sample_fn;
	uint32_t *end;

	(void)state;
	pm4_dispatch_build(&t, AMD_GFX11);
	end = pm4_launch(buf, &t.full, 0x7F0000020000ull, grid, group);
	assert_int_equal(end - buf, pm4_launch_dwords(AMD_GFX11, 2));
	GOLDEN(end, "launch GFX11",
	       0xC0065800, 0, 0xFFFFFFFF, 0x00FFFFFF, 0, 0, 0x0A,
	       1u << 7 | 1u << 8 | 1u << 9,			/* K, V, GL1 */
	       0xC0027600, 0x20C, 0x00000010, 0x7F,		/* PGM_LO/HI */
	       0xC0027600, 0x212, 0x60AF0041, 0x8C,		/* RSRC1/2 */
	       0xC0017600, 0x228, 0,				/* RSRC3 */
	       0xC0017600, 0x218, 0,				/* TMPRING */
	       0xC0037600, 0x21B, 0, 0, 0,			/* RESTART */
	       0xC0027600, 0x240, 0x00020000, 0x7F00,		/* USER_DATA */
	       0xC0017600, 0x215, 0,				/* LIMITS */
	       0xC0067600, 0x204, 0, 0, 0, 64, 1, 1,		/* START, THREADS */
	       0xC0031500, 4, 2, 1, 0x8005,			/* DISPATCH */
	       0xC0004600, 0x407);				/* CS flush */
	/* GFX9's RSRC3 is 0x2e2d (§4.5), its acquire 7 dwords */
	pm4_dispatch_build(&t, AMD_GFX9);
	end = pm4_launch(buf, &t.full, 0x7F0000020000ull, grid, group);
	assert_int_equal(end - buf, pm4_launch_dwords(AMD_GFX9, 2));
	assert_int_equal(buf[7 + 4 + 4 + 1], 0x22d);
	/* 16 user SGPRs, the kernarg address in the middle: the most dwords */
	t.nuser = 16;
	t.kernarg_at = 6;
	pm4_dispatch_build(&t, AMD_GFX12);
	assert_int_equal(t.full.ndwords, pm4_launch_dwords(AMD_GFX12, 16));
	assert_true(t.full.ndwords <= PM4_LAUNCH_MAX);
	end = pm4_launch(buf, &t.full, 0x1122334455667788ull, grid, group);
	assert_int_equal(buf[8 + 19 + 2 + 6], 0x55667788);
	assert_int_equal(buf[8 + 19 + 2 + 7], 0x11223344);
}

/*
 * The again form, for a launch of the function the queue launched last:
 * ACQUIRE_MEM, USER_DATA at the kernarg address's two SGPRs,
 * NUM_THREAD_X..Z = the group, DISPATCH_DIRECT, CS_PARTIAL_FLUSH; the
 * other registers as the full form left them.
 */
static void
test_launch_again(void **state)
{
	struct pm4_dispatch t = sample_fn;
	uint32_t *end;

	(void)state;
	pm4_dispatch_build(&t, AMD_GFX11);
	end = pm4_launch(buf, &t.again, 0x7F0000020000ull, grid, group);
	assert_int_equal(end - buf, pm4_again_dwords(AMD_GFX11));
	GOLDEN(end, "launch again GFX11",
	       0xC0065800, 0, 0xFFFFFFFF, 0x00FFFFFF, 0, 0, 0x0A,
	       1u << 7 | 1u << 8 | 1u << 9,			/* K, V, GL1 */
	       0xC0027600, 0x240, 0x00020000, 0x7F00,		/* USER_DATA */
	       0xC0037600, 0x207, 64, 1, 1,			/* THREADS */
	       0xC0031500, 4, 2, 1, 0x8005,			/* DISPATCH */
	       0xC0004600, 0x407);				/* CS flush */
	/* the kernarg address in the middle of 16 user SGPRs: USER_DATA_6 */
	t.nuser = 16;
	t.kernarg_at = 6;
	pm4_dispatch_build(&t, AMD_GFX9);
	end = pm4_launch(buf, &t.again, 0x1122334455667788ull, grid, group);
	assert_int_equal(end - buf, pm4_again_dwords(AMD_GFX9));
	assert_int_equal(buf[7], 0xC0027600);
	assert_int_equal(buf[7 + 1], 0x246);
	assert_int_equal(buf[7 + 2], 0x55667788);
	assert_int_equal(buf[7 + 3], 0x11223344);
}

/* ring.h: a packet that would straddle the end is placed at the start,
 * the dwords before the end filled with one NOP (§4.1). */
static void
test_ring_padding(void **state)
{
	uint32_t ring[16];
	struct amd_ring r = { .base = ring, .dwords = 16, .wptr = 16 + 12 };
	uint32_t *p;

	(void)state;
	memset(ring, 0xEE, sizeof(ring));
	p = amd_ring_reserve(&r, PM4_RELEASE_MEM_DWORDS, pm4_nop);
	assert_ptr_equal(p, ring);
	assert_int_equal(r.wptr, 32);
	assert_int_equal(ring[12], 3u << 30 | 2u << 16 | 0x10u << 8);
	assert_int_equal(ring[13], 0);
	assert_int_equal(ring[15], 0);
	amd_ring_advance(&r, pm4_release_mem(p, AMD_GFX11, 0, PM4_DATA_32, 0, 0,
					     1, 0));
	assert_int_equal(r.wptr, 40);
	/* a packet that fits before the end stays where it is */
	p = amd_ring_reserve(&r, 8, pm4_nop);
	assert_ptr_equal(p, ring + 8);
	assert_int_equal(r.wptr, 40);
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup(f, clear)
	const struct CMUnitTest tests[] = {
		T(test_header), T(test_nop), T(test_release_mem_64bit_interrupt),
		T(test_release_mem_interrupt_later), T(test_release_mem_copy),
		T(test_wait_reg_mem64_ge), T(test_wait_reg_mem),
		T(test_acquire_mem_per_generation), T(test_set_sh_reg),
		T(test_dispatch_direct), T(test_indirect_buffer),
		T(test_event_write), T(test_write_data), T(test_launch),
		T(test_launch_again), T(test_ring_padding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
