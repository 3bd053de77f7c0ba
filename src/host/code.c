/* SPDX-License-Identifier: MIT */
/*
 * host/code.c: loading code on the host device. An image is an object the
 * ELF linker (elf.c) placed in the host's memory itself (loaded, never a
 * Place), and a function's entry is its address: what submit calls over
 * each range of groups. Images need no device state, so rig may unload one
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
	void *fn = elf_symbol(image, name);

	if (!fn)
		return RIG_ABSENT;
	*out = (struct rig_entry){
		.code = (uint64_t)(uintptr_t)fn,
		.launch = (uintptr_t)fn,
		.params = RIG_NONE,
		.threads = RIG_NONE,
	};
	return RIG_ENTRY;
}
