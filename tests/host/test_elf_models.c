/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_elf_models.c: one kernel compiled the ways compilers
 * build objects links and runs bitwise right: the host's flags, -O3
 * -march=native, non-PIC (its absolute 32-bit addresses reach an image
 * mapped below 2 GiB) and -fPIC -mcmodel=large (GOTPC64, GOTOFF64, GOT64,
 * PLTOFF64), calling the libm functions compilers emit (ldexpf, erfcf,
 * asinhf, lroundf, nearbyintf, sincos). The refusals that teach: every
 * undefined symbol named in one message, and LTO objects (GCC's GIMPLE,
 * LLVM bitcode) refused saying to compile with -fno-lto.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/elf.h"
#include "host/elf_host.h"
#include "kernels.h"

enum { GROUPS = 200 };

static void
expected(int64_t g, double o[8])
{
	float x = (float)g * 0.125f;
	static const double scale[4] = { 1.0, 0.5, 0.25, 2.0 };
	double s, c;

	sincos((double)x, &s, &c);
	o[0] = 2.0 * (double)g * scale[g & 3] + 3.0;
	o[1] = ldexpf(x, 3);
	o[2] = erfcf(x);
	o[3] = asinhf(x);
	o[4] = (double)lroundf(x * 3.3f);
	o[5] = nearbyintf(x * 1.7f);
	o[6] = s;
	o[7] = c;
}

static void
runs_right(const char *name)
{
	struct elf_image *img = NULL;
	char why[ELF_WHY_BYTES] = "";
	static double out[GROUPS * 8];
	double want[8];
	double *p[1] = { out };
	unsigned char *b;
	size_t len;
	kernel_fn k;
	int64_t g;

	b = kernel_read(name, &len);
	if (elf_link(b, len, &img, why, sizeof(why)) != 0)
		fail_msg("%s: %s", name, why);
	free(b);
	elf_image_init(img);
	k = (kernel_fn)elf_symbol(img, "models");
	assert_non_null(k);
	for (g = 0; g < GROUPS; g += 13)
		k(p, g, g + 13 < GROUPS ? g + 13 : GROUPS);
	for (g = 0; g < GROUPS; g++) {
		expected(g, want);
		if (memcmp(want, out + 8 * g, sizeof(want)) != 0)
			fail_msg("%s: group %lld differs: %.17g %.17g %.17g %.17g / %.17g %.17g %.17g %.17g",
				 name, (long long)g, out[8 * g], out[8 * g + 1], out[8 * g + 2],
				 out[8 * g + 3], want[0], want[1], want[2], want[3]);
	}
	elf_unlink(img);
}

static void
test_host_flags(void **state)
{
	runs_right("models");
}

static void
test_o3_native(void **state)
{
	runs_right("models_o3");
}

static void
test_non_pic(void **state)
{
	runs_right("models_nopic");
}

static void
test_large_model(void **state)
{
	runs_right("models_large");
}

static void
refused(const char *name, const char *want)
{
	struct elf_image *img = NULL;
	char why[ELF_WHY_BYTES] = "";
	unsigned char *b;
	size_t len;
	int ret;

	b = kernel_read(name, &len);
	ret = elf_link(b, len, &img, why, sizeof(why));
	free(b);
	if (ret != -ENOEXEC || !strstr(why, want))
		fail_msg("%s: expected -ENOEXEC with \"%s\", got %d \"%s\"", name, want, ret, why);
	assert_null(img);
}

static void
test_every_undefined_symbol(void **state)
{
	refused("undefined_many", "undefined symbols 'printf', ");
	refused("undefined_many", "'missing_function'");
	refused("undefined_many", "'malloc'");
	refused("undefined_many", ": a host kernel may call only memcpy, memset, memmove, memcmp, libm's functions");
}

/* Skipped (passing) where the build has no such compiler: the objects
 * are then not built. */
static bool
built(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.o", HOST_KERNELS, name);
	return access(path, R_OK) == 0;
}

static void
test_lto_refused(void **state)
{
	if (built("lto_gcc"))
		refused("lto_gcc", "an LTO object: section ");
	if (built("lto_gcc"))
		refused("lto_gcc", "holds GCC's GIMPLE, not machine code, which the host cannot link: compile with -fno-lto");
	if (built("lto_clang"))
		refused("lto_clang", "LLVM bitcode (an LTO object, as clang -flto -c writes), not an ELF object of machine code: compile with -fno-lto");
}

static void
test_libm_bound(void **state)
{
	static const char *const names[] = {
		"ldexpf", "erfcf", "asinhf", "lroundf", "nearbyintf", "sincos",
		"sincosf", "frexp", "rint", "llround", "tgamma", "copysignf",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!elf_host_symbol(names[i]))
			fail_msg("the host gives objects no %s", names[i]);
	assert_ptr_equal(elf_host_symbol("sincos"), (void *)sincos);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_flags),
		cmocka_unit_test(test_o3_native),
		cmocka_unit_test(test_non_pic),
		cmocka_unit_test(test_large_model),
		cmocka_unit_test(test_every_undefined_symbol),
		cmocka_unit_test(test_lto_refused),
		cmocka_unit_test(test_libm_bound),
	};

	return cmocka_run_group_tests_name("test_elf_models", tests, NULL, NULL);
}
