/* SPDX-License-Identifier: MIT */
/*
 * amd/regs/: the registers the AMD path programs, by block and version.
 * regs.def holds the facts (offsets and segments from linux's asic_reg
 * headers, picked by scripts/amd_regs.py); names.h and tables.c are
 * generated from it by the same script (check_amd_regs keeps them equal);
 * resolve.c turns a GPU's discovery table into the dword index of every
 * register (amd-facts §0.3: discovery base of the segment + offset).
 *
 * The open refuses a GPU one of whose programmed blocks has a version no
 * table serves, naming the block and the version, before the boot writes.
 */
#ifndef AMD_REGS_REGS_H
#define AMD_REGS_REGS_H

#include <stddef.h>
#include <stdint.h>

#include "amd/discovery/discovery.h"
#include "amd/regs/names.h"

/* One register of a header: its role, offset (dwords) and segment. */
struct amd_reg_def {
	enum amd_reg reg;
	uint32_t offset;
	uint8_t segment;
};

#define AMD_REG_VERSIONS 6

/* A register header and the block versions it serves. */
struct amd_reg_table {
	uint16_t hw_id;
	const char *header;		/* "gc_11_0_0": linux's file name */
	struct { uint8_t major, minor, rev; } versions[AMD_REG_VERSIONS];
	size_t nversions;
	const struct amd_reg_def *regs;
	size_t nregs;
};

extern const struct amd_reg_table amd_reg_tables[];
extern const size_t amd_reg_ntables;
extern const char *const amd_reg_names[AMD_REG_COUNT];

/* The index of a register its block's header does not have. */
#define AMD_REG_NONE	UINT64_MAX

/*
 * The XCCs a GPU may have: the unharvested GC instances (amd-facts §2.4),
 * at most 8, the bits XCC_DOORBELL_FENCE gives them (§3.5).
 */
#define AMD_XCCS	8

/* Every register's dword index on one GPU, and the headers used. */
struct amd_regs {
	uint64_t index[AMD_REG_COUNT];		/* XCC 0's for GC's registers */
	const struct amd_reg_table *table[HW_ID_MAX];
	/* Per XCC (its GC instance's bases, in instance order; XCC 0 the
	 * instance 0 index[] uses): the dword index of each GC segment. */
	unsigned xccs;
	uint8_t xcc_instance[AMD_XCCS];		/* its GC instance number */
	uint16_t xcc_die[AMD_XCCS];		/* the die its entry is listed on */
	uint64_t xcc_base[AMD_XCCS][AMD_BLOCK_BASES];
	uint8_t gc_segment[AMD_REG_COUNT];	/* a GC register's segment + 1; 0: another's */
};

/* The table serving hw_id at major.minor.rev, or NULL. */
const struct amd_reg_table *amd_reg_table_of(uint16_t hw_id, uint8_t major,
					     uint8_t minor, uint8_t rev);

/*
 * amd_regs_resolve() - every register of t's blocks at its dword index:
 * each block of AMD_REG_BLOCKS t lists must have a table for its version
 * (-ENOTSUP naming the block, its version and the versions tables serve),
 * and its first instance the segments its registers use (-EPROTO naming
 * the register). A block t lacks leaves its registers AMD_REG_NONE (the
 * open refuses a missing programmed block before this, naming it). 64-bit
 * bases keep their low 30 bits, as linux does for die 0 (amd-facts §2.4).
 * Every unharvested GC instance is an XCC (§2.4: linux's xcc_mask): each
 * must have XCC 0's version and the segments GC's registers use (-EPROTO
 * naming the instance), with an instance number below AMD_XCCS
 * (-ENOTSUP: XCC_DOORBELL_FENCE has a bit for each of 0 to 7).
 */
int amd_regs_resolve(const struct amd_discovery *t, struct amd_regs *out);

/*
 * amd_regs_xcc() - the dword index of GC register r on XCC xcc (0: the
 * same as index[r]): XCC xcc's base of r's segment plus r's offset.
 * AMD_REG_NONE for a register GC's header lacks, one of another block
 * with xcc > 0, or an XCC the GPU does not have.
 */
uint64_t amd_regs_xcc(const struct amd_regs *g, unsigned xcc, enum amd_reg r);

#endif
