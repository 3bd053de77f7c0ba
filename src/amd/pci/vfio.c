/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/vfio.c: a function bound to vfio-pci, opened as VFIO's type 1
 * IOMMU wants (amd-facts §8.4; the kernel's <linux/vfio.h>): the
 * container, the function's IOMMU group set into it with the type 1 v2
 * IOMMU, and the device's descriptor (its MSI goes to an eventfd, irq.c).
 * DMA memory is then mapped into the IOMMU at I/O virtual addresses of
 * rig's own choosing (dma.c). Written for real hardware behind an IOMMU;
 * this machine has no /dev/vfio, so only its refusals have run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

/* The first I/O virtual address handed out: clear of 0, so a null
 * address the device reads faults instead of reaching memory. */
#define FIRST_IOVA	(1ull << 32)

static int
group_of(const struct rig_pci_machine *m, const char *bus, char *group,
	 size_t len)
{
	char rel[128], path[512], target[512];
	ssize_t n;
	const char *slash;
	int ret;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group", bus);
	if ((ret = pci_path(m, path, sizeof(path), rel)) < 0)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return amd_fail(-ENODEV, "%s is bound to vfio-pci but in no IOMMU "
				"group (%s: %s)", bus, path, strerror(errno));
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(group, len, "%.31s", slash ? slash + 1 : target);
	return 0;
}

static int
open_at(const struct rig_pci_machine *m, const char *rel, int *fd)
{
	char path[512];
	int ret = pci_path(m, path, sizeof(path), rel);

	if (ret < 0)
		return ret;
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	return 0;
}

int
pci_vfio_open(const struct rig_pci_machine *m, const char *bus,
	      struct pci_vfio **out)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	struct pci_vfio *v;
	char group[32], rel[64];
	int ret;

	if ((ret = group_of(m, bus, group, sizeof(group))) < 0)
		return ret;
	if (!(v = calloc(1, sizeof(*v))))
		return amd_fail(-ENOMEM, "no memory for %s's VFIO state", bus);
	v->container = v->group = v->device = -1;
	v->next_iova = FIRST_IOVA;
	if ((ret = open_at(m, "dev/vfio/vfio", &v->container)) < 0)
		goto err;
	if (ioctl(v->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(v->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0) {
		ret = amd_fail(-ENOTSUP, "VFIO here has no type 1 v2 IOMMU for %s",
			       bus);
		goto err;
	}
	snprintf(rel, sizeof(rel), "dev/vfio/%s", group);
	if ((ret = open_at(m, rel, &v->group)) < 0)
		goto err;
	if (ioctl(v->group, VFIO_GROUP_GET_STATUS, &status) < 0 ||
	    !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		ret = amd_fail(-EBUSY, "IOMMU group %s of %s is not viable: bind "
			       "every function of the group to vfio-pci", group,
			       bus);
		goto err;
	}
	if (ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container) < 0 ||
	    ioctl(v->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) < 0) {
		ret = amd_fail(-errno, "cannot set IOMMU group %s of %s into a "
			       "type 1 container: %s", group, bus, strerror(errno));
		goto err;
	}
	v->device = ioctl(v->group, VFIO_GROUP_GET_DEVICE_FD, bus);
	if (v->device < 0) {
		ret = amd_fail(-errno, "cannot get %s from IOMMU group %s: %s",
			       bus, group, strerror(errno));
		goto err;
	}
	*out = v;
	return 0;
err:
	pci_vfio_close(v);
	return ret;
}

void
pci_vfio_close(struct pci_vfio *v)
{
	if (!v)
		return;
	if (v->device >= 0)
		close(v->device);
	if (v->group >= 0)
		close(v->group);
	if (v->container >= 0)
		close(v->container);
	free(v);
}
