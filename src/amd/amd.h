/*
 * amd/: AMD GPUs over PCI with no kernel driver (seed 003).
 *
 *   pci/        machines, functions, sysfs, libpci, holding, detach/attach/reset
 *   firmware/   pins, search, formats, install
 *   discovery/  the IP discovery table: reading and parsing
 *   open.c      the opener and its refusals before the boot
 *   devices.c   what `rig devices` shows of each GPU
 *   doctor.c    `rig doctor`: the prerequisites of an open
 *
 * Later: pm4/, sdma/, ih/, boot/ (one file per IP block), device/ (the
 * Rig_amd edge driver), sim/ (a software GPU behind the machine interface).
 */
#ifndef AMD_AMD_H
#define AMD_AMD_H

#include <stddef.h>

/* The most images one GC version boots with (GC 12: eight). */
#define AMD_GC_IMAGES 8

/* rig_why() without its leading "<function>: ", to nest in a message. */
const char *amd_cause(void);
/* The same, copied into buf (rig_fail writes over rig_why()). */
void amd_cause_copy(char *buf, size_t len);
/* rig_fail as func: prefix followed by the current cause. Returns code. */
int amd_rewrap(const char *func, int code, const char *prefix);

#endif
