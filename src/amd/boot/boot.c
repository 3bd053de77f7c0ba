/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/boot.c: the page. Every unit of the boot, in the one order a
 * full boot runs them (amd-facts §3.4); a partial boot, of a GPU a clean
 * session of rig left, is the same page with the firmware units skipped.
 * A stop runs the finis in reverse (amd_dev_unboot). boot.h lists what
 * each unit does.
 *
 * Loss. Before the first unit runs nothing has been written: a GC whose
 * full boot is not built is refused there. After it, a failing unit's
 * message is the boot's, its bus mastering is turned off and
 * SCRATCH_REG6 written 1, so the next open, by any process, resets it and
 * boots it in full: the GPU is lost.
 *
 * Marks. SCRATCH_REG6 is written 1 before the first unit runs, a partial
 * boot's included, and SCRATCH_REG7 the mark once the last has, so a
 * process killed at any step of a boot (kill -9 runs no code of its own)
 * leaves a GPU its next open cannot vouch for: no mark, or the mark with
 * SCRATCH_REG6 1. Only a stop with no fault writes SCRATCH_REG6 0 (soc.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

static const struct unit {
	const char *name;
	bool firmware;			/* skipped by a partial boot */
	int (*init)(struct amd_boot *b);
	void (*fini)(struct amd_dev *d, bool clean);
} page[] = {
	{ "RESET", true, amd_boot_reset_init, NULL },
	{ "SOC", false, amd_boot_soc_init, amd_boot_soc_fini },
	{ "GMC", false, amd_boot_gmc_init, amd_boot_gmc_fini },
	{ "IH", false, amd_boot_ih_init, amd_boot_ih_fini },
	{ "PSP", true, amd_boot_psp_init, NULL },
	{ "SMU", true, amd_boot_smu_init, NULL },
	{ "GFX", false, amd_boot_gfx_init, amd_boot_gfx_fini },
	{ "SDMA", false, amd_boot_sdma_init, amd_boot_sdma_fini },
};
#define UNITS (sizeof(page) / sizeof(page[0]))

void (*amd_boot_step_hook)(const char *unit);

/* GC 9.4.3, 11.0.0, 11.0.2, 12.0.0 and 12.0.1; GC 9.4.3's XCCs as
 * xccs_built() says. */
bool
amd_boot_full_built(unsigned major, unsigned minor, unsigned rev)
{
	return (major == 12 && minor == 0 && rev <= 1) ||
	       (major == 11 && minor == 0 && (rev == 0 || rev == 2)) ||
	       (major == 9 && minor == 4 && rev == 3);
}

/* MP0 14.0.2/14.0.3 (GC 12) hold the TMR from boot; MP0 13 (GC 11) is
 * given one. */
bool
amd_boot_gives_tmr(const struct amd_dev *d)
{
	return d->gc_major == 11;
}

uint64_t
amd_boot_kept_top(const struct amd_dev *d)
{
	return amd_boot_gives_tmr(d) ? AMD_BOOT_TMR_BYTES : 0;
}

uint64_t
amd_boot_tmr_at(const struct amd_dev *d)
{
	return (d->vram_bytes - AMD_TOP_KEPT - AMD_BOOT_TMR_BYTES) & ~((1ull << 20) - 1);
}

/*
 * Several XCCs (GC instances, §2.4): each is set up on its own
 * registers (gmc.c, gfx.c), the doorbells of those the GPU lacks fenced
 * (soc.c). XCCs whose entries lie on more than one die of the discovery
 * table are taken for XCCs on more than one AID (§2.4's "multi-die,
 * AIDs"; that MI300's table lists an AID per die is unverified): soc.c
 * writes shub_slv_mode on the other AIDs through NBIO 7.9's indirect
 * window (ext.c). Refused before any write: XCC 0 on a die but 0 (the
 * fence above is AID 0's), a die past 3 (linux's extended SMN address
 * names four AIDs), an NBIO without the window on a GPU of several dies,
 * and an NBIO without XCC_DOORBELL_FENCE.
 */
static int
xccs_built(struct amd_dev *d, char *cause, size_t len)
{
	unsigned n = d->regs.xccs, dies = 0;

	if (n <= 1)
		return 0;
	for (unsigned x = 0; x < n; x++) {
		if (d->regs.xcc_die[x] > 3 || (x == 0 && d->regs.xcc_die[0])) {
			snprintf(cause, len, "the full boot of GC %u.%u.%u with XCC %u on "
				 "die %u is not built yet (%s: the extended SMN "
				 "address names AIDs 0 to 3, and XCC 0 is AID 0's; nothing "
				 "was written)", d->gc_major, d->gc_minor, d->gc_rev, x,
				 d->regs.xcc_die[x], d->bus);
			return -ENOTSUP;
		}
		dies |= 1u << d->regs.xcc_die[x];
	}
	if (dies != 1 && (d->regs.index[AMD_REG_NBIF_PCIE_INDEX2] == AMD_REG_NONE ||
			  d->regs.index[AMD_REG_NBIF_PCIE_INDEX2_HI] == AMD_REG_NONE ||
			  d->regs.index[AMD_REG_NBIF_PCIE_DATA2] == AMD_REG_NONE)) {
		snprintf(cause, len, "the full boot of GC %u.%u.%u with %u XCCs on more "
			 "than one die (AID) is not built on this NBIO (%s: its register "
			 "table has no PCIE_INDEX2 window to the other AIDs; nothing was "
			 "written)", d->gc_major, d->gc_minor, d->gc_rev, n, d->bus);
		return -ENOTSUP;
	}
	if (d->regs.index[AMD_REG_NBIF_XCC_DOORBELL_FENCE] == AMD_REG_NONE) {
		snprintf(cause, len, "the full boot of GC %u.%u.%u with %u XCCs is not "
			 "built yet on this NBIO (%s: its register table has no "
			 "XCC_DOORBELL_FENCE; nothing was written)", d->gc_major,
			 d->gc_minor, d->gc_rev, n, d->bus);
		return -ENOTSUP;
	}
	return 0;
}

static void
lost(struct amd_boot *b)
{
	size_t n = strlen(b->cause);

	snprintf(b->cause + n, b->len - n, "; the GPU is lost: its next open resets "
		 "it and boots it in full");
	(void)pci_bus_master(b->d->m, &b->d->t, false);
	(void)amd_dev_wreg(b->d, AMD_REG_GC_SCRATCH_REG6, 0, 1);
}

int
amd_boot(struct amd_dev *d, const struct amd_gc_set *set,
	 const struct amd_found *images, char *cause, size_t len)
{
	struct amd_boot b = { .d = d, .set = set, .images = images, .cause = cause,
			      .len = len };
	uint32_t mark = amd_dev_rreg(d, AMD_REG_GC_SCRATCH_REG7, 0);
	uint32_t dirty = amd_dev_rreg(d, AMD_REG_GC_SCRATCH_REG6, 0);
	uint32_t fault = amd_dev_rreg(d, AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0);
	int ret;

	b.full = mark != AMD_MARK || dirty || fault;
	if (b.full && !amd_boot_full_built(d->gc_major, d->gc_minor, d->gc_rev)) {
		snprintf(cause, len, "the full boot of GC %u.%u.%u is not built yet "
			 "(%s passed every check before the boot; no clean session of "
			 "rig left it: SCRATCH_REG7 0x%x, SCRATCH_REG6 0x%x, VM fault "
			 "status 0x%x)", d->gc_major, d->gc_minor, d->gc_rev, d->bus,
			 mark, dirty, fault);
		return -ENOTSUP;
	}
	if (b.full && (ret = xccs_built(d, cause, len)) < 0)
		return ret;
	if (b.full && (!set || !images)) {
		snprintf(cause, len, "a full boot needs the GC's images");
		return -EINVAL;
	}
	/* A session runs from here on: dirty until a clean stop. */
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG6, 0, 1);
	for (size_t u = 0; u < UNITS; u++) {
		if (page[u].firmware && !b.full)
			continue;
		if (amd_boot_step_hook)
			amd_boot_step_hook(page[u].name);
		if ((ret = page[u].init(&b)) < 0) {
			lost(&b);
			return ret;
		}
	}
	/* This session holds it: a stop without a fault writes 0 again. */
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG7, 0, AMD_MARK);
	(void)amd_dev_wreg(d, AMD_REG_GC_SCRATCH_REG6, 0, 1);
	return 0;
}

void
amd_dev_unboot(struct amd_dev *d, bool clean)
{
	for (size_t u = UNITS; u-- > 0;)
		if (page[u].fini)
			page[u].fini(d, clean);
}
