/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/reset.c: before a full boot, a GPU whose security processor's
 * OS runs (C2PMSG_81 non-zero: firmware rig cannot vouch for, a killed
 * process's, one lost to a fault) is reset whole (mode 1) through the
 * SMU's debug mailbox, with bus mastering off so nothing it still runs
 * reaches host memory (amd-facts §3.1). The open fails if firmware rig
 * did not start still runs after the reset. A GPU no sOS runs on is
 * booted from its bootloader as it is.
 */
#include <errno.h>
#include <stdio.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

int
amd_boot_reset_init(struct amd_boot *b)
{
	uint32_t sos = amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_81, 0), after;
	int ret;

	if (sos == 0)
		return 0;
	if ((ret = pci_bus_master(b->d->m, &b->d->t, false)) < 0)
		return amd_boot_fail(b, ret, "RESET: bus mastering off: %s", amd_cause());
	if (!amd_boot_smu_alive(b, 100)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", b->cause);
		return amd_boot_fail(b, -EIO, "RESET: its sOS runs (C2PMSG_81 = 0x%x) "
				     "but its SMU does not answer, so it cannot be "
				     "reset (mode 1): %s", sos, why);
	}
	if ((ret = amd_boot_smu_mode1(b)) < 0)
		return ret;
	after = amd_dev_rreg(b->d, AMD_REG_MP0_C2PMSG_81, 0);
	if (after)
		return amd_boot_fail(b, -EIO, "RESET: firmware rig did not start still "
				     "runs after the mode-1 reset (C2PMSG_81 = 0x%x)",
				     after);
	return 0;
}
