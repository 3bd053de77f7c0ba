/* SPDX-License-Identifier: MIT */
/*
 * rig_amd_pci.h - AMD GPUs driven over PCI with no kernel driver (docs/amd.md).
 *
 * A machine is the one narrow interface to PCI hardware: it lists PCI
 * functions in bus order, reads config space, reads and writes the files
 * of its sysfs, maps windows (BARs) and takes and gives back a function.
 * rig_pci_machine_this() is this machine through libpci and /sys;
 * rig_pci_machine_at() is a machine whose /sys, /proc, /dev and
 * /lib/firmware lie under another root, such as a test's fake tree.
 *
 * GPU i of a machine is the i-th of its AMD GPUs (rig_amd_is_gpu) in bus
 * order, whichever driver holds it. Its opener is named "AMD-PCI" for 0 and
 * "AMD-PCI:i" otherwise. An open that passes every check of docs/amd.md
 * boots the GPU: in part where a clean session of rig left it, else in
 * full from the images (GC 11.0.0, 11.0.2, 12.0.0 and 12.0.1; GC 9.4.3's
 * full boot is refused saying it is not built yet).
 *
 * Every call returns 0 (or a count) or a negative status; rig_why() then
 * names the function and the cause. A refused call changes nothing. A NULL
 * machine is this machine; any other NULL is refused as rig.h says of NULL
 * handles. No function here is inline. Any thread; opens, detach, attach and reset of
 * AMD GPUs run one at a time (a process-wide lock).
 *
 * Read next: rig_edge.h (struct rig_opener), the `rig` command
 * (`rig devices`, `rig firmware amd`, `rig doctor`).
 */
#ifndef RIG_AMD_PCI_H
#define RIG_AMD_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rig_edge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Machines ----------------------------------------------------------- */

struct rig_pci_machine;

/* A PCI bus address such as "0000:03:00.0" (domains above 0xffff fit). */
struct rig_pci_address {
	char text[32];
};

/*
 * rig_pci_machine_this() - this machine: /sys, /proc, /dev and
 * /lib/firmware of the running system. Never fails; never released.
 */
const struct rig_pci_machine *rig_pci_machine_this(void);

/*
 * rig_pci_machine_at() - a machine whose files lie under root: root/sys
 * (libpci reads root/sys/bus/pci), root/proc, root/dev, root/lib/firmware.
 * Does no I/O. Returns 0 with *out set; RIG_EINVAL for a NULL or relative
 * root or one longer than 200 bytes; RIG_ENOMEM. Release with
 * rig_pci_machine_release().
 */
int rig_pci_machine_at(const char *root, struct rig_pci_machine **out);

/* Frees a machine of rig_pci_machine_at(). NULL and this machine are ignored. */
void rig_pci_machine_release(struct rig_pci_machine *m);

/* ---- GPUs --------------------------------------------------------------- */

/*
 * rig_amd_is_gpu() - whether a PCI function is an AMD GPU: vendor 0x1002
 * and a class of display (0x03xxxx) or processing accelerator (0x1200xx).
 */
bool rig_amd_is_gpu(uint16_t vendor, uint32_t class_code);

/*
 * rig_amd_pci_buses() - the bus addresses of the AMD GPUs of m (NULL: this
 * machine) in bus order: GPU i is the i-th. Changes nothing on the machine.
 * Returns 0 with *out a malloc'd array of *n addresses (NULL when none; the
 * caller frees it); a machine that lists no PCI functions has none. Returns
 * a negative status when its functions cannot be listed (rig_why() says
 * why), RIG_EINVAL for NULL out or n, RIG_ENOMEM.
 */
int rig_amd_pci_buses(const struct rig_pci_machine *m,
		      struct rig_pci_address **out, size_t *n);

/*
 * rig_amd_pci_count() - the number of AMD GPUs of m (NULL: this machine),
 * so GPUs are numbered 0 to n - 1, or the negative status of
 * rig_amd_pci_buses().
 */
int rig_amd_pci_count(const struct rig_pci_machine *m);

/*
 * rig_amd_pci_gpu() - the opener of GPU i of m (NULL: this machine), named
 * "AMD-PCI" or "AMD-PCI:i". Its make searches images in the NULL-ended list
 * firmware (NULL for none), then rig_amd_firmware_directory(), then root's
 * home when run as root, then /lib/firmware/amdgpu; the first directory
 * holding an image with its pinned digest wins. Does no I/O. The machine
 * must outlive the opener.
 *
 * make() returns a negative status and a message starting with the GPU's
 * name, refusing, in this order and before any write to the GPU: a machine
 * whose functions cannot be listed (-ENODEV and why); a GPU i the machine
 * does not have (-ENODEV, saying how many it has); a GPU this process or
 * another holds, or one amdgpu has not let go of (-EBUSY); a function that
 * cannot be taken (the take's status and reason); a malformed discovery
 * table or one lacking a block the boot programs (-EPROTO, naming it); a
 * block of a version not booted or with no pinned image (-ENOTSUP, naming
 * block and version); an image in none of the directories with its digest
 * (-ENOENT, naming the image, the directories and the files of another
 * digest); an image not laid out as its format says (-EBADMSG); a GPU of a
 * fabric left running, or whose memory its controller cannot place whole
 * (-EBUSY, -ENOMEM); windows that cannot be mapped (the map's status).
 * Then a GPU no clean session of rig left, of a GC whose full boot is not
 * built (GC 9.4.3), is refused with -ENOTSUP saying so.
 * After the boot's first write a failure names the step and what it read
 * (-ETIMEDOUT, -EPROTO, -EIO) and leaves the GPU lost.
 *
 * Returns 0 with *out set; RIG_EINVAL for i < 0 or NULL out; RIG_ENOMEM.
 * Free with rig_amd_pci_opener_free().
 */
int rig_amd_pci_gpu(const struct rig_pci_machine *m,
		    const char *const *firmware, int i,
		    struct rig_opener **out);

/* Frees an opener of rig_amd_pci_gpu(). NULL is ignored. */
void rig_amd_pci_opener_free(struct rig_opener *o);

/* What `rig devices` shows of a GPU. */
struct rig_amd_pci_gpu_info {
	struct rig_pci_address bus;
	uint16_t device;		/* PCI device id */
	char driver[32];		/* the bound driver, "" for none */
	char state[160];		/* amdgpu, detached, held ..., unreleased ... */
	bool gc_known;			/* the GC version could be read */
	uint8_t gc_major, gc_minor, gc_rev;
};

/*
 * rig_amd_pci_describe() - GPU i of m (NULL: this machine): its bus
 * address, driver, state and, where readable, its GC version (from
 * amdgpu's ip_discovery directory while amdgpu holds it; from the GPU's
 * discovery table while it is detached and no process holds it: the
 * function is taken for the read and given back). Returns 0; RIG_EINVAL
 * for i < 0 or NULL out; -ENODEV for no GPU i or an unlistable machine.
 */
int rig_amd_pci_describe(const struct rig_pci_machine *m, int i,
			 struct rig_amd_pci_gpu_info *out);

/* ---- Changes to the machine (Rig_pci.Driver) ---------------------------- */

/* What detach achieved. */
enum rig_pci_progress {
	RIG_PCI_DETACHED = 1,	/* amdgpu let go; its last write is done */
	RIG_PCI_UNRELEASED,	/* unbound, but KFD or ip_discovery still lists it */
	RIG_PCI_PART_WAY,	/* a write failed part way; the message names the file */
};

/*
 * rig_amd_pci_detach() - take GPU i of m (NULL: this machine) from amdgpu:
 * wait up to 30 s for KFD to drop the DRM files of exited processes (as
 * debugfs at /sys/kernel/debug lists them), set driver_override to "none"
 * so no driver takes it again, unbind it, make its memory BAR as large as
 * the BAR and its bridge allow, and wait up to 30 s for KFD's topology and
 * the ip_discovery directory to drop it. Blocks meanwhile. *progress is RIG_PCI_DETACHED,
 * RIG_PCI_UNRELEASED (a later detach waits again) or RIG_PCI_PART_WAY;
 * rig_why() (also for success) says what was done. Returns 0; RIG_EINVAL for
 * i < 0 or NULL progress; -ENODEV for no GPU i; -EBUSY for a GPU a process
 * holds; -ETIMEDOUT when a GPU Unreleased before stays listed.
 */
int rig_amd_pci_detach(const struct rig_pci_machine *m, int i,
		       enum rig_pci_progress *progress);

/*
 * rig_amd_pci_attach() - give GPU i back to amdgpu: clear driver_override
 * and bind amdgpu, resetting a detached GPU first as rig_amd_pci_reset
 * does unless it is one of a fabric, which amdgpu resets as it takes it
 * back. Returns 0; RIG_EINVAL for i < 0; -ENODEV; -EBUSY for a held GPU;
 * the reset's refusal; -EIO naming the file a write failed on.
 */
int rig_amd_pci_attach(const struct rig_pci_machine *m, int i);

/*
 * rig_amd_pci_reset() - stop whatever runs on GPU i of m (bus mastering
 * off, its compute and copy queues, both interrupt rings off) and, if its
 * security processor's OS runs, reset it whole (mode 1, through the
 * power manager); a GPU no OS runs on keeps its state and is marked so
 * that its next open boots it in full. Then it checks that the GPU
 * responds, that its configuration (ids, class, BARs) is unchanged, that
 * no OS and no interrupt ring runs, and that its bootloader is ready. A GPU
 * bound to a driver other than vfio-pci (amdgpu, radeon), one KFD's
 * topology still lists or whose ip_discovery directory stays, or held by
 * a process (named) is refused (-EBUSY), and so is one of a fabric
 * (-ENOTSUP: a fabric's GPUs reset together). The function is taken, its
 * discovery table read for its registers' places, and given back.
 * Returns 0; RIG_EINVAL for i < 0; -ENODEV; the function's refusal to be
 * taken; -EPROTO for an unreadable table; -EIO for a GPU that does not
 * respond, whose configuration changed or whose firmware still runs;
 * -ETIMEDOUT for a bootloader not ready, or, where the power manager
 * does not answer and the mode-1 reset goes through the security
 * processor's OS instead, an OS that does not take it or finish it.
 */
int rig_amd_pci_reset(const struct rig_pci_machine *m, int i);

/* ---- Firmware (Rig_pci.Firmware) ---------------------------------------- */

/*
 * rig_amd_firmware_directory() - rig's firmware directory for AMD images:
 * $RIG_FIRMWARE_DIR, else $XDG_DATA_HOME/rig/firmware/amdgpu, else
 * $HOME/.local/share/rig/firmware/amdgpu. Writes it to buf; returns 0, or
 * RIG_EINVAL when none is set or it does not fit.
 */
int rig_amd_firmware_directory(char *buf, size_t len);

/* What rig_amd_firmware_install() found for one pinned image. */
enum rig_firmware_state {
	RIG_FIRMWARE_INSTALLED = 1,	/* copied in and verified */
	RIG_FIRMWARE_PRESENT,		/* already there with its digest */
	RIG_FIRMWARE_MISSING,		/* in none of the source directories */
	RIG_FIRMWARE_OTHER_DIGEST,	/* found only with another digest */
};

/*
 * rig_amd_firmware_install() - copy every pinned image from the NULL-ended
 * list from (NULL: /lib/firmware/amdgpu and /usr/lib/firmware/amdgpu) into
 * the directory to (NULL: rig_amd_firmware_directory(), created), verifying
 * each digest before and after the copy. Writes one line per image to
 * report (NULL: none): "installed", "present", "missing" or "other digest"
 * with the paths. Returns the number of images not installed or present
 * (0: every image is in place); a negative status when to cannot be made or
 * written (rig_why() says which file).
 */
int rig_amd_firmware_install(const char *const *from, const char *to,
			     FILE *report);

/* ---- Doctor ------------------------------------------------------------- */

/* What rig_amd_pci_doctor() reads of the process (tests fix it). */
struct rig_doctor_process {
	size_t size;			/* sizeof(struct rig_doctor_process) */
	uint64_t memlock_bytes;		/* RLIMIT_MEMLOCK soft limit; UINT64_MAX: unlimited */
	bool cap_sys_admin;		/* CAP_SYS_ADMIN in the effective set */
	bool io_uring;			/* io_uring_queue_init() works */
	const char *io_uring_why;	/* why not, when it does not */
};

/* rig_doctor_process_read() - the running process's facts. Never fails. */
void rig_doctor_process_read(struct rig_doctor_process *out);

/*
 * rig_amd_pci_doctor() - write to out one line per prerequisite of an open
 * of GPU i of m (i < 0: every GPU) with no kernel driver, each "pass" or
 * "FAIL" with the fix in one line: the driver binding, IOMMU on or off and
 * the function's IOMMU group, vfio-pci present (behind an IOMMU), the
 * memory BAR's size, the locked-memory limit against the 32 MiB of host
 * memory a device locks at open (behind an IOMMU), at least 16 free 2 MiB
 * hugepages (without one),
 * CAP_SYS_ADMIN, io_uring, each pinned image present in the search
 * directories. proc NULL reads the running process. Returns the number of
 * failed checks, or a negative status when the machine's functions cannot
 * be listed or i names no GPU.
 */
int rig_amd_pci_doctor(const struct rig_pci_machine *m,
		       const char *const *firmware, int i,
		       const struct rig_doctor_process *proc, FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* RIG_AMD_PCI_H */
