/* SPDX-License-Identifier: MIT */
/*
 * amd/discovery/read.h: reading the table (and the few registers that say
 * where it is) from a GPU through a machine. See read.c.
 */
#ifndef AMD_DISCOVERY_READ_H
#define AMD_DISCOVERY_READ_H

#include <stddef.h>
#include <stdint.h>

#include "amd/pci/pci.h"

/* A register of the MMIO BAR by dword index, with one 32-bit load. */
int amd_mmio_read(const struct rig_pci_machine *m, const struct pci_function *f,
		  uint64_t index, uint32_t *value);

/*
 * amd_discovery_read() - the raw table (malloc'd) and the memory size the
 * GPU reports. Returns 0, or a negative status with amd_why() saying why
 * (-ERANGE for a memory BAR too small to reach it).
 */
int amd_discovery_read(const struct rig_pci_machine *m,
		       const struct pci_function *f, uint8_t **bytes,
		       size_t *len, uint64_t *vram_bytes);

#endif
