/* SPDX-License-Identifier: MIT */
/*
 * amd/: AMD GPUs over PCI with no kernel driver (docs/amd.md).
 *
 *   pci/        machines, functions, sysfs, libpci, holding, detach/attach/reset
 *   firmware/   pins, search, formats, install
 *   discovery/  the IP discovery table: reading and parsing
 *   open.c      the opener and its refusals before the boot
 *   driver.c    detach, attach, reset (Rig_pci.Driver) through sysfs
 *   fabric.c    which GPUs are taken for one of a fabric (XGMI)
 *   devices.c   what `rig devices` shows of each GPU
 *   doctor.c    `rig doctor`: the prerequisites of an open
 *
 * Later: pm4/, sdma/, ih/, boot/ (one file per IP block), device/ (the
 * Rig_amd edge driver), sim/ (a software GPU behind the machine interface).
 */
#ifndef AMD_AMD_H
#define AMD_AMD_H

#include <stdbool.h>
#include <stddef.h>

#include "amd/pci/pci.h"

/* The most images one GC version boots with (GC 12: eight). */
#define AMD_GC_IMAGES 8

/* amd_why() without its leading "<function>: ", to nest in a message. */
const char *amd_cause(void);
/* The same, copied into buf (amd_fail writes over amd_why()). */
void amd_cause_copy(char *buf, size_t len);
/* amd_fail as func: prefix followed by the current cause. Returns code. */
int amd_rewrap(const char *func, int code, const char *prefix);

/*
 * The host memory a device takes at open, in 2 MiB pages: its queues'
 * rings and pointers, its interrupt rings and its staging. Behind an IOMMU
 * it counts against RLIMIT_MEMLOCK; without one it is 16 huge pages
 * (rig doctor checks both against it).
 */
#define AMD_HOST_MEMORY_BYTES	(32ull << 20)

/* The GPUs of a fabric (XGMI hive): Instinct parts, 8 to a hive. */
#define AMD_FABRIC_GPUS 8

/* fabric.c: whether a GPU of GC gc_major on a machine of count AMD GPUs is
 * taken for one of a fabric. */
bool amd_fabric_gc(unsigned gc_major, size_t count);
/* fabric.c: the same, reading the GPU's table (its function taken and given
 * back) when count is a fabric's size: 1, 0, or a negative status. */
int amd_fabric_member(const struct rig_pci_machine *m,
		      const struct pci_function *f, size_t count);

/* driver.c: how long detach waits for amdgpu and KFD to let go (tests
 * shorten it). */
extern int amd_driver_wait_ms;

#endif
