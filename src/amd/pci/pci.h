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
 *   lock.c     the lock that opens and machine changes run under in a
 *              process, and each function's lock among processes
 *   io.c       the sysfs machine's operations on a taken function:
 *              registers, doorbells, config writes, bus mastering
 *   dma.c      DMA-able host memory: huge pages + pagemap, or VFIO type 1
 *   irq.c      interrupt sources: VFIO MSI eventfd, else a timerfd
 *   peer.c     where a peer function's BAR sits on the bus, for DMA
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

/*
 * A function taken from Linux: what give_back undoes, and the state every
 * operation on a taken function works on. take fills bus, config_fd and
 * enabled_by_us and leaves the windows unmapped (pci_windows_map maps
 * them); machine is the machine's own state of the function (the Linux
 * machine's VFIO descriptors, the simulator's GPU), NULL where it keeps
 * none, and only the machine that took the function reads it.
 */
struct pci_taken {
	char bus[32];
	int config_fd;
	bool enabled_by_us;
	struct pci_window vram, doorbell, mmio;	/* BARs 0, 2, 5 (§8.2) */
	void *machine;
};

/*
 * A doorbell resolved once (doorbell_open), for a queue that rings it on
 * every commit: pci_doorbell_ring() is one call with no checks left, where
 * doorbell_write checks and decodes its offset every time. ring is the
 * machine's; at and ctx are what it resolved (the sysfs machine: the slot
 * in the mapped window; the simulator: its decode of that slot).
 */
struct pci_doorbell {
	void (*ring)(const struct pci_doorbell *db, uint64_t value);
	void *at;
	void *ctx;
};

static inline void
pci_doorbell_ring(const struct pci_doorbell *db, uint64_t value)
{
	db->ring(db, value);
}

/* DMA-able host memory is handed out in 2 MiB pages (seed 003, Host memory). */
#define PCI_DMA_PAGE	(2ull << 20)

/* How a region of host memory was made reachable by the function. */
enum pci_dma_how {
	PCI_DMA_HUGEPAGES = 1,	/* 2 MiB pages of /dev/hugepages; bus = physical */
	PCI_DMA_VFIO = 2,	/* mapped into the function's IOMMU (VFIO type 1) */
	PCI_DMA_SIM = 3,	/* a simulator's memory at its own bus addresses */
};

/*
 * Host memory the function reaches by DMA: bytes (a multiple of
 * PCI_DMA_PAGE) at host, 2 MiB aligned, zeroed, locked in memory; page k
 * (host + k * PCI_DMA_PAGE) is at bus address bus[k] on the function's
 * bus, contiguous within the page and not across pages. bus is malloc'd by
 * dma_alloc and freed by dma_free. machine is the machine's own record.
 */
struct pci_dma {
	void *host;
	uint64_t bytes;
	uint64_t *bus;
	enum pci_dma_how how;
	void *machine;
};

/*
 * An interrupt source: fd becomes readable when the function may have
 * appended to its interrupt ring, and a read of 8 bytes from it (an
 * eventfd's or a timerfd's count) clears it. msi: the function's MSI is
 * delivered to fd (VFIO's VFIO_DEVICE_SET_IRQS, or the simulator); without
 * MSI, fd is a timer that fires every period_ns while armed, and the
 * driver arms it while work is outstanding (irq_arm) so an idle device
 * costs no wake-ups.
 */
struct pci_irq {
	int fd;
	bool msi;
	uint64_t period_ns;
	bool armed;
};

struct rig_pci_machine;

/*
 * The machine interface. Each operation returns 0 or a negative errno with
 * amd_why() saying why (amd_fail); none changes the machine on failure.
 * Nothing in the driver reaches PCI hardware, sysfs or /proc except
 * through these operations.
 *
 * Listing and files (any thread; each a few system calls):
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
 *   and give it back as it was (unmapping its windows, freeing nothing
 *   else: the caller frees its DMA memory and interrupt source first).
 *
 * On a taken function t (the caller serialises calls on one t, except
 * reg_read/reg_write/doorbell_write, which any thread may make at once):
 * config_write: writes bytes of t's config space at offset (such as
 *   PCI_COMMAND's bus-master bit, pci_bus_master()). -EINVAL for a range
 *   outside the 4 KiB config space.
 * reg_read/reg_write: the 32-bit register at dword index (amd-facts §0.3:
 *   discovery base + offset) through t's MMIO window, one 32-bit load or
 *   store, never blocks, no system call. -ERANGE for an index past the
 *   window (the driver reaches those through the NBIO index/data pair);
 *   -ENXIO when the windows are not mapped.
 * doorbell_write: the 64-bit doorbell at byte offset (8-aligned) of t's
 *   doorbell window, one 64-bit store after a release fence, so what the
 *   thread wrote to host and VRAM memory before it reaches the GPU first.
 *   Never blocks. -ERANGE / -EINVAL / -ENXIO as above.
 * doorbell_open: the same doorbell resolved into *out (its checks made
 *   here, once), valid while t's windows are mapped; pci_doorbell_ring()
 *   then writes it as doorbell_write would, from any thread, never
 *   failing. -ERANGE / -EINVAL / -ENXIO as doorbell_write.
 * dma_alloc/dma_free: host memory t reaches by DMA (struct pci_dma):
 *   VFIO type 1 where t is bound to vfio-pci in an IOMMU group, else 2 MiB
 *   huge pages from the machine's /dev/hugepages with bus addresses from
 *   /proc/self/pagemap (needs CAP_SYS_ADMIN: -EPERM without; -ENOMEM
 *   naming vm.nr_hugepages when no page is free). May block (page faults,
 *   ioctls). bytes is rounded up to PCI_DMA_PAGE.
 * irq_open/irq_arm/irq_close: t's interrupt source (struct pci_irq): its
 *   MSI as an eventfd where the machine delivers it, else a timerfd of
 *   period_ns (1 ms) that irq_arm starts (outstanding true) and stops.
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

	int (*config_write)(const struct rig_pci_machine *m, struct pci_taken *t,
			    uint32_t offset, const void *buf, size_t bytes);
	int (*reg_read)(const struct rig_pci_machine *m, struct pci_taken *t,
			uint64_t index, uint32_t *value);
	int (*reg_write)(const struct rig_pci_machine *m, struct pci_taken *t,
			 uint64_t index, uint32_t value);
	int (*doorbell_write)(const struct rig_pci_machine *m,
			      struct pci_taken *t, uint64_t offset,
			      uint64_t value);
	int (*doorbell_open)(const struct rig_pci_machine *m,
			     struct pci_taken *t, uint64_t offset,
			     struct pci_doorbell *out);
	int (*dma_alloc)(const struct rig_pci_machine *m, struct pci_taken *t,
			 uint64_t bytes, struct pci_dma *out);
	void (*dma_free)(const struct rig_pci_machine *m, struct pci_taken *t,
			 struct pci_dma *d);
	int (*irq_open)(const struct rig_pci_machine *m, struct pci_taken *t,
			struct pci_irq *out);
	int (*irq_arm)(const struct rig_pci_machine *m, struct pci_taken *t,
		       struct pci_irq *irq, bool outstanding);
	void (*irq_close)(const struct rig_pci_machine *m, struct pci_taken *t,
			  struct pci_irq *irq);
	/*
	 * peer_bus: the bus address at which t's DMA reaches bytes at offset
	 * of BAR bar of peer, another function of the machine (a GPU's memory
	 * BAR, for another GPU's engines). -ENOTSUP where t's DMA goes through
	 * an IOMMU that does not map it, -ENODEV for no such function or BAR,
	 * -ERANGE past the BAR. Any thread; a few system calls.
	 */
	int (*peer_bus)(const struct rig_pci_machine *m, struct pci_taken *t,
			const char *peer, int bar, uint64_t offset, uint64_t bytes,
			uint64_t *bus);
	/*
	 * Optional (NULL for the sysfs machine and the simulator): GPU i's
	 * opener where another process drives the machine's GPUs (a machine
	 * behind an agent, remote/machine.c): rig_amd_pci_gpu() hands out
	 * what this fills, with its name. 0, or a negative status with
	 * amd_why() saying why.
	 */
	int (*gpu_opener)(const struct rig_pci_machine *m, int i, struct rig_opener *out);
};

struct rig_pci_machine {
	const struct pci_machine_ops *ops;
	char root[208];			/* "" for this machine's "/" */
	bool this_one;
};

/* PCI_COMMAND (config 0x04, 16 bits) and its bus-master bit (§8.4). */
#define PCI_COMMAND_OFFSET	0x04
#define PCI_COMMAND_MEMORY_BIT	0x2
#define PCI_COMMAND_MASTER_BIT	0x4

/* Maps t's VRAM, doorbell and MMIO windows (m->ops->window_map); unmaps
 * what it mapped on failure. */
int pci_windows_map(const struct rig_pci_machine *m, struct pci_taken *t);
/* Turns t's bus mastering on or off: a read of PCI_COMMAND and a
 * config_write of it. */
int pci_bus_master(const struct rig_pci_machine *m, struct pci_taken *t,
		   bool on);

/* m, or this machine for NULL. */
const struct rig_pci_machine *pci_machine_or_this(const struct rig_pci_machine *m);

/* root + "/" + rel into buf; -EINVAL (amd_fail) when it does not fit. */
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

/*
 * lock.c: the lock of one function among processes, so that two processes
 * never both pass the holder scan and take the GPU. An exclusive flock()
 * on root/run/lock/rig-pci-<bus>.lock (the folder made if missing), taken
 * without waiting: -EBUSY naming the file when another process holds it.
 * The kernel drops it when its holder exits, a killed one included, so a
 * lock never outlives its process. *fd is the lock; pci_function_unlock
 * releases it (and ignores -1). Under pci_lock(), before the holder scan,
 * held until the take is given back or the device stops.
 */
int pci_function_lock(const struct rig_pci_machine *m, const char *bus,
		      int *fd);
void pci_function_unlock(int fd);
/*
 * lock.c: the process that holds bus's lock, as its file names it: its
 * pid (> 0) and command, 0 when none holds it or its line names a process
 * that is gone, or a negative status. Changes nothing (a shared lock it
 * may take while no one holds the lock goes at once).
 */
int pci_lock_holder(const struct rig_pci_machine *m, const char *bus,
		    char *command, size_t len);

/* machine.c: the sysfs operations (a simulator reuses some of them). */
extern const struct pci_machine_ops pci_sysfs_ops;

/* io.c, dma.c, irq.c: the Linux machine's operations on a taken function,
 * as pci_sysfs_ops holds them (struct pci_machine_ops says what each does). */
int pci_sysfs_config_write(const struct rig_pci_machine *m, struct pci_taken *t,
			   uint32_t offset, const void *buf, size_t bytes);
int pci_sysfs_reg_read(const struct rig_pci_machine *m, struct pci_taken *t,
		       uint64_t index, uint32_t *value);
int pci_sysfs_reg_write(const struct rig_pci_machine *m, struct pci_taken *t,
			uint64_t index, uint32_t value);
int pci_sysfs_doorbell_write(const struct rig_pci_machine *m,
			     struct pci_taken *t, uint64_t offset, uint64_t value);
int pci_sysfs_doorbell_open(const struct rig_pci_machine *m,
			    struct pci_taken *t, uint64_t offset,
			    struct pci_doorbell *out);
int pci_sysfs_dma_alloc(const struct rig_pci_machine *m, struct pci_taken *t,
			uint64_t bytes, struct pci_dma *out);
void pci_sysfs_dma_free(const struct rig_pci_machine *m, struct pci_taken *t,
			struct pci_dma *d);
int pci_sysfs_irq_open(const struct rig_pci_machine *m, struct pci_taken *t,
		       struct pci_irq *out);
int pci_sysfs_irq_arm(const struct rig_pci_machine *m, struct pci_taken *t,
		      struct pci_irq *irq, bool outstanding);
void pci_sysfs_irq_close(const struct rig_pci_machine *m, struct pci_taken *t,
			 struct pci_irq *irq);
/* peer.c: peer_bus from the peer's sysfs resource file. */
int pci_sysfs_peer_bus(const struct rig_pci_machine *m, struct pci_taken *t,
		       const char *peer, int bar, uint64_t offset, uint64_t bytes,
		       uint64_t *bus);

/*
 * dma.c: the bus address of the byte at vaddr from its pagemap entry
 * (amd-facts §8.5: PFN bits 0-54, present bit 63): -EFAULT for a page not
 * present, -EPERM for a PFN of 0 (the process lacks CAP_SYS_ADMIN, which
 * the kernel answers so since 4.2).
 */
int pci_pagemap_bus(uint64_t entry, uint64_t vaddr, uint64_t *bus);

/*
 * vfio.c: a function bound to vfio-pci in an IOMMU group, as take opens
 * it: the container (type 1 IOMMU), the group and the device, and the
 * next free I/O virtual address. t->machine points to it; NULL for a
 * function taken through sysfs alone.
 */
struct pci_vfio {
	int container, group, device;
	uint64_t next_iova;
};
int pci_vfio_open(const struct rig_pci_machine *m, const char *bus,
		  struct pci_vfio **out);
void pci_vfio_close(struct pci_vfio *v);


#endif
