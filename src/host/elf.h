/* SPDX-License-Identifier: MIT */
/*
 * host/elf.h: the host's linker for relocatable ELF objects, as
 * `cc -c -O2 -fPIC -ffreestanding -fno-math-errno -nostdlib` makes them for
 * this host's machine (x86-64; aarch64 where its relocations are cheap).
 *
 * elf_link() lays out the object's SHF_ALLOC sections in one private mapping
 * (text, then read-only data and the GOT, then writable data), binds its
 * undefined symbols to the host's memcpy, memset, memmove, memcmp and libm
 * (elf_host.c), applies its relocations, then maps the text read-execute
 * and the read-only data read-only (W^X: nothing is ever both writable and
 * executable) and syncs the instruction cache (rig_code_sync).
 *
 * Threads: elf_link() and elf_unlink() of different images may run at once;
 * elf_symbol() may run on any number of threads while the image lives.
 */
#ifndef HOST_ELF_H
#define HOST_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_image;

/*
 * A global of an image, a function or a data object: its name, address and
 * size (st_size), valid while the image lives. A function's record is also
 * what the host driver launches (code.c).
 */
struct elf_func {
	const char *name;
	void *addr;
	uint64_t size;
	bool object;		/* STT_OBJECT: data, not code */
};

/* Room for any refusal's message. */
#define ELF_WHY_BYTES	1024

/*
 * elf_link() - link the len bytes at bytes into a new image in *out. The
 * bytes are read only during the call. Returns 0; -ENOEXEC with why naming
 * the cause for an object it refuses: not ELF, wrong class, byte order or
 * machine, not relocatable, truncated (naming where), a bad section index
 * (naming which), thread-local storage, an undefined symbol (named), an
 * unsupported relocation (named with its type number) or one whose value
 * overflows its field, .ctors or .dtors sections, or a constructor entry
 * outside the text; -ENOMEM (why says for what). Never crashes on any
 * bytes and leaves nothing behind on failure.
 */
int elf_link(const void *bytes, size_t len, struct elf_image **out,
	     char *why, size_t why_len);

/*
 * elf_symbol() - the address of the image's function name: a defined
 * STT_FUNC symbol of global or weak binding, or NULL if it has none.
 */
void *elf_symbol(const struct elf_image *img, const char *name);

/* elf_function() - the same function's record, or NULL. */
const struct elf_func *elf_function(const struct elf_image *img, const char *name);

/*
 * elf_global() - the record of the image's global name, a function or a
 * defined data object (STT_OBJECT, common ones too) of global or weak
 * binding, or NULL. elf_global_at() - the i-th of them in name order, NULL
 * past the last: the names a refusal lists.
 */
const struct elf_func *elf_global(const struct elf_image *img, const char *name);
const struct elf_func *elf_global_at(const struct elf_image *img, size_t i);

/*
 * elf_image_init() - run the image's constructors (.preinit_array,
 * .init_array, in elf_init.h's order), once; a second call does nothing.
 * elf_link() checks every entry lies in the image's text but runs none, so
 * a linker that only checks an object (the fuzzer) runs none of its code.
 */
void elf_image_init(struct elf_image *img);

/* elf_unlink() - run the destructors if elf_image_init() ran (elf_init.h's
 * order), then unmap the image and free it. NULL does nothing. */
void elf_unlink(struct elf_image *img);

#endif
