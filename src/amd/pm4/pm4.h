/* SPDX-License-Identifier: MIT */
/*
 * amd/pm4/: what the compute queue's command processor (MEC) reads: PM4
 * type-3 packets (amd-facts §4), and the ring both encoders write into
 * (ring.h). The SDMA engine's packets are amd/sdma/.
 *
 * This header: one encoder per packet the device emits. Each writes its
 * packet at p and returns the dword after it, so a value's packets are a
 * chain of calls over one pointer; none reads memory it did not write,
 * none branches on more than the generation, none fails: the caller owns
 * the arguments' preconditions (stated per encoder: alignment, register
 * windows), as the packets' layouts state them. They are inline because
 * a submit encodes on the submitting thread (a one-launch value is some
 * tens of dwords: bench/amd_encode.c measures it).
 *
 * Field positions are amd-facts §4.1-4.4, from linux nvd.h / soc15d.h and
 * PAL's MEC packet structs; each is named as those name it.
 */
#ifndef AMD_PM4_PM4_H
#define AMD_PM4_PM4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The CP generations whose packets differ (amd-facts §3.14): GC 9.4.3 and
 * 9.5.0 are GFX9, GC 11.0.x GFX11, GC 12.0.x GFX12. */
enum amd_gfx {
	AMD_GFX9 = 9,
	AMD_GFX11 = 11,
	AMD_GFX12 = 12,
};

/* §4.1: type 3, count = dwords - 2, opcode. */
#define PACKET3(op, count) \
	((uint32_t)3 << 30 | ((uint32_t)(count) & 0x3FFF) << 16 | \
	 ((uint32_t)(op) & 0xFF) << 8)

/* §4.2 opcodes (identical on GFX9-12). */
#define PM4_NOP			0x10
#define PM4_DISPATCH_DIRECT	0x15
#define PM4_WRITE_DATA		0x37
#define PM4_WAIT_REG_MEM	0x3C
#define PM4_INDIRECT_BUFFER	0x3F
#define PM4_EVENT_WRITE		0x46
#define PM4_RELEASE_MEM		0x49
#define PM4_ACQUIRE_MEM		0x58
#define PM4_SET_SH_REG		0x76
#define PM4_WAIT_REG_MEM64	0x93

/* §4.1: a NOP of count 0x3FFF is one dword (linux's ring filler). */
#define PM4_NOP_ONE		PACKET3(PM4_NOP, 0x3FFF)
/* The most dwords one multi-dword NOP covers (count 0x3FFE). */
#define PM4_NOP_MAX		0x4000u

/* §4.2: the SET_SH_REG window, dword indices. */
#define PM4_SH_START		0x2C00u
#define PM4_SH_END		0x3000u

/* §4.3 event types and indices. */
#define PM4_EVENT_CS_PARTIAL_FLUSH		7
#define PM4_EVENT_CACHE_FLUSH_AND_INV_TS	0x14
#define PM4_EVENT_BOTTOM_OF_PIPE_TS		0x28
#define PM4_EVENT_INDEX_CS_PARTIAL_FLUSH	4
#define PM4_EVENT_INDEX_END_OF_PIPE		5

/* §4.3 RELEASE_MEM data_sel and int_sel. */
#define PM4_DATA_NONE		0
#define PM4_DATA_32		1
#define PM4_DATA_64		2
#define PM4_DATA_GPU_CLOCK	3
#define PM4_INT_NONE		0
#define PM4_INT_AFTER_WRITE	2	/* interrupt once the write is confirmed */

/* §4.3 WAIT_REG_MEM function (compares value & mask with reference). */
#define PM4_FUNC_ALWAYS		0
#define PM4_FUNC_LT		1
#define PM4_FUNC_LE		2
#define PM4_FUNC_EQ		3
#define PM4_FUNC_NE		4
#define PM4_FUNC_GE		5
#define PM4_FUNC_GT		6

/* §4.3 DISPATCH_DIRECT's COMPUTE_DISPATCH_INITIATOR bits. */
#define PM4_DISPATCH_COMPUTE_SHADER_EN	(1u << 0)
#define PM4_DISPATCH_FORCE_START_AT_000	(1u << 2)
#define PM4_DISPATCH_CS_W32_EN		(1u << 15)	/* wave32, GFX10+ */

/* §4.3 INDIRECT_BUFFER's DW3. */
#define PM4_IB_VALID		(1u << 23)
#define PM4_IB_SIZE_MAX		0xFFFFFu		/* dwords, [19:0] */

/* §4.3 WRITE_DATA's DW1. */
#define PM4_WRITE_DST_MEMORY	(5u << 8)
#define PM4_WRITE_CONFIRM	(1u << 20)

/*
 * What a cache operation does, whatever the generation spells it as:
 * acquire (before work: invalidate what it reads) and release (after
 * work: write back what the host or another engine reads next).
 */
enum pm4_cache {
	PM4_INV_I = 1u << 0,	/* instruction cache */
	PM4_INV_K = 1u << 1,	/* scalar (constant) cache */
	PM4_INV_V = 1u << 2,	/* vector L0 (GLV; TCL1 on GFX9) */
	PM4_INV_L1 = 1u << 3,	/* GL1 (GFX10/11; none elsewhere) */
	PM4_INV_L2 = 1u << 4,	/* L2 (GL2, with GLM on GFX11; TC on GFX9) */
	PM4_WB_L2 = 1u << 5,	/* write L2 back */
};

/* §4.4 ACQUIRE_MEM gcr_cntl (GFX10/11, GFX12) from pm4_cache bits. */
static inline uint32_t
pm4_acquire_gcr(enum amd_gfx gen, uint32_t c)
{
	uint32_t g = 0;

	g |= c & PM4_INV_I ? 1u << 0 : 0;	/* GLI_INV = 1: all */
	g |= c & PM4_INV_K ? 1u << 7 : 0;	/* GLK_INV */
	g |= c & PM4_INV_V ? 1u << 8 : 0;	/* GLV_INV */
	g |= c & PM4_INV_L2 ? 1u << 14 : 0;	/* GL2_INV */
	g |= c & PM4_WB_L2 ? 1u << 15 : 0;	/* GL2_WB */
	if (gen == AMD_GFX11) {
		g |= c & PM4_INV_L1 ? 1u << 9 : 0;	/* GL1_INV */
		g |= c & PM4_INV_L2 ? 1u << 5 : 0;	/* GLM_INV */
		g |= c & PM4_WB_L2 ? 1u << 4 : 0;	/* GLM_WB */
	}
	return g;
}

/* §4.3 GFX9 ACQUIRE_MEM's CP_COHER_CNTL from pm4_cache bits (soc15d.h). */
static inline uint32_t
pm4_coher_cntl(uint32_t c)
{
	uint32_t g = 0;

	g |= c & PM4_INV_I ? 1u << 29 : 0;	/* SH_ICACHE_ACTION_ENA */
	g |= c & PM4_INV_K ? 1u << 27 : 0;	/* SH_KCACHE_ACTION_ENA */
	g |= c & (PM4_INV_V | PM4_INV_L1) ? 1u << 22 : 0; /* TCL1_ACTION_ENA */
	g |= c & PM4_INV_L2 ? 1u << 23 : 0;	/* TC_ACTION_ENA */
	g |= c & PM4_WB_L2 ? 1u << 18 : 0;	/* TC_WB_ACTION_ENA */
	return g;
}

/* §4.3/§4.4 RELEASE_MEM DW1's cache bits from pm4_cache bits. */
static inline uint32_t
pm4_release_gcr(enum amd_gfx gen, uint32_t c)
{
	uint32_t g = 0;

	if (gen == AMD_GFX9) {
		g |= c & (PM4_INV_V | PM4_INV_L1) ? 1u << 16 : 0; /* EOP_TCL1_ACTION_EN */
		g |= c & PM4_INV_L2 ? 1u << 17 : 0;	/* EOP_TC_ACTION_EN */
		g |= c & PM4_WB_L2 ? 1u << 15 : 0;	/* EOP_TC_WB_ACTION_EN */
		return g;
	}
	g |= c & PM4_INV_V ? 1u << 14 : 0;	/* GLV_INV */
	g |= c & PM4_INV_L2 ? 1u << 20 : 0;	/* GL2_INV */
	g |= c & PM4_WB_L2 ? 1u << 21 : 0;	/* GL2_WB */
	if (gen == AMD_GFX11) {
		g |= c & PM4_INV_L1 ? 1u << 15 : 0;	/* GL1_INV */
		g |= c & PM4_INV_L2 ? 1u << 13 : 0;	/* GLM_INV */
		g |= c & PM4_WB_L2 ? 1u << 12 : 0;	/* GLM_WB */
	}
	if (g)
		g |= 1u << 22;			/* SEQ: in order, as linux's fence */
	return g;
}

/*
 * pm4_nop() - n dwords (n >= 1) of NOP filler: one dword is the 0x3FFF
 * NOP (§4.1), more are NOPs of count n - 2 with zero payload, PM4_NOP_MAX
 * dwords each at most.
 */
static inline uint32_t *
pm4_nop(uint32_t *p, uint32_t n)
{
	while (n > 0) {
		uint32_t take = n > PM4_NOP_MAX ? PM4_NOP_MAX : n;

		if (take == 1) {
			*p++ = PM4_NOP_ONE;
		} else {
			*p++ = PACKET3(PM4_NOP, take - 2);
			for (uint32_t i = 1; i < take; i++)
				*p++ = 0;
		}
		n -= take;
	}
	return p;
}

/*
 * pm4_release_mem() - 8 dwords: at the end of the pipe, the cache
 * operations cache, then a write of data_sel's data to addr (4-aligned
 * for PM4_DATA_32, 8-aligned for 64 bits or the clock) and the interrupt
 * int_sel with context ctxid (§4.3, §6.4: the EOP interrupt). A 64-bit
 * write is one store: never torn.
 */
static inline uint32_t *
pm4_release_mem(uint32_t *p, enum amd_gfx gen, uint32_t cache,
		uint32_t data_sel, uint32_t int_sel, uint64_t addr,
		uint64_t data, uint32_t ctxid)
{
	uint32_t dw1 = PM4_EVENT_CACHE_FLUSH_AND_INV_TS |
		       PM4_EVENT_INDEX_END_OF_PIPE << 8 |
		       pm4_release_gcr(gen, cache);

	if (gen == AMD_GFX11 && data_sel != PM4_DATA_NONE)
		dw1 |= 3u << 25;	/* cache_policy bypass, as linux's fence */
	p[0] = PACKET3(PM4_RELEASE_MEM, 6);
	p[1] = dw1;
	p[2] = (data_sel & 7) << 29 | (int_sel & 7) << 24;	/* dst_sel 0: memory */
	p[3] = (uint32_t)addr;
	p[4] = (uint32_t)(addr >> 32);
	p[5] = (uint32_t)data;
	p[6] = (uint32_t)(data >> 32);
	p[7] = ctxid;
	return p + 8;
}

/*
 * pm4_wait_reg_mem64() - 9 dwords: wait until the 64-bit word at addr
 * (8-aligned, memory) masked with mask compares as function with ref; the
 * CP looks again every interval (§4.3 WAIT_REG_MEM64).
 */
static inline uint32_t *
pm4_wait_reg_mem64(uint32_t *p, uint32_t function, uint64_t addr, uint64_t ref,
		   uint64_t mask, uint32_t interval)
{
	p[0] = PACKET3(PM4_WAIT_REG_MEM64, 7);
	p[1] = (function & 7) | 1u << 4;	/* mem_space 1, operation 0 */
	p[2] = (uint32_t)addr;
	p[3] = (uint32_t)(addr >> 32);
	p[4] = (uint32_t)ref;
	p[5] = (uint32_t)(ref >> 32);
	p[6] = (uint32_t)mask;
	p[7] = (uint32_t)(mask >> 32);
	p[8] = interval & 0xFFFF;
	return p + 9;
}

/*
 * pm4_wait_reg_mem() - 7 dwords: wait until the 32-bit word masked with
 * mask compares as function with ref: in memory at addr (4-aligned) when
 * memory, else the register at dword index addr (§4.3 WAIT_REG_MEM).
 */
static inline uint32_t *
pm4_wait_reg_mem(uint32_t *p, uint32_t function, bool memory, uint64_t addr,
		 uint32_t ref, uint32_t mask, uint32_t interval)
{
	p[0] = PACKET3(PM4_WAIT_REG_MEM, 5);
	p[1] = (function & 7) | (memory ? 1u : 0u) << 4;
	p[2] = memory ? (uint32_t)addr : (uint32_t)addr & 0x3FFFF;
	p[3] = memory ? (uint32_t)(addr >> 32) : 0;
	p[4] = ref;
	p[5] = mask;
	p[6] = interval & 0xFFFF;
	return p + 7;
}

/*
 * pm4_acquire_mem() - the cache operations cache over all of memory
 * before the next work: 8 dwords on GFX11/12 (gcr_cntl), 7 on GFX9
 * (CP_COHER_CNTL), poll interval 10 as linux's emit_mem_sync (§4.3).
 */
static inline uint32_t *
pm4_acquire_mem(uint32_t *p, enum amd_gfx gen, uint32_t cache)
{
	if (gen == AMD_GFX9) {
		p[0] = PACKET3(PM4_ACQUIRE_MEM, 5);
		p[1] = pm4_coher_cntl(cache);
		p[2] = 0xFFFFFFFF;	/* coher_size: all */
		p[3] = 0x00FFFFFF;	/* coher_size_hi */
		p[4] = 0;		/* coher_base */
		p[5] = 0;
		p[6] = 0x0A;		/* poll_interval */
		return p + 7;
	}
	p[0] = PACKET3(PM4_ACQUIRE_MEM, 6);
	p[1] = 0;
	p[2] = 0xFFFFFFFF;
	p[3] = 0x00FFFFFF;
	p[4] = 0;
	p[5] = 0;
	p[6] = 0x0A;
	p[7] = pm4_acquire_gcr(gen, cache);
	return p + 8;
}

/*
 * pm4_set_sh_reg() - 2 + n dwords: n (>= 1) consecutive SH registers from
 * dword index reg (in [PM4_SH_START, PM4_SH_END - n]) set to values (§4.3).
 */
static inline uint32_t *
pm4_set_sh_reg(uint32_t *p, uint32_t reg, const uint32_t *values, uint32_t n)
{
	p[0] = PACKET3(PM4_SET_SH_REG, n);
	p[1] = (reg - PM4_SH_START) & 0xFFFF;
	for (uint32_t i = 0; i < n; i++)
		p[2 + i] = values[i];
	return p + 2 + n;
}

/* pm4_set_sh_reg1() - one SH register: 3 dwords. */
static inline uint32_t *
pm4_set_sh_reg1(uint32_t *p, uint32_t reg, uint32_t value)
{
	return pm4_set_sh_reg(p, reg, &value, 1);
}

/*
 * pm4_dispatch_direct() - 5 dwords: a grid of x * y * z groups (each >= 1)
 * with COMPUTE_DISPATCH_INITIATOR initiator (§4.3).
 */
static inline uint32_t *
pm4_dispatch_direct(uint32_t *p, uint32_t x, uint32_t y, uint32_t z,
		    uint32_t initiator)
{
	p[0] = PACKET3(PM4_DISPATCH_DIRECT, 3);
	p[1] = x;
	p[2] = y;
	p[3] = z;
	p[4] = initiator;
	return p + 5;
}

/*
 * pm4_indirect_buffer() - 4 dwords: run the dwords (1 to PM4_IB_SIZE_MAX)
 * of PM4 at addr (4-aligned) in vmid (§4.3).
 */
static inline uint32_t *
pm4_indirect_buffer(uint32_t *p, uint64_t addr, uint32_t dwords, uint32_t vmid)
{
	p[0] = PACKET3(PM4_INDIRECT_BUFFER, 2);
	p[1] = (uint32_t)addr & ~3u;
	p[2] = (uint32_t)(addr >> 32);
	p[3] = (dwords & PM4_IB_SIZE_MAX) | PM4_IB_VALID | (vmid & 0xF) << 24;
	return p + 4;
}

/* pm4_event_write() - 2 dwords: a flush event (§4.3 EVENT_WRITE). */
static inline uint32_t *
pm4_event_write(uint32_t *p, uint32_t type, uint32_t index)
{
	p[0] = PACKET3(PM4_EVENT_WRITE, 0);
	p[1] = (type & 0x3F) | (index & 0xF) << 8;
	return p + 2;
}

/*
 * pm4_write_data() - 4 + n dwords: n (>= 1) dwords of values written to
 * memory from addr (4-aligned), confirmed before the CP goes on (§4.3).
 */
static inline uint32_t *
pm4_write_data(uint32_t *p, uint64_t addr, const uint32_t *values, uint32_t n)
{
	p[0] = PACKET3(PM4_WRITE_DATA, n + 2);
	p[1] = PM4_WRITE_DST_MEMORY | PM4_WRITE_CONFIRM;	/* engine_sel 0 */
	p[2] = (uint32_t)addr & ~3u;
	p[3] = (uint32_t)(addr >> 32);
	for (uint32_t i = 0; i < n; i++)
		p[4 + i] = values[i];
	return p + 4 + n;
}

/*
 * pm4_release_mem_interrupt() - sets the int_sel of the RELEASE_MEM at p
 * (one pm4_release_mem() wrote) to int_sel, changing nothing else: its
 * DW2 [26:24] (§4.3). For a packet written but not yet handed to the
 * engine (past the write pointer its doorbell last showed), so a driver
 * decides at commit which of the values it encoded raises the EOP
 * interrupt.
 */
static inline void
pm4_release_mem_interrupt(uint32_t *p, uint32_t int_sel)
{
	p[2] = (p[2] & ~(7u << 24)) | (int_sel & 7) << 24;
}

/* Dwords of each packet, for room. */
#define PM4_RELEASE_MEM_DWORDS		8

/*
 * pm4_release_mem_copy() - the RELEASE_MEM tmpl (one pm4_release_mem()
 * wrote) at p with data and ctxid instead of its own: DW0-4 copied, DW5-7
 * set (§4.3). A driver that ends every value with the same packet builds
 * it once and copies it per value. Returns p + 8.
 */
static inline uint32_t *
pm4_release_mem_copy(uint32_t *p, const uint32_t *tmpl, uint64_t data, uint32_t ctxid)
{
	memcpy(p, tmpl, 5 * sizeof(*p));
	p[5] = (uint32_t)data;
	p[6] = (uint32_t)(data >> 32);
	p[7] = ctxid;
	return p + PM4_RELEASE_MEM_DWORDS;
}
#define PM4_WAIT_REG_MEM64_DWORDS	9
#define PM4_WAIT_REG_MEM_DWORDS		7
#define PM4_INDIRECT_BUFFER_DWORDS	4
#define PM4_DISPATCH_DIRECT_DWORDS	5
#define PM4_EVENT_WRITE_DWORDS		2

static inline uint32_t
pm4_acquire_mem_dwords(enum amd_gfx gen)
{
	return gen == AMD_GFX9 ? 7 : 8;
}

#endif
