/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/code.c: AMDGPU code objects (ELF64, EM_AMDGPU). load lays the
 * object's allocated sections out at their addresses in a buffer of its
 * own (the object is position independent: its addresses are offsets from
 * wherever it lands) and asks rig to place that buffer in Device memory
 * (rig_code's place); place records where it landed. entry finds the
 * symbol "<name>.kd", a 64-byte kernel descriptor (amd-facts §7.1), and
 * builds the function's dispatch template (amd/pm4/dispatch.h): the entry
 * address (the descriptor's address plus kernel_code_entry_byte_offset,
 * 256-aligned, §7.2), RSRC1-3, the user SGPRs the descriptor enables
 * with the kernarg pointer's place among them (§7.3), its kernarg size
 * (params) and 1024 threads at most. Dynamic relocations are not applied:
 * an object that has them is refused. The parser checks every offset and
 * size against the bytes before it reads them.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd/dev/dev.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

struct amd_image {
	struct amd_dev *d;
	uint8_t *laid;			/* the sections at their addresses */
	uint64_t bytes;
	uint64_t va;			/* where rig placed it (0 before) */
	const uint8_t *elf;		/* a copy of the object */
	size_t len;
	struct pm4_dispatch *fns[64];
	size_t nfns;
};

static bool
fits(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

static int
refuse(const char **fault, const char *why)
{
	*fault = why;	/* a literal: it lives as long as the device */
	return RIG_FAULT;
}

static int
place(void *ctx, void *region, void **image, const void **bytes, size_t *n)
{
	struct amd_image *im = ctx;
	struct rig_location at;

	amd_mem_locate(im->d, region, &at);
	im->va = at.address;
	*image = im;
	*bytes = im->laid;
	*n = im->bytes;
	return RIG_OK;
}

static void
image_free(struct amd_image *im)
{
	for (size_t i = 0; i < im->nfns; i++)
		free(im->fns[i]);
	free(im->laid);
	free((void *)im->elf);
	free(im);
}

static void
free_place(void *ctx)
{
	image_free(ctx);
}

int
amd_code_load(void *t, const void *bytes, size_t len, struct rig_code *out,
	      const char **fault)
{
	const Elf64_Ehdr *eh = bytes;
	const Elf64_Shdr *sh;
	struct amd_image *im;
	uint64_t top = 0;

	if (!bytes || len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_AMDGPU)
		return refuse(fault, "not an ELF64 AMDGPU code object");
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !fits(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return refuse(fault, "its section headers lie outside it");
	sh = (const Elf64_Shdr *)((const uint8_t *)bytes + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_RELA || sh[i].sh_type == SHT_REL)
			return refuse(fault, "it has relocations, which are not applied");
		if (!(sh[i].sh_flags & SHF_ALLOC))
			continue;
		if (sh[i].sh_size > (256u << 20) || sh[i].sh_addr > (256u << 20) ||
		    (sh[i].sh_type != SHT_NOBITS && !fits(len, sh[i].sh_offset, sh[i].sh_size)))
			return refuse(fault, "a section lies outside it or past 256 MiB");
		if (sh[i].sh_addr + sh[i].sh_size > top)
			top = sh[i].sh_addr + sh[i].sh_size;
	}
	if (!top)
		return refuse(fault, "it has no allocated section");
	im = calloc(1, sizeof(*im));
	if (!im || !(im->laid = calloc(1, top)) || !(im->elf = malloc(len))) {
		if (im)
			free(im->laid);
		free(im);
		return refuse(fault, "no memory to lay it out");
	}
	memcpy((void *)im->elf, bytes, len);
	im->len = len;
	im->d = t;
	im->bytes = top;
	for (int i = 0; i < eh->e_shnum; i++)
		if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type != SHT_NOBITS)
			memcpy(im->laid + sh[i].sh_addr, (const uint8_t *)bytes + sh[i].sh_offset,
			       sh[i].sh_size);
	*out = (struct rig_code){ .loaded = false, .place_bytes = top, .place = place,
				  .free_place = free_place, .ctx = im };
	return RIG_OK;
}

void
amd_code_unload(void *t, void *image)
{
	(void)t;
	if (image)
		image_free(image);
}

/* The symbol name's value, or -1. */
static int64_t
symbol(const struct amd_image *im, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->elf;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(im->elf + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *names;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
		    !fits(im->len, sh[i].sh_offset, sh[i].sh_size))
			continue;
		names = &sh[sh[i].sh_link];
		if (!fits(im->len, names->sh_offset, names->sh_size))
			continue;
		for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym s;

			memcpy(&s, im->elf + sh[i].sh_offset + k * sizeof(s), sizeof(s));
			if (s.st_name >= names->sh_size)
				continue;
			if (!strncmp((const char *)im->elf + names->sh_offset + s.st_name, name,
				     names->sh_size - s.st_name) &&
			    strnlen((const char *)im->elf + names->sh_offset + s.st_name,
				    names->sh_size - s.st_name) == strlen(name))
				return (int64_t)s.st_value;
		}
	}
	return -1;
}

int
amd_code_entry(void *t, void *image, const char *name, struct rig_entry *out,
	       uint64_t *bytes)
{
	struct amd_dev *d = t;
	struct amd_image *im = image;
	char kd_name[256];
	struct pm4_dispatch *f;
	uint32_t kernarg_size, rsrc1, rsrc2, rsrc3, props, at = 0;
	int64_t kd, entry_off;

	(void)bytes;
	if (!im || !name || snprintf(kd_name, sizeof(kd_name), "%s.kd", name) >=
	    (int)sizeof(kd_name))
		return RIG_ABSENT;
	kd = symbol(im, kd_name);
	if (kd < 0 || (uint64_t)kd + 64 > im->bytes || im->nfns == 64)
		return RIG_ABSENT;
	memcpy(&kernarg_size, im->laid + kd + 8, 4);
	memcpy(&entry_off, im->laid + kd + 16, 8);
	memcpy(&rsrc3, im->laid + kd + 44, 4);
	memcpy(&rsrc1, im->laid + kd + 48, 4);
	memcpy(&rsrc2, im->laid + kd + 52, 4);
	props = 0;
	memcpy(&props, im->laid + kd + 56, 2);
	f = calloc(1, sizeof(*f));
	if (!f)
		return RIG_ABSENT;
	f->code = im->va + (uint64_t)kd + (uint64_t)entry_off;
	f->rsrc1 = rsrc1;
	f->rsrc2 = rsrc2;
	f->rsrc3 = rsrc3;
	f->resource_limits = 0;
	/* §7.3: the user SGPRs in order; the kernarg pointer after those before it. */
	if (props & 1)
		at += 4;	/* private segment buffer */
	if (props & 2)
		at += 2;	/* dispatch ptr */
	if (props & 4)
		at += 2;	/* queue ptr */
	f->kernarg_at = at;
	f->nuser = (rsrc2 >> 1) & 0x1f;
	if (f->nuser < at + 2)
		f->nuser = at + 2;
	if (f->nuser > PM4_USER_SGPRS)
		f->nuser = PM4_USER_SGPRS;
	f->initiator = PM4_DISPATCH_COMPUTE_SHADER_EN | PM4_DISPATCH_FORCE_START_AT_000 |
		       (d->gfx != AMD_GFX9 && (props & (1u << 10)) ? PM4_DISPATCH_CS_W32_EN : 0);
	f->serial = atomic_fetch_add(&d->fn_serials, 1) + 1;
	pm4_dispatch_build(f, d->gfx);
	im->fns[im->nfns++] = f;
	*out = (struct rig_entry){ .code = im->va + (uint64_t)kd, .launch = (uintptr_t)f,
				   .params = RIG_SOME(kernarg_size),
				   .threads = RIG_SOME(1024) };
	return RIG_ENTRY;
}
