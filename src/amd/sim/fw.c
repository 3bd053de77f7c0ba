/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/fw.c: what the sim's security processor expects a driver to
 * load, and in which order: the pinned images of its GC (found as an open
 * finds them, so each file's BLAKE2b-256 digest is the pin's), cut into
 * the pieces amd-facts §1 lays out, read here from the headers by this
 * file's own code (not amd/firmware/format.c's, which the driver uses),
 * in the order of §3.3 (LOAD_IP_FW) and of linux's psp_hw_start (the
 * bootloader's components). psp.c compares what a driver places in VRAM
 * with these bytes, so a driver that sends another image, another piece
 * of it, or the right piece out of order, is refused. The images are read
 * at the first bootloader or ring command, not at the sim's creation: most
 * sims never boot in full.
 *
 * GC 9.4.3 (§3.3): the sOS image's primary components (those before its
 * v2.1 psp_aux_fw_bin_index, §1.2; when the aux set is sent instead is not
 * in the facts: this sim takes the primary set), the SMU file's P2S
 * pptable ("XS2P", §1.3), SDMA v1's ucode as SDMA0..3 (§1.4), the F32
 * MEC's code and jump table (§1.5), the RLC's v2.1 lists and RLC_G, then
 * REG_LIST, the sOS image's PSP_RL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/firmware/firmware.h"
#include "amd/sim/priv.h"

static uint32_t
u32(const struct sim_file *f, uint64_t at)
{
	uint32_t v = 0;

	if (at + 4 <= f->len)
		memcpy(&v, f->bytes + at, 4);
	return v;
}

/* A piece [off, off + len) of f; false if it runs past the file. */
static bool
part(struct sim_fw *w, struct sim_part *list, size_t *n, size_t cap,
     const struct sim_file *f, uint32_t type, uint32_t cmd, uint64_t off,
     uint64_t len, const char *what)
{
	if (len == 0)
		return true;
	if (*n == cap || off + len > f->len) {
		snprintf(w->why, sizeof(w->why), "%s: %s runs past the file", f->name, what);
		return false;
	}
	list[(*n)++] = (struct sim_part){ type, cmd, f->bytes + off, len, f->name, what };
	return true;
}

static bool
sos_parts(struct sim_fw *w, const struct sim_file *f)
{
	/* Linux's bootloader order (enum psp_fw_type, psp_bootloader_cmd). */
	static const struct { uint32_t type, cmd; const char *what; } order[] = {
		{ 3, 0x80000, "KDB" }, { 5, 0x10000000, "SPL" }, { 2, 0x10000, "SYS_DRV" },
		{ 7, 0xB0000, "SOC_DRV" }, { 8, 0xD0000, "INTF_DRV" },
		{ 9, 0xC0000, "DBG_DRV" }, { 10, 0xE0000, "RAS_DRV" },
		{ 11, 0xF0000, "IPKEYMGR_DRV" }, { 1, 0x20000, "SOS" },
	};
	uint32_t uao = u32(f, 0x18), count = u32(f, 0x20);
	bool v21 = u32(f, 0x08) >> 16 == 1;
	uint64_t descs = v21 ? 0x28 : 0x24;
	uint32_t aux = v21 ? u32(f, 0x24) : 0;	/* the aux set's first bin */

	if (aux && aux < count)
		count = aux;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (uint32_t i = 0; i < count && i < 32; i++) {
			uint64_t d = descs + 16 * i;

			if (u32(f, d) != order[k].type)
				continue;
			if (!part(w, w->boot, &w->nboot, SIM_FW_PARTS, f, order[k].type,
				  order[k].cmd, uao + u32(f, d + 8), u32(f, d + 12),
				  order[k].what))
				return false;
			if (order[k].type == 1)
				w->sos_version = u32(f, d + 4);
		}
	for (uint32_t i = 0; i < count && i < 32; i++) {
		uint64_t d = descs + 16 * i;

		if (u32(f, d) == 4 && (uint64_t)uao + u32(f, d + 8) + u32(f, d + 12) <= f->len) {
			w->toc = f->bytes + uao + u32(f, d + 8);
			w->toc_len = u32(f, d + 12);
		}
		if (u32(f, d) == 6 && (uint64_t)uao + u32(f, d + 8) + u32(f, d + 12) <= f->len) {
			w->rl = f->bytes + uao + u32(f, d + 8);
			w->rl_len = u32(f, d + 12);
		}
	}
	return true;
}

#define LOAD(type, off, len, what) \
	part(w, w->load, &w->nload, SIM_FW_PARTS, f, (type), 0, (off), (len), (what))

/* §3.3's LOAD_IP_FW pieces of one image, by its kind. */
static bool
load_parts(struct sim_fw *w, const struct sim_file *f, const char *kind)
{
	uint32_t uao = u32(f, 0x18), size = u32(f, 0x14), major = u32(f, 0x08) & 0xFFFF;
	uint32_t minor = u32(f, 0x08) >> 16;

	if (!strcmp(f->name, "smu_13_0_6.bin")) {
		/* MP1 13.0.6: the P2S pptable (§1.3, SMC v2.1). The entries'
		 * and tables' offsets count from the file's start: read so,
		 * smu_13_0_6.bin's three tables tile the file after the entries. */
		uint32_t n = u32(f, 0x24), at = u32(f, 0x28);

		w->smu_version = u32(f, 0x10);
		for (uint32_t i = 0; i < n && i < 16; i++)
			if (u32(f, at + 12 * i) == 0x50325358u)
				return LOAD(129, u32(f, at + 12 * i + 4), u32(f, at + 12 * i + 8),
					    "P2S table");
		snprintf(w->why, sizeof(w->why), "%s: no P2S pptable", f->name);
		return false;
	}
	if (!strcmp(kind, "smu")) {
		w->smu_version = u32(f, 0x10);
		return LOAD(18, uao, size, "SMU");
	}
	if (!strcmp(kind, "sdma") && major == 1)
		return LOAD(9, uao, size, "SDMA0") && LOAD(10, uao, size, "SDMA1") &&
		       LOAD(52, uao, size, "SDMA2") && LOAD(53, uao, size, "SDMA3");
	if (!strcmp(kind, "mec") && major == 1) {
		uint32_t jt_off = u32(f, 0x24), jt_size = u32(f, 0x28);

		return LOAD(4, uao, size - 4 * jt_size, "CP_MEC") &&
		       LOAD(5, uao + 4 * jt_off, 4 * jt_size, "CP_MEC_ME1");
	}
	if (!strcmp(kind, "sdma")) {
		if (major >= 3)
			return LOAD(71, uao, u32(f, 0x28), "TH0");
		return LOAD(72, u32(f, 0x30), u32(f, 0x34), "TH1") &&
		       LOAD(71, uao, u32(f, 0x24), "TH0");
	}
	if (!strcmp(kind, "pfp") || !strcmp(kind, "me") || !strcmp(kind, "mec")) {
		uint32_t code = kind[1] == 'f' ? 87 : kind[2] == 'c' ? 89 : 88;
		uint32_t stack = kind[1] == 'f' ? 90 : kind[2] == 'c' ? 94 : 92;

		if (code == 89)
			w->mec_start = (uint64_t)u32(f, 0x38) << 32 | u32(f, 0x34);
		return LOAD(code, u32(f, 0x28), u32(f, 0x24), "RS64 instructions") &&
		       LOAD(stack, u32(f, 0x30), u32(f, 0x2c), "RS64 data");
	}
	if (!strcmp(kind, "imu"))
		return LOAD(68, uao + u32(f, 0x24), u32(f, 0x20), "IMU_I") &&
		       LOAD(69, uao + u32(f, 0x2c), u32(f, 0x28), "IMU_D");
	/* rlc */
	if (minor == 1 && !(LOAD(22, u32(f, 0x78), u32(f, 0x74), "SRM_CNTL") &&
			    LOAD(20, u32(f, 0x88), u32(f, 0x84), "GPM_MEM") &&
			    LOAD(21, u32(f, 0x98), u32(f, 0x94), "SRM_MEM")))
		return false;
	if (minor >= 2 && !(LOAD(26, u32(f, 0xa0), u32(f, 0x9c), "RLC_IRAM") &&
			    LOAD(48, u32(f, 0xa8), u32(f, 0xa4), "RLC_DRAM_BOOT")))
		return false;
	if (minor == 3 && !(LOAD(25, u32(f, 0xb8), u32(f, 0xb4), "RLC_P") &&
			    LOAD(7, u32(f, 0xc8), u32(f, 0xc4), "RLC_V")))
		return false;
	return LOAD(8, uao, size, "RLC_G");
}

static const struct amd_pin *
pin_named(const char *name)
{
	size_t n;
	const struct amd_pin *p = amd_pins(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

static bool
find(struct amd_sim *s, struct sim_fw *w, const struct amd_search *dirs,
     const char *name, const char *kind)
{
	const struct amd_pin *p = pin_named(name);
	struct amd_found found;
	struct sim_file *f;

	if (!p) {
		snprintf(w->why, sizeof(w->why), "%s is not a pinned image", name);
		return false;
	}
	if (amd_fw_find(dirs, p, &found) < 0) {
		snprintf(w->why, sizeof(w->why), "%s", amd_why());
		return false;
	}
	f = &w->files[w->nfiles++];
	f->bytes = found.bytes;
	f->len = found.len;
	snprintf(f->name, sizeof(f->name), "%s", name);
	(void)s;
	return !strcmp(kind, "sos") ? sos_parts(w, f) : load_parts(w, f, kind);
}

static void
vname(char *out, size_t n, const char *prefix, const uint8_t v[3], const char *suffix)
{
	snprintf(out, n, "%s%u_%u_%u%s", prefix, v[0], v[1], v[2], suffix);
}

void
sim_fw_load(struct amd_sim *s)
{
	struct sim_fw *w = &s->fw;
	const struct sim_layout *l = &s->lay;
	const char *given[2] = { s->fw_dir[0] ? s->fw_dir : NULL, NULL };
	struct amd_search dirs;
	char name[64];
	bool ok;

	if (w->tried)
		return;
	w->tried = true;
	if (amd_fw_search_dirs(NULL, given, &dirs) < 0) {
		snprintf(w->why, sizeof(w->why), "%s", amd_why());
		return;
	}
	vname(name, sizeof(name), "psp_", l->ver[2], "_sos.bin");
	ok = find(s, w, &dirs, name, "sos");
	vname(name, sizeof(name), "smu_", l->ver[3], ".bin");
	ok = ok && find(s, w, &dirs, name, "smu");
	vname(name, sizeof(name), "sdma_", l->ver[1], ".bin");
	ok = ok && find(s, w, &dirs, name, "sdma");
	if (l->ver[0][0] >= 12) {
		vname(name, sizeof(name), "gc_", l->ver[0], "_pfp.bin");
		ok = ok && find(s, w, &dirs, name, "pfp");
		vname(name, sizeof(name), "gc_", l->ver[0], "_me.bin");
		ok = ok && find(s, w, &dirs, name, "me");
	}
	vname(name, sizeof(name), "gc_", l->ver[0], "_mec.bin");
	ok = ok && find(s, w, &dirs, name, "mec");
	if (l->ver[0][0] >= 11) {
		vname(name, sizeof(name), "gc_", l->ver[0], "_imu.bin");
		ok = ok && find(s, w, &dirs, name, "imu");
	}
	vname(name, sizeof(name), "gc_", l->ver[0], "_rlc.bin");
	ok = ok && find(s, w, &dirs, name, "rlc");
	if (ok && l->ver[0][0] == 9) {		/* REG_LIST last (§3.3) */
		if (!w->rl || w->nload == SIM_FW_PARTS) {
			snprintf(w->why, sizeof(w->why), "the sOS image has no PSP_RL");
			ok = false;
		} else {
			w->load[w->nload++] = (struct sim_part){ 67, 0, w->rl, w->rl_len,
				w->files[0].name, "REG_LIST" };
		}
	}
	w->ready = ok;
}

void
sim_fw_free(struct amd_sim *s)
{
	for (size_t i = 0; i < s->fw.nfiles; i++)
		free((void *)s->fw.files[i].bytes);
	s->fw.nfiles = 0;
}
