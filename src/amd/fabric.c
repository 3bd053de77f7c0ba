/* SPDX-License-Identifier: MIT */
/*
 * amd/fabric.c: which GPUs rig takes for one of a fabric (an XGMI hive).
 * rig cannot tell which fabric a GPU belongs to (docs/amd.md, Fabrics): it
 * takes a machine's AMD GPUs for one fabric when their number is a
 * fabric's size and the GPU's GC is an Instinct one (9.x), the parts with
 * XGMI links. A fabric's GPUs reset together, as amdgpu resets them when it
 * takes them back, so rig never resets one alone.
 */
#include <errno.h>
#include <stdlib.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"

bool
amd_fabric_gc(unsigned gc_major, size_t count)
{
	return gc_major == 9 && count == AMD_FABRIC_GPUS;
}

int
amd_fabric_member(const struct rig_pci_machine *m, const struct pci_function *f,
		  size_t count)
{
	struct amd_discovery *t;
	const struct amd_block *gc;
	struct pci_taken taken;
	uint64_t vram;
	uint8_t *bytes;
	size_t len;
	int ret;

	if (count != AMD_FABRIC_GPUS)
		return 0;
	if (!(t = calloc(1, sizeof(*t))))
		return amd_fail(-ENOMEM, "no memory for a discovery table");
	ret = m->ops->take(m, f->bus, &taken);
	if (ret < 0) {
		free(t);
		return ret;
	}
	ret = amd_discovery_read(m, f, &bytes, &len, &vram);
	if (ret == 0) {
		ret = amd_discovery_parse(bytes, len, t);
		free(bytes);
	}
	m->ops->give_back(m, &taken);
	if (ret == 0) {
		gc = amd_discovery_block(t, GC_HWID);
		ret = gc && amd_fabric_gc(gc->major, count);
	}
	free(t);
	return ret;
}
