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
 *
 * GC 9.4.3 (§3.3) loads other pieces: the SMU file's P2S pptable (§1.3,
 * id "XS2P"), SDMA v1's whole ucode once per engine as SDMA0..3 (§1.4),
 * the F32 MEC's code and its jump table as CP_MEC and CP_MEC_ME1 (§1.5),
 * the RLC's v2.1 lists and RLC_G, then REG_LIST, the sOS image's PSP_RL
 * (§3.8: in place of AUTOLOAD_RLC). No IMU, no SMU image, no start
 * address (an F32 MEC runs once CP_MEC_CNTL is 0, gfx.c).
 */
#include <errno.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

/* psp_gfx_fw_type (amd-facts §1.10) */
enum {
	FW_CP_MEC = 4, FW_CP_MEC_ME1 = 5, FW_SDMA0 = 9, FW_SDMA1 = 10, FW_SDMA2 = 52,
	FW_SDMA3 = 53, FW_REG_LIST = 67, FW_P2S_TABLE = 129,
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

/* The image of set whose name starts with head and ends with tail,
 * parsed; NULL if none. */
static const struct amd_found *
named(struct amd_boot *b, const char *head, const char *tail, struct amd_fw *fw,
      const char **name)
{
	for (size_t n = 0; n < b->set->nimages; n++) {
		const struct amd_pin *p = b->set->images[n];

		if (strncmp(p->name, head, strlen(head)) || !ends_with(p->name, tail))
			continue;
		if (amd_fw_parse(p->name, amd_fw_kind_of(p->name), b->images[n].bytes,
				 b->images[n].len, fw) < 0)
			return NULL;
		*name = p->name;
		return &b->images[n];
	}
	return NULL;
}

static const struct amd_found *
image(struct amd_boot *b, const char *tail, struct amd_fw *fw, const char **name)
{
	return named(b, "", tail, fw, name);
}

/* The P2S pptable's id, "XS2P" (§1.3), and the sOS's PSP_RL (§1.2). */
#define P2S_ID	0x50325358u
#define PSP_RL	6

/* The piece of fw with id id (and of kind what, unless NULL); NULL if
 * none. */
static const struct amd_fw_piece *
piece_of(const struct amd_fw *fw, const char *what, uint32_t id)
{
	for (size_t i = 0; i < fw->npieces; i++)
		if (fw->pieces[i].id == id && (!what || !strcmp(fw->pieces[i].what, what)))
			return &fw->pieces[i];
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

/* The RLC's pieces its header minor carries (§1.7), RLC_G last. */
static int
rlc_pieces(struct amd_boot *b, struct list *l)
{
	const struct amd_found *f;
	const char *name;
	struct amd_fw fw;
	int ret = 0;

	if ((f = image(b, "_rlc.bin", &fw, &name))) {
		unsigned minor = fw.header.header_version_minor;

		if (minor == 1) {
			ret = add_named(b, l, name, f, &fw, "RLC_RESTORE_LIST_CNTL",
					FW_RLC_CNTL, false);
			if (ret == 0)
				ret = add_named(b, l, name, f, &fw,
						"RLC_RESTORE_LIST_GPM_MEM", FW_RLC_GPM, false);
			if (ret == 0)
				ret = add_named(b, l, name, f, &fw,
						"RLC_RESTORE_LIST_SRM_MEM", FW_RLC_SRM, false);
		}
		if (ret == 0 && minor >= 2) {
			ret = add_named(b, l, name, f, &fw, "RLC_IRAM", FW_RLC_IRAM, true);
			if (ret == 0)
				ret = add_named(b, l, name, f, &fw, "RLC_DRAM_BOOT",
						FW_RLC_DRAM, true);
		}
		if (ret == 0 && minor == 3) {
			ret = add_named(b, l, name, f, &fw, "RLC_P", FW_RLC_P, true);
			if (ret == 0)
				ret = add_named(b, l, name, f, &fw, "RLC_V", FW_RLC_V, true);
		}
		if (ret == 0)
			ret = add(b, l, name, f, "RLC_G", FW_RLC_G,
				  fw.header.ucode_array_offset_bytes,
				  fw.header.ucode_size_bytes);
	}
	return ret;
}

/* GC 9.4.3's pieces (§3.3), REG_LIST last. */
static int
pieces_gc9(struct amd_boot *b, struct list *l)
{
	static const uint32_t sdma[4] = { FW_SDMA0, FW_SDMA1, FW_SDMA2, FW_SDMA3 };
	static const char *const sdma_what[4] = { "ucode as SDMA0", "ucode as SDMA1",
						  "ucode as SDMA2", "ucode as SDMA3" };
	const struct gfx_firmware_header_v1_0 *mec;
	const struct amd_fw_piece *p = NULL;
	const struct amd_found *f;
	const char *name;
	struct amd_fw fw;
	uint64_t code;
	int ret;

	/* The P2S table: the pptable entry "XS2P" (§1.3). */
	if ((f = named(b, "smu_", ".bin", &fw, &name)))
		p = piece_of(&fw, "PPTABLE", P2S_ID);
	if (!p)
		return amd_boot_fail(b, -EBADMSG, "the SMU image has no P2S table "
				     "(pptable 0x%x)", P2S_ID);
	if ((ret = add(b, l, name, f, "P2S table", FW_P2S_TABLE, p->offset, p->bytes)) < 0)
		return ret;
	if (!(f = named(b, "sdma_", ".bin", &fw, &name)) || fw.header.header_version_major != 1)
		return amd_boot_fail(b, -EBADMSG, "no SDMA v1 image among the images");
	for (int k = 0; k < 4; k++)
		if ((ret = add(b, l, name, f, sdma_what[k], sdma[k],
			       fw.header.ucode_array_offset_bytes,
			       fw.header.ucode_size_bytes)) < 0)
			return ret;
	/* The F32 MEC: code, then its jump table (format.c checked both lie
	 * in the ucode). */
	if (!(f = image(b, "_mec.bin", &fw, &name)) || fw.header.header_version_major != 1)
		return amd_boot_fail(b, -EBADMSG, "no GFX v1 MEC image among the images");
	mec = (const void *)f->bytes;
	code = fw.header.ucode_size_bytes - 4ull * mec->jt_size;
	if ((ret = add(b, l, name, f, "CP_MEC", FW_CP_MEC,
		       fw.header.ucode_array_offset_bytes, code)) < 0 ||
	    (ret = add(b, l, name, f, "jump table", FW_CP_MEC_ME1,
		       fw.header.ucode_array_offset_bytes + 4ull * mec->jt_offset,
		       4ull * mec->jt_size)) < 0 ||
	    (ret = rlc_pieces(b, l)) < 0)
		return ret;
	/* The PSP_RL of the primary set, the only one format.c lists. */
	p = (f = image(b, "_sos.bin", &fw, &name)) ? piece_of(&fw, NULL, PSP_RL) : NULL;
	if (!p)
		return amd_boot_fail(b, -EBADMSG, "the sOS image has no PSP_RL component "
				     "for REG_LIST");
	return add(b, l, name, f, "PSP_RL as REG_LIST", FW_REG_LIST, p->offset, p->bytes);
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

	if (b->d->gc_major == 9) {
		ret = pieces_gc9(b, &l);
		return ret < 0 ? ret : (int)l.n;
	}

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
	if (ret == 0)
		ret = rlc_pieces(b, &l);
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
