/* SPDX-License-Identifier: MIT */
/*
 * host/elf.c: linking one relocatable object into executable memory.
 *
 * The steps, each refusing with a reason before anything is mapped where it
 * can: read the object (elf_object.c); scan its relocations for unsupported
 * types, bad symbol indices, and the GOT slots and stubs they need; lay out
 * the three segments; map them read-write; copy the sections; bind every
 * symbol; write the GOT and the stubs; apply the relocations (elf_reloc.c);
 * then protect the segments (text r-x, read-only data and GOT r--, data rw-)
 * and sync the instruction cache. A failure at any step unmaps and frees
 * everything the earlier steps made.
 *
 * The image's layout, each segment page-aligned in one mapping so every
 * PC-relative reference inside the image fits 32 bits:
 *   [ text sections | stubs ][ read-only sections | GOT ][ data | common ]
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rig_edge.h"
#include "host/elf.h"
#include "host/elf_host.h"
#include "host/elf_init.h"
#include "host/elf_object.h"
#include "host/elf_reloc.h"

/* The most bytes one image may map: bounds a hostile .bss. */
#define ELF_MAX_IMAGE	((uint64_t)1 << 30)

enum segment { SEG_NONE = -1, SEG_TEXT, SEG_RO, SEG_DATA, NSEG };

struct elf_image {
	unsigned char *base;
	size_t size;
	struct elf_func *funcs;		/* functions and data objects, sorted by name */
	size_t nfuncs;
	char *names;
	struct elf_calls calls;		/* constructors and destructors */
	bool initialised;		/* elf_image_init() ran the constructors */
};

/* The state of one elf_link() call. */
struct link {
	struct elf_object o;
	char *why;
	size_t why_len;
	signed char *seg;		/* per section: its segment or SEG_NONE */
	uint64_t *off;			/* per section: offset in its segment; per common symbol too */
	uint64_t *sym;			/* per symbol: its address once bound */
	bool *bound;			/* per symbol: it has an address in the image or host */
	uint32_t *got;			/* per symbol: GOT slot + 1, 0 for none */
	uint32_t *stub;			/* per symbol: stub + 1, 0 for none */
	uint64_t *common;		/* per symbol: offset of a SHN_COMMON symbol in data */
	uint32_t ngot, nstubs;
	bool low;			/* absolute 32-bit references: map below 2 GiB */
	uint64_t seg_size[NSEG];	/* bytes of each segment before page rounding */
	uint64_t seg_at[NSEG];		/* offset of each segment in the mapping */
	uint64_t stub_at, got_at;	/* offsets of the stubs and the GOT in their segments */
	unsigned char *base;
	size_t size;
	struct elf_image *img;		/* made first, filled last */
};

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static int
no_memory(struct link *l, const char *what)
{
	elf_refuse(l->why, l->why_len, "no memory for %s", what);
	return -ENOMEM;
}

/* A place in a section, for messages: ".text+0x2f". */
#define PLACE_FMT	"%s+0x%llx"

/* Pass 1: every relocation's type and symbol, and the GOT slots and stubs. */
static int
scan_relocations(struct link *l)
{
	const struct elf_object *o = &l->o;
	Elf64_Rela r;
	Elf64_Sym s;
	size_t i, j;

	for (i = 1; i < o->shnum; i++) {
		const Elf64_Shdr *rs = &o->sh[i];

		if (rs->sh_type != SHT_RELA && rs->sh_type != SHT_REL)
			continue;
		if (!(o->sh[rs->sh_info].sh_flags & SHF_ALLOC))
			continue;	/* debugging information: not loaded */
		if (rs->sh_type == SHT_REL)
			return elf_refuse(l->why, l->why_len, "section %zu ('%s'): SHT_REL relocations are unsupported",
					  i, elf_object_section_name(o, i));
		for (j = 0; j < rs->sh_size / sizeof(r); j++) {
			unsigned type, needs;
			size_t k;

			elf_object_rela(o, i, j, &r);
			type = ELF64_R_TYPE(r.r_info);
			k = ELF64_R_SYM(r.r_info);
			if (k >= o->nsyms && !(k == 0 && o->nsyms == 0))
				return elf_refuse(l->why, l->why_len, "bad symbol index: relocation %zu of section %zu ('%s') names symbol %zu of %zu",
						  j, i, elf_object_section_name(o, i), k, o->nsyms);
			if (elf_reloc_width(o->machine, type) < 0)
				return elf_refuse(l->why, l->why_len, "unsupported relocation %s (type %u) at " PLACE_FMT "%s",
						  elf_reloc_name(o->machine, type), type,
						  elf_object_section_name(o, rs->sh_info),
						  (unsigned long long)r.r_offset,
						  elf_reloc_advice(o->machine, type));
			needs = elf_reloc_needs(o->machine, type);
			/* A non-PIC object's absolute 32-bit addresses reach
			 * an image mapped below 2 GiB (MAP_32BIT). */
			if (o->machine == EM_X86_64 && (type == R_X86_64_32 || type == R_X86_64_32S))
				l->low = true;
			if ((needs & ELF_NEEDS_GOT) && !l->got[k])
				l->got[k] = ++l->ngot;
			if (!(needs & ELF_NEEDS_STUB) || l->stub[k] || k == 0)
				continue;
			elf_object_sym(o, k, &s);
			if (s.st_shndx == SHN_UNDEF)
				l->stub[k] = ++l->nstubs;
		}
	}
	return 0;
}

/* Add bytes at alignment a to segment g; *at gets their offset. */
static int
place(struct link *l, enum segment g, uint64_t bytes, uint64_t a, uint64_t *at)
{
	uint64_t o = align_up(l->seg_size[g], a ? a : 1);

	if (bytes > ELF_MAX_IMAGE || o > ELF_MAX_IMAGE - bytes)
		return elf_refuse(l->why, l->why_len, "the image needs more than the %llu bytes a host image may map",
				  (unsigned long long)ELF_MAX_IMAGE);
	*at = o;
	l->seg_size[g] = o + bytes;
	return 0;
}

static enum segment
segment_of(const Elf64_Shdr *s)
{
	if (!(s->sh_flags & SHF_ALLOC))
		return SEG_NONE;
	if (s->sh_flags & SHF_EXECINSTR)
		return SEG_TEXT;
	if (s->sh_flags & SHF_WRITE)
		return SEG_DATA;
	return SEG_RO;
}

/* Pass 2: each loaded section's, common symbol's, stub's and GOT slot's offset. */
static int
lay_out(struct link *l)
{
	const struct elf_object *o = &l->o;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), total = 0;
	Elf64_Sym s;
	size_t i;
	int ret;

	l->seg[0] = SEG_NONE;
	for (i = 1; i < o->shnum; i++) {
		l->seg[i] = (signed char)segment_of(&o->sh[i]);
		if (l->seg[i] == SEG_NONE)
			continue;
		ret = place(l, l->seg[i], o->sh[i].sh_size, o->sh[i].sh_addralign, &l->off[i]);
		if (ret < 0)
			return ret;
	}
	for (i = 1; i < o->nsyms; i++) {
		elf_object_sym(o, i, &s);
		if (s.st_shndx != SHN_COMMON)
			continue;
		if (s.st_value & (s.st_value - 1) || s.st_value > ELF_MAX_ALIGN)
			return elf_refuse(l->why, l->why_len, "common symbol %zu ('%s'): alignment %llu is not a power of two up to a page",
					  i, elf_object_sym_name(o, &s), (unsigned long long)s.st_value);
		ret = place(l, SEG_DATA, s.st_size, s.st_value, &l->common[i]);
		if (ret < 0)
			return ret;
	}
	ret = place(l, SEG_TEXT, (uint64_t)l->nstubs * ELF_STUB_BYTES, ELF_STUB_BYTES, &l->stub_at);
	if (ret == 0)
		ret = place(l, SEG_RO, (uint64_t)l->ngot * 8, 8, &l->got_at);
	if (ret < 0)
		return ret;
	for (i = 0; i < NSEG; i++) {
		l->seg_at[i] = total;
		total += align_up(l->seg_size[i], page);
	}
	if (total > ELF_MAX_IMAGE)
		return elf_refuse(l->why, l->why_len, "the image needs %llu bytes, more than the %llu a host image may map",
				  (unsigned long long)total, (unsigned long long)ELF_MAX_IMAGE);
	l->size = total ? total : page;
	return 0;
}

static uint64_t
section_address(const struct link *l, size_t i)
{
	return (uint64_t)(uintptr_t)l->base + l->seg_at[l->seg[i]] + l->off[i];
}

/* Pass 3: map the image read-write and copy the sections' bytes. */
static int
map_and_copy(struct link *l)
{
	const struct elf_object *o = &l->o;
	size_t i;
	void *p;

	p = MAP_FAILED;
#ifdef MAP_32BIT
	if (l->low)	/* else, or when the low 2 GiB are full: overflows say so */
		p = mmap(NULL, l->size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
#endif
	if (p == MAP_FAILED)
		p = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return no_memory(l, "the image's mapping");
	l->base = p;
	for (i = 1; i < o->shnum; i++)
		if (l->seg[i] != SEG_NONE && o->sh[i].sh_type != SHT_NOBITS)
			memcpy((void *)(uintptr_t)section_address(l, i),
			       o->bytes + o->sh[i].sh_offset, o->sh[i].sh_size);
	return 0;
}

/* Add name to the list of undefined symbols, kept in why (*n so far). */
static void
note_undefined(struct link *l, const char *name, size_t *n)
{
	size_t used = *n ? strlen(l->why) : 0;

	if (used < l->why_len)
		snprintf(l->why + used, l->why_len - used, "%s'%s'", *n ? ", " : "", name);
	(*n)++;
}

/* The refusal once every undefined symbol is named. */
static int
refuse_undefined(struct link *l, size_t n)
{
	char list[ELF_WHY_BYTES];

	snprintf(list, sizeof(list), "%s", l->why);
	return elf_refuse(l->why, l->why_len,
			  "undefined symbol%s %s: a host kernel may call only memcpy, memset, memmove, memcmp, libm's functions and the helpers rig_host.h lists",
			  n > 1 ? "s" : "", list);
}

/* Bind one undefined symbol to the host's function of its name; 1 if
 * the host has none (the caller names it). */
static int
bind_undefined(struct link *l, size_t i, const Elf64_Sym *s)
{
	const char *name = elf_object_sym_name(&l->o, s);
	void *fn;

	if (strcmp(name, "_GLOBAL_OFFSET_TABLE_") == 0) {
		l->sym[i] = (uint64_t)(uintptr_t)l->base + l->seg_at[SEG_RO] + l->got_at;
		return 0;
	}
	/* C++'s globals register their destructors for this image by the
	 * address of its __dso_handle: the image's first byte, which every
	 * PC-relative reference from the image reaches. */
	if (strcmp(name, "__dso_handle") == 0) {
		l->sym[i] = (uint64_t)(uintptr_t)l->base;
		return 0;
	}
	fn = elf_host_symbol(name);
	if (!fn && ELF64_ST_BIND(s->st_info) != STB_WEAK)
		return 1;
	l->sym[i] = (uint64_t)(uintptr_t)fn;	/* an absent weak symbol is 0 */
	return 0;
}

/* Pass 4: every symbol's address. */
static int
bind_symbols(struct link *l)
{
	const struct elf_object *o = &l->o;
	Elf64_Sym s;
	size_t i, undefined = 0;

	for (i = 1; i < o->nsyms; i++) {
		elf_object_sym(o, i, &s);
		if (ELF64_ST_TYPE(s.st_info) == STT_GNU_IFUNC)
			return elf_refuse(l->why, l->why_len, "symbol %zu ('%s') is an indirect function (STT_GNU_IFUNC), which the host does not resolve",
					  i, elf_object_sym_name(o, &s));
		l->bound[i] = true;
		if (s.st_shndx == SHN_UNDEF) {
			/* Every undefined symbol is named in one refusal. */
			if (bind_undefined(l, i, &s))
				note_undefined(l, elf_object_sym_name(o, &s), &undefined);
		} else if (s.st_shndx == SHN_ABS) {
			l->sym[i] = s.st_value;
		} else if (s.st_shndx == SHN_COMMON) {
			l->sym[i] = (uint64_t)(uintptr_t)l->base + l->seg_at[SEG_DATA] + l->common[i];
		} else if (l->seg[s.st_shndx] == SEG_NONE) {
			l->bound[i] = false;	/* in a section not loaded, such as debugging */
		} else if (s.st_value > o->sh[s.st_shndx].sh_size ||
			   s.st_size > o->sh[s.st_shndx].sh_size - s.st_value) {
			return elf_refuse(l->why, l->why_len, "symbol %zu ('%s') lies outside its section %u ('%s')",
					  i, elf_object_sym_name(o, &s), s.st_shndx,
					  elf_object_section_name(o, s.st_shndx));
		} else {
			l->sym[i] = section_address(l, s.st_shndx) + s.st_value;
		}
	}
	return undefined ? refuse_undefined(l, undefined) : 0;
}

/* Pass 5: the GOT's slots and the stubs. */
static void
write_got_and_stubs(struct link *l)
{
	unsigned char *got = l->base + l->seg_at[SEG_RO] + l->got_at;
	unsigned char *stubs = l->base + l->seg_at[SEG_TEXT] + l->stub_at;
	size_t i;

	for (i = 0; i < l->o.nsyms; i++) {
		if (l->got[i])
			memcpy(got + (l->got[i] - 1) * 8, &l->sym[i], 8);
		if (l->stub[i])
			elf_stub_write(l->o.machine, stubs + (size_t)(l->stub[i] - 1) * ELF_STUB_BYTES,
				       l->sym[i]);
	}
}

/* A relocation's inputs: its place, its symbol's value, GOT slot and stub. */
static void
reloc_inputs(const struct link *l, size_t t, size_t k, const Elf64_Rela *e,
	     struct elf_reloc *r)
{
	uint64_t base = (uint64_t)(uintptr_t)l->base;

	r->P = section_address(l, t) + e->r_offset;
	r->where = (unsigned char *)(uintptr_t)r->P;
	r->S = k ? l->sym[k] : 0;
	r->A = e->r_addend;
	r->GOT = base + l->seg_at[SEG_RO] + l->got_at;
	r->G = l->got[k] ? r->GOT + (l->got[k] - 1) * 8 : 0;
	r->stub = l->stub[k] ? base + l->seg_at[SEG_TEXT] + l->stub_at +
			       (uint64_t)(l->stub[k] - 1) * ELF_STUB_BYTES : 0;
}

/* The refusal of a relocation elf_reloc_apply() did not apply. */
static int
reloc_refusal(struct link *l, unsigned type, const char *tname, const Elf64_Rela *e,
	      const char *sym, enum elf_reloc_status st, int64_t value)
{
	const char *name = elf_reloc_name(l->o.machine, type);
	unsigned long long at = e->r_offset, v = (unsigned long long)value;

	if (st == ELF_RELOC_OVERFLOW)
		return elf_refuse(l->why, l->why_len, "relocation %s (type %u) at " PLACE_FMT " against '%s' overflows: value 0x%llx does not fit its field%s",
				  name, type, tname, at, sym, v,
				  l->low ? ": the object was compiled without -fPIC, and its 32-bit absolute addresses do not reach; compile it with -fPIC" : "");
	if (st == ELF_RELOC_MISALIGNED)
		return elf_refuse(l->why, l->why_len, "relocation %s (type %u) at " PLACE_FMT " against '%s': value 0x%llx is misaligned for its field",
				  name, type, tname, at, sym, v);
	return elf_refuse(l->why, l->why_len, "unsupported relocation %s (type %u) at " PLACE_FMT "%s",
			  name, type, tname, at, elf_reloc_advice(l->o.machine, type));
}

/* One relocation j of RELA section i. */
static int
relocate_one(struct link *l, size_t i, size_t j)
{
	const struct elf_object *o = &l->o;
	size_t t = o->sh[i].sh_info, k;
	const char *tname = elf_object_section_name(o, t);
	struct elf_reloc r;
	enum elf_reloc_status st;
	Elf64_Rela e;
	Elf64_Sym s = { 0 };
	int64_t value;
	unsigned type;
	int width;

	elf_object_rela(o, i, j, &e);
	type = ELF64_R_TYPE(e.r_info);
	k = ELF64_R_SYM(e.r_info);
	width = elf_reloc_width(o->machine, type);
	if (e.r_offset > o->sh[t].sh_size || (uint64_t)width > o->sh[t].sh_size - e.r_offset)
		return elf_refuse(l->why, l->why_len, "relocation %s at " PLACE_FMT " lies past the end of its section (%llu bytes)",
				  elf_reloc_name(o->machine, type), tname,
				  (unsigned long long)e.r_offset, (unsigned long long)o->sh[t].sh_size);
	if (width == 0)
		return 0;
	if (k)
		elf_object_sym(o, k, &s);
	if (k && !l->bound[k])
		return elf_refuse(l->why, l->why_len, "relocation %s at " PLACE_FMT " names symbol '%s' of section %u ('%s'), which is not loaded",
				  elf_reloc_name(o->machine, type), tname, (unsigned long long)e.r_offset,
				  elf_object_sym_name(o, &s), s.st_shndx,
				  elf_object_section_name(o, s.st_shndx));
	reloc_inputs(l, t, k, &e, &r);
	st = elf_reloc_apply(o->machine, type, &r, &value);
	if (st != ELF_RELOC_OK)
		return reloc_refusal(l, type, tname, &e, k ? elf_object_sym_name(o, &s) : "", st, value);
	return 0;
}

/* Pass 6: apply the relocations of every loaded section. */
static int
relocate(struct link *l)
{
	const struct elf_object *o = &l->o;
	size_t i, j;
	int ret;

	for (i = 1; i < o->shnum; i++) {
		if (o->sh[i].sh_type != SHT_RELA || l->seg[o->sh[i].sh_info] == SEG_NONE)
			continue;
		for (j = 0; j < o->sh[i].sh_size / sizeof(Elf64_Rela); j++) {
			ret = relocate_one(l, i, j);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Pass 7: W^X. Text becomes r-x, read-only data and the GOT r--. */
static int
protect(struct link *l)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t text = align_up(l->seg_size[SEG_TEXT], page);
	size_t ro = align_up(l->seg_size[SEG_RO], page);

	if (text && mprotect(l->base, text, PROT_READ | PROT_EXEC) != 0)
		return elf_refuse(l->why, l->why_len, "mprotect of the text (%zu bytes) failed: %s",
				  text, strerror(errno));
	if (ro && mprotect(l->base + l->seg_at[SEG_RO], ro, PROT_READ) != 0)
		return elf_refuse(l->why, l->why_len, "mprotect of the read-only data (%zu bytes) failed: %s",
				  ro, strerror(errno));
	if (text)
		rig_code_sync(l->base, text);
	return 0;
}

static bool
exported(const struct link *l, const Elf64_Sym *s, size_t i)
{
	unsigned bind = ELF64_ST_BIND(s->st_info);

	unsigned type = ELF64_ST_TYPE(s->st_info);
	bool defined = s->st_shndx != SHN_UNDEF &&
		       (s->st_shndx < l->o.shnum || (type == STT_OBJECT && s->st_shndx == SHN_COMMON));

	return (type == STT_FUNC || type == STT_OBJECT) &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) && defined && l->bound[i];
}

static int
compare_funcs(const void *a, const void *b)
{
	return strcmp(((const struct elf_func *)a)->name, ((const struct elf_func *)b)->name);
}

/* Pass 8: the image and its table of functions. */
static int
make_image(struct link *l, struct elf_image **out)
{
	const struct elf_object *o = &l->o;
	struct elf_image *img;
	size_t i, n = 0, bytes = 0;
	Elf64_Sym s;
	char *p;

	for (i = 1; i < o->nsyms; i++) {
		elf_object_sym(o, i, &s);
		if (exported(l, &s, i)) {
			n++;
			bytes += strlen(elf_object_sym_name(o, &s)) + 1;
		}
	}
	img = l->img;
	img->funcs = calloc(n ? n : 1, sizeof(*img->funcs));
	img->names = malloc(bytes ? bytes : 1);
	if (!img->funcs || !img->names) {
		free(img->funcs);
		free(img->names);
		return no_memory(l, "the image's functions");
	}
	for (i = 1, p = img->names; i < o->nsyms; i++) {
		elf_object_sym(o, i, &s);
		if (!exported(l, &s, i))
			continue;
		strcpy(p, elf_object_sym_name(o, &s));
		img->funcs[img->nfuncs].name = p;
		img->funcs[img->nfuncs].size = s.st_size;
		img->funcs[img->nfuncs].object = ELF64_ST_TYPE(s.st_info) == STT_OBJECT;
		img->funcs[img->nfuncs++].addr = (void *)(uintptr_t)l->sym[i];
		p += strlen(p) + 1;
	}
	qsort(img->funcs, img->nfuncs, sizeof(*img->funcs), compare_funcs);
	img->base = l->base;
	img->size = l->size;
	l->img = NULL;
	*out = img;
	return 0;
}

/* Pass 7b: the constructors and destructors, checked, in their order. */
static int
collect_calls(struct link *l)
{
	const struct elf_object *o = &l->o;
	uint64_t text = (uint64_t)(uintptr_t)l->base + l->seg_at[SEG_TEXT];
	uint64_t *addr = calloc(o->shnum ? o->shnum : 1, sizeof(*addr));
	size_t i;
	int ret;

	if (!addr)
		return no_memory(l, "the constructors' addresses");
	for (i = 1; i < o->shnum; i++)
		addr[i] = l->seg[i] == SEG_NONE ? 0 : section_address(l, i);
	ret = elf_init_collect(o, addr, text, text + l->seg_size[SEG_TEXT],
			       &l->img->calls, l->why, l->why_len);
	l->img->calls.dso = l->base;
	free(addr);
	return ret;
}

static int
alloc_tables(struct link *l)
{
	size_t ns = l->o.shnum, nsym = l->o.nsyms ? l->o.nsyms : 1;

	l->seg = calloc(ns, sizeof(*l->seg));
	l->off = calloc(ns, sizeof(*l->off));
	l->sym = calloc(nsym, sizeof(*l->sym));
	l->bound = calloc(nsym, sizeof(*l->bound));
	l->got = calloc(nsym, sizeof(*l->got));
	l->stub = calloc(nsym, sizeof(*l->stub));
	l->common = calloc(nsym, sizeof(*l->common));
	l->img = calloc(1, sizeof(*l->img));
	if (!l->seg || !l->off || !l->sym || !l->bound || !l->got || !l->stub || !l->common ||
	    !l->img)
		return no_memory(l, "the linker's tables");
	return 0;
}

static void
free_tables(struct link *l)
{
	free(l->seg);
	free(l->off);
	free(l->sym);
	free(l->bound);
	free(l->got);
	free(l->stub);
	free(l->common);
	if (l->img)
		elf_calls_free(&l->img->calls);
	free(l->img);
	elf_object_free(&l->o);
}

/* LLVM bitcode, raw or in its wrapper: what clang -flto -c writes. */
static bool
llvm_bitcode(const unsigned char *b, size_t len)
{
	return len >= 4 && ((b[0] == 'B' && b[1] == 'C' && b[2] == 0xc0 && b[3] == 0xde) ||
			    (b[0] == 0xde && b[1] == 0xc0 && b[2] == 0x17 && b[3] == 0x0b));
}

/* A GCC LTO object with no machine code (-flto without
 * -ffat-lto-objects): GIMPLE in .gnu.lto_ sections and empty text. */
static int
refuse_lto(const struct link *l)
{
	const struct elf_object *o = &l->o;
	size_t i, lto = 0, code = 0;

	for (i = 1; i < o->shnum; i++) {
		if (!strncmp(elf_object_section_name(o, i), ".gnu.lto_", 9) && !lto)
			lto = i;
		if ((o->sh[i].sh_flags & SHF_EXECINSTR) && o->sh[i].sh_size)
			code++;
	}
	if (!lto || code)
		return 0;
	return elf_refuse(l->why, l->why_len, "an LTO object: section %zu ('%s') holds GCC's GIMPLE, not machine code, which the host cannot link: compile with -fno-lto (or add -ffat-lto-objects)",
			  lto, elf_object_section_name(o, lto));
}

int
elf_link(const void *bytes, size_t len, struct elf_image **out, char *why, size_t why_len)
{
	struct link l = { .why = why, .why_len = why_len };
	int ret;

	*out = NULL;
	if (bytes && llvm_bitcode(bytes, len))
		return elf_refuse(why, why_len, "LLVM bitcode (an LTO object, as clang -flto -c writes), not an ELF object of machine code: compile with -fno-lto");
	ret = elf_object_read(&l.o, bytes, len, why, why_len);
	if (ret < 0)
		return ret;
	ret = refuse_lto(&l);
	if (ret == 0)
		ret = alloc_tables(&l);
	if (ret == 0)
		ret = scan_relocations(&l);
	if (ret == 0)
		ret = lay_out(&l);
	if (ret == 0)
		ret = map_and_copy(&l);
	if (ret == 0)
		ret = bind_symbols(&l);
	if (ret == 0) {
		write_got_and_stubs(&l);
		ret = relocate(&l);
	}
	if (ret == 0)
		ret = collect_calls(&l);
	if (ret == 0)
		ret = protect(&l);
	if (ret == 0)
		ret = make_image(&l, out);
	if (ret < 0 && l.base)
		munmap(l.base, l.size);
	free_tables(&l);
	return ret;
}

const struct elf_func *
elf_global(const struct elf_image *img, const char *name)
{
	struct elf_func key = { .name = name };

	if (!img || !name)
		return NULL;
	return bsearch(&key, img->funcs, img->nfuncs, sizeof(key), compare_funcs);
}

const struct elf_func *
elf_global_at(const struct elf_image *img, size_t i)
{
	return img && i < img->nfuncs ? &img->funcs[i] : NULL;
}

const struct elf_func *
elf_function(const struct elf_image *img, const char *name)
{
	const struct elf_func *f = elf_global(img, name);

	return f && !f->object ? f : NULL;
}

void *
elf_symbol(const struct elf_image *img, const char *name)
{
	const struct elf_func *f = elf_function(img, name);

	return f ? f->addr : NULL;
}

void
elf_image_init(struct elf_image *img)
{
	if (!img || img->initialised)
		return;
	img->initialised = true;
	elf_init_run(&img->calls);
}

void
elf_unlink(struct elf_image *img)
{
	if (!img)
		return;
	if (img->initialised)
		elf_fini_run(&img->calls);
	else
		elf_calls_free(&img->calls);
	munmap(img->base, img->size);
	free(img->funcs);
	free(img->names);
	free(img);
}
