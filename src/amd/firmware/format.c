/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/format.c: reads each firmware header format of amd-facts §1
 * and checks it before the boot trusts a byte of it: size_bytes is the
 * file's size (Linux's only check), the header versions are ones this file
 * reads, every header lies inside the file and every (offset, size) pair
 * of a piece ends inside it. The crc32 field is not checked: it holds no
 * known checksum for SMC and RLC files (amd-facts §1.8), and the digest
 * pins every image anyway.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/firmware/format.h"

struct reader {
	const char *name;
	const uint8_t *b;
	size_t len;
	struct amd_fw *out;
	char why[320];		/* the cause, for amd_fw_parse's message */
};

static int __attribute__((format(printf, 2, 3)))
bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->why, sizeof(r->why), "%s: ", r->name);

	va_start(ap, fmt);
	vsnprintf(r->why + n, sizeof(r->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static const char *const kind_names[] = {
	[AMD_FW_PSP_SOS] = "PSP sOS", [AMD_FW_SMC] = "SMC",
	[AMD_FW_SDMA] = "SDMA", [AMD_FW_GFX] = "GFX",
	[AMD_FW_RLC] = "RLC", [AMD_FW_IMU] = "IMU",
};

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

enum amd_fw_kind
amd_fw_kind_of(const char *name)
{
	if (!strncmp(name, "psp_", 4) && ends_with(name, "_sos.bin"))
		return AMD_FW_PSP_SOS;
	if (!strncmp(name, "smu_", 4))
		return AMD_FW_SMC;
	if (!strncmp(name, "sdma_", 5))
		return AMD_FW_SDMA;
	if (strncmp(name, "gc_", 3))
		return 0;
	if (ends_with(name, "_pfp.bin") || ends_with(name, "_me.bin") ||
	    ends_with(name, "_mec.bin"))
		return AMD_FW_GFX;
	if (ends_with(name, "_rlc.bin"))
		return AMD_FW_RLC;
	if (ends_with(name, "_imu.bin"))
		return AMD_FW_IMU;
	return 0;
}

/* [off, off + size) must end inside the file; a piece is recorded. */
static int
range(struct reader *r, const char *what, uint32_t id, const char *off_name,
      uint64_t off, const char *size_name, uint64_t size, bool piece)
{
	struct amd_fw *f = r->out;

	if (off + size > r->len)
		return bad(r, "%s 0x%llx + %s 0x%llx ends at 0x%llx, "
				"past the end of the file (0x%zx bytes)",
				off_name, (unsigned long long)off, size_name,
				(unsigned long long)size,
				(unsigned long long)(off + size), r->len);
	if (!piece)
		return 0;
	if (f->npieces == AMD_FW_PIECES)
		return bad(r, "more than %d pieces",
				AMD_FW_PIECES);
	f->pieces[f->npieces++] = (struct amd_fw_piece){
		.what = what, .id = id, .offset = off, .bytes = size };
	return 0;
}

/* The version-specific header of struct_size bytes must fit. */
static int
header_fits(struct reader *r, size_t struct_size, const char *version)
{
	const struct common_firmware_header *h = &r->out->header;

	if (struct_size > r->len)
		return bad(r, "the %s header (0x%zx bytes) is longer "
				"than the file (0x%zx bytes)", version,
				struct_size, r->len);
	if (h->header_size_bytes < struct_size)
		return bad(r, "header_size_bytes 0x%x is smaller "
				"than the %s header (0x%zx)",
				h->header_size_bytes, version, struct_size);
	return 0;
}

/* The version-specific header into var, once header_fits says it is
 * there: a file shorter than the header is refused, never read past. */
static int
read_header(struct reader *r, void *var, size_t struct_size,
	    const char *version)
{
	int ret = header_fits(r, struct_size, version);

	if (ret == 0)
		memcpy(var, r->b, struct_size);
	return ret;
}

#define READ(r, type, var, version) \
	type var; \
	if ((ret = read_header(r, &var, sizeof(var), version)) < 0) \
		return ret

static int
unknown_version(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;

	return bad(r, "header version %u.%u is not one rig reads "
			"for %s images", h->header_version_major,
			h->header_version_minor, kind_names[r->out->kind]);
}

static int
parse_psp(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;
	uint32_t count, primary, array;
	bool sos = false, sys = false;
	int ret;

	if (h->header_version_major != 2 || h->header_version_minor > 1)
		return unknown_version(r);
	if (h->header_version_minor == 0) {
		READ(r, struct psp_firmware_header_v2_0, v, "PSP v2.0");
		count = primary = v.psp_fw_bin_count;
		array = sizeof(v);
	} else {
		READ(r, struct psp_firmware_header_v2_1, v, "PSP v2.1");
		count = v.psp_fw_bin_count;
		primary = v.psp_aux_fw_bin_index;	/* bins from here are the aux set */
		array = sizeof(v);
		if (primary == 0 || primary > count)
			return bad(r, "psp_aux_fw_bin_index %u is "
					"not within the %u bins",
					primary, count);
	}
	if (count == 0 || count > AMD_FW_PIECES)
		return bad(r, "psp_fw_bin_count %u is not 1 to %d", count, AMD_FW_PIECES);
	if (array + 16ull * count > h->ucode_array_offset_bytes)
		return bad(r, "the %u bin descriptors end at 0x%llx, "
				"past ucode_array_offset_bytes 0x%x",
				count, array + 16ull * count,
				h->ucode_array_offset_bytes);
	for (uint32_t i = 0; i < count; i++) {
		struct psp_fw_bin_desc d;

		memcpy(&d, r->b + array + 16 * i, sizeof(d));
		ret = range(r, "PSP bin", d.fw_type, "ucode_array_offset_bytes + "
			    "offset_bytes", (uint64_t)h->ucode_array_offset_bytes +
			    d.offset_bytes, "size_bytes", d.size_bytes, i < primary);
		if (ret < 0)
			return ret;
		sos |= i < primary && d.fw_type == PSP_FW_TYPE_PSP_SOS;
		sys |= i < primary && d.fw_type == PSP_FW_TYPE_PSP_SYS_DRV;
	}
	if (!sos || !sys)
		return bad(r, "no %s bin",
				sos ? "SYS_DRV" : "SOS");
	return 0;
}

static int
parse_smc(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;
	int ret;

	if (h->header_version_major == 1 && h->header_version_minor == 0) {
		READ(r, struct smc_firmware_header_v1_0, v, "SMC v1.0");
		(void)v;
		return 0;
	}
	if (h->header_version_major != 2 || h->header_version_minor > 1)
		return unknown_version(r);
	if (h->header_version_minor == 0) {
		READ(r, struct smc_firmware_header_v2_0, v, "SMC v2.0");
		return range(r, "PPTABLE", 0, "ppt_offset_bytes", v.ppt_offset_bytes,
			     "ppt_size_bytes", v.ppt_size_bytes, true);
	}
	READ(r, struct smc_firmware_header_v2_1, v, "SMC v2.1");
	if (v.pptable_count > AMD_FW_PIECES - 1)
		return bad(r, "pptable_count %u is more than %d", v.pptable_count, AMD_FW_PIECES - 1);
	ret = range(r, "pptable entries", 0, "pptable_entry_offset",
		    v.pptable_entry_offset, "12 × pptable_count",
		    12ull * v.pptable_count, false);
	for (uint32_t i = 0; ret == 0 && i < v.pptable_count; i++) {
		struct smc_soft_pptable_entry e;

		memcpy(&e, r->b + v.pptable_entry_offset + 12 * i, sizeof(e));
		ret = range(r, "PPTABLE", e.id, "ppt_offset_bytes",
			    e.ppt_offset_bytes, "ppt_size_bytes", e.ppt_size_bytes,
			    true);
	}
	return ret;
}

/* A jump table of jt_size dwords at jt_offset dwords inside an image. */
static int
jump_table(struct reader *r, const char *image, uint64_t image_bytes,
	   uint32_t jt_offset, uint32_t jt_size)
{
	if (4ull * jt_offset + 4ull * jt_size > image_bytes)
		return bad(r, "the jump table (jt_offset 0x%x + "
				"jt_size 0x%x dwords) ends past the %s (0x%llx "
				"bytes)", jt_offset, jt_size, image,
				(unsigned long long)image_bytes);
	return 0;
}

static int
parse_sdma(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;
	int ret;

	switch (h->header_version_major * 100 + h->header_version_minor) {
	case 100: case 101: {
		READ(r, struct sdma_firmware_header_v1_0, v, "SDMA v1.0");
		return jump_table(r, "ucode", h->ucode_size_bytes, v.jt_offset,
				  v.jt_size);
	}
	case 200: {
		READ(r, struct sdma_firmware_header_v2_0, v, "SDMA v2.0");
		ret = range(r, "TH0", 0, "ucode_array_offset_bytes",
			    h->ucode_array_offset_bytes, "ctx_ucode_size_bytes",
			    v.ctx_ucode_size_bytes, true);
		if (ret == 0)
			ret = range(r, "TH1", 0, "ctl_ucode_offset", v.ctl_ucode_offset,
				    "ctl_ucode_size_bytes", v.ctl_ucode_size_bytes,
				    true);
		if (ret == 0)
			ret = jump_table(r, "TH0 ucode", v.ctx_ucode_size_bytes,
					 v.ctx_jt_offset, v.ctx_jt_size);
		if (ret == 0)
			ret = jump_table(r, "TH1 ucode", v.ctl_ucode_size_bytes,
					 v.ctl_jt_offset, v.ctl_jt_size);
		return ret;
	}
	case 300: {
		READ(r, struct sdma_firmware_header_v3_0, v, "SDMA v3.0");
		return range(r, "TH0", 0, "ucode_offset_bytes", v.ucode_offset_bytes,
			     "ucode_size_bytes", v.ucode_size_bytes, true);
	}
	}
	return unknown_version(r);
}

static int
parse_gfx(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;
	int ret;

	if (h->header_version_major == 1 && h->header_version_minor == 0) {
		READ(r, struct gfx_firmware_header_v1_0, v, "GFX v1.0");
		return jump_table(r, "ucode", h->ucode_size_bytes, v.jt_offset,
				  v.jt_size);
	}
	if (h->header_version_major != 2 || h->header_version_minor != 0)
		return unknown_version(r);
	READ(r, struct gfx_firmware_header_v2_0, v, "GFX v2.0");
	r->out->start_addr = (uint64_t)v.ucode_start_addr_hi << 32 |
			     v.ucode_start_addr_lo;
	ret = range(r, "RS64 instructions", 0, "ucode_offset_bytes",
		    v.ucode_offset_bytes, "ucode_size_bytes", v.ucode_size_bytes,
		    true);
	if (ret == 0)
		ret = range(r, "RS64 data", 0, "data_offset_bytes",
			    v.data_offset_bytes, "data_size_bytes",
			    v.data_size_bytes, true);
	return ret;
}

#define RLC_RANGE(r, what, f, field) \
	range(r, what, 0, #field "_offset_bytes", (f).field##_offset_bytes, \
	      #field "_size_bytes", (f).field##_size_bytes, true)

static int
parse_rlc(struct reader *r)
{
	static const size_t sizes[] = {
		sizeof(struct rlc_firmware_header_v2_0),
		sizeof(struct rlc_firmware_header_v2_1),
		sizeof(struct rlc_firmware_header_v2_2),
		sizeof(struct rlc_firmware_header_v2_3),
		sizeof(struct rlc_firmware_header_v2_4),
	};
	static const char *const names[] = {
		"RLC v2.0", "RLC v2.1", "RLC v2.2", "RLC v2.3", "RLC v2.4" };
	const struct common_firmware_header *h = &r->out->header;
	unsigned minor = h->header_version_minor;
	struct rlc_firmware_header_v2_4 v;
	int ret;

	if (h->header_version_major != 2 || minor > 4)
		return unknown_version(r);
	if ((ret = header_fits(r, sizes[minor], names[minor])) < 0)
		return ret;
	memset(&v, 0, sizeof(v));
	memcpy(&v, r->b, sizes[minor]);
	{
		const struct rlc_firmware_header_v2_0 *a = &v.v2_3.v2_2.v2_1.v2_0;

		ret = range(r, "register list format", 0,
			    "reg_list_format_array_offset_bytes",
			    a->reg_list_format_array_offset_bytes,
			    "reg_list_format_size_bytes",
			    a->reg_list_format_size_bytes, false);
		if (ret == 0)
			ret = range(r, "register list", 0,
				    "reg_list_array_offset_bytes",
				    a->reg_list_array_offset_bytes,
				    "reg_list_size_bytes", a->reg_list_size_bytes,
				    false);
		if (ret == 0)
			ret = range(r, "separate register list format", 0,
				    "reg_list_format_separate_array_offset_bytes",
				    a->reg_list_format_separate_array_offset_bytes,
				    "reg_list_format_separate_size_bytes",
				    a->reg_list_format_separate_size_bytes, false);
		if (ret == 0)
			ret = range(r, "separate register list", 0,
				    "reg_list_separate_array_offset_bytes",
				    a->reg_list_separate_array_offset_bytes,
				    "reg_list_separate_size_bytes",
				    a->reg_list_separate_size_bytes, false);
	}
	if (ret == 0 && minor >= 1) {
		const struct rlc_firmware_header_v2_1 *b = &v.v2_3.v2_2.v2_1;

		ret = RLC_RANGE(r, "RLC_RESTORE_LIST_CNTL", *b, save_restore_list_cntl);
		if (ret == 0)
			ret = RLC_RANGE(r, "RLC_RESTORE_LIST_GPM_MEM", *b,
					save_restore_list_gpm);
		if (ret == 0)
			ret = RLC_RANGE(r, "RLC_RESTORE_LIST_SRM_MEM", *b,
					save_restore_list_srm);
	}
	if (ret == 0 && minor >= 2) {
		ret = RLC_RANGE(r, "RLC_IRAM", v.v2_3.v2_2, rlc_iram_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "RLC_DRAM_BOOT", v.v2_3.v2_2, rlc_dram_ucode);
	}
	if (ret == 0 && minor >= 3) {
		ret = RLC_RANGE(r, "RLC_P", v.v2_3, rlcp_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "RLC_V", v.v2_3, rlcv_ucode);
	}
	if (ret == 0 && minor >= 4) {
		ret = RLC_RANGE(r, "global tap delays", v, global_tap_delays_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "SE0 tap delays", v, se0_tap_delays_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "SE1 tap delays", v, se1_tap_delays_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "SE2 tap delays", v, se2_tap_delays_ucode);
		if (ret == 0)
			ret = RLC_RANGE(r, "SE3 tap delays", v, se3_tap_delays_ucode);
	}
	return ret;
}

static int
parse_imu(struct reader *r)
{
	const struct common_firmware_header *h = &r->out->header;
	uint64_t base = h->ucode_array_offset_bytes;
	int ret;

	if (h->header_version_major != 1 || h->header_version_minor != 0)
		return unknown_version(r);
	READ(r, struct imu_firmware_header_v1_0, v, "IMU v1.0");
	ret = range(r, "IMU_I", 0, "ucode_array_offset_bytes + "
		    "imu_iram_ucode_offset_bytes", base + v.imu_iram_ucode_offset_bytes,
		    "imu_iram_ucode_size_bytes", v.imu_iram_ucode_size_bytes, true);
	if (ret == 0)
		ret = range(r, "IMU_D", 0, "ucode_array_offset_bytes + "
			    "imu_dram_ucode_offset_bytes",
			    base + v.imu_dram_ucode_offset_bytes,
			    "imu_dram_ucode_size_bytes",
			    v.imu_dram_ucode_size_bytes, true);
	return ret;
}

static int
parse_common(struct reader *r)
{
	struct common_firmware_header *h = &r->out->header;

	if (r->len < sizeof(*h))
		return bad(r, "%zu bytes, shorter than the common "
				"header (32)", r->len);
	memcpy(h, r->b, sizeof(*h));
	if (h->size_bytes != r->len)
		return bad(r, "size_bytes 0x%x is not the file's "
				"size 0x%zx", h->size_bytes, r->len);
	if (h->header_size_bytes > h->ucode_array_offset_bytes)
		return bad(r, "header_size_bytes 0x%x runs past "
				"ucode_array_offset_bytes 0x%x",
				h->header_size_bytes, h->ucode_array_offset_bytes);
	return range(r, "ucode", 0, "ucode_array_offset_bytes",
		     h->ucode_array_offset_bytes, "ucode_size_bytes",
		     h->ucode_size_bytes, false);
}

int
amd_fw_parse(const char *name, enum amd_fw_kind kind, const uint8_t *bytes,
	     size_t len, struct amd_fw *out)
{
	static int (*const parsers[])(struct reader *) = {
		[AMD_FW_PSP_SOS] = parse_psp, [AMD_FW_SMC] = parse_smc,
		[AMD_FW_SDMA] = parse_sdma, [AMD_FW_GFX] = parse_gfx,
		[AMD_FW_RLC] = parse_rlc, [AMD_FW_IMU] = parse_imu,
	};
	struct amd_fw f;
	struct reader r = { .name = name, .b = bytes, .len = len, .out = &f };
	int ret;

	if (kind < AMD_FW_PSP_SOS || kind > AMD_FW_IMU)
		return amd_fail(-EINVAL, "%s: unknown image kind %d", name, (int)kind);
	memset(&f, 0, sizeof(f));
	f.kind = kind;
	ret = parse_common(&r);
	if (ret == 0)
		ret = parsers[kind](&r);
	if (ret < 0)
		return amd_fail(ret, "%s", r.why);
	/* Formats whose main image is the ucode window list it first. */
	if (f.npieces == 0 || kind == AMD_FW_RLC || kind == AMD_FW_SMC ||
	    (kind == AMD_FW_GFX && f.header.header_version_major == 1) ||
	    (kind == AMD_FW_SDMA && f.header.header_version_major == 1)) {
		if (f.header.ucode_size_bytes) {
			if (f.npieces == AMD_FW_PIECES)
				return amd_fail(-EBADMSG, "%s: more than %d pieces",
						name, AMD_FW_PIECES);
			memmove(&f.pieces[1], &f.pieces[0],
				f.npieces * sizeof(f.pieces[0]));
			f.pieces[0] = (struct amd_fw_piece){ .what = "ucode",
				.offset = f.header.ucode_array_offset_bytes,
				.bytes = f.header.ucode_size_bytes };
			f.npieces++;
		}
	}
	if (f.npieces == 0)
		return amd_fail(-EBADMSG, "%s: no image in it", name);
	*out = f;
	return 0;
}
