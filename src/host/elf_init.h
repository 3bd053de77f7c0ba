/* SPDX-License-Identifier: MIT */
/*
 * host/elf_init.h: an image's constructors and destructors, in the order a
 * static link and the C library's start-up would run them:
 * .preinit_array, then the .init_array.N sections by priority N, then
 * .init_array, each section's entries first to last; at unload, what the
 * constructors registered with __cxa_atexit (C++ globals' destructors),
 * last first, then the .fini_array sections' entries in the reverse of the
 * order ld lays them out (.fini_array first, then .fini_array.N from the
 * highest N down), last entry first. Older .ctors and .dtors sections
 * are refused by name: their order differs and no current compiler emits
 * them by default.
 *
 * Not here: finding the sections' addresses (elf.c lays them out).
 */
#ifndef HOST_ELF_INIT_H
#define HOST_ELF_INIT_H

#include <stddef.h>
#include <stdint.h>

#include "host/elf_object.h"

typedef void (*elf_init_fn)(void);

/* What __cxa_atexit recorded, a list with the latest first. */
struct elf_atexit {
	struct elf_atexit *next;
	void (*fn)(void *);
	void *arg;
};

/* An image's calls, from its sections. */
struct elf_calls {
	elf_init_fn *init;		/* in the order to call */
	size_t ninit;
	elf_init_fn *fini;		/* in the order to call */
	size_t nfini;
	struct elf_atexit *atexit;	/* registered while the constructors ran */
	void *dso;			/* __dso_handle's address: the image's first byte */
};

/*
 * elf_init_collect() - fill *c with the calls of the object's array
 * sections, reading each section's relocated entries at addr[i] (0 for a
 * section not loaded) and checking that each lies in [text, text_end).
 * Returns 0, -ENOEXEC with why naming the section (.ctors, .dtors, an
 * entry outside the text, a size no multiple of 8), or -ENOMEM.
 */
int elf_init_collect(const struct elf_object *o, const uint64_t *addr,
		     uint64_t text, uint64_t text_end, struct elf_calls *c,
		     char *why, size_t why_len);

/* Run the constructors, recording __cxa_atexit's registrations. */
void elf_init_run(struct elf_calls *c);

/* Run the destructors (once, after elf_init_run) and free *c's lists. */
void elf_fini_run(struct elf_calls *c);

/* Free *c's lists without calling anything. */
void elf_calls_free(struct elf_calls *c);

/* The host's __cxa_atexit for images: records fn(arg) for the image whose
 * constructors run on this thread; -1 for any other dso. */
int elf_cxa_atexit(void (*fn)(void *), void *arg, void *dso);

#endif
