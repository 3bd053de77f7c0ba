/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/: the boot of a GPU as one page (seed "Opening"; amd-facts §3.4,
 * tinygrad's AM constructor the model). Each IP block is a unit with its
 * init and fini, called in one visible order from amd_boot() (boot.c):
 *
 *   reset.c  a GPU rig cannot vouch for whose sOS runs: mode-1 reset first
 *   soc.c    SOC/NBIO: the frame buffer's place, the doorbell aperture; the
 *            session's mark at fini
 *   gmc.c    MMHUB (and, from gfx.c, GCHUB): context 0's page tables;
 *            bus mastering off at fini
 *   ih.c     the interrupt ring
 *   psp.c    MP0: bootloader, sOS components, ring, TOC/TMR, LOAD_IP_FW of
 *            every piece images.c lists, RLC autoload (GC 9: REG_LIST)
 *   smu.c    MP1's mailbox: version, driver DRAM address, features; the
 *            mode-1 reset (reset.c): debug mailbox, or GC 9's GfxDriverReset
 *   gfx.c    RLC autoload's end, GCHUB, bus mastering on, the MEC's start
 *            address, compute queue 0
 *   sdma.c   SDMA0 queue 0
 *   images.c the LOAD_IP_FW pieces of the pinned images, in the boot's order
 *   wait.c   every wait on the hardware: a deadline and a message
 *
 * A partial boot (a GPU a clean session left) is the same page with the
 * firmware units (reset, PSP, SMU, and GFX's firmware steps) skipped. The
 * boot's memory is the top of the driver's reserved VRAM (below), which
 * nothing else of the device uses.
 */
#ifndef AMD_BOOT_BOOT_H
#define AMD_BOOT_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "amd/dev/dev.h"
#include "amd/firmware/firmware.h"

/* The mark of a GPU this library booted (amd-facts §3.1: AMDev.Version). */
#define AMD_MARK	0xA0000008u

/* VRAM offsets of the boot's structures (amd-facts §3.8, §3.9). */
#define AMD_BOOT_MSG1_AT	0xE00000ull	/* 1 MiB, 1 MiB aligned */
#define AMD_BOOT_MSG1_BYTES	(1u << 20)
#define AMD_BOOT_PSP_RING_AT	0xF00000ull	/* 64 KiB */
#define AMD_BOOT_PSP_RING_BYTES	(64u << 10)
#define AMD_BOOT_PSP_CMD_AT	0xF10000ull	/* psp_gfx_cmd_resp, its own page */
#define AMD_BOOT_PSP_FENCE_AT	0xF11000ull	/* a page, zeroed */
#define AMD_BOOT_SMU_TABLE_AT	0xF20000ull	/* 16 KiB driver table */
#define AMD_BOOT_SMU_TABLE_BYTES (16u << 10)
_Static_assert(AMD_BOOT_MSG1_AT >= AMD_ARENA_AT + AMD_ARENA_BYTES &&
	       AMD_BOOT_SMU_TABLE_AT + AMD_BOOT_SMU_TABLE_BYTES <= AMD_RESERVED,
	       "the boot's memory lies in reserved VRAM no one else uses");

/*
 * The trusted memory region (TMR) the PSP keeps firmware in, where the
 * driver gives it (SETUP_TMR: MP0 13.0.0/13.0.7, GC 11): the top
 * AMD_BOOT_TMR_BYTES below the kept top of VRAM, 1 MiB aligned, the same
 * place in every session, kept out of the device's allocator (mem.c)
 * because the sOS goes on using it after this process.
 */
#define AMD_BOOT_TMR_BYTES	0x1300000ull
bool amd_boot_gives_tmr(const struct amd_dev *d);
uint64_t amd_boot_kept_top(const struct amd_dev *d);	/* 0 or the TMR's bytes */
uint64_t amd_boot_tmr_at(const struct amd_dev *d);	/* its VRAM offset */

/* One piece a LOAD_IP_FW sends (images.c). */
struct amd_boot_piece {
	const char *image;		/* its file's name */
	const char *what;		/* "RS64 instructions", "RLC_G", ... */
	uint32_t fw_type;		/* enum psp_gfx_fw_type (amd-facts §1.10) */
	const uint8_t *bytes;
	uint64_t len;
};
#define AMD_BOOT_PIECES 24

struct amd_boot {
	struct amd_dev *d;
	bool full;
	const struct amd_gc_set *set;
	const struct amd_found *images;		/* set->images' order; NULL: partial */
	char *cause;
	size_t len;
	uint64_t mec_start;			/* the MEC image's start address */
	uint32_t psp_wptr, psp_fence;		/* dwords; the last fence value */
	uint32_t tmr_bytes;			/* LOAD_TOC's answer */
	uint32_t smu_version;
};

/*
 * amd_boot() - boot d: in part if a clean session of rig left it (its mark,
 * SCRATCH_REG6 0, no VM fault pending), else in full from images (set's,
 * in its order, digests checked by the open). A GC whose full boot is not
 * built is refused with -ENOTSUP before any write. After the first write a
 * failure names the step and what it read, and leaves the GPU lost.
 * Returns 0, or the status with cause filled.
 */
int amd_boot(struct amd_dev *d, const struct amd_gc_set *set,
	     const struct amd_found *images, char *cause, size_t len);

/*
 * A test's hook (boot.c): NULL, or called with each unit's name ("RESET",
 * "SOC", "GMC", "IH", "PSP", "SMU", "GFX", "SDMA") before the unit runs,
 * so a test can stop or kill the process at a named step. Set it before
 * an open, in a process of the test's own.
 */
extern void (*amd_boot_step_hook)(const char *unit);

/* Whether rig builds the full boot of GC major.minor.rev (boot.c). */
bool amd_boot_full_built(unsigned major, unsigned minor, unsigned rev);

/* The units (one file each). init returns 0 or a status with b->cause. */
int amd_boot_reset_init(struct amd_boot *b);
int amd_boot_soc_init(struct amd_boot *b);
void amd_boot_soc_fini(struct amd_dev *d, bool clean);
int amd_boot_gmc_init(struct amd_boot *b);
int amd_boot_gchub_init(struct amd_boot *b);
void amd_boot_gmc_fini(struct amd_dev *d, bool clean);
int amd_boot_ih_init(struct amd_boot *b);
void amd_boot_ih_fini(struct amd_dev *d, bool clean);
int amd_boot_psp_init(struct amd_boot *b);
int amd_boot_smu_init(struct amd_boot *b);
int amd_boot_gfx_init(struct amd_boot *b);
void amd_boot_gfx_fini(struct amd_dev *d, bool clean);
int amd_boot_sdma_init(struct amd_boot *b);
void amd_boot_sdma_fini(struct amd_dev *d, bool clean);

/*
 * amd_boot_reset_gpu() - rig reset of d, a taken GPU with its registers
 * resolved and windows mapped (reset.c): stop, interrupt rings off, mode 1
 * where its sOS runs (GfxDriverReset on GC 9.4.3), then the post-reset
 * checks. Returns 0, or the status with cause filled.
 */
int amd_boot_reset_gpu(struct amd_dev *d, char *cause, size_t len);

/* soc.c: the live XCCs' mask, a bit per GC instance number (§2.4). */
uint32_t amd_boot_xcc_mask(const struct amd_dev *d);

/* psp.c: SRIOV_SPATIAL_PART(mode) on the sOS's ring of this full boot
 * (§3.8: mode 1, one partition, after GFX's init on a multi-XCC part). */
int amd_boot_psp_spatial(struct amd_boot *b, uint32_t mode);

/* smu.c: whether its mailbox answers GetSmuVersion within ms, and the
 * mode-1 reset (reset.c). */
/* ext.c: linux's extended SMN part of AID aid's addresses (0 for AID 0);
 * register r written on AID aid through NBIO 7.9's PCIE_INDEX2 window, a
 * failure's message "<unit>: ...". */
uint64_t amd_boot_ext_smn(unsigned aid);
int amd_boot_wext(struct amd_boot *b, const char *unit, unsigned aid, enum amd_reg r,
		  uint32_t v);
/* soc.c: the AIDs d's XCCs lie on (their discovery entries' dies, AID 0
 * always), a bit each, in *mask; -ENOTSUP naming unit for a die past 3. */
int amd_boot_aids(struct amd_boot *b, const char *unit, uint32_t *mask);
/* psp.c: the mode-1 reset through the sOS (GFX_CTRL_CMD_ID_MODE1_RST),
 * for a GPU whose SMU does not answer; 0 once C2PMSG_33 says it is done. */
int amd_boot_psp_mode1(struct amd_boot *b);
bool amd_boot_smu_alive(struct amd_boot *b, unsigned ms);
int amd_boot_smu_mode1(struct amd_boot *b);

/* images.c: the pieces of b->images in the boot's LOAD_IP_FW order
 * (amd-facts §3.3), and the MEC's start address in b->mec_start. Returns
 * their count, or a status with b->cause (an image no longer parses). */
int amd_boot_pieces(struct amd_boot *b, struct amd_boot_piece *out, size_t cap);
/* images.c: the sOS image's component of fw_type (enum psp_fw_type), or
 * NULL with *len 0 where the image has none. */
const uint8_t *amd_boot_sos_part(struct amd_boot *b, uint32_t fw_type,
				 uint64_t *len);

/*
 * wait.c. amd_boot_wait: poll register r until (value & mask) == want, at
 * most ms milliseconds; on the deadline b->cause is "<step>: <what> after
 * <ms> ms (<register> = 0x...)" and it returns -ETIMEDOUT. *last gets the
 * last value read (may be NULL). amd_boot_wait_mem: the same for the
 * 32-bit word at VRAM offset at. amd_boot_sleep: ms milliseconds.
 */
int amd_boot_wait(struct amd_boot *b, const char *step, const char *what,
		  enum amd_reg r, uint32_t mask, uint32_t want, unsigned ms,
		  uint32_t *last);
int amd_boot_wait_nonzero(struct amd_boot *b, const char *step, const char *what,
			  enum amd_reg r, unsigned ms, uint32_t *last);
int amd_boot_wait_mem(struct amd_boot *b, const char *step, const char *what,
		      uint64_t at, uint32_t want, unsigned ms);
void amd_boot_sleep(unsigned ms);
/* b->cause = "<fmt>", returning code. */
int amd_boot_fail(struct amd_boot *b, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A register write that reports its failure in b->cause. */
int amd_boot_w(struct amd_boot *b, enum amd_reg r, uint64_t plus, uint32_t v);
#define BW(b, r, plus, v) do {						\
		int bw_ = amd_boot_w((b), (r), (plus), (v));		\
		if (bw_ < 0)						\
			return bw_;					\
	} while (0)
/* The same on XCC xcc's instance of a GC register: a failure's message
 * is "<unit>: XCC <xcc>: writing <register>: <cause>" ("<unit>: writing
 * ..." on a GPU of one XCC). */
int amd_boot_wx(struct amd_boot *b, const char *unit, unsigned xcc, enum amd_reg r,
		uint64_t plus, uint32_t v);
#define BWX(b, unit, xcc, r, plus, v) do {				\
		int bw_ = amd_boot_wx((b), (unit), (xcc), (r), (plus), (v)); \
		if (bw_ < 0)						\
			return bw_;					\
	} while (0)

/* The n with 2^n >= v: a ring's size field (IH, HQD, SDMA RB_CNTL). */
static inline uint32_t
amd_boot_log2(uint64_t v)
{
	uint32_t n = 0;

	while ((1ull << n) < v)
		n++;
	return n;
}

#endif
