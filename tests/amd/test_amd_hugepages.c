/* SPDX-License-Identifier: MIT */
/*
 * test_amd_hugepages [ROOT]: DMA memory of the physical path on this
 * machine (or a machine at ROOT whose dev/hugepages is a hugetlbfs mount
 * and whose proc is /proc): 2 MiB huge pages, each with the bus address
 * /proc/self/pagemap gives its first byte, physically contiguous within
 * the page (every 4 KiB entry of it follows the first), zeroed, holding
 * what is written, and given back. Exits 77, saying why, where hugetlbfs
 * is not mounted, too few huge pages are free (vm.nr_hugepages), or the
 * process lacks CAP_SYS_ADMIN (pagemap then hides frames).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rig.h"
#include "amd/pci/pci.h"

#define PAGES 2

static int
skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return 77;
}

static int
fail(const char *what)
{
	fprintf(stderr, "FAIL: %s\n", what);
	return 1;
}

int
main(int argc, char **argv)
{
	struct rig_pci_machine *at = NULL;
	const struct rig_pci_machine *m = rig_pci_machine_this();
	struct pci_taken t = { .bus = "(none)", .config_fd = -1 };
	struct pci_dma d = { 0 };
	char path[512], text[64];
	struct statfs fs;
	FILE *f;
	int pagemap, ret;

	if (argc > 1) {
		if (rig_pci_machine_at(argv[1], &at) < 0)
			return fail(rig_why());
		m = at;
	}
	snprintf(path, sizeof(path), "%s/dev/hugepages", m->root);
	if (statfs(path, &fs) < 0 || fs.f_type != 0x958458f6)
		return skip("no hugetlbfs mounted at /dev/hugepages");
	if ((f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
		       "r")) && fgets(text, sizeof(text), f) && atol(text) < PAGES) {
		fclose(f);
		return skip("fewer than 2 free 2 MiB huge pages (vm.nr_hugepages)");
	}
	if (f)
		fclose(f);
	ret = m->ops->dma_alloc(m, &t, PAGES * PCI_DMA_PAGE - 4095, &d);
	if (ret == -EPERM)
		return skip("no CAP_SYS_ADMIN: pagemap hides physical addresses");
	if (ret < 0)
		return fail(rig_why());
	if (d.bytes != PAGES * PCI_DMA_PAGE || d.how != PCI_DMA_HUGEPAGES ||
	    (uintptr_t)d.host % PCI_DMA_PAGE)
		return fail("not 2 whole 2 MiB-aligned huge pages");
	snprintf(path, sizeof(path), "%s/proc/self/pagemap", m->root);
	if ((pagemap = open(path, O_RDONLY)) < 0)
		return fail("cannot open pagemap");
	for (int k = 0; k < PAGES; k++) {
		const uint8_t *page = (uint8_t *)d.host + k * PCI_DMA_PAGE;

		if (d.bus[k] == 0 || d.bus[k] % PCI_DMA_PAGE)
			return fail("a bus address is 0 or not 2 MiB aligned");
		for (uint64_t off = 0; off < PCI_DMA_PAGE; off += 4096) {
			uint64_t entry, bus;

			if (pread(pagemap, &entry, 8,
				  (off_t)(((uintptr_t)page + off) / 4096 * 8)) != 8 ||
			    pci_pagemap_bus(entry, (uintptr_t)page + off, &bus) < 0)
				return fail(rig_why());
			if (bus != d.bus[k] + off)
				return fail("a huge page is not contiguous in pagemap");
		}
		for (uint64_t off = 0; off < PCI_DMA_PAGE; off++)
			if (page[off])
				return fail("the memory is not zeroed");
	}
	close(pagemap);
	if (d.bus[0] == d.bus[1])
		return fail("two pages share a bus address");
	memset(d.host, 0x5a, d.bytes);
	for (uint64_t off = 0; off < d.bytes; off += 4093)
		if (((uint8_t *)d.host)[off] != 0x5a)
			return fail("the memory does not hold what was written");
	printf("2 huge pages at bus 0x%llx and 0x%llx, contiguous, zeroed\n",
	       (unsigned long long)d.bus[0], (unsigned long long)d.bus[1]);
	m->ops->dma_free(m, &t, &d);
	if (d.host || d.bus)
		return fail("dma_free left the record");
	rig_pci_machine_release(at);
	return 0;
}
