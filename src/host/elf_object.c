/* SPDX-License-Identifier: MIT */
/*
 * host/elf_object.c: checking a relocatable ELF64 object's headers. Every
 * offset and index the linker will follow is checked here, in file order:
 * identification, ELF header, section header table, each section's bytes,
 * the string tables, the symbol table and the relocation sections' links.
 * A refusal names the first thing that is wrong and never reads past len.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_object.h"

int
elf_refuse(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -ENOEXEC;
}

static const char *
machine_name(unsigned m)
{
	switch (m) {
	case EM_386:		return "EM_386";
	case EM_ARM:		return "EM_ARM";
	case EM_X86_64:		return "EM_X86_64";
	case EM_AARCH64:	return "EM_AARCH64";
	case EM_RISCV:		return "EM_RISCV";
	case EM_PPC64:		return "EM_PPC64";
	case EM_AMDGPU:		return "EM_AMDGPU";
	default:		return "unknown";
	}
}

static const char *
type_name(unsigned t)
{
	switch (t) {
	case ET_NONE:	return "ET_NONE";
	case ET_EXEC:	return "ET_EXEC, an executable";
	case ET_DYN:	return "ET_DYN, a shared object";
	case ET_CORE:	return "ET_CORE, a core dump";
	default:	return "unknown";
	}
}

/* The identification and the ELF header. */
static int
read_header(struct elf_object *o, Elf64_Ehdr *eh, char *why, size_t why_len)
{
	static const unsigned char magic[SELFMAG] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3 };
	size_t n = o->len < SELFMAG ? o->len : SELFMAG;

	if (memcmp(o->bytes, magic, n) != 0)
		return elf_refuse(why, why_len, "not an ELF object (no \\177ELF magic)");
	if (o->len < EI_NIDENT)
		return elf_refuse(why, why_len, "truncated: %zu bytes, shorter than the %d-byte ELF identification",
				  o->len, EI_NIDENT);
	if (o->bytes[EI_CLASS] != ELFCLASS64)
		return elf_refuse(why, why_len, "wrong class: EI_CLASS %u (%s), expected ELFCLASS64",
				  o->bytes[EI_CLASS],
				  o->bytes[EI_CLASS] == ELFCLASS32 ? "ELFCLASS32" : "unknown");
	if (o->bytes[EI_DATA] != ELFDATA2LSB)
		return elf_refuse(why, why_len, "wrong byte order: EI_DATA %u, expected ELFDATA2LSB",
				  o->bytes[EI_DATA]);
	if (o->bytes[EI_VERSION] != EV_CURRENT)
		return elf_refuse(why, why_len, "unknown ELF version %u", o->bytes[EI_VERSION]);
	if (o->len < sizeof(*eh))
		return elf_refuse(why, why_len, "truncated: %zu bytes, shorter than the %zu-byte ELF header",
				  o->len, sizeof(*eh));
	memcpy(eh, o->bytes, sizeof(*eh));
	if (eh->e_type != ET_REL)
		return elf_refuse(why, why_len, "not a relocatable object: e_type %u (%s)",
				  eh->e_type, type_name(eh->e_type));
	if (eh->e_machine != ELF_HOST_MACHINE)
		return elf_refuse(why, why_len, "wrong machine: e_machine %u (%s), this host runs %s (%u)",
				  eh->e_machine, machine_name(eh->e_machine),
				  machine_name(ELF_HOST_MACHINE), ELF_HOST_MACHINE);
	o->machine = eh->e_machine;
	return 0;
}

/* The section header table, copied out. */
static int
read_sections(struct elf_object *o, const Elf64_Ehdr *eh, char *why, size_t why_len)
{
	uint64_t end;

	if (eh->e_shoff == 0 && eh->e_shnum == 0)
		return elf_refuse(why, why_len, "no section headers");
	if (eh->e_shnum == 0)
		return elf_refuse(why, why_len, "extended section numbering (e_shnum 0) is unsupported");
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return elf_refuse(why, why_len, "section header size %u, expected %zu",
				  eh->e_shentsize, sizeof(Elf64_Shdr));
	end = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (eh->e_shoff > o->len || end > o->len)
		return elf_refuse(why, why_len, "truncated: the section headers end at byte %llu, the object has %zu",
				  eh->e_shoff > o->len ? (unsigned long long)eh->e_shoff
						       : (unsigned long long)end, o->len);
	o->shnum = eh->e_shnum;
	o->sh = malloc(o->shnum * sizeof(*o->sh));
	if (!o->sh) {
		elf_refuse(why, why_len, "no memory for %zu section headers", o->shnum);
		return -ENOMEM;
	}
	memcpy(o->sh, o->bytes + eh->e_shoff, o->shnum * sizeof(*o->sh));
	return 0;
}

/* A string table: in bounds (checked already) and ending in NUL. */
static int
check_strtab(const struct elf_object *o, size_t i, const char *what, char *why, size_t why_len)
{
	const Elf64_Shdr *s = &o->sh[i];

	if (s->sh_type != SHT_STRTAB)
		return elf_refuse(why, why_len, "bad section index: %s names section %zu, not a string table",
				  what, i);
	if (s->sh_size == 0 || o->bytes[s->sh_offset + s->sh_size - 1] != '\0')
		return elf_refuse(why, why_len, "section %zu, the %s, does not end in NUL", i, what);
	return 0;
}

/* Each section's bytes lie in the object; the section names' table. */
static int
read_bounds(struct elf_object *o, const Elf64_Ehdr *eh, char *why, size_t why_len)
{
	size_t i;
	int ret;

	for (i = 1; i < o->shnum; i++) {
		const Elf64_Shdr *s = &o->sh[i];

		if (s->sh_type == SHT_NOBITS)
			continue;
		if (s->sh_offset > o->len || s->sh_size > o->len - s->sh_offset)
			return elf_refuse(why, why_len, "truncated: section %zu ends at byte %llu, the object has %zu",
					  i, (unsigned long long)s->sh_offset + s->sh_size, o->len);
	}
	if (eh->e_shstrndx == SHN_XINDEX)
		return elf_refuse(why, why_len, "extended section numbering (e_shstrndx SHN_XINDEX) is unsupported");
	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= o->shnum)
		return elf_refuse(why, why_len, "bad section index: e_shstrndx %u of %zu sections",
				  eh->e_shstrndx, o->shnum);
	ret = check_strtab(o, eh->e_shstrndx, "section names' table", why, why_len);
	if (ret < 0)
		return ret;
	o->shstr = (const char *)o->bytes + o->sh[eh->e_shstrndx].sh_offset;
	o->shstr_len = o->sh[eh->e_shstrndx].sh_size;
	for (i = 0; i < o->shnum; i++)
		if (o->sh[i].sh_name >= o->shstr_len)
			return elf_refuse(why, why_len, "section %zu: name offset %u beyond the names' table of %zu bytes",
					  i, o->sh[i].sh_name, o->shstr_len);
	return 0;
}

/* Flags, alignment and the links of symbol and relocation sections. */
static int
check_section(struct elf_object *o, size_t i, char *why, size_t why_len)
{
	const Elf64_Shdr *s = &o->sh[i];
	const char *name = elf_object_section_name(o, i);
	uint64_t a = s->sh_addralign;

	if (a & (a - 1))
		return elf_refuse(why, why_len, "section %zu ('%s'): alignment %llu is not a power of two",
				  i, name, (unsigned long long)a);
	if ((s->sh_flags & SHF_ALLOC) && a > ELF_MAX_ALIGN)
		return elf_refuse(why, why_len, "section %zu ('%s'): alignment %llu exceeds a page (%u)",
				  i, name, (unsigned long long)a, ELF_MAX_ALIGN);
	if ((s->sh_flags & SHF_ALLOC) && (s->sh_flags & SHF_TLS))
		return elf_refuse(why, why_len, "section %zu ('%s') holds thread-local storage, which host kernels cannot use",
				  i, name);
	switch (s->sh_type) {
	case SHT_SYMTAB:
		if (o->symtab)
			return elf_refuse(why, why_len, "more than one symbol table (sections %zu and %zu)",
					  o->symtab, i);
		if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_size % sizeof(Elf64_Sym))
			return elf_refuse(why, why_len, "section %zu ('%s'): symbol entries of %llu bytes in %llu, expected %zu each",
					  i, name, (unsigned long long)s->sh_entsize,
					  (unsigned long long)s->sh_size, sizeof(Elf64_Sym));
		if (s->sh_link == SHN_UNDEF || s->sh_link >= o->shnum)
			return elf_refuse(why, why_len, "bad section index: symbol table %zu links section %u of %zu",
					  i, s->sh_link, o->shnum);
		o->symtab = i;
		return 0;
	case SHT_RELA:
	case SHT_REL:
		if (s->sh_info == SHN_UNDEF || s->sh_info >= o->shnum)
			return elf_refuse(why, why_len, "bad section index: relocation section %zu ('%s') applies to section %u of %zu",
					  i, name, s->sh_info, o->shnum);
		if (s->sh_type == SHT_REL)
			return 0;	/* refused by the linker if it applies to a loaded section */
		if (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_size % sizeof(Elf64_Rela))
			return elf_refuse(why, why_len, "section %zu ('%s'): relocation entries of %llu bytes in %llu, expected %zu each",
					  i, name, (unsigned long long)s->sh_entsize,
					  (unsigned long long)s->sh_size, sizeof(Elf64_Rela));
		return 0;
	case SHT_SYMTAB_SHNDX:
		return elf_refuse(why, why_len, "section %zu ('%s'): extended symbol section indices are unsupported",
				  i, name);
	default:
		return 0;
	}
}

/* The symbol table and its names: every name and section index checked. */
static int
read_symbols(struct elf_object *o, char *why, size_t why_len)
{
	const Elf64_Shdr *st;
	Elf64_Sym s;
	size_t i;
	int ret;

	for (i = 1; i < o->shnum; i++) {
		ret = check_section(o, i, why, why_len);
		if (ret < 0)
			return ret;
	}
	if (!o->symtab)
		return 0;
	st = &o->sh[o->symtab];
	ret = check_strtab(o, st->sh_link, "symbol names' table", why, why_len);
	if (ret < 0)
		return ret;
	o->str = (const char *)o->bytes + o->sh[st->sh_link].sh_offset;
	o->str_len = o->sh[st->sh_link].sh_size;
	o->nsyms = st->sh_size / sizeof(Elf64_Sym);
	for (i = 0; i < o->nsyms; i++) {
		elf_object_sym(o, i, &s);
		if (s.st_name >= o->str_len)
			return elf_refuse(why, why_len, "symbol %zu: name offset %u beyond its table of %zu bytes",
					  i, s.st_name, o->str_len);
		if (s.st_shndx == SHN_XINDEX)
			return elf_refuse(why, why_len, "symbol %zu ('%s'): extended section indices are unsupported",
					  i, elf_object_sym_name(o, &s));
		if (s.st_shndx >= o->shnum && s.st_shndx != SHN_ABS && s.st_shndx != SHN_COMMON)
			return elf_refuse(why, why_len, "bad section index: symbol %zu ('%s') lies in section %u of %zu",
					  i, elf_object_sym_name(o, &s), s.st_shndx, o->shnum);
	}
	return 0;
}

/* Relocation sections link the symbol table. */
static int
check_relocations(const struct elf_object *o, char *why, size_t why_len)
{
	size_t i;

	for (i = 1; i < o->shnum; i++) {
		const Elf64_Shdr *s = &o->sh[i];

		if (s->sh_type != SHT_RELA || s->sh_size == 0)
			continue;
		if (!o->symtab || s->sh_link != o->symtab)
			return elf_refuse(why, why_len, "bad section index: relocation section %zu ('%s') links section %u, not the symbol table",
					  i, elf_object_section_name(o, i), s->sh_link);
	}
	return 0;
}

int
elf_object_read(struct elf_object *o, const void *bytes, size_t len,
		char *why, size_t why_len)
{
	Elf64_Ehdr eh;
	int ret;

	memset(o, 0, sizeof(*o));
	o->bytes = bytes;
	o->len = len;
	if (!bytes && len)
		return elf_refuse(why, why_len, "no bytes at NULL");
	ret = read_header(o, &eh, why, why_len);
	if (ret < 0)
		return ret;
	ret = read_sections(o, &eh, why, why_len);
	if (ret < 0)
		return ret;
	ret = read_bounds(o, &eh, why, why_len);
	if (ret == 0)
		ret = read_symbols(o, why, why_len);
	if (ret == 0)
		ret = check_relocations(o, why, why_len);
	if (ret < 0)
		elf_object_free(o);
	return ret;
}

void
elf_object_free(struct elf_object *o)
{
	free(o->sh);
	o->sh = NULL;
}

const char *
elf_object_section_name(const struct elf_object *o, size_t i)
{
	return o->shstr + o->sh[i].sh_name;
}

void
elf_object_sym(const struct elf_object *o, size_t i, Elf64_Sym *out)
{
	const Elf64_Shdr *st = &o->sh[o->symtab];

	memcpy(out, o->bytes + st->sh_offset + i * sizeof(*out), sizeof(*out));
}

const char *
elf_object_sym_name(const struct elf_object *o, const Elf64_Sym *s)
{
	return o->str + s->st_name;
}

void
elf_object_rela(const struct elf_object *o, size_t i, size_t j, Elf64_Rela *out)
{
	memcpy(out, o->bytes + o->sh[i].sh_offset + j * sizeof(*out), sizeof(*out));
}
