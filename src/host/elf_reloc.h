/* SPDX-License-Identifier: MIT */
/*
 * host/elf_reloc.h: relocation types of x86-64 and aarch64 objects: what
 * each needs from the linker (a GOT slot, a stub), how many bytes it
 * patches, its name, and how it is computed and checked for overflow.
 * Not here: finding symbols and places (elf.c).
 */
#ifndef HOST_ELF_RELOC_H
#define HOST_ELF_RELOC_H

#include <stddef.h>
#include <stdint.h>

#define ELF_NEEDS_GOT	1u	/* a GOT slot holding the symbol's address */
#define ELF_NEEDS_STUB	2u	/* a jump stub, for an external symbol out of reach */

/* One relocation's inputs, in the ELF ABIs' letters. */
struct elf_reloc {
	unsigned char *where;	/* the bytes it patches */
	uint64_t P;		/* the address of the place */
	uint64_t S;		/* the symbol's value */
	int64_t A;		/* the addend */
	uint64_t G;		/* the address of the symbol's GOT slot */
	uint64_t GOT;		/* the address of the GOT */
	uint64_t stub;		/* the symbol's stub, 0 if none */
};

enum elf_reloc_status {
	ELF_RELOC_OK = 0,
	ELF_RELOC_UNSUPPORTED,	/* the type is not one the linker applies */
	ELF_RELOC_OVERFLOW,	/* the value does not fit the field */
	ELF_RELOC_MISALIGNED,	/* a scaled field's value is not a multiple of its scale */
};

/* Bytes the type patches, 0 for R_*_NONE, or -1 if unsupported. */
int elf_reloc_width(unsigned machine, unsigned type);

/* What to do about an unsupported type, as ": ..." to end a refusal. */
const char *elf_reloc_advice(unsigned machine, unsigned type);

/* ELF_NEEDS_* of a supported type. */
unsigned elf_reloc_needs(unsigned machine, unsigned type);

/* The type's name, such as "R_X86_64_PC32", or "unknown". */
const char *elf_reloc_name(unsigned machine, unsigned type);

/* Apply r; *value is the computed value (for a refusal's message). */
enum elf_reloc_status elf_reloc_apply(unsigned machine, unsigned type,
				      const struct elf_reloc *r, int64_t *value);

/* Bytes of one stub, and writing a stub that jumps to target. */
#define ELF_STUB_BYTES	16
void elf_stub_write(unsigned machine, unsigned char *at, uint64_t target);

#endif
