/* SPDX-License-Identifier: MIT */
/*
 * amd/discovery/read.c: finds the discovery table in the GPU's memory and
 * reads it through the memory BAR, with loads only, so the GPU's state
 * does not change (amd-facts §2.1). The table lies DISCOVERY_TMR_OFFSET
 * below the top of memory, whose size RCC_CONFIG_MEMSIZE gives in MiB,
 * unless the firmware placed it elsewhere and says so in DRIVER_SCRATCH_0..2.
 */
#include <errno.h>
#include <stdlib.h>

#include "amd/fail.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"

/* Registers at the same dword index on every SOC (amd-facts §0.3). */
#define mmRCC_CONFIG_MEMSIZE	0xde3
#define mmDRIVER_SCRATCH_0	0x94
#define mmDRIVER_SCRATCH_1	0x95
#define mmDRIVER_SCRATCH_2	0x96

#define DISCOVERY_TMR_OFFSET	(64u << 10)
#define DISCOVERY_TMR_SIZE	(10u << 10)

int
amd_mmio_read(const struct rig_pci_machine *m, const struct pci_function *f,
	      uint64_t index, uint32_t *value)
{
	if ((index + 1) * 4 > f->bar_bytes[AMD_BAR_MMIO])
		return amd_fail(-ERANGE, "register 0x%llx lies past the register "
				"BAR%d (0x%llx bytes)", (unsigned long long)index,
				AMD_BAR_MMIO,
				(unsigned long long)f->bar_bytes[AMD_BAR_MMIO]);
	return m->ops->window_read(m, f->bus, AMD_BAR_MMIO, index * 4, value, 4);
}

int
amd_discovery_read(const struct rig_pci_machine *m, const struct pci_function *f,
		   uint8_t **bytes, size_t *len, uint64_t *vram_bytes)
{
	uint32_t memsize, s0, s1, s2;
	uint64_t at, size, bar = f->bar_bytes[AMD_BAR_VRAM];
	uint8_t *b;
	int ret;

	ret = amd_mmio_read(m, f, mmRCC_CONFIG_MEMSIZE, &memsize);
	if (ret == 0)
		ret = amd_mmio_read(m, f, mmDRIVER_SCRATCH_2, &s2);
	if (ret == 0)
		ret = amd_mmio_read(m, f, mmDRIVER_SCRATCH_1, &s1);
	if (ret == 0)
		ret = amd_mmio_read(m, f, mmDRIVER_SCRATCH_0, &s0);
	if (ret < 0)
		return ret;
	*vram_bytes = (uint64_t)memsize << 20;
	if (s2) {	/* placed by the firmware */
		at = (uint64_t)s1 << 32 | s0;
		size = s2;
	} else {
		if (*vram_bytes < DISCOVERY_TMR_OFFSET)
			return amd_fail(-EPROTO, "RCC_CONFIG_MEMSIZE says %u MiB of "
					"memory, too little to hold the table",
					memsize);
		at = *vram_bytes - DISCOVERY_TMR_OFFSET;
		size = DISCOVERY_TMR_SIZE;
	}
	if (size > 0x10000 || (at | size) & 3)
		return amd_fail(-EPROTO, "DRIVER_SCRATCH places the table at 0x%llx, "
				"0x%llx bytes: not dwords, or over 64 KiB",
				(unsigned long long)at, (unsigned long long)size);
	if (at + size > bar)
		return amd_fail(-ERANGE, "the memory BAR (%llu MiB) does not reach "
				"the table at 0x%llx; `rig detach` makes it as "
				"large as allowed", (unsigned long long)(bar >> 20),
				(unsigned long long)at);
	b = malloc(size);
	if (!b)
		return amd_fail(-ENOMEM, "no memory for %llu bytes",
				(unsigned long long)size);
	ret = m->ops->window_read(m, f->bus, AMD_BAR_VRAM, at, b, size);
	if (ret < 0) {
		free(b);
		return ret;
	}
	*bytes = b;
	*len = size;
	return 0;
}
