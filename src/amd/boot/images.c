/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/images.c: what of the pinned images the PSP loads, in the
 * order the boot sends it (amd-facts §3.3): the SMU's firmware, SDMA's
 * threads (TH1 then TH0), the RS64 instructions and stacks of PFP and ME
 * (GC 12) and MEC, the IMU's IRAM and DRAM, then the RLC's pieces its
 * header minor carries (§1.7: the restore lists for v2.1 only, IRAM and
 * DRAM_BOOT from v2.2, RLC_P and RLC_V for v2.3) and RLC_G last. The
 * layouts come from amd/firmware/format.c, which the open already ran
 * on the same bytes; the PSP types are §1.10's.
 */
#include <errno.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

/* psp_gfx_fw_type (amd-facts §1.10) */
enum {
	FW_RLC_V = 7, FW_RLC_G = 8, FW_SMU = 18, FW_RLC_GPM = 20, FW_RLC_SRM = 21,
	FW_RLC_CNTL = 22, FW_RLC_P = 25, FW_RLC_IRAM = 26, FW_RLC_DRAM = 48,
	FW_IMU_I = 68, FW_IMU_D = 69, FW_SDMA_TH0 = 71, FW_SDMA_TH1 = 72,
	FW_RS64_PFP = 87, FW_RS64_ME = 88, FW_RS64_MEC = 89,
	FW_PFP_STACK = 90, FW_ME_STACK = 92, FW_MEC_STACK = 94,
};

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The image of set whose name ends with tail, parsed; NULL if none. */
static const struct amd_found *
image(struct amd_boot *b, const char *tail, struct amd_fw *fw, const char **name)
{
	for (size_t n = 0; n < b->set->nimages; n++) {
		const struct amd_pin *p = b->set->images[n];

		if (!ends_with(p->name, tail))
			continue;
		if (amd_fw_parse(p->name, amd_fw_kind_of(p->name), b->images[n].bytes,
				 b->images[n].len, fw) < 0)
			return NULL;
		*name = p->name;
		return &b->images[n];
	}
	return NULL;
}

struct list {
	struct amd_boot_piece *out;
	size_t cap, n;
};

static int
add(struct amd_boot *b, struct list *l, const char *name, const struct amd_found *f,
    const char *what, uint32_t type, uint64_t off, uint64_t len)
{
	if (l->n == l->cap)
		return amd_boot_fail(b, -E2BIG, "more than %zu firmware pieces", l->cap);
	l->out[l->n++] = (struct amd_boot_piece){ name, what, type, f->bytes + off, len };
	return 0;
}

static const struct amd_fw_piece *
piece(const struct amd_fw *fw, const char *what)
{
	for (size_t i = 0; i < fw->npieces; i++)
		if (!strcmp(fw->pieces[i].what, what))
			return &fw->pieces[i];
	return NULL;
}

/* Each named piece of fw, where present, as type. */
static int
add_named(struct amd_boot *b, struct list *l, const char *name,
	  const struct amd_found *f, const struct amd_fw *fw, const char *what,
	  uint32_t type, bool required)
{
	const struct amd_fw_piece *p = piece(fw, what);

	if (!p || p->bytes == 0)
		return required ? amd_boot_fail(b, -EBADMSG, "%s has no %s", name, what) : 0;
	return add(b, l, name, f, what, type, p->offset, p->bytes);
}

int
amd_boot_pieces(struct amd_boot *b, struct amd_boot_piece *out, size_t cap)
{
	static const struct { const char *tail; uint32_t code, stack; } cp[] = {
		{ "_pfp.bin", FW_RS64_PFP, FW_PFP_STACK },
		{ "_me.bin", FW_RS64_ME, FW_ME_STACK },
		{ "_mec.bin", FW_RS64_MEC, FW_MEC_STACK },
	};
	struct list l = { out, cap, 0 };
	const struct amd_found *f;
	const char *name;
	struct amd_fw fw;
	int ret = 0;

	/* SMU: the common header's ucode region (GC >= 11). */
	for (size_t n = 0; n < b->set->nimages && ret == 0; n++)
		if (!strncmp(b->set->images[n]->name, "smu_", 4)) {
			const struct common_firmware_header *h =
				(const void *)b->images[n].bytes;

			ret = add(b, &l, b->set->images[n]->name, &b->images[n], "SMU",
				  FW_SMU, h->ucode_array_offset_bytes, h->ucode_size_bytes);
		}
	for (size_t n = 0; n < b->set->nimages && ret == 0; n++) {
		const char *nm = b->set->images[n]->name;

		if (strncmp(nm, "sdma_", 5))
			continue;
		if (amd_fw_parse(nm, AMD_FW_SDMA, b->images[n].bytes,
				 b->images[n].len, &fw) < 0)
			return amd_boot_fail(b, -EBADMSG, "%s", amd_cause());
		ret = add_named(b, &l, nm, &b->images[n], &fw, "TH1", FW_SDMA_TH1, false);
		if (ret == 0)
			ret = add_named(b, &l, nm, &b->images[n], &fw, "TH0", FW_SDMA_TH0,
					true);
	}
	for (size_t k = 0; k < 3 && ret == 0; k++) {
		if (!(f = image(b, cp[k].tail, &fw, &name)))
			continue;	/* PFP and ME: GC 12 only */
		if (k == 2)
			b->mec_start = fw.start_addr;
		ret = add_named(b, &l, name, f, &fw, "RS64 instructions", cp[k].code, true);
		if (ret == 0)
			ret = add_named(b, &l, name, f, &fw, "RS64 data", cp[k].stack, true);
	}
	if (ret == 0 && (f = image(b, "_imu.bin", &fw, &name))) {
		ret = add_named(b, &l, name, f, &fw, "IMU_I", FW_IMU_I, true);
		if (ret == 0)
			ret = add_named(b, &l, name, f, &fw, "IMU_D", FW_IMU_D, true);
	}
	if (ret == 0 && (f = image(b, "_rlc.bin", &fw, &name))) {
		unsigned minor = fw.header.header_version_minor;

		if (minor == 1) {
			ret = add_named(b, &l, name, f, &fw, "RLC_RESTORE_LIST_CNTL",
					FW_RLC_CNTL, false);
			if (ret == 0)
				ret = add_named(b, &l, name, f, &fw,
						"RLC_RESTORE_LIST_GPM_MEM", FW_RLC_GPM, false);
			if (ret == 0)
				ret = add_named(b, &l, name, f, &fw,
						"RLC_RESTORE_LIST_SRM_MEM", FW_RLC_SRM, false);
		}
		if (ret == 0 && minor >= 2) {
			ret = add_named(b, &l, name, f, &fw, "RLC_IRAM", FW_RLC_IRAM, true);
			if (ret == 0)
				ret = add_named(b, &l, name, f, &fw, "RLC_DRAM_BOOT",
						FW_RLC_DRAM, true);
		}
		if (ret == 0 && minor == 3) {
			ret = add_named(b, &l, name, f, &fw, "RLC_P", FW_RLC_P, true);
			if (ret == 0)
				ret = add_named(b, &l, name, f, &fw, "RLC_V", FW_RLC_V, true);
		}
		if (ret == 0)
			ret = add(b, &l, name, f, "RLC_G", FW_RLC_G,
				  fw.header.ucode_array_offset_bytes,
				  fw.header.ucode_size_bytes);
	}
	return ret < 0 ? ret : (int)l.n;
}

const uint8_t *
amd_boot_sos_part(struct amd_boot *b, uint32_t fw_type, uint64_t *len)
{
	const struct amd_found *f;
	const char *name;
	struct amd_fw fw;

	*len = 0;
	if (!(f = image(b, "_sos.bin", &fw, &name)))
		return NULL;
	for (size_t i = 0; i < fw.npieces; i++)
		if (fw.pieces[i].id == fw_type) {
			*len = fw.pieces[i].bytes;
			return f->bytes + fw.pieces[i].offset;
		}
	return NULL;
}
