/* SPDX-License-Identifier: MIT */
/*
 * remote/agent_amd.c: the agent's AMD GPUs (--amd). A client's machine
 * handle (machine.c) asks which GPUs the agent serves (MACHINE_GPUS: the
 * AMD GPUs of the agent's machine, in bus order, as the AMD path lists
 * them), and opens GPU i by the name "AMD-PCI[:i]": the agent opens it
 * with rig_amd_pci_gpu() and rig_open(), the opener a program on this
 * machine uses, with the agent's firmware directories.
 *
 * The machine is this one, or with --amd-sim a software GPU
 * (src/amd/sim/) of the GC version named, its sysfs tree in a folder of
 * its own made at start and removed at the end: what lets the path run
 * end to end where no AMD GPU is (tests, demos). It starts as a GPU a
 * clean session of rig's left, as the AMD device's tests start it.
 *
 * What a client reaches of it is what the remote driver carries:
 * launches, copies between two of its buffers (rig work on the GPU's
 * SDMA), and copies between its memory and the client's: the agent does
 * not learn where the host maps a GPU region (rig's public calls give
 * the GPU's address), so such a copy passes through staging memory of
 * the step's own, by rig_buffer_read() or rig_buffer_write() of the
 * GPU's buffer and RMA to or from the client (serve.c).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_amd_pci.h"
#include "amd/fail.h"
#include "amd/pci/pci.h"
#include "amd/sim/sim.h"
#include "remote/agent.h"

int
agent_amd_start(struct agent *a, char *why, size_t why_len)
{
	struct amd_sim_opts o = { .gc = a->c->amd_sim, .mark = AMD_SIM_CLEAN_MARK };
	char tmpl[] = "/tmp/rig-agent-sim-XXXXXX";

	a->sim = NULL;
	a->sim_root[0] = 0;
	if (!a->c->amd || !a->c->amd_sim)
		return 0;
	if (!mkdtemp(tmpl)) {
		snprintf(why, why_len, "the software GPU's folder: %s", strerror(errno));
		return -1;
	}
	snprintf(a->sim_root, sizeof(a->sim_root), "%s", tmpl);
	o.root = a->sim_root;
	if (amd_sim_create(&o, &a->sim) < 0) {
		snprintf(why, why_len, "the software GPU %s: %s", a->c->amd_sim, amd_why());
		rmdir(a->sim_root);
		a->sim_root[0] = 0;
		return -1;
	}
	return 0;
}

void
agent_amd_stop(struct agent *a)
{
	amd_sim_destroy(a->sim);
	a->sim = NULL;
	amd_sim_tree_remove(a->sim_root);
	a->sim_root[0] = 0;
}

static const struct rig_pci_machine *
machine(struct agent *a)
{
	return a->sim ? amd_sim_machine(a->sim) : rig_pci_machine_this();
}

bool
agent_amd_name(const char *name)
{
	return !strcmp(name, "AMD-PCI") || !strncmp(name, "AMD-PCI:", 8);
}

int
agent_amd_open(struct agent *a, struct shared_dev *sd, const char *name,
	       struct rig_device **out, char *why, size_t why_len)
{
	long i = 0;
	char *end = NULL;

	if (!a->c->amd) {
		snprintf(why, why_len, "this agent serves no AMD GPUs (no --amd)");
		return -1;
	}
	if (name[7] == ':') {
		i = strtol(name + 8, &end, 10);
		if (!name[8] || *end || i < 1 || i > 255) {
			snprintf(why, why_len, "%.60s names no GPU (AMD-PCI:1 to AMD-PCI:255)", name);
			return -1;
		}
	}
	if (rig_amd_pci_gpu(machine(a), a->c->amd_firmware, (int)i, &sd->amd) < 0 ||
	    rig_open(sd->amd, out) < 0) {
		snprintf(why, why_len, "%s", rig_why());
		rig_amd_pci_opener_free(sd->amd);
		sd->amd = NULL;
		return -1;
	}
	return 0;
}

void
agent_amd_end(struct shared_dev *sd)
{
	rig_amd_pci_opener_free(sd->amd);
	sd->amd = NULL;
}

void
agent_amd_gpus(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_GPUS_ARE, .id = m->id };
	struct pci_function *fs = NULL;
	size_t n = 0;

	if (!a->c->amd)
		return agent_error(a, c, m->id, "this agent serves no AMD GPUs (no --amd)");
	if (pci_amd_gpus(machine(a), &fs, &n) < 0)
		return agent_error(a, c, m->id, amd_why());
	r.u.gpus.n = n < REMOTE_GPUS_MAX ? (uint32_t)n : REMOTE_GPUS_MAX;
	for (uint32_t i = 0; i < r.u.gpus.n; i++) {
		struct remote_gpu *g = &r.u.gpus.gpus[i];

		g->bus = remote_str(fs[i].bus);
		g->vendor = fs[i].vendor;
		g->device = fs[i].device;
		g->class_code = fs[i].class_code;
		memcpy(g->bar_bytes, fs[i].bar_bytes, sizeof(g->bar_bytes));
	}
	agent_send(a, c, &r);
	free(fs);
}
