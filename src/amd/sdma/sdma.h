/* SPDX-License-Identifier: MIT */
/*
 * amd/sdma/: what the copy engine (SDMA) reads: its packets (amd-facts
 * §5), one encoder each, written as amd/pm4/'s are (each writes at p and
 * returns the dword after its packet; the caller owns alignment), and the
 * ring helpers that keep a packet from straddling the ring's end
 * (amd/pm4/ring.h).
 *
 * Generations: SDMA 4.4.x (GC 9.4.3 / 9.5.0) has the vega10 layout, whose
 * COPY_LINEAR and CONSTANT_FILL count is 22 bits and whose FENCE header has
 * no cache bits; SDMA 6.x (GC 11) and 7.x (GC 12) share the sdma_6_0_0
 * layout, with a 30-bit count (§5). Counts are bytes - 1, so one packet
 * moves SDMA_COPY_MAX bytes at most and a longer copy is split.
 */
#ifndef AMD_SDMA_SDMA_H
#define AMD_SDMA_SDMA_H

#include <stdint.h>

#include "amd/pm4/ring.h"

enum amd_sdma {
	AMD_SDMA4 = 4,
	AMD_SDMA6 = 6,
	AMD_SDMA7 = 7,
};

/* §5 opcodes (DW0 op[7:0], sub_op[15:8]). */
#define SDMA_OP_NOP		0
#define SDMA_OP_COPY		1
#define SDMA_OP_FENCE		5
#define SDMA_OP_TRAP		6
#define SDMA_OP_POLL_REGMEM	8
#define SDMA_OP_CONST_FILL	11
#define SDMA_OP_TIMESTAMP	13
#define SDMA_SUBOP_TIMESTAMP_GET_GLOBAL	2

/* §5 POLL_REGMEM func: WAIT_REG_MEM's encoding. */
#define SDMA_FUNC_EQ		3
#define SDMA_FUNC_GE		5

/* The most bytes one COPY_LINEAR or CONSTANT_FILL moves: count + 1. */
static inline uint64_t
sdma_count_max(enum amd_sdma gen)
{
	return gen == AMD_SDMA4 ? 1ull << 22 : 1ull << 30;
}

/* The most extra dwords one NOP's count[29:16] covers. */
#define SDMA_NOP_COUNT_MAX	0x3FFFu

#define SDMA_COPY_DWORDS	7
#define SDMA_FILL_DWORDS	5
#define SDMA_FENCE_DWORDS	4
#define SDMA_POLL_DWORDS	6
#define SDMA_TIMESTAMP_DWORDS	3
#define SDMA_TRAP_DWORDS	2

/* sdma_nop() - n dwords of NOP: one packet of count n - 1 per 0x4000. */
static inline uint32_t *
sdma_nop(uint32_t *p, uint32_t n)
{
	while (n > 0) {
		uint32_t take = n > SDMA_NOP_COUNT_MAX + 1 ? SDMA_NOP_COUNT_MAX + 1 : n;

		*p++ = SDMA_OP_NOP | (take - 1) << 16;
		for (uint32_t i = 1; i < take; i++)
			*p++ = 0;
		n -= take;
	}
	return p;
}

/* Packets a copy or fill of bytes takes (0 for none). */
static inline uint64_t
sdma_packets(enum amd_sdma gen, uint64_t bytes)
{
	uint64_t max = sdma_count_max(gen);

	return (bytes + max - 1) / max;
}

/* One COPY_LINEAR of bytes (1 to sdma_count_max) from src to dst (§5). */
static inline uint32_t *
sdma_copy_one(uint32_t *p, uint64_t dst, uint64_t src, uint64_t bytes)
{
	p[0] = SDMA_OP_COPY;		/* sub_op 0: linear */
	p[1] = (uint32_t)(bytes - 1);
	p[2] = 0;			/* parameter: default cache policies */
	p[3] = (uint32_t)src;
	p[4] = (uint32_t)(src >> 32);
	p[5] = (uint32_t)dst;
	p[6] = (uint32_t)(dst >> 32);
	return p + SDMA_COPY_DWORDS;
}

/*
 * sdma_copy_linear() - bytes from src to dst, split into packets of
 * sdma_count_max(gen) bytes at most: sdma_packets() packets of 7 dwords,
 * written contiguously (for a buffer; a ring's copy is sdma_ring_copy()).
 */
static inline uint32_t *
sdma_copy_linear(uint32_t *p, enum amd_sdma gen, uint64_t dst, uint64_t src,
		 uint64_t bytes)
{
	uint64_t max = sdma_count_max(gen);

	for (uint64_t at = 0; at < bytes; at += max)
		p = sdma_copy_one(p, dst + at, src + at,
				  bytes - at < max ? bytes - at : max);
	return p;
}

/*
 * One CONSTANT_FILL of bytes (a multiple of 4, 4 to sdma_count_max) of the
 * 32-bit pattern at dst (4-aligned): fillsize 2, dword fills (§5).
 */
static inline uint32_t *
sdma_fill_one(uint32_t *p, uint64_t dst, uint32_t pattern, uint64_t bytes)
{
	p[0] = SDMA_OP_CONST_FILL | 2u << 30;
	p[1] = (uint32_t)dst;
	p[2] = (uint32_t)(dst >> 32);
	p[3] = pattern;
	p[4] = (uint32_t)(bytes - 1);
	return p + SDMA_FILL_DWORDS;
}

/* sdma_constant_fill() - a fill split as sdma_copy_linear() splits. */
static inline uint32_t *
sdma_constant_fill(uint32_t *p, enum amd_sdma gen, uint64_t dst,
		   uint32_t pattern, uint64_t bytes)
{
	uint64_t max = sdma_count_max(gen);

	for (uint64_t at = 0; at < bytes; at += max)
		p = sdma_fill_one(p, dst + at, pattern,
				  bytes - at < max ? bytes - at : max);
	return p;
}

/*
 * sdma_fence() - 4 dwords: writes the 32-bit value to addr (4-aligned) once
 * the engine's earlier work is done; uncached (mtype 3) on SDMA 6/7 (§5).
 */
static inline uint32_t *
sdma_fence(uint32_t *p, enum amd_sdma gen, uint64_t addr, uint32_t value)
{
	p[0] = SDMA_OP_FENCE | (gen == AMD_SDMA4 ? 0 : 3u << 16);
	p[1] = (uint32_t)addr & ~3u;
	p[2] = (uint32_t)(addr >> 32);
	p[3] = value;
	return p + SDMA_FENCE_DWORDS;
}

/*
 * sdma_poll_regmem() - 6 dwords: waits until the 32-bit word at addr
 * (memory, 4-aligned) masked with mask compares as func with ref, looking
 * every 4 (interval) up to 0xfff times a round, as linux does (§5).
 */
static inline uint32_t *
sdma_poll_regmem(uint32_t *p, uint32_t func, uint64_t addr, uint32_t ref,
		 uint32_t mask)
{
	p[0] = SDMA_OP_POLL_REGMEM | (func & 7) << 28 | 1u << 31; /* mem_poll */
	p[1] = (uint32_t)addr & ~3u;
	p[2] = (uint32_t)(addr >> 32);
	p[3] = ref;
	p[4] = mask;
	p[5] = 4 | 0xFFFu << 16;
	return p + SDMA_POLL_DWORDS;
}

/* sdma_timestamp() - 3 dwords: the 64-bit global timestamp to addr
 * (8-aligned) (§5 TIMESTAMP, GET_GLOBAL). */
static inline uint32_t *
sdma_timestamp(uint32_t *p, uint64_t addr)
{
	p[0] = SDMA_OP_TIMESTAMP | SDMA_SUBOP_TIMESTAMP_GET_GLOBAL << 8;
	p[1] = (uint32_t)addr & ~7u;
	p[2] = (uint32_t)(addr >> 32);
	return p + SDMA_TIMESTAMP_DWORDS;
}

/* sdma_trap() - 2 dwords: raises the SDMA trap interrupt carrying
 * int_context[27:0] (§5, §6.4). */
static inline uint32_t *
sdma_trap(uint32_t *p, uint32_t context)
{
	p[0] = SDMA_OP_TRAP;
	p[1] = context & 0x0FFFFFFF;
	return p + SDMA_TRAP_DWORDS;
}

/* Where an SDMA packet of need dwords goes whole in r (NOPs to the end
 * first when it would straddle it). */
static inline uint32_t *
sdma_ring_reserve(struct amd_ring *r, uint32_t need)
{
	return amd_ring_reserve(r, need, sdma_nop);
}

/* sdma_ring_copy() - a copy on r, each packet placed whole. */
static inline void
sdma_ring_copy(struct amd_ring *r, enum amd_sdma gen, uint64_t dst,
	       uint64_t src, uint64_t bytes)
{
	uint64_t max = sdma_count_max(gen);

	for (uint64_t at = 0; at < bytes; at += max) {
		uint32_t *p = sdma_ring_reserve(r, SDMA_COPY_DWORDS);

		amd_ring_advance(r, sdma_copy_one(p, dst + at, src + at,
						  bytes - at < max ? bytes - at : max));
	}
}

#endif
