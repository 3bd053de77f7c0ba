/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/elf_fuzz.c: libFuzzer target for the host's ELF linker. Any
 * bytes are linked; a refusal must say why, a success must unlink cleanly,
 * and neither may read outside the input or leak (ASan, UBSan, LSan).
 * The loaded code is never run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_image *img = NULL;
	char why[ELF_WHY_BYTES] = "";

	if (elf_link(data, size, &img, why, sizeof(why)) == 0) {
		(void)elf_symbol(img, "add");
		(void)elf_symbol(img, "");
		elf_unlink(img);
	} else if (img || why[0] == '\0') {
		abort();	/* a refusal leaves nothing and says why */
	}
	return 0;
}
