/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/dma.c: host memory a taken function reaches by DMA, in 2 MiB
 * pages. Behind an IOMMU (the function bound to vfio-pci, vfio.c) the
 * pages are anonymous memory mapped into the IOMMU at I/O virtual
 * addresses (VFIO_IOMMU_MAP_DMA), which pins them: they count against
 * RLIMIT_MEMLOCK. Taken physically, they are 2 MiB huge pages of a file
 * in the machine's /dev/hugepages (hugetlbfs: physically contiguous,
 * never swapped or moved), and their bus addresses are their physical
 * addresses, read from /proc/self/pagemap (amd-facts §8.5; CAP_SYS_ADMIN,
 * seed 003's Host memory). Both are marked MADV_DONTFORK: a child of fork
 * never shares memory a device writes. No library does either; the
 * kernel's interfaces are the primitive.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

#define HUGETLBFS_MAGIC	0x958458f6
#define PAGEMAP_PFN	((1ull << 55) - 1)
#define PAGEMAP_PRESENT	(1ull << 63)

int
pci_pagemap_bus(uint64_t entry, uint64_t vaddr, uint64_t *bus)
{
	if (!(entry & PAGEMAP_PRESENT))
		return amd_fail(-EFAULT, "the page at %p is not present",
				(void *)(uintptr_t)vaddr);
	if (!(entry & PAGEMAP_PFN))
		return amd_fail(-EPERM, "pagemap gives no frame for %p: reading "
				"physical addresses needs CAP_SYS_ADMIN",
				(void *)(uintptr_t)vaddr);
	*bus = (entry & PAGEMAP_PFN) * 4096 + (vaddr & 4095);
	return 0;
}

/* Each page's bus address from root/proc/self/pagemap. */
static int
translate(const struct rig_pci_machine *m, struct pci_dma *d)
{
	char path[512];
	int fd, ret;

	if ((ret = pci_path(m, path, sizeof(path), "proc/self/pagemap")) < 0)
		return ret;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	for (uint64_t k = 0; k < d->bytes / PCI_DMA_PAGE; k++) {
		uint64_t vaddr = (uintptr_t)d->host + k * PCI_DMA_PAGE, entry;

		if (pread(fd, &entry, 8, (off_t)(vaddr / 4096 * 8)) != 8) {
			ret = amd_fail(-EIO, "cannot read %s at %p", path,
				       (void *)(uintptr_t)vaddr);
			break;
		}
		if ((ret = pci_pagemap_bus(entry, vaddr, &d->bus[k])) < 0)
			break;
	}
	close(fd);
	return ret;
}

static int
hugepages_alloc(const struct rig_pci_machine *m, struct pci_dma *d)
{
	char dir[512], path[560];
	struct statfs fs;
	void *p;
	int fd, ret;

	if ((ret = pci_path(m, dir, sizeof(dir), "dev/hugepages")) < 0)
		return ret;
	if (statfs(dir, &fs) < 0 || fs.f_type != HUGETLBFS_MAGIC)
		return amd_fail(-ENOENT, "%s is not a hugetlbfs mount; fix: mount "
				"-t hugetlbfs none %s", dir, dir);
	snprintf(path, sizeof(path), "%s/rig-dma-XXXXXX", dir);
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return amd_fail(-errno, "cannot make a file in %s: %s", dir,
				strerror(errno));
	unlink(path);		/* the mapping keeps the pages */
	ret = ftruncate(fd, (off_t)d->bytes) < 0 ? -errno : 0;
	p = ret < 0 ? MAP_FAILED : mmap(NULL, d->bytes, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED && !ret)
		ret = -errno;
	close(fd);
	if (ret < 0)
		return amd_fail(ret == -EINVAL ? -ENOMEM : ret, "no %llu free 2 MiB "
				"huge pages in %s (%s); fix: echo 1024 > "
				"/proc/sys/vm/nr_hugepages",
				(unsigned long long)(d->bytes / PCI_DMA_PAGE), dir,
				strerror(-ret));
	d->host = p;
	madvise(p, d->bytes, MADV_DONTFORK);
	if ((ret = translate(m, d)) < 0) {
		munmap(p, d->bytes);
		return ret;
	}
	d->how = PCI_DMA_HUGEPAGES;
	return 0;
}

static int
vfio_alloc(struct pci_taken *t, struct pci_dma *d)
{
	struct pci_vfio *v = t->machine;
	struct vfio_iommu_type1_dma_map map = { .argsz = sizeof(map) };
	uint64_t span = d->bytes + PCI_DMA_PAGE;
	char *raw, *p;

	raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return amd_fail(-ENOMEM, "no %llu MiB of address space for DMA",
				(unsigned long long)(d->bytes >> 20));
	/* 2 MiB aligned, the rest of the span given back */
	p = (char *)(((uintptr_t)raw + PCI_DMA_PAGE - 1) & ~(PCI_DMA_PAGE - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + span > p + d->bytes)
		munmap(p + d->bytes, (size_t)(raw + span - (p + d->bytes)));
	madvise(p, d->bytes, MADV_DONTFORK);
	map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
	map.vaddr = (uintptr_t)p;
	map.iova = v->next_iova;
	map.size = d->bytes;
	if (ioctl(v->container, VFIO_IOMMU_MAP_DMA, &map) < 0) {
		int err = errno;

		munmap(p, d->bytes);
		return amd_fail(-err, "%s: cannot map %llu MiB into the IOMMU: %s%s",
				t->bus, (unsigned long long)(d->bytes >> 20),
				strerror(err), err == ENOMEM ? " (the locked-memory "
				"limit, ulimit -l, counts it)" : "");
	}
	for (uint64_t k = 0; k < d->bytes / PCI_DMA_PAGE; k++)
		d->bus[k] = map.iova + k * PCI_DMA_PAGE;
	v->next_iova += d->bytes;
	d->host = p;
	d->how = PCI_DMA_VFIO;
	return 0;
}

int
pci_sysfs_dma_alloc(const struct rig_pci_machine *m, struct pci_taken *t,
		    uint64_t bytes, struct pci_dma *out)
{
	struct pci_dma d = { 0 };
	int ret;

	if (bytes == 0 || bytes > (1ull << 40))
		return amd_fail(-EINVAL, "%llu bytes of DMA memory is not 1 byte to "
				"1 TiB", (unsigned long long)bytes);
	d.bytes = (bytes + PCI_DMA_PAGE - 1) & ~(PCI_DMA_PAGE - 1);
	if (!(d.bus = calloc(d.bytes / PCI_DMA_PAGE, sizeof(uint64_t))))
		return amd_fail(-ENOMEM, "no memory for %llu bus addresses",
				(unsigned long long)(d.bytes / PCI_DMA_PAGE));
	ret = t->machine ? vfio_alloc(t, &d) : hugepages_alloc(m, &d);
	if (ret < 0) {
		free(d.bus);
		return ret;
	}
	*out = d;
	return 0;
}

void
pci_sysfs_dma_free(const struct rig_pci_machine *m, struct pci_taken *t,
		   struct pci_dma *d)
{
	(void)m;
	if (!d->host)
		return;
	if (d->how == PCI_DMA_VFIO && t->machine) {
		struct pci_vfio *v = t->machine;
		struct vfio_iommu_type1_dma_unmap unmap = {
			.argsz = sizeof(unmap), .iova = d->bus[0], .size = d->bytes };

		(void)ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &unmap);
	}
	munmap(d->host, d->bytes);
	free(d->bus);
	memset(d, 0, sizeof(*d));
}
