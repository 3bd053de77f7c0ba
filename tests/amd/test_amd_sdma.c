/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sdma: every SDMA encoder (src/amd/sdma/sdma.h) writes the
 * dwords of ../shared/docs/amd-facts.md §5's table, each expected dword
 * written out from the table's bit positions (the row named beside it);
 * copies and fills split at the engine's count limit; on a ring, no
 * packet straddles the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "amd/sdma/sdma.h"

#include "golden.h"

/* §5 NOP (0/0): DW0 count [29:16] = the dwords that follow. */
static void
test_nop(void **state)
{
	(void)state;
	GOLDEN(sdma_nop(buf, 1), "NOP 1", 0);
	GOLDEN(sdma_nop(buf, 4), "NOP 4", 3u << 16, 0, 0, 0);
}

/* §5 COPY_LINEAR (1/0, 7 dw): DW1 count [29:0] = bytes - 1; DW2 parameter
 * 0; DW3/4 src lo/hi; DW5/6 dst lo/hi. */
static void
test_copy_linear(void **state)
{
	(void)state;
	GOLDEN(sdma_copy_linear(buf, AMD_SDMA6, 0x200000000ull, 0x100001000ull, 4096),
	       "COPY_LINEAR", 1, 4095, 0, 0x1000, 1, 0, 2);
	GOLDEN(sdma_copy_linear(buf, AMD_SDMA6, 0, 0, 0), "COPY of 0 bytes");
}

/* §5: SDMA 6/7 count is 30 bits (1 GiB a packet); SDMA 4.x 22 bits (4 MiB). */
static void
test_copy_split_at_count_limit(void **state)
{
	const uint64_t src = 0x10000000000ull, dst = 0x20000000000ull;

	(void)state;
	assert_int_equal(sdma_packets(AMD_SDMA6, (1ull << 30) + 1), 2);
	GOLDEN(sdma_copy_linear(buf, AMD_SDMA6, dst, src, (1ull << 30) + 1),
	       "COPY 1 GiB + 1 on SDMA 6",
	       1, 0x3FFFFFFF, 0, 0, 0x100, 0, 0x200,
	       1, 0, 0, 0x40000000, 0x100, 0x40000000, 0x200);
	assert_int_equal(sdma_packets(AMD_SDMA4, 10ull << 20), 3);
	GOLDEN(sdma_copy_linear(buf, AMD_SDMA4, dst, src, 10ull << 20),
	       "COPY 10 MiB on SDMA 4",
	       1, 0x3FFFFF, 0, 0, 0x100, 0, 0x200,
	       1, 0x3FFFFF, 0, 0x400000, 0x100, 0x400000, 0x200,
	       1, 0x1FFFFF, 0, 0x800000, 0x100, 0x800000, 0x200);
	assert_int_equal(sdma_packets(AMD_SDMA7, 1ull << 30), 1);
}

/* §5 CONSTANT_FILL (11/0, 5 dw): DW0 fillsize [31:30] = 2 (dwords); DW1/2
 * dst; DW3 pattern; DW4 count = bytes - 1; split as copies are. */
static void
test_constant_fill(void **state)
{
	(void)state;
	GOLDEN(sdma_constant_fill(buf, AMD_SDMA7, 0x300000040ull, 0xDEADBEEF, 256),
	       "CONSTANT_FILL", 11 | 2u << 30, 0x40, 3, 0xDEADBEEF, 255);
	GOLDEN(sdma_constant_fill(buf, AMD_SDMA4, 0, 7, (4ull << 20) + 8),
	       "CONSTANT_FILL split", 11 | 2u << 30, 0, 0, 7, 0x3FFFFF,
	       11 | 2u << 30, 0x400000, 0, 7, 7);
}

/* §5 FENCE (5/0, 4 dw): SDMA 6/7 DW0 mtype [18:16] = 3 (UC); SDMA 4 op
 * only; DW1/2 address; DW3 data. */
static void
test_fence(void **state)
{
	(void)state;
	GOLDEN(sdma_fence(buf, AMD_SDMA6, 0x400000008ull, 42), "FENCE SDMA 6",
	       5 | 3u << 16, 8, 4, 42);
	GOLDEN(sdma_fence(buf, AMD_SDMA4, 0x400000008ull, 42), "FENCE SDMA 4",
	       5, 8, 4, 42);
}

/* §5 POLL_REGMEM (8/0, 6 dw): DW0 func [30:28], mem_poll [31]; DW1/2
 * address; DW3 reference; DW4 mask; DW5 interval [15:0] = 4, retry_count
 * [27:16] = 0xfff. */
static void
test_poll_regmem(void **state)
{
	(void)state;
	GOLDEN(sdma_poll_regmem(buf, SDMA_FUNC_GE, 0x500000010ull, 9, 0xFFFFFFFF),
	       "POLL_REGMEM", 8 | 5u << 28 | 1u << 31, 0x10, 5, 9, 0xFFFFFFFF,
	       4 | 0xFFFu << 16);
}

/* §5 TIMESTAMP (13/2 GET_GLOBAL, 3 dw): DW1 addr lo [31:3]; DW2 hi. */
static void
test_timestamp(void **state)
{
	(void)state;
	GOLDEN(sdma_timestamp(buf, 0x600000018ull), "TIMESTAMP",
	       13 | 2u << 8, 0x18, 6);
}

/* §5 TRAP (6/0, 2 dw): DW1 int_context [27:0]. */
static void
test_trap(void **state)
{
	(void)state;
	GOLDEN(sdma_trap(buf, 0x12345678), "TRAP", 6, 0x02345678);
}

/* A packet never straddles the ring's end: what is left before it
 * becomes one NOP, and the packet starts the ring again. */
static void
test_ring_no_straddle(void **state)
{
	uint32_t ring[16];
	struct amd_ring r = { .base = ring, .dwords = 16, .wptr = 12 };
	uint32_t *p;

	(void)state;
	memset(ring, 0xEE, sizeof(ring));
	p = sdma_ring_reserve(&r, SDMA_COPY_DWORDS);
	assert_ptr_equal(p, ring);
	assert_int_equal(r.wptr, 16);
	assert_int_equal(ring[12], 3u << 16);	/* NOP, 3 dwords follow */
	assert_int_equal(ring[13] | ring[14] | ring[15], 0);
	/* copies: each packet placed whole: 3..9, then NOPs 10..15, then 0..6 */
	r.wptr = 3;
	sdma_ring_copy(&r, AMD_SDMA4, 0, 0, 8ull << 20);
	assert_int_equal(r.wptr, 3 + 7 + 6 + 7);
	assert_int_equal(ring[10], 5u << 16);	/* NOP, 5 dwords follow */
	assert_int_equal(ring[0], 1);		/* the second packet, over the first */
	assert_int_equal(ring[3], 0x400000);	/* its source, 4 MiB on */
	/* from slot 2 both fit: 2..8 and 9..15, no NOP */
	r.wptr = 32 + 2;
	sdma_ring_copy(&r, AMD_SDMA4, 0, 0, 8ull << 20);
	assert_int_equal(r.wptr, 48);
	assert_int_equal(ring[2], 1);
	assert_int_equal(ring[9], 1);
}

/* Random cuts: wherever the write slot is, a reserved packet lies whole
 * inside the ring. */
static void
test_ring_any_slot(void **state)
{
	uint32_t ring[64];
	struct amd_ring r = { .base = ring, .dwords = 64 };

	(void)state;
	srand(17);
	for (int i = 0; i < 10000; i++) {
		uint32_t need = 1 + (uint32_t)rand() % 32;
		uint32_t *p = sdma_ring_reserve(&r, need);

		assert_true(p >= ring && p + need <= ring + 64);
		amd_ring_advance(&r, sdma_nop(p, need));
	}
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup(f, clear)
	const struct CMUnitTest tests[] = {
		T(test_nop), T(test_copy_linear), T(test_copy_split_at_count_limit),
		T(test_constant_fill), T(test_fence), T(test_poll_regmem),
		T(test_timestamp), T(test_trap), T(test_ring_no_straddle),
		T(test_ring_any_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
