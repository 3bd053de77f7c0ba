/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/machine.c: the sysfs machine. Its files lie under a root ("" is
 * this machine's "/"): sysfs at root/sys, processes at root/proc. A window
 * is a BAR's sysfs resourceN file mapped shared (amd-facts §8.4); taking a
 * function enables it, opens its config space and, bound to vfio-pci, its
 * VFIO container (vfio.c), and giving it back undoes all three. Not here:
 * listing functions (list.c), registers, doorbells and config writes
 * (io.c), DMA memory (dma.c), interrupts (irq.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

int
pci_path(const struct rig_pci_machine *m, char *buf, size_t len,
	 const char *rel)
{
	int n;

	/* A machine behind an agent (remote/machine.c) has no files here. */
	if (m->ops->gpu_opener)
		return amd_fail(-EOPNOTSUPP, "%s is a machine behind an agent: its %s is the agent's",
				m->root + strlen("/dev/null/"), rel);
	n = snprintf(buf, len, "%s/%s", m->root, rel);
	if (n < 0 || (size_t)n >= len)
		return amd_fail(-EINVAL, "path %s/%s is too long", m->root, rel);
	return 0;
}

static int
sysfs_file_read(const struct rig_pci_machine *m, const char *rel, char *buf,
		size_t cap)
{
	char path[512];
	ssize_t got;
	int fd, ret;

	ret = pci_path(m, path, sizeof(path), rel);
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	got = read(fd, buf, cap - 1);
	ret = -errno;
	close(fd);
	if (got < 0)
		return amd_fail(ret, "cannot read %s: %s", path, strerror(-ret));
	buf[got] = '\0';
	return 0;
}

static int
sysfs_file_write(const struct rig_pci_machine *m, const char *rel,
		 const char *text)
{
	char path[512];
	size_t len = strlen(text);
	ssize_t put;
	int fd, ret;

	ret = pci_path(m, path, sizeof(path), rel);
	if (ret < 0)
		return ret;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	put = write(fd, text, len);
	ret = put < 0 ? -errno : 0;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret < 0)
		return amd_fail(ret, "cannot write %s: %s", path, strerror(-ret));
	if ((size_t)put != len)
		return amd_fail(-EIO, "short write of %s", path);
	return 0;
}

static int
function_file(const struct rig_pci_machine *m, const char *bus,
	      const char *name, char *path, size_t len)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", bus, name);
	return pci_path(m, path, len, rel);
}

static int
sysfs_config_read(const struct rig_pci_machine *m, const char *bus,
		  uint32_t offset, void *buf, size_t bytes)
{
	char path[512];
	ssize_t got;
	int fd, ret;

	ret = function_file(m, bus, "config", path, sizeof(path));
	if (ret < 0)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	got = pread(fd, buf, bytes, offset);
	ret = got < 0 ? -errno : 0;
	close(fd);
	if (ret < 0)
		return amd_fail(ret, "cannot read %s: %s", path, strerror(-ret));
	if ((size_t)got != bytes)
		return amd_fail(-EIO, "%s has %zd bytes at 0x%x, not %zu", path,
				got, offset, bytes);
	return 0;
}

/* Maps [offset, offset + bytes) of BAR bar; *base is the mapping. */
static int
map_range(const struct rig_pci_machine *m, const char *bus, int bar,
	  uint64_t offset, uint64_t bytes, int prot, void **base,
	  uint64_t *mapped, uint64_t *skip)
{
	char name[16], path[512];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = offset & ~(page - 1);
	int fd, ret;
	void *p;

	snprintf(name, sizeof(name), "resource%d", bar);
	ret = function_file(m, bus, name, path, sizeof(path));
	if (ret < 0)
		return ret;
	fd = open(path, (prot & PROT_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	*mapped = offset - start + bytes;
	p = mmap(NULL, *mapped, prot, MAP_SHARED, fd, (off_t)start);
	ret = -errno;
	close(fd);
	if (p == MAP_FAILED)
		return amd_fail(ret, "cannot map %s: %s", path, strerror(-ret));
	*base = p;
	*skip = offset - start;
	return 0;
}

static int
sysfs_window_read(const struct rig_pci_machine *m, const char *bus, int bar,
		  uint64_t offset, void *buf, size_t bytes)
{
	uint64_t mapped, skip;
	uint32_t *to = buf;
	void *base;
	int ret;

	if ((offset | bytes) & 3)
		return amd_fail(-EINVAL, "BAR%d read at 0x%llx of %zu bytes is not "
				"in dwords", bar, (unsigned long long)offset, bytes);
	ret = map_range(m, bus, bar, offset, bytes, PROT_READ, &base, &mapped,
			&skip);
	if (ret < 0)
		return ret;
	/* Registers answer 32-bit loads only: no memcpy here. */
	for (size_t i = 0; i < bytes / 4; i++)
		to[i] = ((volatile uint32_t *)((char *)base + skip))[i];
	munmap(base, mapped);
	return 0;
}

static int
sysfs_window_map(const struct rig_pci_machine *m, const char *bus, int bar,
		 struct pci_window *out)
{
	struct pci_function *fs;
	uint64_t bytes = 0, mapped, skip;
	size_t n;
	int ret;

	ret = m->ops->functions(m, &fs, &n);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fs[i].bus, bus))
			bytes = fs[i].bar_bytes[bar];
	free(fs);
	if (!bytes)
		return amd_fail(-ENODEV, "%s has no BAR%d", bus, bar);
	ret = map_range(m, bus, bar, 0, bytes, PROT_READ | PROT_WRITE,
			&out->addr, &mapped, &skip);
	if (ret < 0)
		return ret;
	out->bar = bar;
	out->bytes = mapped;
	return 0;
}

static void
sysfs_window_unmap(const struct rig_pci_machine *m, struct pci_window *w)
{
	if (w->addr)
		munmap(w->addr, w->bytes);
	w->addr = NULL;
}

/*
 * Taking a function: a function bound to a driver other than vfio-pci is
 * not ours to take. Enabling it (sysfs "enable") turns on its memory
 * decoding; its config space stays open for the device's life.
 */
static int
sysfs_take(const struct rig_pci_machine *m, const char *bus,
	   struct pci_taken *out)
{
	char driver[64], path[512], rel[128], enable[16];
	int ret, fd;

	memset(out, 0, sizeof(*out));
	out->config_fd = -1;
	ret = pci_driver_of(m, bus, driver, sizeof(driver));
	if (ret < 0)
		return ret;
	if (driver[0] && strcmp(driver, "vfio-pci"))
		return amd_fail(-EBUSY, "%s is bound to %s", bus, driver);
	ret = function_file(m, bus, "config", path, sizeof(path));
	if (ret < 0)
		return ret;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/enable", bus);
	ret = m->ops->file_read(m, rel, enable, sizeof(enable));
	if (ret >= 0 && enable[0] == '0')
		ret = m->ops->file_write(m, rel, "1");
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/* Behind an IOMMU the function's DMA goes through VFIO (dma.c). */
	if (!strcmp(driver, "vfio-pci")) {
		struct pci_vfio *v;

		ret = pci_vfio_open(m, bus, &v);
		if (ret < 0) {
			if (enable[0] == '0')
				(void)m->ops->file_write(m, rel, "0");
			close(fd);
			return ret;
		}
		out->machine = v;
	}
	snprintf(out->bus, sizeof(out->bus), "%s", bus);
	out->config_fd = fd;
	out->enabled_by_us = enable[0] == '0';
	return 0;
}

static void
sysfs_give_back(const struct rig_pci_machine *m, struct pci_taken *t)
{
	char rel[128];

	sysfs_window_unmap(m, &t->mmio);
	sysfs_window_unmap(m, &t->doorbell);
	sysfs_window_unmap(m, &t->vram);
	pci_vfio_close(t->machine);
	t->machine = NULL;

	if (t->enabled_by_us) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/enable", t->bus);
		(void)m->ops->file_write(m, rel, "0");
	}
	if (t->config_fd >= 0)
		close(t->config_fd);
	t->config_fd = -1;
}

const struct pci_machine_ops pci_sysfs_ops = {
	.functions	= pci_sysfs_functions,
	.file_read	= sysfs_file_read,
	.file_write	= sysfs_file_write,
	.config_read	= sysfs_config_read,
	.window_read	= sysfs_window_read,
	.window_map	= sysfs_window_map,
	.window_unmap	= sysfs_window_unmap,
	.take		= sysfs_take,
	.give_back	= sysfs_give_back,
	.config_write	= pci_sysfs_config_write,
	.reg_read	= pci_sysfs_reg_read,
	.reg_write	= pci_sysfs_reg_write,
	.doorbell_write	= pci_sysfs_doorbell_write,
	.doorbell_open	= pci_sysfs_doorbell_open,
	.dma_alloc	= pci_sysfs_dma_alloc,
	.dma_free	= pci_sysfs_dma_free,
	.irq_open	= pci_sysfs_irq_open,
	.irq_arm	= pci_sysfs_irq_arm,
	.irq_close	= pci_sysfs_irq_close,
	.peer_bus	= pci_sysfs_peer_bus,
};

static const struct rig_pci_machine this_machine = {
	.ops = &pci_sysfs_ops,
	.root = "",
	.this_one = true,
};

const struct rig_pci_machine *
rig_pci_machine_this(void)
{
	return &this_machine;
}

const struct rig_pci_machine *
pci_machine_or_this(const struct rig_pci_machine *m)
{
	return m ? m : &this_machine;
}

int
rig_pci_machine_at(const char *root, struct rig_pci_machine **out)
{
	struct rig_pci_machine *m;
	size_t len;

	if (!root || !out)
		return amd_fail(-EINVAL, "root or out is NULL");
	if (root[0] != '/')
		return amd_fail(-EINVAL, "root \"%s\" is not an absolute path", root);
	len = strlen(root);
	if (len >= sizeof(m->root))
		return amd_fail(-EINVAL, "root is %zu bytes, more than %zu", len,
				sizeof(m->root) - 1);
	m = calloc(1, sizeof(*m));
	if (!m)
		return amd_fail(-ENOMEM, "no memory for a machine");
	m->ops = &pci_sysfs_ops;
	memcpy(m->root, root, len + 1);
	while (len > 0 && m->root[len - 1] == '/')	/* "/" is this machine's "" */
		m->root[--len] = '\0';
	*out = m;
	return 0;
}

void
rig_pci_machine_release(struct rig_pci_machine *m)
{
	if (m && !m->this_one)
		free(m);
}
