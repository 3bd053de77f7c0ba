/* SPDX-License-Identifier: MIT */
/*
 * test_amd_firmware: every pinned image of the real release
 * (RIG_TEST_FIRMWARE) has its pinned digest and parses into the pieces its
 * header describes; copies with one byte changed, truncated, or with an
 * offset past the end are refused with the expected message, one test per
 * field; `rig firmware amd`'s installation copies and verifies every image.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/firmware/firmware.h"
#include "fake.h"

static const char *fwdir;
static uint8_t *image;
static size_t image_len;

static void
load(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fwdir, name);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	image_len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	free(image);
	assert_non_null(image = malloc(image_len));
	assert_int_equal(fread(image, 1, image_len, f), image_len);
	fclose(f);
}

static uint32_t
get(size_t at)
{
	uint32_t v;

	memcpy(&v, image + at, 4);
	return v;
}

static void
set(size_t at, uint32_t v)
{
	memcpy(image + at, &v, 4);
}

/* Parses the loaded (changed) image and expects cause. */
static void
refused(const char *name, const char *fmt, ...)
{
	char cause[400], want[500];
	struct amd_fw fw;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	assert_int_equal(amd_fw_parse(name, amd_fw_kind_of(name), image, image_len,
				      &fw), -EBADMSG);
	snprintf(want, sizeof(want), "amd_fw_parse: %s: %s", name, cause);
	assert_string_equal(rig_why(), want);
}

static const struct amd_fw_piece *
piece(const struct amd_fw *fw, size_t k, const char *what, uint64_t off,
      uint64_t bytes)
{
	assert_true(k < fw->npieces);
	assert_string_equal(fw->pieces[k].what, what);
	assert_int_equal(fw->pieces[k].offset, off);
	assert_int_equal(fw->pieces[k].bytes, bytes);
	return &fw->pieces[k];
}

static void
parsed(const char *name, struct amd_fw *fw)
{
	load(name);
	assert_int_equal(amd_fw_parse(name, amd_fw_kind_of(name), image, image_len,
				      fw), 0);
}

/* ---- The real images ------------------------------------------------------- */

static void
test_every_digest(void **state)
{
	struct amd_search s = { .ndirs = 1 };
	const struct amd_pin *pins;
	struct amd_found found;
	char path[600];
	size_t n;

	(void)state;
	snprintf(s.dirs[0], sizeof(s.dirs[0]), "%s", fwdir);
	pins = amd_pins(&n);
	assert_int_equal(n, 33);
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(amd_fw_find(&s, &pins[k], &found), 0);
		snprintf(path, sizeof(path), "%s/%s", fwdir, pins[k].name);
		assert_string_equal(found.path, path);
		assert_int_equal(found.len, pins[k].bytes);
		free(found.bytes);
	}
}

static void
test_every_header(void **state)
{
	const struct amd_pin *pins;
	struct amd_fw fw;
	size_t n;

	(void)state;
	pins = amd_pins(&n);
	for (size_t k = 0; k < n; k++) {
		parsed(pins[k].name, &fw);
		assert_true(fw.npieces >= 1);
		for (size_t p = 0; p < fw.npieces; p++)
			assert_true(fw.pieces[p].offset + fw.pieces[p].bytes <= image_len);
	}
}

static void
test_sets(void **state)
{
	const struct amd_gc_set *sets;
	size_t n;

	(void)state;
	sets = amd_gc_sets(&n);
	assert_int_equal(n, 6);
	assert_int_equal(sets[0].gc.major, 9);
	assert_non_null(amd_gc_set_of((struct amd_version){ 12, 0, 1 }));
	assert_null(amd_gc_set_of((struct amd_version){ 11, 0, 3 }));
	assert_int_equal(amd_gc_set_of((struct amd_version){ 9, 5, 0 })->nimages, 0);
	assert_int_equal(amd_gc_set_of((struct amd_version){ 12, 0, 1 })->nimages, 8);
	assert_string_equal(amd_gc_set_of((struct amd_version){ 12, 0, 1 })->images[0]->name,
			    "psp_14_0_3_sos.bin");
	assert_int_equal(amd_gc_set_of((struct amd_version){ 11, 0, 2 })->nimages, 6);
	assert_int_equal(amd_gc_set_of((struct amd_version){ 9, 4, 3 })->nimages, 5);
}

static void
test_psp_v2_0(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("psp_13_0_0_sos.bin", &fw);
	assert_int_equal(fw.npieces, 6);
	assert_int_equal(piece(&fw, 0, "PSP bin", 0x100, 0x26790)->id, 2);
	assert_int_equal(piece(&fw, 1, "PSP bin", 0x26890, 0x18380)->id, 1);
	assert_int_equal(piece(&fw, 5, "PSP bin", 0x40eb0, 0x960)->id, 6);
}

static void
test_psp_v2_1(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("psp_13_0_6_sos.bin", &fw);
	assert_int_equal(fw.npieces, 8);	/* bins before psp_aux_fw_bin_index */
	piece(&fw, 0, "PSP bin", 0x200, 0x11200);
	piece(&fw, 7, "PSP bin", 0x5ed80, 0x24c0);
}

static void
test_smc(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("smu_13_0_0.bin", &fw);
	assert_int_equal(fw.npieces, 7);
	piece(&fw, 0, "ucode", 0x100, 0x3fe00);
	assert_int_equal(piece(&fw, 1, "PPTABLE", 0x3ff48, 0x12c4)->id, 0xe50);
	parsed("smu_13_0_6.bin", &fw);		/* no ucode: tables only */
	assert_int_equal(fw.npieces, 3);
	assert_int_equal(piece(&fw, 1, "PPTABLE", 0x5a4, 0x480)->id, 0x50325358);
	parsed("smu_14_0_2.bin", &fw);		/* v2.0 */
	assert_int_equal(fw.npieces, 2);
	piece(&fw, 1, "PPTABLE", 0x4ff00, 0x16b4);
}

static void
test_sdma(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("sdma_4_4_2.bin", &fw);
	assert_int_equal(fw.npieces, 1);
	piece(&fw, 0, "ucode", 0x100, 0x8500);
	parsed("sdma_6_0_0.bin", &fw);
	assert_int_equal(fw.npieces, 2);
	piece(&fw, 0, "TH0", 0x100, 0x4400);
	piece(&fw, 1, "TH1", 0x4500, 0x4200);
	parsed("sdma_7_0_1.bin", &fw);
	assert_int_equal(fw.npieces, 1);
	piece(&fw, 0, "TH0", 0x100, 0xb400);
}

static void
test_gfx(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("gc_9_4_3_mec.bin", &fw);
	assert_int_equal(fw.npieces, 1);
	piece(&fw, 0, "ucode", 0x100, 0x418c0);
	parsed("gc_11_0_0_mec.bin", &fw);
	assert_int_equal(fw.npieces, 2);
	piece(&fw, 0, "RS64 instructions", 0x100, 0x41300);
	piece(&fw, 1, "RS64 data", 0x41400, 0x22000);
	assert_int_equal(fw.start_addr, 0x7000000003000ull);
	parsed("gc_12_0_1_pfp.bin", &fw);
	piece(&fw, 1, "RS64 data", 0x15dd0, 0x40000);
}

static void
test_rlc(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("gc_9_4_3_rlc.bin", &fw);	/* v2.1 */
	assert_int_equal(fw.npieces, 4);
	piece(&fw, 3, "RLC_RESTORE_LIST_SRM_MEM", 0x81b4, 0x1580);
	parsed("gc_12_0_0_rlc.bin", &fw);	/* v2.2 */
	assert_int_equal(fw.npieces, 6);
	piece(&fw, 5, "RLC_DRAM_BOOT", 0x1cab0, 0x8200);
	parsed("gc_11_0_0_rlc.bin", &fw);	/* v2.3 */
	assert_int_equal(fw.npieces, 8);
	piece(&fw, 0, "ucode", 0x100, 0x6200);
	piece(&fw, 7, "RLC_V", 0x2a220, 0x3200);
}

static void
test_imu(void **state)
{
	struct amd_fw fw;

	(void)state;
	parsed("gc_12_0_1_imu.bin", &fw);
	assert_int_equal(fw.npieces, 2);
	piece(&fw, 0, "IMU_I", 0x100, 0x10200);
	piece(&fw, 1, "IMU_D", 0x10300, 0x10200);
}

/* ---- Changed copies ------------------------------------------------------- */

static void
test_one_byte_changed(void **state)
{
	char root[256], path[600], want[1000];
	struct amd_search s = { .ndirs = 1 };
	const struct amd_pin *pin = amd_gc_set_of((struct amd_version){ 11, 0, 0 })->images[3];
	struct amd_found found;
	FILE *f;

	(void)state;
	fake_root(root);
	load(pin->name);
	image[0x1000] ^= 1;
	snprintf(path, sizeof(path), "%s/%s", root, pin->name);
	assert_non_null(f = fopen(path, "wb"));
	fwrite(image, 1, image_len, f);
	fclose(f);
	snprintf(s.dirs[0], sizeof(s.dirs[0]), "%s", root);
	assert_int_equal(amd_fw_find(&s, pin, &found), -ENOENT);
	snprintf(want, sizeof(want), "amd_fw_find: gc_11_0_0_mec.bin is in none of "
		 "the directories with its digest 1f650a7eac357a43…: searched %s; "
		 "another digest: %s (", root, path);
	assert_memory_equal(rig_why(), want, strlen(want));
	assert_non_null(strstr(rig_why(), "…, 406528 bytes)"));
	fake_remove(root);
}

static void
test_truncated(void **state)
{
	(void)state;
	load("gc_11_0_0_mec.bin");
	image_len -= 4;
	refused("gc_11_0_0_mec.bin", "size_bytes 0x63400 is not the file's size 0x633fc");
}

static void
test_shorter_than_header(void **state)
{
	(void)state;
	load("sdma_6_0_0.bin");
	image_len = 20;
	refused("sdma_6_0_0.bin", "20 bytes, shorter than the common header (32)");
}

static void
test_ucode_past_end(void **state)
{
	(void)state;
	load("gc_9_4_3_mec.bin");
	set(0x18, 0x200);		/* ucode_array_offset_bytes */
	refused("gc_9_4_3_mec.bin", "ucode_array_offset_bytes 0x200 + ucode_size_bytes "
		"0x418c0 ends at 0x41ac0, past the end of the file (0x419c0 bytes)");
}

static void
test_header_size_small(void **state)
{
	(void)state;
	load("gc_11_0_0_imu.bin");
	set(0x04, 0x20);
	refused("gc_11_0_0_imu.bin", "header_size_bytes 0x20 is smaller than the "
		"IMU v1.0 header (0x30)");
}

static void
test_header_size_past_ucode(void **state)
{
	(void)state;
	load("gc_11_0_0_imu.bin");
	set(0x04, 0x200);
	refused("gc_11_0_0_imu.bin", "header_size_bytes 0x200 runs past "
		"ucode_array_offset_bytes 0x100");
}

static void
test_header_version(void **state)
{
	(void)state;
	load("gc_11_0_0_mec.bin");
	image[0x08] = 3;
	refused("gc_11_0_0_mec.bin", "header version 3.0 is not one rig reads for "
		"GFX images");
}

static void
test_psp_bin_past_end(void **state)
{
	(void)state;
	load("psp_13_0_0_sos.bin");
	set(0x24 + 16 * 5 + 8, get(0x24 + 16 * 5 + 8) + 0x1000);
	refused("psp_13_0_0_sos.bin", "ucode_array_offset_bytes + offset_bytes "
		"0x41eb0 + size_bytes 0x960 ends at 0x42810, past the end of the "
		"file (0x41810 bytes)");
}

static void
test_psp_descriptors(void **state)
{
	(void)state;
	load("psp_14_0_3_sos.bin");
	set(0x20, 20);
	refused("psp_14_0_3_sos.bin", "the 20 bin descriptors end at 0x164, past "
		"ucode_array_offset_bytes 0x100");
}

static void
test_psp_aux_index(void **state)
{
	(void)state;
	load("psp_13_0_6_sos.bin");
	set(0x24, 17);
	refused("psp_13_0_6_sos.bin", "psp_aux_fw_bin_index 17 is not within the "
		"16 bins");
}

static void
test_psp_no_sos(void **state)
{
	(void)state;
	load("psp_13_0_7_sos.bin");
	set(0x24 + 16 * 1, 4);		/* bin 1: SOS → TOC */
	refused("psp_13_0_7_sos.bin", "no SOS bin");
}

static void
test_smc_pptable_past_end(void **state)
{
	(void)state;
	load("smu_13_0_0.bin");
	set(0x3ff00 + 12 * 5 + 4, get(0x3ff00 + 12 * 5 + 4) + 0x100);
	refused("smu_13_0_0.bin", "ppt_offset_bytes 0x46274 + ppt_size_bytes 0x14f0 "
		"ends at 0x47764, past the end of the file (0x47664 bytes)");
}

static void
test_smc_entries_past_end(void **state)
{
	(void)state;
	load("smu_13_0_7.bin");
	set(0x28, 0x46160);		/* pptable_entry_offset */
	refused("smu_13_0_7.bin", "pptable_entry_offset 0x46160 + 12 × pptable_count "
		"0x3c ends at 0x4619c, past the end of the file (0x46168 bytes)");
}

static void
test_smc_v2_0_past_end(void **state)
{
	(void)state;
	load("smu_14_0_2.bin");
	set(0x24, 0x50000);
	refused("smu_14_0_2.bin", "ppt_offset_bytes 0x50000 + ppt_size_bytes 0x16b4 "
		"ends at 0x516b4, past the end of the file (0x515b4 bytes)");
}

static void
test_sdma_v1_jump_table(void **state)
{
	(void)state;
	load("sdma_4_4_2.bin");
	set(0x28, 0x2100);		/* jt_offset, dwords */
	refused("sdma_4_4_2.bin", "the jump table (jt_offset 0x2100 + jt_size 0x80 "
		"dwords) ends past the ucode (0x8500 bytes)");
}

static void
test_sdma_v2_th1_past_end(void **state)
{
	(void)state;
	load("sdma_6_0_2.bin");
	set(0x30, 0x4600);		/* ctl_ucode_offset */
	refused("sdma_6_0_2.bin", "ctl_ucode_offset 0x4600 + ctl_ucode_size_bytes "
		"0x4200 ends at 0x8800, past the end of the file (0x8700 bytes)");
}

static void
test_sdma_v2_jump_table(void **state)
{
	(void)state;
	load("sdma_6_0_0.bin");
	set(0x28, 0x1081);		/* ctx_jt_offset */
	refused("sdma_6_0_0.bin", "the jump table (jt_offset 0x1081 + jt_size 0x80 "
		"dwords) ends past the TH0 ucode (0x4400 bytes)");
}

static void
test_sdma_v3_past_end(void **state)
{
	(void)state;
	load("sdma_7_0_0.bin");
	set(0x24, 0x104);		/* ucode_offset_bytes */
	refused("sdma_7_0_0.bin", "ucode_offset_bytes 0x104 + ucode_size_bytes 0xb200 "
		"ends at 0xb304, past the end of the file (0xb300 bytes)");
}

static void
test_gfx_v1_jump_table(void **state)
{
	(void)state;
	load("gc_9_4_3_mec.bin");
	set(0x28, 0x121);		/* jt_size, dwords */
	refused("gc_9_4_3_mec.bin", "the jump table (jt_offset 0x10510 + jt_size "
		"0x121 dwords) ends past the ucode (0x418c0 bytes)");
}

static void
test_gfx_v2_data_past_end(void **state)
{
	(void)state;
	load("gc_12_0_0_me.bin");
	set(0x30, 0x27400);		/* data_offset_bytes */
	refused("gc_12_0_0_me.bin", "data_offset_bytes 0x27400 + data_size_bytes "
		"0x40000 ends at 0x67400, past the end of the file (0x67300 bytes)");
}

static void
test_rlc_v2_0_list_past_end(void **state)
{
	(void)state;
	load("gc_9_4_3_rlc.bin");
	set(0x54, 0x9000);		/* reg_list_array_offset_bytes */
	refused("gc_9_4_3_rlc.bin", "reg_list_array_offset_bytes 0x9000 + "
		"reg_list_size_bytes 0x1280 ends at 0xa280, past the end of the "
		"file (0x9734 bytes)");
}

static void
test_rlc_v2_1_srm_past_end(void **state)
{
	(void)state;
	load("gc_9_4_3_rlc.bin");
	set(0x98, 0x81b8);		/* save_restore_list_srm_offset_bytes */
	refused("gc_9_4_3_rlc.bin", "save_restore_list_srm_offset_bytes 0x81b8 + "
		"save_restore_list_srm_size_bytes 0x1580 ends at 0x9738, past the "
		"end of the file (0x9734 bytes)");
}

static void
test_rlc_v2_2_iram_past_end(void **state)
{
	(void)state;
	load("gc_12_0_1_rlc.bin");
	set(0x9c, 0x20000);		/* rlc_iram_ucode_size_bytes */
	refused("gc_12_0_1_rlc.bin", "rlc_iram_ucode_offset_bytes 0xc940 + "
		"rlc_iram_ucode_size_bytes 0x20000 ends at 0x2c940, past the end "
		"of the file (0x24d40 bytes)");
}

static void
test_rlc_v2_3_rlcv_past_end(void **state)
{
	(void)state;
	load("gc_11_0_2_rlc.bin");
	set(0xc8, 0x288a4);		/* rlcv_ucode_offset_bytes */
	refused("gc_11_0_2_rlc.bin", "rlcv_ucode_offset_bytes 0x288a4 + "
		"rlcv_ucode_size_bytes 0x3200 ends at 0x2baa4, past the end of the "
		"file (0x2baa0 bytes)");
}

static void
test_imu_past_end(void **state)
{
	(void)state;
	load("gc_11_0_0_imu.bin");
	set(0x2c, 0x10204);		/* imu_dram_ucode_offset_bytes */
	refused("gc_11_0_0_imu.bin", "ucode_array_offset_bytes + "
		"imu_dram_ucode_offset_bytes 0x10304 + imu_dram_ucode_size_bytes "
		"0x10200 ends at 0x20504, past the end of the file (0x20500 bytes)");
}

static void
test_kind_of(void **state)
{
	(void)state;
	load("sdma_6_0_0.bin");
	assert_int_equal(amd_fw_kind_of("gc_11_0_0_mes.bin"), 0);
	assert_int_equal(amd_fw_kind_of("psp_13_0_0_ta.bin"), 0);
	assert_int_equal(amd_fw_kind_of("gc_12_0_0_me.bin"), AMD_FW_GFX);
}

static void
test_parse_unknown_kind(void **state)
{
	(void)state;
	load("sdma_6_0_0.bin");
	assert_int_equal(amd_fw_parse("x.bin", 0, image, image_len, &(struct amd_fw){ 0 }),
			 -EINVAL);
	assert_string_equal(rig_why(), "amd_fw_parse: x.bin: unknown image kind 0");
}

/* ---- Installation ---------------------------------------------------------- */

static int
count_lines(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void
test_install(void **state)
{
	char root[256], to[300], *text;
	const char *from[] = { fwdir, NULL };
	size_t len;
	FILE *r;

	(void)state;
	fake_root(root);
	snprintf(to, sizeof(to), "%s/a/b/amdgpu", root);
	r = open_memstream(&text, &len);
	assert_int_equal(rig_amd_firmware_install(from, to, r), 0);
	fclose(r);
	assert_int_equal(count_lines(text, "installed     "), 33);
	free(text);
	r = open_memstream(&text, &len);
	assert_int_equal(rig_amd_firmware_install(from, to, r), 0);
	fclose(r);
	assert_int_equal(count_lines(text, "present       "), 33);
	free(text);
	fake_remove(root);
}

static void
test_install_missing_and_other(void **state)
{
	char root[256], to[300], src[300], line[700], *text;
	const char *from[] = { src, NULL };
	size_t len;
	FILE *r;

	(void)state;
	fake_root(root);
	snprintf(to, sizeof(to), "%s/to", root);
	snprintf(src, sizeof(src), "%s/src", root);
	fake_mkdir(root, "src");
	load("sdma_7_0_0.bin");
	image[0x500] ^= 1;
	snprintf(line, sizeof(line), "%s/sdma_7_0_0.bin", src);
	r = fopen(line, "wb");
	fwrite(image, 1, image_len, r);
	fclose(r);
	r = open_memstream(&text, &len);
	assert_int_equal(rig_amd_firmware_install(from, to, r), 33);
	fclose(r);
	assert_int_equal(count_lines(text, "missing       "), 32);
	snprintf(line, sizeof(line), "other digest  sdma_7_0_0.bin: %s/sdma_7_0_0.bin (", src);
	assert_non_null(strstr(text, line));
	free(text);
	fake_remove(root);
}

static void
test_install_unwritable(void **state)
{
	char root[256], to[600];
	const char *from[] = { fwdir, NULL };

	(void)state;
	fake_root(root);
	fake_write(root, "file", "x");
	snprintf(to, sizeof(to), "%s/file/amdgpu", root);
	assert_int_equal(rig_amd_firmware_install(from, to, NULL), -ENOTDIR);
	snprintf(to, sizeof(to), "rig_amd_firmware_install: cannot make %s/file/amdgpu: "
		 "Not a directory", root);
	assert_string_equal(rig_why(), to);
	fake_remove(root);
}

static void
test_install_too_many_sources(void **state)
{
	const char *from[18];

	(void)state;
	for (int k = 0; k < 17; k++)
		from[k] = "/x";
	from[17] = NULL;
	assert_int_equal(rig_amd_firmware_install(from, "/tmp/unused", NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_firmware_install: more than 16 "
			    "source directories");
}

static void
test_install_long_source(void **state)
{
	char dir[300];
	const char *from[] = { dir, NULL };

	(void)state;
	memset(dir, 's', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	assert_int_equal(rig_amd_firmware_install(from, "/tmp/unused", NULL), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "rig_amd_firmware_install: source "
			       "directory /sss"));
	assert_non_null(strstr(rig_why(), "sss is too long"));
}

static void
test_firmware_directory(void **state)
{
	char buf[256];

	(void)state;
	setenv("RIG_FIRMWARE_DIR", "/opt/rig/fw", 1);
	assert_int_equal(rig_amd_firmware_directory(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/opt/rig/fw");
	unsetenv("RIG_FIRMWARE_DIR");
	setenv("XDG_DATA_HOME", "/home/u/.data", 1);
	assert_int_equal(rig_amd_firmware_directory(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/u/.data/rig/firmware/amdgpu");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(rig_amd_firmware_directory(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/u/.local/share/rig/firmware/amdgpu");
}

static void
test_firmware_directory_short(void **state)
{
	char buf[10];

	(void)state;
	setenv("HOME", "/home/u", 1);
	assert_int_equal(rig_amd_firmware_directory(buf, sizeof(buf)), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_firmware_directory: the directory "
			    "needs 40 bytes, more than 10");
}

static void
test_firmware_directory_unset(void **state)
{
	char buf[256];

	(void)state;
	unsetenv("HOME");
	assert_int_equal(rig_amd_firmware_directory(buf, sizeof(buf)), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_firmware_directory: none of "
			    "RIG_FIRMWARE_DIR, XDG_DATA_HOME and HOME is set");
}

static void
test_firmware_directory_null(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_firmware_directory(NULL, 10), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_firmware_directory: buf is NULL");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_digest),
		cmocka_unit_test(test_every_header),
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_psp_v2_0),
		cmocka_unit_test(test_psp_v2_1),
		cmocka_unit_test(test_smc),
		cmocka_unit_test(test_sdma),
		cmocka_unit_test(test_gfx),
		cmocka_unit_test(test_rlc),
		cmocka_unit_test(test_imu),
		cmocka_unit_test(test_one_byte_changed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_shorter_than_header),
		cmocka_unit_test(test_ucode_past_end),
		cmocka_unit_test(test_header_size_small),
		cmocka_unit_test(test_header_size_past_ucode),
		cmocka_unit_test(test_header_version),
		cmocka_unit_test(test_psp_bin_past_end),
		cmocka_unit_test(test_psp_descriptors),
		cmocka_unit_test(test_psp_aux_index),
		cmocka_unit_test(test_psp_no_sos),
		cmocka_unit_test(test_smc_pptable_past_end),
		cmocka_unit_test(test_smc_entries_past_end),
		cmocka_unit_test(test_smc_v2_0_past_end),
		cmocka_unit_test(test_sdma_v1_jump_table),
		cmocka_unit_test(test_sdma_v2_th1_past_end),
		cmocka_unit_test(test_sdma_v2_jump_table),
		cmocka_unit_test(test_sdma_v3_past_end),
		cmocka_unit_test(test_gfx_v1_jump_table),
		cmocka_unit_test(test_gfx_v2_data_past_end),
		cmocka_unit_test(test_rlc_v2_0_list_past_end),
		cmocka_unit_test(test_rlc_v2_1_srm_past_end),
		cmocka_unit_test(test_rlc_v2_2_iram_past_end),
		cmocka_unit_test(test_rlc_v2_3_rlcv_past_end),
		cmocka_unit_test(test_imu_past_end),
		cmocka_unit_test(test_kind_of),
		cmocka_unit_test(test_parse_unknown_kind),
		cmocka_unit_test(test_install),
		cmocka_unit_test(test_install_missing_and_other),
		cmocka_unit_test(test_install_unwritable),
		cmocka_unit_test(test_install_too_many_sources),
		cmocka_unit_test(test_install_long_source),
		cmocka_unit_test(test_firmware_directory),
		cmocka_unit_test(test_firmware_directory_short),
		cmocka_unit_test(test_firmware_directory_unset),
		cmocka_unit_test(test_firmware_directory_null),
	};
	int ret;

	fwdir = getenv("RIG_TEST_FIRMWARE");
	if (!fwdir || !fwdir[0]) {	/* a TAP skip of every test, saying why */
		printf("1..0 # SKIP RIG_TEST_FIRMWARE (the real images) is not set\n");
		return 0;
	}
	unsetenv("RIG_FIRMWARE_DIR");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	free(image);
	return ret;
}
