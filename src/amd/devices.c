/* SPDX-License-Identifier: MIT */
/*
 * amd/devices.c: what `rig devices` shows of a GPU: its bus address, its
 * driver, its state (the states of docs/amd.md) and its GC version where it can be
 * read without disturbing whoever holds the GPU. A GPU a process of rig's
 * holds is named with that process, its pid and command, as its
 * function's lock file says (amd/pci/lock.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"
#include "amd/pci/pci.h"

/* amdgpu's view: ip_discovery/die/0/<hw_id>/<instance>/{major,minor,revision}. */
static void
gc_from_amdgpu(const struct rig_pci_machine *m, struct rig_amd_pci_gpu_info *g)
{
	static const char *const names[] = { "major", "minor", "revision" };
	unsigned v[3];
	char rel[160], text[32];

	for (int k = 0; k < 3; k++) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/ip_discovery/"
			 "die/0/%d/0/%s", g->bus.text, GC_HWID, names[k]);
		if (m->ops->file_read(m, rel, text, sizeof(text)) < 0)
			return;
		v[k] = (unsigned)strtoul(text, NULL, 0);
	}
	g->gc_known = true;
	g->gc_major = (uint8_t)v[0];
	g->gc_minor = (uint8_t)v[1];
	g->gc_rev = (uint8_t)v[2];
}

/* The GPU's own table, read with the function taken and given back. */
static void
gc_from_table(const struct rig_pci_machine *m, const struct pci_function *f,
	      struct rig_amd_pci_gpu_info *g)
{
	struct amd_discovery *t = calloc(1, sizeof(*t));
	const struct amd_block *gc;
	struct pci_taken taken;
	uint64_t vram;
	uint8_t *bytes;
	size_t len;

	if (!t || m->ops->take(m, f->bus, &taken) < 0) {
		free(t);
		return;
	}
	if (amd_discovery_read(m, f, &bytes, &len, &vram) == 0) {
		if (amd_discovery_parse(bytes, len, t) == 0 &&
		    (gc = amd_discovery_block(t, GC_HWID))) {
			g->gc_known = true;
			g->gc_major = gc->major;
			g->gc_minor = gc->minor;
			g->gc_rev = gc->revision;
		}
		free(bytes);
	}
	m->ops->give_back(m, &taken);
	free(t);
}

static int
describe(const struct rig_pci_machine *m, int i, struct rig_amd_pci_gpu_info *g)
{
	struct pci_function f;
	char what[400], command[64];
	size_t count;
	int ret, pid;

	ret = pci_amd_gpu(m, i, &f, &count);
	if (ret < 0)
		return ret;
	snprintf(g->bus.text, sizeof(g->bus.text), "%s", f.bus);
	g->device = f.device;
	ret = pci_driver_of(m, f.bus, g->driver, sizeof(g->driver));
	if (ret < 0)
		return ret;
	if (pci_held_here(f.bus)) {
		snprintf(g->state, sizeof(g->state), "held by this process");
	} else if ((pid = pci_lock_holder(m, f.bus, command, sizeof(command))) > 0) {
		/* Its function's lock (amd/pci/lock.c): a process of rig's that
		 * holds the GPU, or is opening or changing it. */
		snprintf(g->state, sizeof(g->state), "held by process %d (%s)", pid,
			 command);
	} else if ((pid = pci_holder(m, f.bus, what, sizeof(what))) > 0) {
		char rel[40];

		/* Another driver's process (its files open): its command where
		 * the machine's /proc tells it. */
		snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
		if (m->ops->file_read(m, rel, command, sizeof(command)) == 0 &&
		    (command[strcspn(command, "\n")] = '\0', command[0]))
			snprintf(g->state, sizeof(g->state), "held by process %d (%s)",
				 pid, command);
		else
			snprintf(g->state, sizeof(g->state), "held by process %d", pid);
	} else if (!strcmp(g->driver, "amdgpu")) {
		snprintf(g->state, sizeof(g->state), "amdgpu");
		gc_from_amdgpu(m, g);
	} else if (pci_amdgpu_has(m, f.bus, what, sizeof(what)) == 1) {
		snprintf(g->state, sizeof(g->state), "unreleased: %.140s", what);
	} else if (g->driver[0] && strcmp(g->driver, "vfio-pci")) {
		snprintf(g->state, sizeof(g->state), "bound to %.60s", g->driver);
	} else {
		snprintf(g->state, sizeof(g->state), "detached");
		gc_from_table(m, &f, g);
	}
	return 0;
}

int
rig_amd_pci_describe(const struct rig_pci_machine *m, int i,
		     struct rig_amd_pci_gpu_info *out)
{
	struct rig_amd_pci_gpu_info g;
	int ret;

	if (!out)
		return amd_fail(-EINVAL, "out is NULL");
	if (i < 0)
		return amd_fail(-EINVAL, "GPU %d is negative", i);
	if (rig_in_callback())
		return amd_fail(-EINVAL, "called from inside one of rig's callbacks, "
				"which holds a lock");
	memset(&g, 0, sizeof(g));
	m = pci_machine_or_this(m);
	pci_lock();
	ret = describe(m, i, &g);
	pci_unlock();
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	*out = g;
	return 0;
}
