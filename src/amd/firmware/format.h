/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/: the images the boot loads. format.c reads and checks each
 * header format of amd-facts §1 (layouts of linux amdgpu_ucode.h, names
 * kept); pins.c holds the pin table (image, BLAKE2b-256 digest, per GC
 * version); search.c finds a pinned image in the search directories;
 * install.c is `rig firmware amd`.
 *
 * This header: the on-disk layouts (little-endian, every size asserted)
 * and a parsed image, the pieces the boot hands the security processor.
 */
#ifndef AMD_FIRMWARE_FORMAT_H
#define AMD_FIRMWARE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "firmware headers are read in place: little-endian hosts only");

/* amd-facts §1.1 */
struct common_firmware_header {
	uint32_t size_bytes;
	uint32_t header_size_bytes;
	uint16_t header_version_major;
	uint16_t header_version_minor;
	uint16_t ip_version_major;
	uint16_t ip_version_minor;
	uint32_t ucode_version;
	uint32_t ucode_size_bytes;
	uint32_t ucode_array_offset_bytes;
	uint32_t crc32;		/* not a check (amd-facts §1.8) */
};
_Static_assert(sizeof(struct common_firmware_header) == 32, "§1.1");

/* amd-facts §1.2 */
struct psp_fw_bin_desc {
	uint32_t fw_type;
	uint32_t fw_version;
	uint32_t offset_bytes;	/* from ucode_array_offset_bytes */
	uint32_t size_bytes;
};
_Static_assert(sizeof(struct psp_fw_bin_desc) == 16, "§1.2");

struct psp_firmware_header_v2_0 {
	struct common_firmware_header header;
	uint32_t psp_fw_bin_count;
	/* struct psp_fw_bin_desc psp_fw_bin[] at 0x24 */
};
_Static_assert(sizeof(struct psp_firmware_header_v2_0) == 0x24, "§1.2");

struct psp_firmware_header_v2_1 {
	struct common_firmware_header header;
	uint32_t psp_fw_bin_count;
	uint32_t psp_aux_fw_bin_index;
	/* struct psp_fw_bin_desc psp_fw_bin[] at 0x28 */
};
_Static_assert(sizeof(struct psp_firmware_header_v2_1) == 0x28, "§1.2");

enum psp_fw_type {
	PSP_FW_TYPE_PSP_SOS = 1,
	PSP_FW_TYPE_PSP_SYS_DRV = 2,
};

/* amd-facts §1.3 */
struct smc_firmware_header_v1_0 {
	struct common_firmware_header header;
	uint32_t ucode_start_addr;
};
_Static_assert(sizeof(struct smc_firmware_header_v1_0) == 0x24, "§1.3");

struct smc_firmware_header_v2_0 {
	struct smc_firmware_header_v1_0 v1_0;
	uint32_t ppt_offset_bytes;	/* from the file's start */
	uint32_t ppt_size_bytes;
};
_Static_assert(sizeof(struct smc_firmware_header_v2_0) == 0x2c, "§1.3");

struct smc_soft_pptable_entry {
	uint32_t id;
	uint32_t ppt_offset_bytes;	/* from the file's start */
	uint32_t ppt_size_bytes;
};
_Static_assert(sizeof(struct smc_soft_pptable_entry) == 12, "§1.3");

struct smc_firmware_header_v2_1 {
	struct smc_firmware_header_v1_0 v1_0;
	uint32_t pptable_count;
	uint32_t pptable_entry_offset;	/* from the file's start */
};
_Static_assert(sizeof(struct smc_firmware_header_v2_1) == 0x2c, "§1.3");

/* amd-facts §1.4 */
struct sdma_firmware_header_v1_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t ucode_change_version;
	uint32_t jt_offset;		/* dwords, from the ucode */
	uint32_t jt_size;		/* dwords */
};
_Static_assert(sizeof(struct sdma_firmware_header_v1_0) == 0x30, "§1.4");

struct sdma_firmware_header_v2_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t ctx_ucode_size_bytes;	/* TH0, at ucode_array_offset_bytes */
	uint32_t ctx_jt_offset;		/* dwords, from TH0 */
	uint32_t ctx_jt_size;
	uint32_t ctl_ucode_offset;	/* TH1, from the file's start */
	uint32_t ctl_ucode_size_bytes;
	uint32_t ctl_jt_offset;		/* dwords, from TH1 */
	uint32_t ctl_jt_size;
};
_Static_assert(sizeof(struct sdma_firmware_header_v2_0) == 0x40, "§1.4");

struct sdma_firmware_header_v3_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t ucode_offset_bytes;	/* from the file's start */
	uint32_t ucode_size_bytes;
};
_Static_assert(sizeof(struct sdma_firmware_header_v3_0) == 0x2c, "§1.4");

/* amd-facts §1.5 */
struct gfx_firmware_header_v1_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t jt_offset;		/* dwords, from the ucode */
	uint32_t jt_size;		/* dwords */
};
_Static_assert(sizeof(struct gfx_firmware_header_v1_0) == 0x2c, "§1.5");

struct gfx_firmware_header_v2_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t ucode_size_bytes;	/* RS64 instructions */
	uint32_t ucode_offset_bytes;	/* from the file's start */
	uint32_t data_size_bytes;	/* RS64 data/stack */
	uint32_t data_offset_bytes;
	uint32_t ucode_start_addr_lo;
	uint32_t ucode_start_addr_hi;
};
_Static_assert(sizeof(struct gfx_firmware_header_v2_0) == 0x3c, "§1.5");

/* amd-facts §1.7: every *_offset_bytes is from the file's start. */
struct rlc_firmware_header_v2_0 {
	struct common_firmware_header header;
	uint32_t ucode_feature_version;
	uint32_t jt_offset;
	uint32_t jt_size;
	uint32_t save_and_restore_offset;
	uint32_t clear_state_descriptor_offset;
	uint32_t avail_scratch_ram_locations;
	uint32_t reg_restore_list_size;
	uint32_t reg_list_format_start;
	uint32_t reg_list_format_separate_start;
	uint32_t starting_offsets_start;
	uint32_t reg_list_format_size_bytes;
	uint32_t reg_list_format_array_offset_bytes;
	uint32_t reg_list_size_bytes;
	uint32_t reg_list_array_offset_bytes;
	uint32_t reg_list_format_separate_size_bytes;
	uint32_t reg_list_format_separate_array_offset_bytes;
	uint32_t reg_list_separate_size_bytes;
	uint32_t reg_list_separate_array_offset_bytes;
};
_Static_assert(sizeof(struct rlc_firmware_header_v2_0) == 0x68, "§1.7");

struct rlc_firmware_header_v2_1 {
	struct rlc_firmware_header_v2_0 v2_0;
	uint32_t reg_list_format_direct_reg_list_length;
	uint32_t save_restore_list_cntl_ucode_ver;
	uint32_t save_restore_list_cntl_feature_ver;
	uint32_t save_restore_list_cntl_size_bytes;
	uint32_t save_restore_list_cntl_offset_bytes;
	uint32_t save_restore_list_gpm_ucode_ver;
	uint32_t save_restore_list_gpm_feature_ver;
	uint32_t save_restore_list_gpm_size_bytes;
	uint32_t save_restore_list_gpm_offset_bytes;
	uint32_t save_restore_list_srm_ucode_ver;
	uint32_t save_restore_list_srm_feature_ver;
	uint32_t save_restore_list_srm_size_bytes;
	uint32_t save_restore_list_srm_offset_bytes;
};
_Static_assert(sizeof(struct rlc_firmware_header_v2_1) == 0x9c, "§1.7");

struct rlc_firmware_header_v2_2 {
	struct rlc_firmware_header_v2_1 v2_1;
	uint32_t rlc_iram_ucode_size_bytes;
	uint32_t rlc_iram_ucode_offset_bytes;
	uint32_t rlc_dram_ucode_size_bytes;
	uint32_t rlc_dram_ucode_offset_bytes;
};
_Static_assert(sizeof(struct rlc_firmware_header_v2_2) == 0xac, "§1.7");

struct rlc_firmware_header_v2_3 {
	struct rlc_firmware_header_v2_2 v2_2;
	uint32_t rlcp_ucode_version;
	uint32_t rlcp_ucode_feature_version;
	uint32_t rlcp_ucode_size_bytes;
	uint32_t rlcp_ucode_offset_bytes;
	uint32_t rlcv_ucode_version;
	uint32_t rlcv_ucode_feature_version;
	uint32_t rlcv_ucode_size_bytes;
	uint32_t rlcv_ucode_offset_bytes;
};
_Static_assert(sizeof(struct rlc_firmware_header_v2_3) == 0xcc, "§1.7");

struct rlc_firmware_header_v2_4 {
	struct rlc_firmware_header_v2_3 v2_3;
	uint32_t global_tap_delays_ucode_size_bytes;
	uint32_t global_tap_delays_ucode_offset_bytes;
	uint32_t se0_tap_delays_ucode_size_bytes;
	uint32_t se0_tap_delays_ucode_offset_bytes;
	uint32_t se1_tap_delays_ucode_size_bytes;
	uint32_t se1_tap_delays_ucode_offset_bytes;
	uint32_t se2_tap_delays_ucode_size_bytes;
	uint32_t se2_tap_delays_ucode_offset_bytes;
	uint32_t se3_tap_delays_ucode_size_bytes;
	uint32_t se3_tap_delays_ucode_offset_bytes;
};
_Static_assert(sizeof(struct rlc_firmware_header_v2_4) == 0xf4, "§1.7");

/* IMU offsets are from ucode_array_offset_bytes (amd-facts §1.7). */
struct imu_firmware_header_v1_0 {
	struct common_firmware_header header;
	uint32_t imu_iram_ucode_size_bytes;
	uint32_t imu_iram_ucode_offset_bytes;
	uint32_t imu_dram_ucode_size_bytes;
	uint32_t imu_dram_ucode_offset_bytes;
};
_Static_assert(sizeof(struct imu_firmware_header_v1_0) == 0x30, "§1.7");

/* The header area every image reserves (union amdgpu_firmware_header). */
#define AMD_FW_HEADER_AREA	0x100

/* Which format an image is read as: by the block it is for. */
enum amd_fw_kind {
	AMD_FW_PSP_SOS = 1,
	AMD_FW_SMC,
	AMD_FW_SDMA,
	AMD_FW_GFX,		/* pfp, me, mec */
	AMD_FW_RLC,
	AMD_FW_IMU,
};

/* A piece of an image the boot loads: [offset, offset + bytes) of the file. */
struct amd_fw_piece {
	const char *what;	/* "RS64 instructions", "SOS", "TH0", ... */
	uint32_t id;		/* PSP fw_type or pptable id where the format has one */
	uint64_t offset;
	uint64_t bytes;
};

#define AMD_FW_PIECES 24

struct amd_fw {
	enum amd_fw_kind kind;
	struct common_firmware_header header;
	uint64_t start_addr;		/* RS64 start PC (GFX v2.0), else 0 */
	size_t npieces;
	struct amd_fw_piece pieces[AMD_FW_PIECES];
};

/* The kind of an image by its name (psp_*_sos, smu_*, sdma_*, gc_*_{pfp,me,mec,rlc,imu}), or 0. */
enum amd_fw_kind amd_fw_kind_of(const char *name);

/*
 * amd_fw_parse() - check that bytes[0, len) is laid out as its format says
 * (every offset and size inside the file, size_bytes equal to its size,
 * header versions this file reads) and list its pieces. name names the
 * image in messages. Returns 0, or -EBADMSG with amd_why() naming the image
 * and the field.
 */
int amd_fw_parse(const char *name, enum amd_fw_kind kind, const uint8_t *bytes,
		 size_t len, struct amd_fw *out);

#endif
