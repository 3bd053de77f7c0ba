/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/reset.c: the reset of a GPU rig cannot vouch for, in two
 * callers that share its mode-1 step. The boot's RESET unit: a GPU whose
 * security processor's OS runs (C2PMSG_81 non-zero: firmware rig cannot
 * vouch for, a killed process's, one lost to a fault) is reset whole
 * (mode 1) through the SMU (smu.c), or, where the SMU does not answer
 * (its firmware not loaded yet: a process killed between the sOS's start
 * and the SMU's load), through the sOS (psp.c), with bus mastering off so
 * nothing it still runs reaches host memory (amd-facts §3.1). The open
 * fails if firmware rig did not start still runs after the reset. A GPU
 * no sOS runs on is booted from its bootloader as it is.
 *
 * rig reset (amd_boot_reset_gpu, seed 003's reset): stop what runs
 * (bus mastering off, compute queue 0 dequeued, SDMA0's ring off), turn
 * both interrupt rings off, then mode 1 where the sOS runs; a GPU no OS
 * runs on keeps its state but is marked dirty (SCRATCH_REG6 1), so its
 * next open boots it in full. Then the checks: the function still
 * answers config reads and registers, its configuration (ids, class,
 * BARs, restored as linux restores them) is what it was, no sOS runs, neither interrupt ring runs, and
 * its bootloader is ready. GC 9.4.3's mode 1 is MP1 13.0.6's
 * GfxDriverReset(1) (§3.9, smu.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

#define IH_RB_ENABLE	1u
#define BOOTLOADER_READY (1u << 31)

/* The shared step: bus mastering off, mode 1, and no sOS after it. */
static int
mode1(struct amd_boot *b, uint32_t sos)
{
	uint32_t after;
	int ret;

	if ((ret = pci_bus_master(b->d->m, &b->d->t, false)) < 0)
		return amd_boot_fail(b, ret, "RESET: bus mastering off: %s", amd_cause());
	if (!amd_boot_smu_alive(b, 100)) {
		char why[256];

		/* A process killed between its sOS's start and the load of
		 * the SMU's firmware leaves this: mode 1 through the sOS. */
		snprintf(why, sizeof(why), "%s", b->cause);
		if ((ret = amd_boot_psp_mode1(b)) < 0) {
			char psp[256];

			snprintf(psp, sizeof(psp), "%s", b->cause);
			return amd_boot_fail(b, ret, "RESET: its sOS runs (C2PMSG_81 = "
					     "0x%x) but its SMU does not answer (%s), and "
					     "the mode-1 reset through the sOS failed: %s",
					     sos, why, psp);
		}
	} else if ((ret = amd_boot_smu_mode1(b)) < 0) {
		return ret;
	}
	after = amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_81, 0);
	if (after)
		return amd_boot_fail(b, -EIO, "RESET: firmware rig did not start still "
				     "runs after the mode-1 reset (C2PMSG_81 = 0x%x)",
				     after);
	return 0;
}

int
amd_boot_reset_init(struct amd_boot *b)
{
	uint32_t sos = amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_81, 0);

	return sos == 0 ? 0 : mode1(b, sos);
}

/* What the checks compare: ids, revision, class and the six BARs. */
#define CONFIG_BYTES	0x28

static int
read_config(struct amd_dev *d, uint8_t *out)
{
	return d->m->ops->config_read(d->m, d->bus, 0, out, CONFIG_BYTES);
}

/* The post-reset checks of seed 003's reset; before is the config space
 * read before the first write. */
static int
checks(struct amd_boot *b, const uint8_t *before)
{
	struct amd_dev *d = b->d;
	uint8_t now[CONFIG_BYTES];
	uint32_t sos, ih0, ih1;
	uint16_t vendor;

	if (read_config(d, now) < 0)
		return amd_boot_fail(b, -EIO, "after the reset its config space cannot "
				     "be read: %s; only a power cycle recovers it",
				     amd_cause());
	memcpy(&vendor, now, 2);
	sos = amd_dev_rreg(d, AMD_REG_MP0_C2PMSG_81, 0);
	if (vendor == 0xFFFF || sos == 0xFFFFFFFFu)
		return amd_boot_fail(b, -EIO, "after the reset it does not respond "
				     "(vendor id 0x%04x, C2PMSG_81 = 0x%x); only a "
				     "power cycle recovers it", vendor, sos);
	/* A reset may clear the BARs; linux restores the saved config state
	 * after its mode 1, and so does this. Command and status (4-7), cache
	 * line, latency and BIST (0xc-0xf) may change; the rest may not. */
	if (memcmp(now + 0x10, before + 0x10, CONFIG_BYTES - 0x10) &&
	    (d->m->ops->config_write(d->m, &d->t, 0x10, before + 0x10,
				     CONFIG_BYTES - 0x10) < 0 || read_config(d, now) < 0))
		return amd_boot_fail(b, -EIO, "after the reset its BARs cannot be "
				     "restored: %s", amd_cause());
	for (size_t k = 8; k < CONFIG_BYTES; k++)
		if ((k < 0xC || k >= 0x10) && now[k] != before[k])
			return amd_boot_fail(b, -EIO, "after the reset its configuration "
					     "differs (config byte 0x%zx was 0x%02x, is "
					     "0x%02x)", k, before[k], now[k]);
	if (memcmp(now, before, 4))
		return amd_boot_fail(b, -EIO, "after the reset its configuration "
				     "differs (its ids were %02x%02x:%02x%02x)", before[1],
				     before[0], before[3], before[2]);
	if (sos)
		return amd_boot_fail(b, -EIO, "its security processor still runs after "
				     "the reset (C2PMSG_81 = 0x%x)", sos);
	ih0 = amd_dev_rreg(d, AMD_REG_OSSSYS_IH_RB_CNTL, 0);
	ih1 = amd_dev_rreg(d, AMD_REG_OSSSYS_IH_RB_CNTL_RING1, 0);
	if ((ih0 | ih1) & IH_RB_ENABLE)
		return amd_boot_fail(b, -EIO, "its interrupt rings still run after the "
				     "reset (IH_RB_CNTL = 0x%x, IH_RB_CNTL_RING1 = 0x%x)",
				     ih0, ih1);
	return amd_boot_wait(b, "RESET", "bootloader not ready with no OS running; "
			     "only a power cycle recovers it", AMD_REG_MP0_C2PMSG_35,
			     BOOTLOADER_READY, BOOTLOADER_READY, 1000, NULL);
}

int
amd_boot_reset_gpu(struct amd_dev *d, char *cause, size_t len)
{
	struct amd_boot b = { .d = d, .full = true, .cause = cause, .len = len };
	uint8_t before[CONFIG_BYTES];
	uint32_t sos = amd_dev_rreg(d, AMD_REG_MP0_C2PMSG_81, 0);
	int ret;

	if (sos == 0xFFFFFFFFu)	/* a function that drops off the bus reads all ones */
		return amd_boot_fail(&b, -EIO, "it does not respond (C2PMSG_81 = "
				     "0x%x); nothing was written; only a power cycle "
				     "recovers it", sos);
	if (read_config(d, before) < 0)
		return amd_boot_fail(&b, -EIO, "its config space cannot be read: %s",
				     amd_cause());
	/* Stop: nothing reaches host memory, no queue runs, no ring fills. */
	if ((ret = pci_bus_master(d->m, &d->t, false)) < 0)
		return amd_boot_fail(&b, ret, "stopping it: bus mastering off: %s",
				     amd_cause());
	amd_boot_gfx_fini(d, false);
	amd_boot_sdma_fini(d, false);
	amd_boot_ih_fini(d, false);
	BW(&b, AMD_REG_OSSSYS_IH_RB_CNTL_RING1, 0, 0);
	if (sos && (ret = mode1(&b, sos)) < 0)
		return ret;
	if (!sos)	/* its state stays: the next open boots it in full */
		BW(&b, AMD_REG_GC_SCRATCH_REG6, 0, 1);
	return checks(&b, before);
}
