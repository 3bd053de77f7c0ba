/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_elf_init.c: an image's constructors and destructors run
 * as a static link runs them: C constructors by priority then the plain
 * ones at init, destructors in the reverse order at unlink, a C++ global's
 * dynamic initialisation before the first call and its destructor (which
 * g++ registers with __cxa_atexit) at unlink; .ctors and .dtors, and an
 * entry that is no function of the object, are refused by section name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <elf.h>

#include "host/elf.h"
#include "kernels.h"
#include "link_ok.h"

typedef int64_t (*order_fn)(int64_t);
typedef void (*log_fn)(int64_t *);

static void *
sym(struct elf_image *img, const char *name)
{
	void *f = elf_symbol(img, name);

	if (!f)
		fail_msg("no function %s", name);
	return f;
}

static void
test_c_constructors_in_order(void **state)
{
	struct elf_image *img = link_ok("ctors");
	order_fn order = (order_fn)sym(img, "ctors_order");
	kernel_fn run = (kernel_fn)sym(img, "ctors");
	int64_t out[64], log[8] = { 0 };
	int64_t p[1] = { (int64_t)(intptr_t)out };
	int i;

	/* Linked, not yet initialised: nothing ran. */
	assert_int_equal(order(0), -1);
	elf_image_init(img);
	assert_int_equal(order(0), 101);
	assert_int_equal(order(1), 200);
	assert_int_equal(order(2), 1000);
	assert_int_equal(order(3), -1);
	elf_image_init(img);	/* once only */
	assert_int_equal(order(3), -1);
	run(p, 0, 64);
	for (i = 0; i < 64; i++)
		assert_int_equal(out[i], 3 * i + 1);
	((log_fn)sym(img, "ctors_log_to"))(log);
	elf_unlink(img);
	assert_int_equal(log[0], 1000);
	assert_int_equal(log[1], 200);
	assert_int_equal(log[2], 101);
	assert_int_equal(log[3], 0);
}

static void
test_cxx_dynamic_initialisation(void **state)
{
	struct elf_image *img = link_ok("ctors_cxx");
	kernel_fn run = (kernel_fn)sym(img, "cxx_table");
	int64_t out[64], log = 0;
	int64_t p[1] = { (int64_t)(intptr_t)out };
	int i;

	elf_image_init(img);
	run(p, 0, 64);
	for (i = 0; i < 64; i++)
		assert_int_equal(out[i], 5 * i + 2);
	((log_fn)sym(img, "cxx_log_to"))(&log);
	elf_unlink(img);
	assert_int_equal(log, 7);	/* the destructor ran, reading v[1] */
}

/* An image linked but never initialised runs no destructor at unlink. */
static void
test_no_destructors_without_init(void **state)
{
	struct elf_image *img = link_ok("ctors");
	int64_t log[8] = { 0 };

	((log_fn)sym(img, "ctors_log_to"))(log);
	elf_unlink(img);
	assert_int_equal(log[0], 0);
}

/* ---- Refusals ---------------------------------------------------------- */

static Elf64_Shdr *
shdr(unsigned char *b, size_t i)
{
	return (Elf64_Shdr *)(b + ((Elf64_Ehdr *)b)->e_shoff) + i;
}

static char *
section_name(unsigned char *b, size_t i)
{
	size_t str = ((Elf64_Ehdr *)b)->e_shstrndx;

	return (char *)b + shdr(b, str)->sh_offset + shdr(b, i)->sh_name;
}

static size_t
section(unsigned char *b, const char *name)
{
	size_t i;

	for (i = 1; i < ((Elf64_Ehdr *)b)->e_shnum; i++)
		if (strcmp(section_name(b, i), name) == 0)
			return i;
	fail_msg("no section %s", name);
	return 0;
}

static void
refused(const unsigned char *b, size_t len, const char *want)
{
	struct elf_image *img = (struct elf_image *)&img;
	char why[ELF_WHY_BYTES] = "";
	int ret;

	ret = elf_link(b, len, &img, why, sizeof(why));
	if (ret != -ENOEXEC || !strstr(why, want))
		fail_msg("expected -ENOEXEC with \"%s\", got %d \"%s\"", want, ret, why);
	assert_null(img);
}

static void
test_old_style_sections_refused(void **state)
{
	size_t len;
	unsigned char *b = kernel_read("ctors", &len);
	size_t i = section(b, ".init_array");

	/* ".init_array" becomes ".ctors" (shorter, so in place). */
	strcpy(section_name(b, i), ".ctors");
	shdr(b, i)->sh_type = SHT_PROGBITS;
	refused(b, len, "('.ctors') holds old-style constructors");
	refused(b, len, "emits .init_array");
	free(b);
	b = kernel_read("ctors", &len);
	i = section(b, ".fini_array");
	strcpy(section_name(b, i), ".dtors");
	shdr(b, i)->sh_type = SHT_PROGBITS;
	refused(b, len, "('.dtors') holds old-style destructors");
	free(b);
}

static void
test_bad_entries_refused(void **state)
{
	size_t len, i;
	unsigned char *b = kernel_read("ctors", &len);
	Elf64_Rela *r;

	/* The plain constructor's relocation points 1 MiB past its symbol. */
	i = section(b, ".rela.init_array");
	r = (Elf64_Rela *)(b + shdr(b, i)->sh_offset);
	r->r_addend += 1 << 20;
	refused(b, len, "entry 0 of section");
	refused(b, len, "('.init_array') is 0x");
	refused(b, len, "not a function of the object's text");
	free(b);

	b = kernel_read("ctors", &len);
	shdr(b, section(b, ".init_array"))->sh_size = 12;
	refused(b, len, "('.init_array') holds 12 bytes, not a whole number");
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_constructors_in_order),
		cmocka_unit_test(test_cxx_dynamic_initialisation),
		cmocka_unit_test(test_no_destructors_without_init),
		cmocka_unit_test(test_old_style_sections_refused),
		cmocka_unit_test(test_bad_entries_refused),
	};

	return cmocka_run_group_tests_name("test_elf_init", tests, NULL, NULL);
}
