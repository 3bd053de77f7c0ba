/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/: machines, PCI functions, sysfs, libpci (Rig_pci). Everything
 * that touches PCI hardware or sysfs goes through a machine's operations,
 * so a test's fake tree or the simulator plugs in beneath the same code.
 *
 *   machine.c  the sysfs machine: paths under a root, files, config space,
 *              windows (BAR mappings), taking and giving back a function
 *   list.c     PCI functions in bus order through libpci; AMD GPUs; buses
 *   hold.c     who holds a GPU: this process, another one, or amdgpu
 *   lock.c     the one lock that opens and machine changes run under
 *
 * Not here: firmware (amd/firmware/), the discovery table
 * (amd/discovery/), the opener (amd/open.c), detach/attach/reset
 * (amd/driver.c: they are amdgpu's), doctor (amd/doctor.c).
 */
#ifndef AMD_PCI_PCI_H
#define AMD_PCI_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig_amd_pci.h"

/* PCI facts (amd-facts §8). */
#define PCI_VENDOR_ID_ATI	0x1002
#define PCI_BASE_CLASS_DISPLAY	0x03
#define PCI_CLASS_ACCELERATOR_PROCESSING 0x1200
#define PCI_BARS		6
#define AMD_BAR_VRAM		0	/* the memory BAR (amd-facts §8.2) */
#define AMD_BAR_DOORBELL	2
#define AMD_BAR_MMIO		5

/* A PCI function as a machine lists it. */
struct pci_function {
	char bus[32];			/* "0000:03:00.0" */
	uint16_t vendor, device;
	uint32_t class_code;		/* 24-bit, prog-if 0 */
	uint64_t bar_bytes[PCI_BARS];	/* 0 for an unused BAR */
};

/* A window: a BAR mapped into the process. */
struct pci_window {
	int bar;
	void *addr;
	uint64_t bytes;
};

/* A function taken from Linux: what give_back undoes. */
struct pci_taken {
	char bus[32];
	int config_fd;
	bool enabled_by_us;
};

struct rig_pci_machine;

/*
 * The machine interface. Each operation returns 0 or a negative errno with
 * rig_why() saying why (rig_fail); none changes the machine on failure.
 * functions: every PCI function in bus order (malloc'd; caller frees).
 * file_read: a file under the machine's root (such as
 *   "sys/bus/pci/devices/<bus>/driver_override"), NUL-ended, trailing
 *   newline kept; -ENOENT for none.
 * file_write: writes text to such a file (one write call, as sysfs wants).
 * config_read: bytes of a function's config space.
 * window_read: bytes of a BAR, read as 32-bit loads (offset, bytes
 *   multiples of 4), through a mapping made and dropped for the call.
 * window_map/unmap: a BAR mapped read-write for the device's life.
 * take/give_back: take a function from Linux (enable it, open its config)
 *   and give it back as it was.
 */
struct pci_machine_ops {
	int (*functions)(const struct rig_pci_machine *m,
			 struct pci_function **out, size_t *n);
	int (*file_read)(const struct rig_pci_machine *m, const char *rel,
			 char *buf, size_t cap);
	int (*file_write)(const struct rig_pci_machine *m, const char *rel,
			  const char *text);
	int (*config_read)(const struct rig_pci_machine *m, const char *bus,
			   uint32_t offset, void *buf, size_t bytes);
	int (*window_read)(const struct rig_pci_machine *m, const char *bus,
			   int bar, uint64_t offset, void *buf, size_t bytes);
	int (*window_map)(const struct rig_pci_machine *m, const char *bus,
			  int bar, struct pci_window *out);
	void (*window_unmap)(const struct rig_pci_machine *m,
			     struct pci_window *w);
	int (*take)(const struct rig_pci_machine *m, const char *bus,
		    struct pci_taken *out);
	void (*give_back)(const struct rig_pci_machine *m,
			  struct pci_taken *t);
};

struct rig_pci_machine {
	const struct pci_machine_ops *ops;
	char root[208];			/* "" for this machine's "/" */
	bool this_one;
};

/* m, or this machine for NULL. */
const struct rig_pci_machine *pci_machine_or_this(const struct rig_pci_machine *m);

/* root + "/" + rel into buf; -EINVAL (rig_fail) when it does not fit. */
int pci_path(const struct rig_pci_machine *m, char *buf, size_t len,
	     const char *rel);

/* list.c: the sysfs machine's functions operation. */
int pci_sysfs_functions(const struct rig_pci_machine *m,
			struct pci_function **out, size_t *n);
/* list.c: the AMD GPUs among the machine's functions, in bus order. */
int pci_amd_gpus(const struct rig_pci_machine *m, struct pci_function **out,
		 size_t *n);
/* list.c: GPU i, or -ENODEV saying how many there are. */
int pci_amd_gpu(const struct rig_pci_machine *m, int i, struct pci_function *out,
		size_t *count);

/* hold.c */
int pci_hold_mark(const char *bus);	/* -EBUSY if held already */
void pci_hold_clear(const char *bus);
bool pci_held_here(const char *bus);
/* The name of the driver bound to bus into buf ("" for none). */
int pci_driver_of(const struct rig_pci_machine *m, const char *bus,
		  char *buf, size_t len);
/*
 * Whether a process holds the function: its config or resource files, its
 * /dev/vfio group or its DRM nodes open or mapped. Returns the pid (> 0)
 * and what it holds in what, 0 for none, or a negative status.
 */
int pci_holder(const struct rig_pci_machine *m, const char *bus,
	       char *what, size_t len);
/*
 * Whether amdgpu still has the GPU: bound to it, listed in KFD's topology,
 * or its ip_discovery directory still there. 1 with why filled, or 0.
 */
int pci_amdgpu_has(const struct rig_pci_machine *m, const char *bus,
		   char *why, size_t len);
/* The same but for the binding: what stays after an unbind (docs/amd.md). */
int pci_amdgpu_lingers(const struct rig_pci_machine *m, const char *bus,
		       char *why, size_t len);

/*
 * DRM files of the GPU's nodes that exited processes still hold, as
 * debugfs's dri/<minor>/clients lists them: their number, and
 * "<pid> (<node>), ..." in why.
 */
int pci_dead_drm_files(const struct rig_pci_machine *m, const char *bus,
		       char *why, size_t len);

/* lock.c: the process-wide lock of opens and machine changes. */
void pci_lock(void);
void pci_unlock(void);

/* machine.c: the sysfs operations (a simulator reuses some of them). */
extern const struct pci_machine_ops pci_sysfs_ops;


#endif
