/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/synth.h: discovery tables built at run time (amd-facts §2
 * layout, linux checksums), valid ones for each supported GC and the
 * offsets a test needs to break one. Versions of the blocks rig does not
 * check yet (MMHUB, NBIF, OSSSYS, HDP) and every base address are
 * illustrative, not dumps of real parts.
 */
#ifndef TESTS_AMD_SYNTH_H
#define TESTS_AMD_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYNTH_BYTES	(10 << 10)
#define SYNTH_IPS	16

struct synth {
	uint8_t b[SYNTH_BYTES];
	size_t len;		/* binary_size */
	size_t ihdr;		/* IP discovery header */
	size_t die;		/* die 0's header */
	size_t entry[SYNTH_IPS];/* each IP entry */
	size_t nentries;
	size_t gc_info;
	size_t harvest;
};

/*
 * synth_build() - a valid table for GC "9.4.3", "9.5.0", "11.0.0", "11.0.2",
 * "12.0.0" or "12.0.1" (9.x: IP discovery v4 with 64-bit bases, GC info
 * v2.1; others: v3, 32-bit bases, GC info v1.0). Entries skip hw_id skip
 * (0: none). Aborts on an unknown GC.
 */
void synth_build(struct synth *s, const char *gc, uint16_t skip);

/* The same with xccs GC entries (instances 0 to xccs - 1, the same bases:
 * MI300's XCCs, amd-facts §2.4), 1 to 8. */
void synth_build_xccs(struct synth *s, const char *gc, uint16_t skip, unsigned xccs);
/* The same with the XCCs spread over dies (1 to xccs) in order, die 0
 * holding every other block: MI300X's 8 XCCs on 4 AIDs, if its table
 * gives each AID a die (unverified: amd-facts §2.4). */
void synth_build_dies(struct synth *s, const char *gc, uint16_t skip, unsigned xccs,
		      unsigned dies);

/* synth_build() with NBIF's entry listing its first nbases bases (1 to 9;
 * GC 9's lists 9, NBIO 7.9's segment 8 being linux's, others 6). */
void synth_build_nbif_bases(struct synth *s, const char *gc, unsigned nbases);

/* Set the version of the first entry of hw_id, then fix the checksums. */
void synth_set_version(struct synth *s, uint16_t hw_id, uint8_t major,
		       uint8_t minor, uint8_t rev);

/* Recompute every checksum after a change. */
void synth_fix(struct synth *s);

/* Little-endian stores at an offset. */
void put16(uint8_t *b, size_t at, uint16_t v);
void put32(uint8_t *b, size_t at, uint32_t v);

#endif
