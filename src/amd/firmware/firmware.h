/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/firmware.h: the pin table (pins.c), the search for a pinned
 * image (search.c) and its installation (install.c). Formats: format.h.
 */
#ifndef AMD_FIRMWARE_FIRMWARE_H
#define AMD_FIRMWARE_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

#include "amd/firmware/format.h"

/* The release every pin comes from (docs/amd.md). */
#define AMD_FW_RELEASE "linux-firmware 20250410"

#define AMD_DIGEST_BYTES 32	/* BLAKE2b-256 */

/* An image pinned by its name, size and BLAKE2b-256 digest (hex). */
struct amd_pin {
	const char *name;
	uint64_t bytes;
	const char *digest;
};

/* An IP block's version as the discovery table gives it. */
struct amd_version {
	uint8_t major, minor, rev;
};

/*
 * A GC version rig boots: the versions of the blocks that come with it
 * (amd-facts §0.2) and its images, in the order the boot loads them. A GC
 * with no image in the pinned release has nimages 0.
 */
struct amd_gc_set {
	struct amd_version gc, sdma, mp0, mp1;
	const struct amd_pin *const *images;
	size_t nimages;
};

/* pins.c: the set of GC version v, or NULL for one rig does not boot. */
const struct amd_gc_set *amd_gc_set_of(struct amd_version v);
/* pins.c: every GC version rig boots, and every pinned image. */
const struct amd_gc_set *amd_gc_sets(size_t *n);
const struct amd_pin *amd_pins(size_t *n);

/* Hex of a BLAKE2b-256 digest of bytes into hex[65]. */
void amd_digest_hex(const uint8_t *bytes, size_t len, char hex[65]);

/* The directories an open searches, in order (docs/amd.md). */
#define AMD_SEARCH_DIRS 16
struct amd_search {
	char dirs[AMD_SEARCH_DIRS][256];
	int ndirs;
};

/*
 * amd_fw_search_dirs() - the given directories (NULL-ended, may be NULL),
 * rig's firmware directory, root's home when run as root, then
 * root/lib/firmware/amdgpu. Returns 0, or -EINVAL (amd_fail) for too many
 * or too long directories.
 */
int amd_fw_search_dirs(const char *root, const char *const *given,
		       struct amd_search *out);

/* A pinned image found: its path and its bytes (malloc'd). */
struct amd_found {
	char path[512];
	uint8_t *bytes;
	size_t len;
};

/*
 * amd_fw_find() - the first directory holding pin->name with its digest.
 * Returns 0 with *out filled (free out->bytes), or -ENOENT with amd_why()
 * naming the image, the directories searched and the files of another
 * digest, or -ENOMEM.
 */
int amd_fw_find(const struct amd_search *s, const struct amd_pin *pin,
		struct amd_found *out);

#endif
