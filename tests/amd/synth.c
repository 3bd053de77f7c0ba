/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/synth.c: builds discovery tables (see synth.h). Layout: binary
 * header at 0, IP discovery header at 60, die 0 right after it, then the
 * GC info table and the harvest table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

struct ipdef {
	uint16_t hw_id;
	uint8_t v[3];
	uint8_t nbases;
	uint32_t base[9];
};

struct gcdef {
	const char *gc;
	uint8_t v[8][3];	/* GC, SDMA0, MP0, MP1, MMHUB, NBIF, OSSSYS, HDP */
};

static const struct gcdef gcs[] = {
	{ "9.4.3",  { {9,4,3}, {4,4,2}, {13,0,6}, {13,0,6}, {1,8,0}, {7,9,0}, {4,4,2}, {4,4,2} } },
	{ "9.5.0",  { {9,5,0}, {4,4,4}, {13,0,14}, {13,0,12}, {1,8,1}, {7,9,1}, {4,4,5}, {4,4,5} } },
	{ "11.0.0", { {11,0,0}, {6,0,0}, {13,0,0}, {13,0,0}, {3,0,0}, {4,3,0}, {6,0,0}, {6,0,0} } },
	{ "11.0.2", { {11,0,2}, {6,0,2}, {13,0,7}, {13,0,7}, {3,0,1}, {4,3,0}, {6,0,1}, {6,0,0} } },
	{ "12.0.0", { {12,0,0}, {7,0,0}, {14,0,2}, {14,0,2}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} } },
	{ "12.0.1", { {12,0,1}, {7,0,1}, {14,0,3}, {14,0,3}, {4,1,0}, {6,3,1}, {7,0,0}, {7,0,0} } },
};

/* hw_id and Navi-style bases (amd-facts §0.3) of GC, SDMA0, MP0, MP1, MMHUB, NBIF, OSSSYS, HDP. */
static const struct ipdef layout[8] = {
	{ 11, {0}, 4, { 0x1260, 0xA000, 0x1C000, 0x2402C00 } },
	{ 42, {0}, 4, { 0x1260, 0xA000, 0x1C000, 0x2402C00 } },
	{ 255, {0}, 5, { 0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00 } },
	{ 1, {0}, 5, { 0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00 } },
	{ 34, {0}, 2, { 0x1A000, 0x2408800 } },
	{ 108, {0}, 6, { 0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000,
			 0x4080000, 0x40C0000, 0x11000 } },
	{ 40, {0}, 2, { 0x10A0, 0x240A000 } },
	{ 41, {0}, 2, { 0xF20, 0x240A400 } },
};

void
put16(uint8_t *b, size_t at, uint16_t v)
{
	memcpy(b + at, &v, 2);
}

void
put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

static uint16_t
get16(const uint8_t *b, size_t at)
{
	uint16_t v;

	memcpy(&v, b + at, 2);
	return v;
}

static uint16_t
sum(const uint8_t *b, size_t n)
{
	uint16_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = (uint16_t)(s + b[i]);
	return s;
}

void
synth_fix(struct synth *s)
{
	uint8_t *b = s->b;

	put16(b, 12 + 2, sum(b + s->ihdr, get16(b, s->ihdr + 6)));
	put16(b, 12 + 8 + 2, sum(b + s->gc_info, get16(b, s->gc_info + 8)));
	put16(b, 12 + 16 + 2, sum(b + s->harvest, 136));
	put16(b, 8, sum(b + 10, s->len - 10));
}

void
synth_build(struct synth *s, const char *gc, uint16_t skip)
{
	synth_build_xccs(s, gc, skip, 1);
}

/* NBIO 7.9 (GC 9's tables) lists 9 bases, the rest of NBIF's 6: linux's
 * nbio_v7_9.c uses segment 8 (src/amd/sim/table.c's bases 6 to 8). */
#define NBIF_K		5
#define NBIO_7_9_BASES	9

/* synth_build_nbif_bases()'s count for the table it builds; 0: as above. */
static unsigned nbif_bases;

/* An IP entry for layout[k] at at (GC: instance inst); returns the end. */
static size_t
ip_entry(struct synth *s, const struct gcdef *g, size_t at, int k, unsigned inst,
	 bool wide)
{
	const struct ipdef *d = &layout[k];
	uint8_t nbases = k == NBIF_K && nbif_bases ? (uint8_t)nbif_bases :
			 wide && k == NBIF_K ? NBIO_7_9_BASES : d->nbases;
	uint8_t *b = s->b;

	s->entry[s->nentries++] = at;
	put16(b, at, d->hw_id);
	b[at + 2] = (uint8_t)inst;
	b[at + 3] = nbases;
	memcpy(b + at + 4, g->v[k], 3);
	at += 8;
	for (int j = 0; j < nbases; j++) {
		if (wide) {
			uint64_t v = d->base[j] | (uint64_t)1 << 32; /* an AID bit */

			memcpy(b + at, &v, 8);
			at += 8;
		} else {
			put32(b, at, d->base[j]);
			at += 4;
		}
	}
	return at;
}

void
synth_build_nbif_bases(struct synth *s, const char *gc, unsigned nbases)
{
	if (nbases < 1 || nbases > NBIO_7_9_BASES) {
		fprintf(stderr, "synth: NBIF with %u bases (1 to %u)\n", nbases,
			NBIO_7_9_BASES);
		abort();
	}
	nbif_bases = nbases;
	synth_build(s, gc, 0);
	nbif_bases = 0;
}

void
synth_build_xccs(struct synth *s, const char *gc, uint16_t skip, unsigned xccs)
{
	synth_build_dies(s, gc, skip, xccs, 1);
}

void
synth_build_dies(struct synth *s, const char *gc, uint16_t skip, unsigned xccs,
		 unsigned dies)
{
	const struct gcdef *g = NULL;
	bool wide;
	size_t at, gc_size;
	uint8_t *b = s->b;

	for (size_t i = 0; i < sizeof(gcs) / sizeof(gcs[0]); i++)
		if (!strcmp(gcs[i].gc, gc))
			g = &gcs[i];
	if (!g) {
		fprintf(stderr, "synth_build: unknown GC %s\n", gc);
		abort();
	}
	wide = g->v[0][0] == 9;
	memset(s, 0, sizeof(*s));
	s->ihdr = 60;
	s->die = s->ihdr + 80;
	at = s->die;
	if (xccs < 1 || xccs > 8 || dies < 1 || dies > xccs) {
		fprintf(stderr, "synth_build_dies: %u XCCs on %u dies\n", xccs, dies);
		abort();
	}
	/* Die d holds XCCs x with x * dies / xccs == d; die 0 every other block. */
	for (unsigned d = 0; d < dies; d++) {
		size_t head = at, first = s->nentries;

		at += 4;
		for (unsigned x = 0; x < xccs; x++)
			if (x * dies / xccs == d && layout[0].hw_id != skip)
				at = ip_entry(s, g, at, 0, x, wide);
		for (int k = 1; d == 0 && k < 8; k++)
			if (layout[k].hw_id != skip)
				at = ip_entry(s, g, at, k, 0, wide);
		put16(b, head, (uint16_t)d);
		put16(b, head + 2, (uint16_t)(s->nentries - first));
		put16(b, s->ihdr + 14 + 4 * d, (uint16_t)d);		/* die_info[d].die_id */
		put16(b, s->ihdr + 16 + 4 * d, (uint16_t)head);	/* die_offset */
	}
	/* IP discovery header */
	put32(b, s->ihdr, 0x53445049);
	put16(b, s->ihdr + 4, wide ? 4 : 3);
	put16(b, s->ihdr + 6, (uint16_t)(at - s->ihdr));
	put16(b, s->ihdr + 12, (uint16_t)dies);		/* num_dies */
	b[s->ihdr + 78] = wide;				/* base_addr_64_bit */
	/* GC info: v2.1 (GFX9, CUs) or v1.0 (RDNA, WGPs) */
	s->gc_info = at;
	gc_size = wide ? 108 : 88;
	put32(b, at, 0x4347);
	put16(b, at + 4, wide ? 2 : 1);
	put16(b, at + 6, wide ? 1 : 0);
	put32(b, at + 8, (uint32_t)gc_size);
	put32(b, at + 12, wide ? 4 : 6);		/* gc_num_se */
	put32(b, at + 16, wide ? 10 : 4);		/* cu_per_sh / wgp0_per_sa */
	put32(b, at + 20, wide ? 1 : 4);		/* sh_per_se / wgp1_per_sa */
	if (!wide)
		put32(b, at + 12 + 16 * 4, 2);		/* gc_num_sa_per_se */
	at += gc_size;
	/* harvest: empty list */
	s->harvest = at;
	put32(b, at, 0x56524148);
	at += 136;
	s->len = at;
	/* binary header */
	put32(b, 0, 0x28211407);
	put16(b, 4, 1);
	put16(b, 10, (uint16_t)s->len);
	put16(b, 12, (uint16_t)s->ihdr);
	put16(b, 12 + 4, (uint16_t)(at - s->ihdr));	/* table sizes: informative */
	put16(b, 12 + 8, (uint16_t)s->gc_info);
	put16(b, 12 + 8 + 4, (uint16_t)gc_size);
	put16(b, 12 + 16, (uint16_t)s->harvest);
	put16(b, 12 + 16 + 4, 136);
	synth_fix(s);
}

void
synth_set_version(struct synth *s, uint16_t hw_id, uint8_t major, uint8_t minor,
		  uint8_t rev)
{
	for (size_t k = 0; k < s->nentries; k++)
		if (get16(s->b, s->entry[k]) == hw_id) {
			s->b[s->entry[k] + 4] = major;
			s->b[s->entry[k] + 5] = minor;
			s->b[s->entry[k] + 6] = rev;
			synth_fix(s);
			return;
		}
	fprintf(stderr, "synth_set_version: no hw_id %u\n", hw_id);
	abort();
}
