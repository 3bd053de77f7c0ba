/* SPDX-License-Identifier: MIT */
/*
 * host/code.c: loading code on the host device. An image is an object the
 * ELF linker (elf.c) placed in the host's memory itself (loaded, never a
 * Place), and a function's entry is its address (code) and its record
 * (launch: struct elf_func, the address submit calls over each range of
 * groups and the name a fault's message gives). Images need no device state, so rig may unload one
 * after stop.
 */
#include "host/dev.h"
#include "host/elf.h"

int
host_load(void *t, const void *bytes, size_t len, struct rig_code *out,
	  const char **fault)
{
	struct host_dev *d = t;
	struct elf_image *img;
	char why[ELF_WHY_BYTES];

	if (elf_link(bytes, len, &img, why, sizeof(why)) < 0) {
		*fault = host_keep(d, why);
		return RIG_FAULT;
	}
	/* The image's constructors run before any launch can reach it. */
	elf_image_init(img);
	*out = (struct rig_code){ .loaded = true, .image = img };
	return RIG_OK;
}

void
host_unload(void *t, void *image)
{
	elf_unlink(image);
}

int
host_entry(void *t, void *image, const char *name, struct rig_entry *out,
	   uint64_t *bytes)
{
	const struct elf_func *f = elf_function(image, name);

	if (!f)
		return RIG_ABSENT;
	/* launch: the record, so a fault's message names the kernel. */
	*out = (struct rig_entry){
		.code = (uint64_t)(uintptr_t)f->addr,
		.launch = (uintptr_t)f,
		.params = RIG_NONE,
		.threads = RIG_NONE,
		.groups = RIG_SOME(HOST_MAX_GROUPS),
	};
	return RIG_ENTRY;
}
