/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/machine.c: the machine operations (amd/pci/pci.h) on a sim. Its
 * functions and files are its sysfs tree's, read as the sysfs machine
 * reads them, and the writes that change state go to tree.c. Config space,
 * BAR reads and windows are the sim's: BAR0's window is the sim's own
 * mapping of its VRAM memfd (shared memory, as a resource file maps it);
 * BAR5 reads go through its registers, 32 bits at a
 * time. A doorbell or a register acts when written, so it cannot be a
 * plain page: BAR2's and BAR5's windows map as PROT_NONE, and a driver
 * that bypasses the machine's reg_read, reg_write and doorbell_write ops
 * through a raw window pointer faults at once on the sim. DMA memory is
 * the sim's host memory at its own bus addresses (PCI_DMA_SIM); freed, it
 * stays mapped until the sim is destroyed, so an engine that still reaches
 * it (a driver's bug) reads stale bytes rather than racing an unmap. The
 * interrupt source is the sim's MSI eventfd. A sim that shares its bus with
 * others (peer.c) shares its machine too: a call naming a bus address, or a
 * sysfs write naming one, goes to that member, and a call on a taken
 * function to the member sim_take took.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

struct amd_sim *
sim_of_machine(const struct rig_pci_machine *m)
{
	return (struct amd_sim *)((char *)m - offsetof(struct amd_sim, machine));
}

/* The sim of m's bus (peer.c) that is function bus, or -ENODEV. */
static int
ours(const struct rig_pci_machine *m, const char *bus, struct amd_sim **out)
{
	struct amd_sim *s = sim_of_machine(m);

	if (!(*out = sim_bus_find(s, bus)))
		return amd_fail(-ENODEV, "the sim has no function %s (it is %s)", bus,
				s->bus);
	return 0;
}

/* The sim a taken function is (sim_take's t->machine). */
static struct amd_sim *
taken(const struct rig_pci_machine *m, struct pci_taken *t)
{
	return t && t->machine ? t->machine : sim_of_machine(m);
}

/* The member of m's bus a sysfs write is for: the bus address a driver's
 * bind, unbind or drivers_probe is given, or the one in the path. */
static struct amd_sim *
written(const struct rig_pci_machine *m, const char *rel, const char *text)
{
	struct amd_sim *s = sim_of_machine(m), *t;
	char bus[32];

	if (!strncmp(rel, "sys/bus/pci/drivers", 19)) {
		snprintf(bus, sizeof(bus), "%s", text);
		bus[strcspn(bus, "\n")] = '\0';
	} else if (sscanf(rel, "sys/bus/pci/devices/%31[^/]", bus) != 1) {
		return s;
	}
	t = sim_bus_find(s, bus);
	return t ? t : s;
}

static int
sim_file_read(const struct rig_pci_machine *m, const char *rel, char *buf,
	      size_t cap)
{
	return pci_sysfs_ops.file_read(m, rel, buf, cap);
}

static int
sim_file_write(const struct rig_pci_machine *m, const char *rel,
	       const char *text)
{
	bool handled;
	int ret = sim_tree_write(written(m, rel, text), rel, text, &handled);

	return handled ? ret : pci_sysfs_ops.file_write(m, rel, text);
}

static int
sim_config_read(const struct rig_pci_machine *m, const char *bus,
		uint32_t offset, void *buf, size_t bytes)
{
	struct amd_sim *s;
	int ret = ours(m, bus, &s);

	return ret ? ret : amd_sim_config_read(s, offset, buf, bytes);
}

static int
sim_window_read(const struct rig_pci_machine *m, const char *bus, int bar,
		uint64_t offset, void *buf, size_t bytes)
{
	struct amd_sim *s;
	uint32_t *to = buf;
	int ret = ours(m, bus, &s);

	if (ret)
		return ret;
	if ((offset | bytes) & 3)
		return amd_fail(-EINVAL, "BAR%d read at 0x%llx of %zu bytes is not in "
				"dwords", bar, (unsigned long long)offset, bytes);
	if (bar == AMD_BAR_VRAM) {
		if (offset > s->bar0_bytes || bytes > s->bar0_bytes - offset)
			return amd_fail(-EINVAL, "BAR0 read past its %llu bytes",
					(unsigned long long)s->bar0_bytes);
		sim_copy(buf, s->vram + offset, bytes);	/* engines may write it */
		return 0;
	}
	if (bar != AMD_BAR_MMIO)
		return amd_fail(-ENOTSUP, "the sim reads BAR0 and BAR5, not BAR%d", bar);
	for (size_t i = 0; i < bytes / 4 && !ret; i++)
		ret = amd_sim_reg_read(s, (uint32_t)(offset / 4 + i), &to[i]);
	return ret;
}

static int
sim_window_map(const struct rig_pci_machine *m, const char *bus, int bar,
	       struct pci_window *out)
{
	struct amd_sim *s;
	int ret = ours(m, bus, &s);
	void *p;

	if (ret)
		return ret;
	if (bar == AMD_BAR_DOORBELL || bar == AMD_BAR_MMIO) {
		uint64_t bytes = bar == AMD_BAR_MMIO ? SIM_BAR5_BYTES : SIM_BAR2_BYTES;

		p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return amd_fail(-errno, "cannot reserve BAR%d: %s", bar,
					strerror(errno));
		*out = (struct pci_window){ .bar = bar, .addr = p, .bytes = bytes };
		return 0;
	}
	if (bar != AMD_BAR_VRAM)
		return amd_fail(-ENODEV, "the sim has no BAR%d", bar);
	/* The sim's own mapping of the memfd, BAR0's first bar0_bytes: one
	 * address per byte, so a sanitizer pairs the engines' release stores
	 * (RELEASE_MEM's word) with the driver's acquire loads through its
	 * window, as the hardware's ordering pairs them. */
	*out = (struct pci_window){ .bar = bar, .addr = s->vram, .bytes = s->bar0_bytes };
	return 0;
}

static void
sim_window_unmap(const struct rig_pci_machine *m, struct pci_window *w)
{
	(void)m;
	if (w->addr && w->bar != AMD_BAR_VRAM)	/* BAR0 is the sim's VRAM mapping */
		munmap(w->addr, w->bytes);
	w->addr = NULL;
}

/* As the sysfs machine takes one (machine.c), with no config file. */
static int
sim_take(const struct rig_pci_machine *m, const char *bus, struct pci_taken *out)
{
	struct amd_sim *s;
	char driver[64];
	int ret = ours(m, bus, &s);

	if (!ret)
		ret = pci_driver_of(m, bus, driver, sizeof(driver));
	if (ret < 0)
		return ret;
	if (driver[0] && strcmp(driver, "vfio-pci"))
		return amd_fail(-EBUSY, "%s is bound to %s", bus, driver);
	memset(out, 0, sizeof(*out));
	snprintf(out->bus, sizeof(out->bus), "%s", bus);
	out->config_fd = -1;
	out->machine = s;
	return 0;
}

/* As the sysfs machine's: the windows pci_windows_map() made go with it
 * (BAR2's and BAR5's reservations; BAR0 is the sim's own mapping). */
static void
sim_give_back(const struct rig_pci_machine *m, struct pci_taken *t)
{
	sim_window_unmap(m, &t->mmio);
	sim_window_unmap(m, &t->doorbell);
	sim_window_unmap(m, &t->vram);
	t->config_fd = -1;
}

static int
sim_config_write(const struct rig_pci_machine *m, struct pci_taken *t,
		 uint32_t offset, const void *buf, size_t bytes)
{
	return amd_sim_config_write(taken(m, t), offset, buf, bytes);
}

static int
sim_reg_read(const struct rig_pci_machine *m, struct pci_taken *t,
	     uint64_t index, uint32_t *value)
{
	if (index >= SIM_REGS)
		return amd_fail(-ERANGE, "register 0x%llx is past BAR5's window",
				(unsigned long long)index);
	return amd_sim_reg_read(taken(m, t), (uint32_t)index, value);
}

static int
sim_reg_write(const struct rig_pci_machine *m, struct pci_taken *t,
	      uint64_t index, uint32_t value)
{
	if (index >= SIM_REGS)
		return amd_fail(-ERANGE, "register 0x%llx is past BAR5's window",
				(unsigned long long)index);
	return amd_sim_reg_write(taken(m, t), (uint32_t)index, value);
}

static int
sim_doorbell_write(const struct rig_pci_machine *m, struct pci_taken *t,
		   uint64_t offset, uint64_t value)
{
	if (offset >= SIM_BAR2_BYTES)
		return amd_fail(-ERANGE, "doorbell 0x%llx is past BAR2's window",
				(unsigned long long)offset);
	return amd_sim_doorbell(taken(m, t), offset, value);
}

static int
sim_doorbell_open(const struct rig_pci_machine *m, struct pci_taken *t,
		  uint64_t offset, struct pci_doorbell *out)
{
	int ret;

	if (offset >= SIM_BAR2_BYTES)
		return amd_fail(-ERANGE, "doorbell 0x%llx is past BAR2's window",
				(unsigned long long)offset);
	if ((ret = sim_doorbell_check(__func__, offset)) < 0)
		return ret;
	*out = (struct pci_doorbell){ sim_doorbell_ring, (void *)(uintptr_t)(offset / 8),
				      taken(m, t) };
	return 0;
}

static int
sim_dma_alloc(const struct rig_pci_machine *m, struct pci_taken *t,
	      uint64_t bytes, struct pci_dma *out)
{
	uint64_t n = (bytes + PCI_DMA_PAGE - 1) / PCI_DMA_PAGE, bus, *pages;
	void *host;
	int ret;

	if (!bytes)
		return amd_fail(-EINVAL, "0 bytes of DMA memory");
	if (!(pages = malloc(n * sizeof(*pages))))
		return amd_fail(-ENOMEM, "no memory for %llu bus addresses",
				(unsigned long long)n);
	ret = amd_sim_host_alloc(taken(m, t), n * PCI_DMA_PAGE, &host, &bus);
	if (ret < 0) {
		free(pages);
		return ret;
	}
	for (uint64_t k = 0; k < n; k++)
		pages[k] = bus + k * PCI_DMA_PAGE;
	*out = (struct pci_dma){ .host = host, .bytes = n * PCI_DMA_PAGE,
				 .bus = pages, .how = PCI_DMA_SIM };
	return 0;
}

static void
sim_dma_free(const struct rig_pci_machine *m, struct pci_taken *t,
	     struct pci_dma *d)
{
	(void)m;
	(void)t;
	free(d->bus);
	d->bus = NULL;
	d->host = NULL;
}

static int
sim_irq_open(const struct rig_pci_machine *m, struct pci_taken *t,
	     struct pci_irq *out)
{
	int fd = dup(amd_sim_irq_fd(taken(m, t)));

	if (fd < 0)
		return amd_fail(-errno, "cannot share the sim's MSI eventfd: %s",
				strerror(errno));
	*out = (struct pci_irq){ .fd = fd, .msi = true };
	return 0;
}

static int
sim_irq_arm(const struct rig_pci_machine *m, struct pci_taken *t,
	    struct pci_irq *irq, bool outstanding)
{
	(void)m;
	(void)t;
	irq->armed = outstanding;	/* MSI: nothing to start */
	return 0;
}

static void
sim_irq_close(const struct rig_pci_machine *m, struct pci_taken *t,
	      struct pci_irq *irq)
{
	(void)m;
	(void)t;
	if (irq->fd >= 0)
		close(irq->fd);
	irq->fd = -1;
}

/* A peer's BAR as t's engines reach it: its bus address on the sim's bus. */
static int
sim_peer_bus(const struct rig_pci_machine *m, struct pci_taken *t,
	     const char *peer, int bar, uint64_t offset, uint64_t bytes,
	     uint64_t *bus)
{
	return sim_bus_bar_address(taken(m, t), peer, bar, offset, bytes, bus);
}

const struct pci_machine_ops sim_machine_ops = {
	.functions	= pci_sysfs_functions,
	.file_read	= sim_file_read,
	.file_write	= sim_file_write,
	.config_read	= sim_config_read,
	.window_read	= sim_window_read,
	.window_map	= sim_window_map,
	.window_unmap	= sim_window_unmap,
	.take		= sim_take,
	.give_back	= sim_give_back,
	.config_write	= sim_config_write,
	.reg_read	= sim_reg_read,
	.reg_write	= sim_reg_write,
	.doorbell_write	= sim_doorbell_write,
	.doorbell_open	= sim_doorbell_open,
	.dma_alloc	= sim_dma_alloc,
	.dma_free	= sim_dma_free,
	.irq_open	= sim_irq_open,
	.irq_arm	= sim_irq_arm,
	.irq_close	= sim_irq_close,
	.peer_bus	= sim_peer_bus,
};
