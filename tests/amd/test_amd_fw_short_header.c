/* SPDX-License-Identifier: MIT */
/*
 * test_amd_fw_short_header: a firmware file of 32 to 63 bytes whose common
 * header is consistent (size_bytes is the file's size, the ucode window
 * inside it) is refused, never read past, in every header version of
 * every format. The file ends where a PROT_NONE page starts, so a parser
 * that copies its version-specific header before checking that it fits
 * faults here in any build, not only under ASan (the readers of PSP, SMC, SDMA, GFX and IMU
 * headers once copied first).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rig.h"
#include "amd/firmware/format.h"

struct version {
	enum amd_fw_kind kind;
	const char *name;
	uint16_t major, minor;
	size_t struct_size;		/* the header it reads, amd-facts §1 */
	const char *label;		/* as the parser names that header */
};

static const struct version versions[] = {
	{ AMD_FW_PSP_SOS, "psp_13_0_0_sos.bin", 2, 0, 0x24, "PSP v2.0" },
	{ AMD_FW_PSP_SOS, "psp_13_0_0_sos.bin", 2, 1, 0x28, "PSP v2.1" },
	{ AMD_FW_SMC, "smu_13_0_0.bin", 1, 0, 0x24, "SMC v1.0" },
	{ AMD_FW_SMC, "smu_13_0_0.bin", 2, 0, 0x2c, "SMC v2.0" },
	{ AMD_FW_SMC, "smu_13_0_0.bin", 2, 1, 0x2c, "SMC v2.1" },
	{ AMD_FW_SDMA, "sdma_6_0_0.bin", 1, 0, 0x30, "SDMA v1.0" },
	{ AMD_FW_SDMA, "sdma_6_0_0.bin", 1, 1, 0x30, "SDMA v1.0" },
	{ AMD_FW_SDMA, "sdma_6_0_0.bin", 2, 0, 0x40, "SDMA v2.0" },
	{ AMD_FW_SDMA, "sdma_7_0_0.bin", 3, 0, 0x2c, "SDMA v3.0" },
	{ AMD_FW_GFX, "gc_9_4_3_mec.bin", 1, 0, 0x2c, "GFX v1.0" },
	{ AMD_FW_GFX, "gc_11_0_0_mec.bin", 2, 0, 0x3c, "GFX v2.0" },
	{ AMD_FW_RLC, "gc_11_0_0_rlc.bin", 2, 0, 0x68, "RLC v2.0" },
	{ AMD_FW_RLC, "gc_11_0_0_rlc.bin", 2, 3, 0xcc, "RLC v2.3" },
	{ AMD_FW_IMU, "gc_11_0_0_imu.bin", 1, 0, 0x30, "IMU v1.0" },
};

static uint8_t *guarded;	/* the page before the PROT_NONE one */
static size_t page;

static int
setup(void **state)
{
	(void)state;
	page = (size_t)sysconf(_SC_PAGESIZE);
	guarded = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guarded == MAP_FAILED || mprotect(guarded + page, page, PROT_NONE))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return munmap(guarded, 2 * page);
}

static void
put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, 4);
}

/*
 * A len-byte file ending at the guard page: a consistent common header
 * (ucode window [32, len), header_size_bytes as given), the rest 0xA5.
 */
static uint8_t *
short_file(const struct version *v, size_t len, uint32_t header_size)
{
	uint8_t *b = guarded + page - len;

	memset(b, 0xA5, len);
	put32(b, 0x00, (uint32_t)len);
	put32(b, 0x04, header_size);
	put32(b, 0x08, (uint32_t)v->minor << 16 | v->major);
	put32(b, 0x0c, 0);
	put32(b, 0x14, (uint32_t)len - 32);	/* ucode_size_bytes */
	put32(b, 0x18, 32);			/* ucode_array_offset_bytes */
	return b;
}

/* Shorter than its version's header: refused, saying so. */
static void
test_header_longer_than_file(void **state)
{
	char want[300];
	struct amd_fw fw;

	(void)state;
	for (size_t k = 0; k < sizeof(versions) / sizeof(versions[0]); k++) {
		const struct version *v = &versions[k];

		for (size_t len = 32; len < 64 && len < v->struct_size; len++) {
			uint8_t *b = short_file(v, len, 32);
			int ret;

			ret = amd_fw_parse(v->name, v->kind, b, len, &fw);
			if (ret != -EBADMSG)
				fail_msg("%s of %zu bytes: expected -EBADMSG, got %d",
					 v->label, len, ret);
			snprintf(want, sizeof(want), "amd_fw_parse: %s: the %s header "
				 "(0x%zx bytes) is longer than the file (0x%zx bytes)",
				 v->name, v->label, v->struct_size, len);
			assert_string_equal(rig_why(), want);
		}
	}
}

/*
 * Every length from 32 to 63, with header_size_bytes 32 and with it the
 * whole file: whatever the parse answers, it reads nothing past the file
 * (the guard page) and a piece it lists lies inside it.
 */
static void
test_never_reads_past(void **state)
{
	struct amd_fw fw;

	(void)state;
	for (size_t k = 0; k < sizeof(versions) / sizeof(versions[0]); k++)
		for (size_t len = 32; len < 64; len++)
			for (int hs = 0; hs < 2; hs++) {
				const struct version *v = &versions[k];
				uint8_t *b = short_file(v, len, hs ? (uint32_t)len : 32);

				if (hs)		/* header to the end: no ucode */
					put32(b, 0x18, (uint32_t)len), put32(b, 0x14, 0);
				if (amd_fw_parse(v->name, v->kind, b, len, &fw) < 0)
					continue;
				for (size_t p = 0; p < fw.npieces; p++)
					assert_true(fw.pieces[p].offset + fw.pieces[p].bytes <= len);
			}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_longer_than_file),
		cmocka_unit_test(test_never_reads_past),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
