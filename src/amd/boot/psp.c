/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/psp.c: the security processor (MP0), as amd-facts §3.8 gives
 * linux's and tinygrad's sequence. With no sOS running, the bootloader
 * takes the sOS image's components in linux's order (KDB, SPL, SYS_DRV,
 * SOC_DRV, INTF_DRV, DBG_DRV, RAS_DRV, IPKEYMGR_DRV, then SOS), each
 * copied into the 1 MiB message buffer, after which the sOS must show its
 * sign of life (C2PMSG_81). Then the KM ring (64 KiB), LOAD_TOC (the
 * TMR's size), LOAD_IP_FW of the SMU's firmware, SETUP_TMR on MP0 13
 * (boot-time on MP0 14.0.2/14.0.3: none), LOAD_IP_FW of every other piece
 * images.c lists and AUTOLOAD_RLC. GC 9.4.3 (MP0 13.0.6, §3.8): no TOC in
 * its sOS image, a boot-time TMR still announced by SETUP_TMR with buffer
 * 0 and size 0 before the first piece (no SMU image: the P2S table
 * leads), and REG_LIST, images.c's last piece, in place of AUTOLOAD_RLC.
 * The sOS image's primary components only (those before
 * psp_aux_fw_bin_index, §1.2): when a driver sends the aux set instead is
 * not in the facts. Every command waits for its fence and checks its
 * response's status. Nothing is undone at stop: the sOS and
 * the firmware it loaded keep running for the next session's partial boot.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

#define MS	1000		/* every PSP wait's deadline */

/* psp_gfx_cmd_resp (1024 bytes) and psp_gfx_rb_frame (64), §3.8. */
#define CMD_BYTES	1024
#define CMD_ID_AT	0x08
#define CMD_PAYLOAD_AT	0x1c
#define RESP_STATUS_AT	0x360
#define RESP_TMR_AT	0x370
#define FRAME_DWORDS	16
#define TMR_MOST	0x1300000u

enum { CMD_SETUP_TMR = 5, CMD_LOAD_IP_FW = 6, CMD_LOAD_TOC = 0x20,
       CMD_AUTOLOAD_RLC = 0x21, CMD_SRIOV_SPATIAL_PART = 0x27 };

/* The bootloader's components (enum psp_fw_type) and commands. */
static const struct { uint32_t type, cmd; const char *name; } boot_order[] = {
	{ 3, 0x80000, "KDB" }, { 5, 0x10000000, "SPL" }, { 2, 0x10000, "SYS_DRV" },
	{ 7, 0xB0000, "SOC_DRV" }, { 8, 0xD0000, "INTF_DRV" }, { 9, 0xC0000, "DBG_DRV" },
	{ 10, 0xE0000, "RAS_DRV" }, { 11, 0xF0000, "IPKEYMGR_DRV" },
	{ 1, 0x20000, "SOS" },
};
#define TYPE_TOC 4

static uint64_t
mc(const struct amd_boot *b, uint64_t at)
{
	return b->d->fb_base + at;
}

static int
to_msg1(struct amd_boot *b, const char *what, const uint8_t *bytes, uint64_t len)
{
	if (len > AMD_BOOT_MSG1_BYTES)
		return amd_boot_fail(b, -E2BIG, "PSP: %s is %llu bytes, more than the "
				     "1 MiB message buffer", what, (unsigned long long)len);
	memcpy(b->d->vram + AMD_BOOT_MSG1_AT, bytes, len);
	atomic_thread_fence(memory_order_release);
	return 0;
}

static int
bootloader(struct amd_boot *b)
{
	uint32_t v;
	int ret;

	for (size_t k = 0; k < sizeof(boot_order) / sizeof(boot_order[0]); k++) {
		uint64_t len;
		const uint8_t *part = amd_boot_sos_part(b, boot_order[k].type, &len);
		char what[64];

		if (!part) {
			if (boot_order[k].type == 1)
				return amd_boot_fail(b, -EBADMSG, "PSP: the sOS image has "
						     "no SOS component");
			continue;
		}
		if ((ret = amd_boot_wait(b, "PSP", "bootloader not ready",
					 AMD_REG_MP0_C2PMSG_35, 0x80000000u,
					 0x80000000u, MS, NULL)) < 0)
			return ret;
		snprintf(what, sizeof(what), "its %s component", boot_order[k].name);
		if ((ret = to_msg1(b, what, part, len)) < 0)
			return ret;
		BW(b, AMD_REG_MP0_C2PMSG_36, 0, (uint32_t)(mc(b, AMD_BOOT_MSG1_AT) >> 20));
		BW(b, AMD_REG_MP0_C2PMSG_35, 0, boot_order[k].cmd);
		if (boot_order[k].type == 1)
			break;		/* the bootloader hands over to the sOS */
		snprintf(what, sizeof(what), "bootloader did not take %s",
			 boot_order[k].name);
		if ((ret = amd_boot_wait(b, "PSP", what, AMD_REG_MP0_C2PMSG_35,
					 0x80000000u, 0x80000000u, MS, &v)) < 0)
			return ret;
		if (v & 0xFFFF)
			return amd_boot_fail(b, -EPROTO, "PSP: the bootloader refused %s "
					     "(C2PMSG_35 = 0x%x)", boot_order[k].name, v);
	}
	return amd_boot_wait_nonzero(b, "PSP", "sOS not alive after its load",
				     AMD_REG_MP0_C2PMSG_81, MS, NULL);
}

static int
ring_create(struct amd_boot *b)
{
	uint64_t ring = mc(b, AMD_BOOT_PSP_RING_AT);
	int ret;

	if (amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_71, 0) != 0) {
		/* A ring another driver left: destroyed first (§3.8). */
		BW(b, AMD_REG_MP0_C2PMSG_64, 0, 0x30000);
		amd_boot_sleep(20);
	}
	if ((ret = amd_boot_wait(b, "PSP", "sOS not ready for its ring",
				 AMD_REG_MP0_C2PMSG_64, 0x80000000u, 0x80000000u,
				 MS, NULL)) < 0)
		return ret;
	memset(b->d->vram + AMD_BOOT_PSP_RING_AT, 0, AMD_BOOT_PSP_RING_BYTES);
	BW(b, AMD_REG_MP0_C2PMSG_69, 0, (uint32_t)ring);
	BW(b, AMD_REG_MP0_C2PMSG_70, 0, (uint32_t)(ring >> 32));
	BW(b, AMD_REG_MP0_C2PMSG_71, 0, AMD_BOOT_PSP_RING_BYTES);
	BW(b, AMD_REG_MP0_C2PMSG_64, 0, 2u << 16);	/* the KM ring */
	b->psp_wptr = 0;
	return amd_boot_wait(b, "PSP", "ring not created", AMD_REG_MP0_C2PMSG_64,
			     0x8000FFFFu, 0x80000000u, MS, NULL);
}

static void
put32(uint8_t *at, uint32_t v)
{
	memcpy(at, &v, 4);
}

static uint32_t
get32(const uint8_t *at)
{
	uint32_t v;

	memcpy(&v, at, 4);
	return v;
}

/* One command on the ring: its fence awaited, its status 0. what names it. */
static int
submit(struct amd_boot *b, uint32_t id, const uint32_t *payload, size_t n,
       const char *what, uint32_t *tmr)
{
	uint8_t *cmd = b->d->vram + AMD_BOOT_PSP_CMD_AT;
	uint8_t *frame = b->d->vram + AMD_BOOT_PSP_RING_AT + b->psp_wptr * 4ull;
	uint64_t c = mc(b, AMD_BOOT_PSP_CMD_AT), f = mc(b, AMD_BOOT_PSP_FENCE_AT);
	uint32_t status, ring_dw = AMD_BOOT_PSP_RING_BYTES / 4;
	char step[sizeof("no answer to ") + 160];	/* what: up to 160 */
	int ret;

	memset(cmd, 0, CMD_BYTES);
	put32(cmd + 0, CMD_BYTES);		/* buf_size */
	put32(cmd + 4, 1);			/* buf_version */
	put32(cmd + CMD_ID_AT, id);
	for (size_t i = 0; i < n; i++)
		put32(cmd + CMD_PAYLOAD_AT + 4 * i, payload[i]);
	memset(b->d->vram + AMD_BOOT_PSP_FENCE_AT, 0, 4096);
	memset(frame, 0, FRAME_DWORDS * 4);
	put32(frame + 0x00, (uint32_t)c);
	put32(frame + 0x04, (uint32_t)(c >> 32));
	put32(frame + 0x08, CMD_BYTES);
	put32(frame + 0x0c, (uint32_t)f);
	put32(frame + 0x10, (uint32_t)(f >> 32));
	put32(frame + 0x14, ++b->psp_fence);
	atomic_thread_fence(memory_order_release);
	b->psp_wptr = (b->psp_wptr + FRAME_DWORDS) % ring_dw;
	BW(b, AMD_REG_MP0_C2PMSG_67, 0, b->psp_wptr);
	snprintf(step, sizeof(step), "no answer to %s", what);
	if ((ret = amd_boot_wait_mem(b, "PSP", step, AMD_BOOT_PSP_FENCE_AT,
				     b->psp_fence, MS)) < 0)
		return ret;
	atomic_thread_fence(memory_order_acquire);
	status = get32(cmd + RESP_STATUS_AT);
	if (status)
		return amd_boot_fail(b, -EPROTO, "PSP: %s refused (status 0x%x)", what,
				     status);
	if (tmr)
		*tmr = get32(cmd + RESP_TMR_AT);
	return 0;
}

static int
load(struct amd_boot *b, const struct amd_boot_piece *p)
{
	uint64_t m = mc(b, AMD_BOOT_MSG1_AT);
	char what[160];
	uint32_t payload[4] = { (uint32_t)m, (uint32_t)(m >> 32), (uint32_t)p->len,
				p->fw_type };
	int ret;

	snprintf(what, sizeof(what), "LOAD_IP_FW of %s's %s (type %u)", p->image,
		 p->what, p->fw_type);
	if ((ret = to_msg1(b, what, p->bytes, p->len)) < 0)
		return ret;
	return submit(b, CMD_LOAD_IP_FW, payload, 4, what, NULL);
}

static int
load_toc(struct amd_boot *b)
{
	uint64_t len, m = mc(b, AMD_BOOT_MSG1_AT);
	const uint8_t *toc = amd_boot_sos_part(b, TYPE_TOC, &len);
	uint32_t payload[3] = { (uint32_t)m, (uint32_t)(m >> 32), (uint32_t)len };
	int ret;

	if (!toc)
		return 0;
	if ((ret = to_msg1(b, "the TOC", toc, len)) < 0 ||
	    (ret = submit(b, CMD_LOAD_TOC, payload, 3, "LOAD_TOC", &b->tmr_bytes)) < 0)
		return ret;
	if (b->tmr_bytes > TMR_MOST)
		return amd_boot_fail(b, -EPROTO, "PSP: LOAD_TOC asks for a TMR of 0x%x "
				     "bytes, more than 0x%x", b->tmr_bytes, TMR_MOST);
	return 0;
}

/* cmd_setup_tmr: the region's MC address, its size (LOAD_TOC's answer),
 * flags virt_phy_addr (bit 1), its "xgmi physical" address (its VRAM
 * offset: a single GPU's paddr_base is 0, §3.2). MP0 13.0.6's TMR is
 * boot-time: buffer 0, size 0 (§3.8). */
static int
setup_tmr(struct amd_boot *b)
{
	bool boot_time = b->d->gc_major == 9;
	uint64_t at = boot_time ? 0 : amd_boot_tmr_at(b->d), m = boot_time ? 0 : mc(b, at);
	uint32_t payload[6] = { (uint32_t)m, (uint32_t)(m >> 32), b->tmr_bytes, 2,
				(uint32_t)at, (uint32_t)(at >> 32) };

	if (boot_time)
		payload[2] = 0;
	else if (b->tmr_bytes == 0)
		return amd_boot_fail(b, -EPROTO, "PSP: LOAD_TOC gave no TMR size");
	return submit(b, CMD_SETUP_TMR, payload, 6, "SETUP_TMR", NULL);
}

/* cmd_sriov_spatial_part's first word is its mode (§3.8; tinygrad's
 * struct, from linux's psp_gfx_if.h: mode, then override fields left 0). */
/*
 * Mode 1 through the sOS, for a GPU whose SMU does not answer (reset.c),
 * as linux's psp_v11_0.c psp_v11_0_mode1_reset (and psp_v3_1.c's) makes
 * it: the sOS ready for a command (C2PMSG_64 under 0x8000FFFF reads
 * 0x80000000: bit 31 ready, status [15:0] 0), GFX_CTRL_CMD_ID_MODE1_RST
 * (0x00070000, linux's psp_gfx_if.h) written to C2PMSG_64, 500 ms, then
 * bit 31 of C2PMSG_33, the reset done (rig writes C2PMSG_33 0 first).
 * Linux's psp_v13_0.c and
 * psp_v14_0.c give MP0 13 and 14 (every MP0 rig boots) no mode1_reset of
 * their own (linux resets those GPUs through the SMU), so that their sOS
 * takes the command is unverified on hardware.
 */
#define MODE1_RST	0x00070000u
#define SOS_READY_MASK	0x8000FFFFu
#define SOS_READY	0x80000000u
#define MODE1_DONE	(1u << 31)

int
amd_boot_psp_mode1(struct amd_boot *b)
{
	int ret;

	if ((ret = amd_boot_wait(b, "RESET", "sOS not ready for the mode-1 command",
				 AMD_REG_MP0_C2PMSG_64, SOS_READY_MASK, SOS_READY, MS,
				 NULL)) < 0)
		return ret;
	/* A bit 31 an earlier reset left would pass the wait at once: rig
	 * clears it first (linux does not; unverified on hardware). */
	BW(b, AMD_REG_MP0_C2PMSG_33, 0, 0);
	BW(b, AMD_REG_MP0_C2PMSG_64, 0, MODE1_RST);
	amd_boot_sleep(500);		/* linux's 500 ms */
	return amd_boot_wait(b, "RESET", "the sOS's mode-1 reset not done",
			     AMD_REG_MP0_C2PMSG_33, MODE1_DONE, MODE1_DONE, MS, NULL);
}

int
amd_boot_psp_spatial(struct amd_boot *b, uint32_t mode)
{
	char what[64];

	snprintf(what, sizeof(what), "SRIOV_SPATIAL_PART(%u)", mode);
	return submit(b, CMD_SRIOV_SPATIAL_PART, &mode, 1, what, NULL);
}

int
amd_boot_psp_init(struct amd_boot *b)
{
	struct amd_boot_piece pieces[AMD_BOOT_PIECES];
	bool gc9 = b->d->gc_major == 9;
	int n, ret;

	if ((n = amd_boot_pieces(b, pieces, AMD_BOOT_PIECES)) < 0)
		return n;
	if (n == 0 || pieces[0].fw_type != (gc9 ? 129u : 18u))
		return amd_boot_fail(b, -EBADMSG, "PSP: no %s among the images",
				     gc9 ? "P2S table" : "SMU firmware");
	if (amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_81, 0) == 0 &&
	    (ret = bootloader(b)) < 0)
		return ret;
	if ((ret = ring_create(b)) < 0 || (ret = load_toc(b)) < 0 ||
	    (gc9 && (ret = setup_tmr(b)) < 0))
		return ret;
	/* The SMU's firmware before the TMR (§3.8); the TMR itself is the
	 * firmware's on MP0 14.0.2 and 14.0.3. */
	for (int i = 0; i < n; i++)
		if ((ret = load(b, &pieces[i])) < 0 ||
		    (i == 0 && amd_boot_gives_tmr(b->d) && (ret = setup_tmr(b)) < 0))
			return ret;
	/* GC 9's RLC starts from REG_LIST, its last piece (§3.14). */
	return gc9 ? 0 : submit(b, CMD_AUTOLOAD_RLC, NULL, 0, "AUTOLOAD_RLC", NULL);
}
