/* SPDX-License-Identifier: MIT */
/*
 * host/elf_init.c: an image's constructors and destructors (elf_init.h
 * states the order). Sections are ranked as GNU ld's default script and
 * glibc rank them: SORT_BY_INIT_PRIORITY over ".init_array.N", then the
 * plain section; glibc calls .init_array forwards and .fini_array
 * backwards. __cxa_atexit registrations (g++'s destructors of globals)
 * belong to the image whose constructors are running on the thread; at
 * unload they run latest first, before .fini_array, as exit() runs a
 * program's atexit list before its DSOs' fini arrays.
 *
 * No library ranks ELF init sections; this is the one hand-written piece,
 * a sort of at most a few dozen sections.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_init.h"

enum kind { K_NONE, K_PREINIT, K_INIT, K_FINI };

struct ranked {
	size_t section;
	enum kind kind;
	unsigned long priority;	/* 65536 for the plain section: after every N */
};

/* Whether name is base, or base "." digits (setting *priority). */
static bool
named(const char *name, const char *base, unsigned long *priority)
{
	size_t n = strlen(base);
	char *end;

	if (strncmp(name, base, n) != 0)
		return false;
	if (name[n] == 0) {
		*priority = 65536;
		return true;
	}
	if (name[n] != '.' || name[n + 1] < '0' || name[n + 1] > '9')
		return false;
	*priority = strtoul(name + n + 1, &end, 10);
	return *end == 0 && *priority < 65536;
}

static enum kind
kind_of(const Elf64_Shdr *s, const char *name, unsigned long *priority)
{
	*priority = 65536;
	if (s->sh_type == SHT_PREINIT_ARRAY || named(name, ".preinit_array", priority))
		return K_PREINIT;
	if (named(name, ".init_array", priority) || s->sh_type == SHT_INIT_ARRAY)
		return K_INIT;
	if (named(name, ".fini_array", priority) || s->sh_type == SHT_FINI_ARRAY)
		return K_FINI;
	return K_NONE;
}

static int
compare(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->section < y->section ? -1 : x->section > y->section;
}

/* Check and count the entries of section i; false (why filled) if bad. */
static int
check_entries(const struct elf_object *o, size_t i, uint64_t at, uint64_t text,
	      uint64_t text_end, char *why, size_t why_len)
{
	const char *name = elf_object_section_name(o, i);
	size_t j, n = o->sh[i].sh_size / 8;
	uint64_t e;

	if (o->sh[i].sh_size % 8)
		return elf_refuse(why, why_len, "section %zu ('%s') holds %llu bytes, not a whole number of 8-byte function pointers",
				  i, name, (unsigned long long)o->sh[i].sh_size);
	if (n && !at)
		return elf_refuse(why, why_len, "section %zu ('%s') is not loaded (no SHF_ALLOC), so its functions cannot run",
				  i, name);
	for (j = 0; j < n; j++) {
		memcpy(&e, (const void *)(uintptr_t)(at + 8 * j), 8);
		if (e < text || e >= text_end)
			return elf_refuse(why, why_len, "entry %zu of section %zu ('%s') is 0x%llx, not a function of the object's text",
					  j, i, name, (unsigned long long)e);
	}
	return 0;
}

/* Append section i's entries to list, forwards or backwards. */
static void
append(elf_init_fn *list, size_t *n, uint64_t at, size_t entries, bool backwards)
{
	size_t j;
	uint64_t e;

	for (j = 0; j < entries; j++) {
		memcpy(&e, (const void *)(uintptr_t)(at + 8 * (backwards ? entries - 1 - j : j)), 8);
		list[(*n)++] = (elf_init_fn)(uintptr_t)e;
	}
}

int
elf_init_collect(const struct elf_object *o, const uint64_t *addr, uint64_t text,
		 uint64_t text_end, struct elf_calls *c, char *why, size_t why_len)
{
	struct ranked *r;
	size_t i, nr = 0, ninit = 0, nfini = 0;
	unsigned long prio;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	r = calloc(o->shnum ? o->shnum : 1, sizeof(*r));
	if (!r) {
		elf_refuse(why, why_len, "no memory for the constructors' table");
		return -ENOMEM;
	}
	for (i = 1; i < o->shnum; i++) {
		const char *name = elf_object_section_name(o, i);
		enum kind k;

		if (!strncmp(name, ".ctors", 6) || !strncmp(name, ".dtors", 6)) {
			ret = elf_refuse(why, why_len, "section %zu ('%s') holds old-style %s, which the host does not run: compile with a compiler that emits .init_array (the default of gcc and clang since 2011), or without -fno-use-init-array",
					 i, name, name[1] == 'c' ? "constructors" : "destructors");
			goto out;
		}
		k = kind_of(&o->sh[i], name, &prio);
		if (k == K_NONE)
			continue;
		ret = check_entries(o, i, addr[i], text, text_end, why, why_len);
		if (ret < 0)
			goto out;
		r[nr++] = (struct ranked){ i, k, prio };
		if (k == K_FINI)
			nfini += o->sh[i].sh_size / 8;
		else
			ninit += o->sh[i].sh_size / 8;
	}
	qsort(r, nr, sizeof(*r), compare);
	c->init = calloc(ninit ? ninit : 1, sizeof(*c->init));
	c->fini = calloc(nfini ? nfini : 1, sizeof(*c->fini));
	if (!c->init || !c->fini) {
		elf_refuse(why, why_len, "no memory for the constructors' table");
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (r[i].kind != K_FINI)
			append(c->init, &c->ninit, addr[r[i].section], o->sh[r[i].section].sh_size / 8, false);
	/* Destructors: the reverse of ld's layout, each section last first. */
	for (i = nr; i-- > 0;)
		if (r[i].kind == K_FINI)
			append(c->fini, &c->nfini, addr[r[i].section], o->sh[r[i].section].sh_size / 8, true);
out:
	free(r);
	if (ret < 0)
		elf_calls_free(c);
	return ret;
}

/* The image whose constructors this thread runs (elf_cxa_atexit's). */
static _Thread_local struct elf_calls *initialising;

int
elf_cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
	struct elf_calls *c = initialising;
	struct elf_atexit *e;

	if (!c || dso != c->dso || !fn)
		return -1;
	e = malloc(sizeof(*e));
	if (!e)
		return -1;
	*e = (struct elf_atexit){ c->atexit, fn, arg };
	c->atexit = e;
	return 0;
}

void
elf_init_run(struct elf_calls *c)
{
	size_t i;

	initialising = c;
	for (i = 0; i < c->ninit; i++)
		c->init[i]();
	initialising = NULL;
}

void
elf_fini_run(struct elf_calls *c)
{
	struct elf_atexit *e;
	size_t i;

	while ((e = c->atexit)) {
		c->atexit = e->next;
		e->fn(e->arg);
		free(e);
	}
	for (i = 0; i < c->nfini; i++)
		c->fini[i]();
	elf_calls_free(c);
}

void
elf_calls_free(struct elf_calls *c)
{
	struct elf_atexit *e;

	while ((e = c->atexit)) {
		c->atexit = e->next;
		free(e);
	}
	free(c->init);
	free(c->fini);
	c->init = c->fini = NULL;
	c->ninit = c->nfini = 0;
}
