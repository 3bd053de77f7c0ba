/* SPDX-License-Identifier: MIT */
/*
 * tests/host/link_ok.h: link a test kernel (kernels.h's kernel_read) with
 * the host linker, failing the test with the linker's reason if it
 * refuses. Include after cmocka.h, host/elf.h and kernels.h.
 */
#ifndef TESTS_HOST_LINK_OK_H
#define TESTS_HOST_LINK_OK_H

static struct elf_image *
link_ok(const char *name)
{
	struct elf_image *img = NULL;
	char why[ELF_WHY_BYTES] = "";
	unsigned char *b;
	size_t len;
	int ret;

	b = kernel_read(name, &len);
	ret = elf_link(b, len, &img, why, sizeof(why));
	free(b);
	if (ret != 0)
		fail_msg("linking %s: %d %s", name, ret, why);
	return img;
}

#endif
