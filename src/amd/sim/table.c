/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/table.c: the IP discovery table the sim carries at the top of
 * VRAM, laid out as amd-facts §2 says (binary header, IP discovery header,
 * its dies, GC info, harvest table) with linux's checksums, so that a
 * driver's parser takes it as a real GPU's. GC 9.x: IP discovery v4 with
 * 64-bit bases (an AID bit above bit 32, as MI300's carry) and GC info
 * v2.1; GC 11/12: v3, 32-bit bases, GC info v1.0. GC 9.4.3 with several
 * XCCs lists a GC entry per XCC (instances 0.., §2.4), XCC k's bases
 * XCC 0's plus k * SIM_XCC_STRIDE (priv.h); with several AIDs
 * (opts.aids) a die per AID, die d listing its own XCCs' GC entries and
 * die 0 every other block (how a real MI300's table spreads its blocks
 * over its dies is not in the facts: rig reads only GC's dies).
 */
#include <string.h>

#include "amd/discovery/discovery.h"
#include "amd/sim/priv.h"

struct ipdef {
	uint16_t hw_id;
	uint8_t nbases;
	uint32_t base[9];
};

/* GC, SDMA0, MP0, MP1, MMHUB, NBIF, OSSSYS, HDP: amd-facts §0.3's bases. */
static const struct ipdef navi[8] = {
	{ GC_HWID, 4, { 0x1260, 0xA000, 0x1C000, 0x2402C00 } },
	{ SDMA0_HWID, 4, { 0x1260, 0xA000, 0x1C000, 0x2402C00 } },
	{ MP0_HWID, 5, { 0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00 } },
	{ MP1_HWID, 5, { 0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00 } },
	{ MMHUB_HWID, 2, { 0x1A000, 0x2408800 } },
	{ NBIF_HWID, 6, { 0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000,
			  0x4080000, 0x40C0000, 0x11000 } },
	{ OSSSYS_HWID, 2, { 0x10A0, 0x240A000 } },
	{ HDP_HWID, 2, { 0xF20, 0x240A400 } },
};
/* Vega's GC bases (§0.3 vega_offsets) for GC 9; the rest (SDMA0's
 * 0x1260 included, as vega10's SDMA0_BASE) as Navi. NBIO 7.9 (GC 9.4.3)
 * lists 9 bases, as linux's nbio_v7_9.c needs (segment 8: its BIFC_ and
 * DOORBELL0_CTRL_ registers, scripts/amd_regs.py); bases 6 to 8 are the
 * sim's own (a real MI300's are not in the facts), segment 8 inside BAR5
 * so that a test reads its registers directly. */
#define NBIF_K		5	/* navi[]'s NBIF entry */
#define NBIO_7_9_BASES	9
static const uint32_t vega_gc[4] = { 0x2000, 0xA000, 0x1C000, 0x2402C00 };

static void
put16(uint8_t *b, size_t at, uint16_t v)
{
	memcpy(b + at, &v, 2);
}

static void
put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

static uint16_t
sum(const uint8_t *b, size_t n)
{
	uint16_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = (uint16_t)(s + b[i]);
	return s;
}

/* One IP entry: def's, instance inst, its bases plus add (GC's XCCs). */
static size_t
entry(const struct sim_layout *l, uint8_t *b, size_t at, bool wide, int k,
      unsigned inst, uint32_t add)
{
	const struct ipdef *d = &navi[k];
	uint8_t nbases = wide && k == NBIF_K ? NBIO_7_9_BASES : d->nbases;

	put16(b, at, d->hw_id);
	b[at + 2] = (uint8_t)inst;
	b[at + 3] = nbases;
	memcpy(b + at + 4, l->ver[k], 3);
	at += 8;
	for (int j = 0; j < nbases; j++) {
		uint32_t v = (wide && k == 0 && j < 4 ? vega_gc[j] : d->base[j]) + add;

		if (wide) {
			uint64_t w = v | (uint64_t)1 << 32;

			memcpy(b + at, &w, 8);
			at += 8;
		} else {
			put32(b, at, v);
			at += 4;
		}
	}
	return at;
}

/* Die d's IP entries from at (every block on die 0, GC's XCCs 1.. after
 * GC, each on its own die: sim_xcc_die()), their count in *n; the end. */
static size_t
entries(const struct sim_layout *l, uint8_t *b, size_t at, bool wide, unsigned d,
	uint16_t *n)
{
	*n = 0;
	for (int k = 0; k < 8; k++) {
		if (d == 0) {
			at = entry(l, b, at, wide, k, 0, 0);
			(*n)++;
		}
		for (unsigned x = 1; k == 0 && x < l->xccs; x++)
			if (sim_xcc_die(l, x) == d) {
				at = entry(l, b, at, wide, k, x, x * SIM_XCC_STRIDE);
				(*n)++;
			}
	}
	return at;
}

size_t
sim_table_build(const struct sim_layout *l, uint8_t *b, size_t cap)
{
	bool wide = l->ver[0][0] == 9;
	size_t ihdr = 60, at = ihdr + 80, gc_info, gc_size, harvest;
	unsigned dies = l->aids > 1 ? l->aids : 1;

	memset(b, 0, cap);
	for (unsigned d = 0; d < dies; d++) {
		size_t die = at;
		uint16_t n;

		at = entries(l, b, die + 4, wide, d, &n);
		put16(b, die, (uint16_t)d);
		put16(b, die + 2, n);
		put16(b, ihdr + 14 + 4 * d, (uint16_t)d);	/* die_info[d].die_id */
		put16(b, ihdr + 16 + 4 * d, (uint16_t)die);	/* .die_offset */
	}
	put32(b, ihdr, DISCOVERY_TABLE_SIGNATURE);
	put16(b, ihdr + 4, wide ? 4 : 3);
	put16(b, ihdr + 6, (uint16_t)(at - ihdr));
	put16(b, ihdr + 12, (uint16_t)dies);		/* num_dies */
	b[ihdr + 78] = wide;				/* base_addr_64_bit */
	gc_info = at;
	gc_size = wide ? 108 : 88;
	put32(b, at, GC_TABLE_ID);
	put16(b, at + 4, wide ? 2 : 1);
	put16(b, at + 6, wide ? 1 : 0);
	put32(b, at + 8, (uint32_t)gc_size);
	put32(b, at + 12, wide ? 4 : 6);		/* gc_num_se */
	put32(b, at + 16, wide ? 10 : 4);		/* cu_per_sh / wgp0_per_sa */
	put32(b, at + 20, wide ? 1 : 4);		/* sh_per_se / wgp1_per_sa */
	if (!wide)
		put32(b, at + 12 + 16 * 4, 2);		/* gc_num_sa_per_se */
	at += gc_size;
	harvest = at;
	put32(b, at, HARVEST_TABLE_SIGNATURE);
	at += sizeof(struct harvest_table);
	put32(b, 0, BINARY_SIGNATURE);
	put16(b, 4, 1);
	put16(b, 10, (uint16_t)at);
	put16(b, 12, (uint16_t)ihdr);
	put16(b, 12 + 4, (uint16_t)(at - ihdr));
	put16(b, 12 + 8, (uint16_t)gc_info);
	put16(b, 12 + 8 + 4, (uint16_t)gc_size);
	put16(b, 12 + 16, (uint16_t)harvest);
	put16(b, 12 + 16 + 4, sizeof(struct harvest_table));
	put16(b, 12 + 2, sum(b + ihdr, at - ihdr - gc_size - sizeof(struct harvest_table)));
	put16(b, 12 + 8 + 2, sum(b + gc_info, gc_size));
	put16(b, 12 + 16 + 2, sum(b + harvest, sizeof(struct harvest_table)));
	put16(b, 8, sum(b + 10, at - 10));
	return at;
}
