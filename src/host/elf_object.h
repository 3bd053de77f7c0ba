/* SPDX-License-Identifier: MIT */
/*
 * host/elf_object.h: a checked view of a relocatable ELF64 object's bytes.
 * elf_object_read() validates every header, section bound, string table and
 * symbol before anything reads through them, so the linker (elf.c) and the
 * relocations (elf_reloc.c) only index what was checked.
 * Not here: layout, symbol binding, relocations (elf.c, elf_reloc.c).
 *
 * The bytes may lie at any alignment (a fuzzer's input, a slice of a file),
 * so headers are copied out with memcpy and never read in place.
 */
#ifndef HOST_ELF_OBJECT_H
#define HOST_ELF_OBJECT_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* The largest section alignment the linker honours: one page. */
#define ELF_MAX_ALIGN	4096u

struct elf_object {
	const unsigned char *bytes;
	size_t len;
	uint16_t machine;		/* e_machine: EM_X86_64 or EM_AARCH64 */
	Elf64_Shdr *sh;			/* copies of the section headers */
	size_t shnum;
	const char *shstr;		/* section names, NUL-terminated table */
	size_t shstr_len;
	size_t symtab;			/* the SHT_SYMTAB's index; 0: none */
	size_t nsyms;
	const char *str;		/* symbol names, NUL-terminated table */
	size_t str_len;
};

/*
 * elf_object_read() - check bytes as a relocatable ELF64 object for this
 * host's machine and fill *o. Returns 0, -ENOEXEC with why naming the cause
 * (not ELF, wrong class, byte order or machine, truncated, a bad section
 * index, a malformed table), or -ENOMEM. On failure *o holds nothing to free.
 */
int elf_object_read(struct elf_object *o, const void *bytes, size_t len,
		    char *why, size_t why_len);

/* elf_object_free() - free what elf_object_read() allocated. */
void elf_object_free(struct elf_object *o);

/* The name of section i (checked by elf_object_read). */
const char *elf_object_section_name(const struct elf_object *o, size_t i);

/* Symbol i (< o->nsyms), copied out; and its name. */
void elf_object_sym(const struct elf_object *o, size_t i, Elf64_Sym *out);
const char *elf_object_sym_name(const struct elf_object *o, const Elf64_Sym *s);

/* Relocation j of RELA section i (checked to hold it), copied out. */
void elf_object_rela(const struct elf_object *o, size_t i, size_t j,
		     Elf64_Rela *out);

/* Format why and return -ENOEXEC: the one way the linker refuses. */
int elf_refuse(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The machine this host runs, as e_machine spells it. */
#if defined(__x86_64__)
#define ELF_HOST_MACHINE	EM_X86_64
#elif defined(__aarch64__)
#define ELF_HOST_MACHINE	EM_AARCH64
#else
#error "the host ELF linker supports x86-64 and aarch64 hosts"
#endif

#endif
