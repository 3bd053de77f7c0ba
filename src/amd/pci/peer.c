/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/peer.c: where a peer function's BAR sits on the bus, so that one
 * GPU's engines reach another GPU's memory by DMA (peer to peer, seed
 * 003's Fabrics: GPUs off a fabric reach each other through their memory
 * BARs). Without an IOMMU a function's DMA addresses are bus addresses,
 * and the peer's BAR is at the start its sysfs resource file lists (the
 * CPU's physical address, which is the bus address on x86 and on every
 * host bridge that does not translate). Behind an IOMMU (a function taken
 * through vfio-pci) the peer's BAR must also be mapped into this
 * function's IOMMU domain, which is not built: -ENOTSUP says so.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

int
pci_sysfs_peer_bus(const struct rig_pci_machine *m, struct pci_taken *t,
		   const char *peer, int bar, uint64_t offset, uint64_t bytes,
		   uint64_t *bus)
{
	char rel[128], text[2048], *line = text;
	uint64_t start = 0, end = 0, flags;
	int ret;

	if (t->machine)
		return amd_fail(-ENOTSUP, "%s's DMA goes through its IOMMU (vfio-pci), "
				"which does not map %s's BAR%d: peer access behind an "
				"IOMMU is not built", t->bus, peer, bar);
	if (bar < 0 || bar >= PCI_BARS)
		return amd_fail(-ENODEV, "%s has no BAR%d", peer, bar);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource", peer);
	if ((ret = m->ops->file_read(m, rel, text, sizeof(text))) < 0)
		return ret;
	for (int i = 0; i < bar && line; i++)
		if ((line = strchr(line, '\n')))
			line++;
	if (!line || sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, &start, &end,
			    &flags) != 3 || !start || end < start)
		return amd_fail(-ENODEV, "%s's resource file lists no BAR%d", peer, bar);
	if (offset > end - start || bytes > end - start + 1 - offset)
		return amd_fail(-ERANGE, "0x%" PRIx64 " bytes at 0x%" PRIx64 " are past "
				"%s's BAR%d of %" PRIu64 " bytes", bytes, offset, peer, bar,
				end - start + 1);
	*bus = start + offset;
	return 0;
}
