/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/io.c: the sysfs machine's operations on a taken function's
 * hardware: config-space writes through the config file take opened,
 * registers as 32-bit loads and stores of the MMIO window, doorbells as
 * 64-bit stores of the doorbell window (amd-facts §8.2, §3.12), and the
 * two helpers every machine shares: mapping the three windows, and bus
 * mastering (PCI_COMMAND bit 2, §8.4). The window accesses are volatile
 * and one access each: a register answers the access it is given, so
 * they are never merged, split or reordered by the compiler.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/pci/pci.h"

#define CONFIG_BYTES	4096

int
pci_sysfs_config_write(const struct rig_pci_machine *m, struct pci_taken *t,
		   uint32_t offset, const void *buf, size_t bytes)
{
	ssize_t put;

	(void)m;
	if (bytes == 0 || offset > CONFIG_BYTES || bytes > CONFIG_BYTES - offset)
		return amd_fail(-EINVAL, "%s: %zu bytes at 0x%x are outside the "
				"4 KiB config space", t->bus, bytes, offset);
	if (t->config_fd < 0)
		return amd_fail(-EBADF, "%s is not taken: its config space is "
				"not open", t->bus);
	put = pwrite(t->config_fd, buf, bytes, offset);
	if (put < 0)
		return amd_fail(-errno, "%s: cannot write config space at 0x%x: "
				"%s", t->bus, offset, strerror(errno));
	if ((size_t)put != bytes)
		return amd_fail(-EIO, "%s: short write of config space at 0x%x "
				"(%zd of %zu bytes)", t->bus, offset, put, bytes);
	return 0;
}

/* The register at index, or a refusal in func's name. */
static int
register_at(const char *func, struct pci_taken *t, uint64_t index,
	    volatile uint32_t **at)
{
	if (!t->mmio.addr)
		return amd_fail_at(func, -ENXIO, "%s: its MMIO window is not mapped",
				   t->bus);
	if (index >= t->mmio.bytes / 4)
		return amd_fail_at(func, -ERANGE, "%s: register 0x%llx is past the MMIO "
				"window's 0x%llx registers", t->bus,
				(unsigned long long)index,
				(unsigned long long)(t->mmio.bytes / 4));
	*at = (volatile uint32_t *)t->mmio.addr + index;
	return 0;
}

int
pci_sysfs_reg_read(const struct rig_pci_machine *m, struct pci_taken *t,
	       uint64_t index, uint32_t *value)
{
	volatile uint32_t *at = NULL;
	int ret;

	(void)m;
	if ((ret = register_at(__func__, t, index, &at)) < 0)
		return ret;
	*value = *at;
	return 0;
}

int
pci_sysfs_reg_write(const struct rig_pci_machine *m, struct pci_taken *t,
		uint64_t index, uint32_t value)
{
	volatile uint32_t *at = NULL;
	int ret;

	(void)m;
	if ((ret = register_at(__func__, t, index, &at)) < 0)
		return ret;
	*at = value;
	return 0;
}

/* The 64-bit slot of t's doorbell window at offset, or a status. */
static int
doorbell_at(const char *func, struct pci_taken *t, uint64_t offset,
	    volatile uint64_t **at)
{
	if (!t->doorbell.addr)
		return amd_fail_at(func, -ENXIO, "%s: its doorbell window is not mapped",
				t->bus);
	if (offset & 7)
		return amd_fail_at(func, -EINVAL, "%s: doorbell offset 0x%llx is not "
				   "8-aligned", t->bus, (unsigned long long)offset);
	if (offset >= t->doorbell.bytes)
		return amd_fail_at(func, -ERANGE, "%s: doorbell offset 0x%llx is past "
				   "the window's 0x%llx bytes", t->bus,
				   (unsigned long long)offset,
				   (unsigned long long)t->doorbell.bytes);
	*at = (volatile uint64_t *)((char *)t->doorbell.addr + offset);
	return 0;
}

/* Pairs with the engine's read of the ring and write pointer: what this
 * thread wrote before (packets, the wptr copy) is visible to the device
 * before the doorbell makes it look. */
static inline void
doorbell_store(volatile uint64_t *at, uint64_t value)
{
	atomic_thread_fence(memory_order_release);
	*at = value;
}

int
pci_sysfs_doorbell_write(const struct rig_pci_machine *m, struct pci_taken *t,
		     uint64_t offset, uint64_t value)
{
	volatile uint64_t *at = NULL;
	int ret;

	(void)m;
	if ((ret = doorbell_at(__func__, t, offset, &at)) < 0)
		return ret;
	doorbell_store(at, value);
	return 0;
}

static void
doorbell_ring(const struct pci_doorbell *db, uint64_t value)
{
	doorbell_store(db->at, value);
}

int
pci_sysfs_doorbell_open(const struct rig_pci_machine *m, struct pci_taken *t,
			uint64_t offset, struct pci_doorbell *out)
{
	volatile uint64_t *at = NULL;
	int ret;

	(void)m;
	if ((ret = doorbell_at(__func__, t, offset, &at)) < 0)
		return ret;
	*out = (struct pci_doorbell){ doorbell_ring, (void *)at, NULL };
	return 0;
}

int
pci_windows_map(const struct rig_pci_machine *m, struct pci_taken *t)
{
	struct pci_window *w[3] = { &t->vram, &t->doorbell, &t->mmio };
	static const int bars[3] = { AMD_BAR_VRAM, AMD_BAR_DOORBELL, AMD_BAR_MMIO };
	int ret;

	for (int k = 0; k < 3; k++) {
		ret = m->ops->window_map(m, t->bus, bars[k], w[k]);
		if (ret < 0) {
			char prefix[16];

			snprintf(prefix, sizeof(prefix), "BAR%d: ", bars[k]);
			while (k-- > 0)
				m->ops->window_unmap(m, w[k]);
			return amd_rewrap(__func__, ret, prefix);
		}
	}
	return 0;
}

int
pci_bus_master(const struct rig_pci_machine *m, struct pci_taken *t, bool on)
{
	uint16_t command;
	int ret;

	ret = m->ops->config_read(m, t->bus, PCI_COMMAND_OFFSET, &command, 2);
	if (ret < 0)
		return ret;
	command = on ? command | PCI_COMMAND_MASTER_BIT :
		       command & ~PCI_COMMAND_MASTER_BIT;
	return m->ops->config_write(m, t, PCI_COMMAND_OFFSET, &command, 2);
}
