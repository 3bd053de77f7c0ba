/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/machine.c: the machine operations (amd/pci/pci.h) on a sim. Its
 * functions and files are its sysfs tree's, read as the sysfs machine
 * reads them, and the writes that change state go to tree.c. Config space,
 * BAR reads and windows are the sim's: BAR0 maps its VRAM memfd as a
 * resource file maps; BAR5 reads go through its registers, 32 bits at a
 * time; BAR2 and BAR5 are not mapped, since a doorbell or a register that
 * acts when written cannot be a plain page (they are reached through
 * amd_sim_doorbell() and amd_sim_reg_write(), which the machine's register
 * and doorbell operations call once amd/pci/pci.h declares them).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

struct amd_sim *
sim_of_machine(const struct rig_pci_machine *m)
{
	return (struct amd_sim *)((char *)m - offsetof(struct amd_sim, machine));
}

static int
ours(struct amd_sim *s, const char *bus)
{
	if (strcmp(bus, s->bus))
		return amd_fail(-ENODEV, "the sim has no function %s (it is %s)", bus,
				s->bus);
	return 0;
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
	int ret = sim_tree_write(sim_of_machine(m), rel, text, &handled);

	return handled ? ret : pci_sysfs_ops.file_write(m, rel, text);
}

static int
sim_config_read(const struct rig_pci_machine *m, const char *bus,
		uint32_t offset, void *buf, size_t bytes)
{
	struct amd_sim *s = sim_of_machine(m);
	int ret = ours(s, bus);

	return ret ? ret : amd_sim_config_read(s, offset, buf, bytes);
}

static int
sim_window_read(const struct rig_pci_machine *m, const char *bus, int bar,
		uint64_t offset, void *buf, size_t bytes)
{
	struct amd_sim *s = sim_of_machine(m);
	uint32_t *to = buf;
	int ret = ours(s, bus);

	if (ret)
		return ret;
	if ((offset | bytes) & 3)
		return amd_fail(-EINVAL, "BAR%d read at 0x%llx of %zu bytes is not in "
				"dwords", bar, (unsigned long long)offset, bytes);
	if (bar == AMD_BAR_VRAM) {
		if (offset > s->bar0_bytes || bytes > s->bar0_bytes - offset)
			return amd_fail(-EINVAL, "BAR0 read past its %llu bytes",
					(unsigned long long)s->bar0_bytes);
		memcpy(buf, s->vram + offset, bytes);
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
	struct amd_sim *s = sim_of_machine(m);
	int ret = ours(s, bus);
	void *p;

	if (ret)
		return ret;
	if (bar != AMD_BAR_VRAM)
		return amd_fail(-ENOTSUP, "the sim maps BAR0 only: BAR%d's registers or "
				"doorbells act when written", bar);
	p = mmap(NULL, s->bar0_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 s->vram_fd, 0);
	if (p == MAP_FAILED)
		return amd_fail(-errno, "cannot map BAR0: %s", strerror(errno));
	*out = (struct pci_window){ .bar = bar, .addr = p, .bytes = s->bar0_bytes };
	return 0;
}

static void
sim_window_unmap(const struct rig_pci_machine *m, struct pci_window *w)
{
	(void)m;
	if (w->addr)
		munmap(w->addr, w->bytes);
	w->addr = NULL;
}

/* As the sysfs machine takes one (machine.c), with no config file. */
static int
sim_take(const struct rig_pci_machine *m, const char *bus, struct pci_taken *out)
{
	struct amd_sim *s = sim_of_machine(m);
	char driver[64];
	int ret = ours(s, bus);

	if (!ret)
		ret = pci_driver_of(m, bus, driver, sizeof(driver));
	if (ret < 0)
		return ret;
	if (driver[0] && strcmp(driver, "vfio-pci"))
		return amd_fail(-EBUSY, "%s is bound to %s", bus, driver);
	memset(out, 0, sizeof(*out));
	snprintf(out->bus, sizeof(out->bus), "%s", bus);
	out->config_fd = -1;
	return 0;
}

static void
sim_give_back(const struct rig_pci_machine *m, struct pci_taken *t)
{
	(void)m;
	t->config_fd = -1;
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
};
