/* SPDX-License-Identifier: MIT */
/*
 * remote/machine.c: rig_remote_machine(), a machine behind an agent as
 * the AMD path's machine handle (rig_amd_pci.h's struct rig_pci_machine).
 * Its one operation that reaches anything is functions: the agent's AMD
 * GPUs, asked over the connection (MACHINE_GPUS), so rig_amd_pci_buses()
 * and rig_amd_pci_count() list the agent's GPUs in its bus order. Its
 * GPU i's opener (rig_amd_pci_gpu(), through the machine's gpu_opener
 * operation) is the remote opener of "AMD-PCI[:i]" there: the agent opens the GPU
 * with the same opener a program on that machine uses, and this process
 * drives it as a remote device (driver.c).
 *
 * Every other operation of the machine interface (files, config space,
 * windows, taking a function, DMA, interrupts) is the agent's own and is
 * refused here, so describe, detach, attach and reset of a remote GPU
 * fail with that cause and change nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_remote.h"
#include "amd/fail.h"
#include "amd/pci/pci.h"
#include "remote/client.h"

struct remote_pci_machine {
	struct rig_pci_machine pci;	/* first: rig_pci_machine_release frees the block */
	char where[80];
	char key_file[4096];
	bool has_key_file;
	struct machine *m;
};

static const struct remote_pci_machine *
of(const struct rig_pci_machine *m)
{
	return (const struct remote_pci_machine *)m;
}

static int
refuse(const struct rig_pci_machine *m, const char *what)
{
	return amd_fail_at(what, -EOPNOTSUPP, "%s is a machine behind an agent: its PCI "
			   "functions are reached through the agent only", of(m)->where);
}

static int
functions(const struct rig_pci_machine *pm, struct pci_function **out, size_t *n)
{
	const struct remote_pci_machine *rm = of(pm);
	struct remote_msg req = { .type = REMOTE_MACHINE_GPUS }, ans;
	struct pci_function *fs;
	uint8_t *keep = NULL;
	char why[300];

	if (machine_connect(rm->m, rm->has_key_file ? rm->key_file : NULL, why, sizeof(why)) < 0 ||
	    machine_call(rm->m, &req, &ans, &keep, why, sizeof(why)) < 0)
		return amd_fail(-ENODEV, "%s: %s", rm->where, why);
	if (ans.type != REMOTE_GPUS_ARE) {
		free(keep);
		return amd_fail(-EPROTO, "%s: the agent answered %s", rm->where,
				remote_type_name(ans.type));
	}
	if (!(fs = calloc(ans.u.gpus.n ? ans.u.gpus.n : 1, sizeof(*fs)))) {
		free(keep);
		return amd_fail(-ENOMEM, "no memory for %u functions", ans.u.gpus.n);
	}
	for (uint32_t i = 0; i < ans.u.gpus.n; i++) {
		const struct remote_gpu *g = &ans.u.gpus.gpus[i];

		snprintf(fs[i].bus, sizeof(fs[i].bus), "%.*s", (int)g->bus.len,
			 (const char *)g->bus.at);
		fs[i].vendor = g->vendor;
		fs[i].device = g->device;
		fs[i].class_code = g->class_code;
		memcpy(fs[i].bar_bytes, g->bar_bytes, sizeof(fs[i].bar_bytes));
	}
	*n = ans.u.gpus.n;
	*out = fs;
	free(keep);
	return 0;
}

static int
file_read(const struct rig_pci_machine *m, const char *rel, char *buf, size_t cap)
{
	return refuse(m, "file_read");
}

static int
file_write(const struct rig_pci_machine *m, const char *rel, const char *text)
{
	return refuse(m, "file_write");
}

static int
config_read(const struct rig_pci_machine *m, const char *bus, uint32_t offset, void *buf,
	    size_t bytes)
{
	return refuse(m, "config_read");
}

static int
window_read(const struct rig_pci_machine *m, const char *bus, int bar, uint64_t offset,
	    void *buf, size_t bytes)
{
	return refuse(m, "window_read");
}

static int
window_map(const struct rig_pci_machine *m, const char *bus, int bar, struct pci_window *out)
{
	return refuse(m, "window_map");
}

static void
window_unmap(const struct rig_pci_machine *m, struct pci_window *w)
{
}

static int
take(const struct rig_pci_machine *m, const char *bus, struct pci_taken *out)
{
	return refuse(m, "take");
}

static void
give_back(const struct rig_pci_machine *m, struct pci_taken *t)
{
}

static int
config_write(const struct rig_pci_machine *m, struct pci_taken *t, uint32_t offset,
	     const void *buf, size_t bytes)
{
	return refuse(m, "config_write");
}

static int
reg_read(const struct rig_pci_machine *m, struct pci_taken *t, uint64_t index, uint32_t *v)
{
	return refuse(m, "reg_read");
}

static int
reg_write(const struct rig_pci_machine *m, struct pci_taken *t, uint64_t index, uint32_t v)
{
	return refuse(m, "reg_write");
}

static int
doorbell_write(const struct rig_pci_machine *m, struct pci_taken *t, uint64_t offset,
	       uint64_t v)
{
	return refuse(m, "doorbell_write");
}

static int
doorbell_open(const struct rig_pci_machine *m, struct pci_taken *t, uint64_t offset,
	      struct pci_doorbell *out)
{
	return refuse(m, "doorbell_open");
}

static int
dma_alloc(const struct rig_pci_machine *m, struct pci_taken *t, uint64_t bytes,
	  struct pci_dma *out)
{
	return refuse(m, "dma_alloc");
}

static void
dma_free(const struct rig_pci_machine *m, struct pci_taken *t, struct pci_dma *d)
{
}

static int
irq_open(const struct rig_pci_machine *m, struct pci_taken *t, struct pci_irq *out)
{
	return refuse(m, "irq_open");
}

static int
irq_arm(const struct rig_pci_machine *m, struct pci_taken *t, struct pci_irq *irq,
	bool outstanding)
{
	return refuse(m, "irq_arm");
}

static void
irq_close(const struct rig_pci_machine *m, struct pci_taken *t, struct pci_irq *irq)
{
}

/* GPU i's opener: the remote opener of "AMD-PCI[:i]" at the agent. */
static int
gpu_opener(const struct rig_pci_machine *m, int i, struct rig_opener *out)
{
	const struct remote_pci_machine *rm = of(m);
	char name[32];

	if (i == 0)
		snprintf(name, sizeof(name), "AMD-PCI");
	else
		snprintf(name, sizeof(name), "AMD-PCI:%d", i);
	if (rig_remote_opener(rm->where, name, rm->has_key_file ? rm->key_file : NULL, out) < 0)
		return amd_fail(-EINVAL, "%s", rig_why());
	return 0;
}

static const struct pci_machine_ops remote_pci_ops = {
	.functions = functions, .file_read = file_read, .file_write = file_write,
	.config_read = config_read, .window_read = window_read, .window_map = window_map,
	.window_unmap = window_unmap, .take = take, .give_back = give_back,
	.config_write = config_write, .reg_read = reg_read, .reg_write = reg_write,
	.doorbell_write = doorbell_write, .doorbell_open = doorbell_open,
	.dma_alloc = dma_alloc, .dma_free = dma_free,
	.irq_open = irq_open, .irq_arm = irq_arm, .irq_close = irq_close,
	.gpu_opener = gpu_opener,
};


int
rig_remote_machine(const char *where, const char *key_file, struct rig_pci_machine **out)
{
	static const char func[] = "rig_remote_machine";
	struct remote_pci_machine *rm;
	char why[200];

	if (!out)
		return rig_why_set(func, -EINVAL, "out is NULL");
	if (!where)
		return rig_why_set(func, -EINVAL, "where is NULL");
	if (strlen(where) >= sizeof(rm->where))
		return rig_why_set(func, -EINVAL, "\"%s\" is longer than %zu bytes", where,
				   sizeof(rm->where) - 1);
	if (key_file && strlen(key_file) >= sizeof(rm->key_file))
		return rig_why_set(func, -EINVAL, "the key file's path is too long");
	if (link_address_check(where, why, sizeof(why)) < 0)
		return rig_why_set(func, -EINVAL, "%s", why);
	if (!(rm = calloc(1, sizeof(*rm))) || !(rm->m = machine_of(where))) {
		free(rm);
		return rig_why_set(func, -ENOMEM, "no memory for the machine");
	}
	rm->pci.ops = &remote_pci_ops;
	/* Beneath a file, so that a path of the AMD path's that does not go
	 * through the operations (sysfs, /proc, /run/lock) opens nothing
	 * here: ENOTDIR, never this machine's files. */
	snprintf(rm->pci.root, sizeof(rm->pci.root), "/dev/null/agent-%s", where);
	snprintf(rm->where, sizeof(rm->where), "%s", where);
	if (key_file) {
		snprintf(rm->key_file, sizeof(rm->key_file), "%s", key_file);
		rm->has_key_file = true;
	}
	*out = &rm->pci;
	return 0;
}
