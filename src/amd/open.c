/* SPDX-License-Identifier: MIT */
/*
 * amd/open.c: the opener of GPU i (Rig_amd_pci.gpu). Its make runs every
 * check docs/amd.md lists before the boot's first write, in that order,
 * each refusal a message that starts with the GPU's name; whatever a check
 * took (the function, images, windows) is given back in reverse before it
 * returns. A GPU that passes every check is booted (amd/boot/: in part if
 * a clean session of rig left it, else in full from the images) and
 * becomes a device (amd/dev/); a GC whose full boot is not built is
 * refused, saying so, before any write.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"
#include "amd/firmware/firmware.h"
#include "amd/pci/pci.h"
#include "amd/regs/regs.h"
#include "amd/dev/dev.h"
#include "amd/boot/boot.h"
#include "amd/sim/sim.h"

/* MP0_SMN_C2PMSG_81 (MPASP_ on MP0 14): non-zero once the sOS runs
 * (amd-facts §3.1, §3.8); segment 0 of MP0. */
#define regMP0_SMN_C2PMSG_81	0x0091

/* Blocks the boot programs (amd-facts §3.4). */
static const uint16_t boot_blocks[] = {
	NBIF_HWID, MMHUB_HWID, OSSSYS_HWID, MP0_HWID, MP1_HWID, GC_HWID,
	SDMA0_HWID, HDP_HWID,
};

struct amd_pci_opener {
	struct rig_opener opener;	/* first: what rig holds */
	const struct rig_pci_machine *m;
	bool this_machine;		/* RIG_AMD_SIM may stand in for it */
	int i;
	char name[32];
	char **dirs;			/* NULL-ended copy of firmware */
};

/* What a make took, given back in reverse. */
struct taking {
	struct pci_function f;
	size_t count;			/* AMD GPUs of the machine */
	int lock_fd;			/* the function's lock among processes */
	bool taken;
	struct pci_taken t;
	struct amd_discovery *table;
	uint64_t vram_bytes;
	const struct amd_gc_set *set;
	struct amd_regs regs;
	struct amd_found images[AMD_GC_IMAGES];
};

static int __attribute__((format(printf, 4, 5)))
refuse(char *cause, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, len, fmt, ap);
	va_end(ap);
	return code;
}

/* The function's lock is taken before the scan, so no other process
 * passes the scan and takes the GPU before this one gives it back. */
static int
check_holders(const struct rig_pci_machine *m, int i, const char *bus,
	      int *lock_fd, char *cause, size_t len)
{
	char what[400];
	int pid;

	if (pci_held_here(bus))
		return refuse(cause, len, -EBUSY, "this process holds it (%s)", bus);
	pid = pci_function_lock(m, bus, lock_fd);
	if (pid < 0)
		return refuse(cause, len, pid, "%s", amd_cause());
	pid = pci_holder(m, bus, what, sizeof(what));
	if (pid < 0)
		return refuse(cause, len, pid, "cannot tell who holds it: %s",
			      amd_cause());
	if (pid == getpid())
		return refuse(cause, len, -EBUSY, "this process holds it (%s): it "
			      "%s", bus, what);
	if (pid > 0)
		return refuse(cause, len, -EBUSY, "process %d holds it (%s): it %s",
			      pid, bus, what);
	if (pci_amdgpu_has(m, bus, what, sizeof(what)) == 1)
		return refuse(cause, len, -EBUSY, "%s (%s); `rig detach %d` takes "
			      "it from amdgpu", what, bus, i);
	return 0;
}

static int
check_table(const struct rig_pci_machine *m, struct taking *k, char *cause,
	    size_t len)
{
	uint8_t *bytes;
	size_t n;
	int ret;

	ret = amd_discovery_read(m, &k->f, &bytes, &n, &k->vram_bytes);
	if (ret < 0)
		return refuse(cause, len, -EPROTO, "its discovery table cannot be "
			      "read: %s", amd_cause());
	k->table = calloc(1, sizeof(*k->table));
	if (!k->table) {
		free(bytes);
		return refuse(cause, len, -ENOMEM, "no memory for the discovery "
			      "table");
	}
	ret = amd_discovery_parse(bytes, n, k->table);
	free(bytes);
	if (ret < 0)
		return refuse(cause, len, -EPROTO, "its discovery table is "
			      "malformed: %s", amd_cause());
	for (size_t b = 0; b < sizeof(boot_blocks) / sizeof(boot_blocks[0]); b++)
		if (!amd_discovery_block(k->table, boot_blocks[b]))
			return refuse(cause, len, -EPROTO, "its discovery table lacks "
				      "%s, a block the boot programs",
				      amd_hw_name(boot_blocks[b]));
	return 0;
}

static int
same(const struct amd_block *b, struct amd_version v)
{
	return b->major == v.major && b->minor == v.minor && b->revision == v.rev;
}

static int
check_versions(struct taking *k, char *cause, size_t len)
{
	const struct amd_block *gc = amd_discovery_block(k->table, GC_HWID);
	const struct amd_version *want[3];
	const uint16_t subs[3] = { SDMA0_HWID, MP0_HWID, MP1_HWID };

	k->set = amd_gc_set_of((struct amd_version){ gc->major, gc->minor,
						     gc->revision });
	if (!k->set)
		return refuse(cause, len, -ENOTSUP, "GC %u.%u.%u is a version rig "
			      "does not boot (it boots GC 9.4.3, 9.5.0, 11.0.0, "
			      "11.0.2, 12.0.0 and 12.0.1)", gc->major, gc->minor,
			      gc->revision);
	want[0] = &k->set->sdma;
	want[1] = &k->set->mp0;
	want[2] = &k->set->mp1;
	for (size_t s = 0; s < 3; s++) {
		const struct amd_block *b = amd_discovery_block(k->table, subs[s]);

		if (!same(b, *want[s]))
			return refuse(cause, len, -ENOTSUP, "%s %u.%u.%u is a version "
				      "rig does not boot with GC %u.%u.%u (it boots "
				      "%u.%u.%u)", amd_hw_name(subs[s]), b->major,
				      b->minor, b->revision, gc->major, gc->minor,
				      gc->revision, want[s]->major, want[s]->minor,
				      want[s]->rev);
	}
	if (k->set->nimages == 0)
		return refuse(cause, len, -ENOTSUP, "GC %u.%u.%u has no pinned "
			      "image: %s holds none of its images", gc->major,
			      gc->minor, gc->revision, AMD_FW_RELEASE);
	return 0;
}

/* Every programmed block's version has a register table; the registers
 * are resolved against the table's bases. */
static int
check_registers(struct taking *k, char *cause, size_t len)
{
	int ret = amd_regs_resolve(k->table, &k->regs);

	return ret < 0 ? refuse(cause, len, ret, "%s", amd_cause()) : 0;
}

static int
check_images(const struct rig_pci_machine *m, char *const *dirs,
	     struct taking *k, char *cause, size_t len)
{
	struct amd_search s;
	int ret;

	if (k->set->nimages > AMD_GC_IMAGES)
		return refuse(cause, len, -EINVAL, "GC %u.%u.%u pins %zu images, "
			      "more than %d", k->set->gc.major, k->set->gc.minor,
			      k->set->gc.rev, k->set->nimages, AMD_GC_IMAGES);
	ret = amd_fw_search_dirs(m->root, (const char *const *)dirs, &s);
	if (ret < 0)
		return refuse(cause, len, ret, "%s", amd_cause());
	for (size_t n = 0; n < k->set->nimages; n++) {
		ret = amd_fw_find(&s, k->set->images[n], &k->images[n]);
		if (ret < 0)
			return refuse(cause, len, ret, "%s", amd_cause());
	}
	for (size_t n = 0; n < k->set->nimages; n++) {
		const struct amd_pin *p = k->set->images[n];
		struct amd_fw fw;

		ret = amd_fw_parse(p->name, amd_fw_kind_of(p->name),
				   k->images[n].bytes, k->images[n].len, &fw);
		if (ret < 0)
			return refuse(cause, len, -EBADMSG, "%s is not laid out as "
				      "its format says: %s", k->images[n].path,
				      amd_cause());
	}
	return 0;
}

static int
check_fabric(const struct rig_pci_machine *m, struct taking *k, char *cause,
	     size_t len)
{
	const struct amd_block *gc = amd_discovery_block(k->table, GC_HWID);
	const struct amd_block *mp0 = amd_discovery_block(k->table, MP0_HWID);
	/* Physical address width of the memory controller (amd-facts §3.2). */
	unsigned bits = gc->major == 9 ? 48 : 44;
	uint32_t sos;
	int ret;

	if (amd_fabric_gc(gc->major, k->count) && mp0->nbases) {
		/* Die 0's register space: linux keeps the low 30 bits of a 64-bit base. */
		ret = amd_mmio_read(m, &k->f, (mp0->base[0] & 0x3FFFFFFF) +
				    regMP0_SMN_C2PMSG_81, &sos);
		if (ret < 0)
			return refuse(cause, len, ret, "cannot read its security "
				      "processor: %s", amd_cause());
		if (sos)
			return refuse(cause, len, -EBUSY, "it is one of a fabric of "
				      "%d GPUs left running (MP0_SMN_C2PMSG_81 = "
				      "0x%x): its GPUs reset together; attach them "
				      "to amdgpu to reset them", AMD_FABRIC_GPUS, sos);
	}
	if (k->vram_bytes == 0 || k->vram_bytes >> bits)
		return refuse(cause, len, -ENOMEM, "its memory controller cannot "
			      "place its %llu MiB of memory whole (%u address "
			      "bits)", (unsigned long long)(k->vram_bytes >> 20), bits);
	return 0;
}

static int
check_windows(const struct rig_pci_machine *m, struct taking *k, char *cause,
	      size_t len)
{
	int ret = pci_windows_map(m, &k->t);

	if (ret < 0)
		return refuse(cause, len, ret, "its windows cannot be mapped into "
			      "the process: %s", amd_cause());
	return 0;
}

static void
free_images(struct amd_found *images)
{
	for (size_t n = 0; n < AMD_GC_IMAGES; n++) {
		free(images[n].bytes);
		images[n].bytes = NULL;
	}
}

static void
give_back(const struct rig_pci_machine *m, struct taking *k)
{
	free_images(k->images);
	free(k->table);
	if (k->taken)
		m->ops->give_back(m, &k->t);
	pci_function_unlock(k->lock_fd);
}

/* Every check, in the order of docs/amd.md; fills cause and returns its status. */
static const char *
arch_of(unsigned major, unsigned minor, unsigned rev)
{
	static const struct { unsigned v[3]; const char *arch; } names[] = {
		{ { 9, 4, 3 }, "gfx942" }, { { 9, 5, 0 }, "gfx950" },
		{ { 11, 0, 0 }, "gfx1100" }, { { 11, 0, 2 }, "gfx1102" },
		{ { 12, 0, 0 }, "gfx1200" }, { { 12, 0, 1 }, "gfx1201" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].v[0] == major && names[i].v[1] == minor && names[i].v[2] == rev)
			return names[i].arch;
	return "gfx";
}

/*
 * Every check passed: the boot (amd/boot/) and the device. The device
 * keeps the function, its lock and its windows; the images live until the
 * boot returns; what else a check took (the table) goes back. A refusal
 * before the boot's first write (a GC whose full boot is not built) gives
 * everything back; a failure after it leaves the GPU lost.
 */
static int
start_device(const struct amd_pci_opener *op, const struct rig_pci_machine *m,
	     struct taking *k, _Atomic uint64_t *word, void **handle, char *cause,
	     size_t len)
{
	const struct amd_block *gc = amd_discovery_block(k->table, GC_HWID);
	struct amd_dev *d = calloc(1, sizeof(*d));
	struct amd_found images[AMD_GC_IMAGES];
	int ret;

	memcpy(images, k->images, sizeof(images));
	memset(k->images, 0, sizeof(k->images));
	if (!d) {
		free_images(images);
		give_back(m, k);
		return refuse(cause, len, -ENOMEM, "no memory for the device");
	}
	d->drv = &amd_dev_driver;
	d->m = m;
	d->t = k->t;
	d->lock_fd = k->lock_fd;
	d->regs = k->regs;
	d->gc_major = gc->major;
	d->gc_minor = gc->minor;
	d->gc_rev = gc->revision;
	d->xccs = 0;
	for (size_t i = 0; i < k->table->nblocks; i++)
		d->xccs += k->table->blocks[i].hw_id == GC_HWID &&
			   !k->table->blocks[i].harvested;
	d->gfx = gc->major == 9 ? AMD_GFX9 : gc->major == 11 ? AMD_GFX11 : AMD_GFX12;
	d->sdma_gen = gc->major == 9 ? AMD_SDMA4 : gc->major == 11 ? AMD_SDMA6 : AMD_SDMA7;
	snprintf(d->name, sizeof(d->name), "%s", op->name);
	snprintf(d->bus, sizeof(d->bus), "%s", k->f.bus);
	snprintf(d->arch, sizeof(d->arch), "%s", arch_of(gc->major, gc->minor, gc->revision));
	d->vram = k->t.vram.addr;
	d->vram_bytes = k->vram_bytes < k->t.vram.bytes ? k->vram_bytes : k->t.vram.bytes;
	d->rig_word = word;
	d->queues[0] = (struct rig_queue){ "COMPUTE:0", RIG_RUNS(RIG_LAUNCH_PART) |
					   RIG_RUNS(RIG_FILL_PART) | RIG_RUNS(RIG_WORDS_PART) };
	d->queues[1] = (struct rig_queue){ "SDMA:0", RIG_RUNS(RIG_COPY_PART) };
	/* What the device keeps is no longer the taking's to give back. */
	k->taken = false;
	k->lock_fd = -1;
	give_back(m, k);
	if (d->vram_bytes < AMD_RESERVED + AMD_TOP_KEPT + (64ull << 20)) {
		ret = refuse(cause, len, -ENOMEM, "its memory BAR maps %llu MiB, fewer "
			     "than the device's 96 MiB", (unsigned long long)(d->vram_bytes >> 20));
		goto err;
	}
	if ((ret = pci_hold_mark(d->bus)) < 0) {
		ret = refuse(cause, len, ret, "this process holds it (%s)", d->bus);
		goto err;
	}
	if ((ret = m->ops->irq_open(m, &d->t, &d->irq)) < 0) {
		ret = refuse(cause, len, ret, "its interrupt source: %s", amd_cause());
		goto err_hold;
	}
	/* The queues' doorbells, resolved once: a commit rings them. */
	if ((ret = m->ops->doorbell_open(m, &d->t, AMD_CP_DOORBELL * 8, &d->cp_db)) < 0 ||
	    (ret = m->ops->doorbell_open(m, &d->t, AMD_SDMA_DOORBELL * 8, &d->sdma_db)) < 0) {
		ret = refuse(cause, len, ret, "its queues' doorbells: %s", amd_cause());
		goto err_irq;
	}
	if ((ret = amd_mem_init(d)) < 0) {
		ret = refuse(cause, len, ret, "%s", amd_cause());
		goto err_irq;
	}
	ret = amd_boot(d, k->set, images, cause, len);
	free_images(images);
	if (ret < 0)
		goto err_mem;
	amd_queue_init(d);
	atomic_store_explicit((_Atomic uint64_t *)(d->vram + AMD_WORD_AT),
			      atomic_load(word), memory_order_release);
	d->last_submitted = d->last_committed = d->done_seen = d->eop_value =
		atomic_load(word);
	amd_relay_init(d);
	amd_peer_enter(d);	/* other AMD devices' waits may map its word */
	*handle = d;
	return 0;
err_mem:
	amd_mem_fini(d);
err_irq:
	m->ops->irq_close(m, &d->t, &d->irq);
err_hold:
	pci_hold_clear(d->bus);
err:
	free_images(images);
	m->ops->give_back(m, &d->t);
	pci_function_unlock(d->lock_fd);
	free(d);
	return ret;
}

static int
open_gpu(const struct amd_pci_opener *op, _Atomic uint64_t *word, void **handle,
	 char *cause, size_t len)
{
	const struct rig_pci_machine *m = op->m;
	struct taking k;
	int ret;

	memset(&k, 0, sizeof(k));
	/* RIG_AMD_SIM: this machine's GPUs are one software GPU (amd/sim/env.c). */
	if (op->this_machine && amd_sim_env() &&
	    (ret = amd_sim_env_machine(&m)) < 0)
		return refuse(cause, len, ret, "%s", amd_cause());
	ret = pci_amd_gpu(m, op->i, &k.f, &k.count);
	if (ret == -ENODEV && strstr(amd_why(), "no GPU"))
		return refuse(cause, len, ret, "%s", amd_cause());
	if (ret < 0)
		return refuse(cause, len, -ENODEV, "the machine's PCI functions "
			      "cannot be listed: %s", amd_cause());
	k.lock_fd = -1;
	ret = check_holders(m, op->i, k.f.bus, &k.lock_fd, cause, len);
	if (ret < 0) {
		pci_function_unlock(k.lock_fd);
		return ret;
	}
	ret = m->ops->take(m, k.f.bus, &k.t);
	if (ret < 0) {
		pci_function_unlock(k.lock_fd);
		return refuse(cause, len, ret, "its function %s cannot be taken: %s",
			      k.f.bus, amd_cause());
	}
	k.taken = true;
	ret = check_table(m, &k, cause, len);
	if (ret == 0)
		ret = check_versions(&k, cause, len);
	if (ret == 0)
		ret = check_registers(&k, cause, len);
	if (ret == 0)
		ret = check_images(m, op->dirs, &k, cause, len);
	if (ret == 0)
		ret = check_fabric(m, &k, cause, len);
	if (ret == 0)
		ret = check_windows(m, &k, cause, len);
	if (ret == 0)
		return start_device(op, m, &k, word, handle, cause, len);
	give_back(m, &k);
	return ret;
}

static int
amd_pci_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	     char *why, size_t why_len)
{
	const struct amd_pci_opener *op = (const struct amd_pci_opener *)o;
	char cause[900];
	int ret;

	/* No rig_in_callback() check: rig calls make with the depth raised, and
	 * rig_open refuses a call from inside a callback before it gets here. */
	if (!o || !word || !handle)
		return amd_fail(-EINVAL, "opener, word or handle is NULL");
	pci_lock();
	ret = open_gpu(op, word, handle, cause, sizeof(cause));
	pci_unlock();
	if (ret == 0)
		return 0;
	if (why)
		snprintf(why, why_len, "%s: %s", op->name, cause);
	return amd_fail(ret, "%s: %s", op->name, cause);
}

int
rig_amd_pci_gpu(const struct rig_pci_machine *m, const char *const *firmware,
		int i, struct rig_opener **out)
{
	struct amd_pci_opener *op;
	size_t n = 0;

	if (!out)
		return amd_fail(-EINVAL, "out is NULL");
	if (i < 0)
		return amd_fail(-EINVAL, "GPU %d is negative", i);
	while (firmware && firmware[n]) {
		if (strlen(firmware[n]) >= 256)
			return amd_fail(-EINVAL, "firmware directory %zu is longer "
					"than 255 bytes", n);
		n++;
	}
	if (n > AMD_SEARCH_DIRS - 3)
		return amd_fail(-EINVAL, "%zu firmware directories, more than %d",
				n, AMD_SEARCH_DIRS - 3);
	op = calloc(1, sizeof(*op));
	if (!op || !(op->dirs = calloc(n + 1, sizeof(char *))))
		goto err;
	for (size_t d = 0; d < n; d++)
		if (!(op->dirs[d] = strdup(firmware[d])))
			goto err;
	op->m = pci_machine_or_this(m);
	op->this_machine = op->m == rig_pci_machine_this();
	op->i = i;
	/* A machine whose GPUs another process opens (a machine behind an
	 * agent, remote/machine.c): its opener, not ours. */
	if (op->m->ops->gpu_opener) {
		int ret = op->m->ops->gpu_opener(op->m, i, &op->opener);

		if (ret < 0) {
			rig_amd_pci_opener_free(&op->opener);
			return ret;
		}
		*out = &op->opener;
		return 0;
	}
	if (i == 0)
		snprintf(op->name, sizeof(op->name), "AMD-PCI");
	else
		snprintf(op->name, sizeof(op->name), "AMD-PCI:%d", i);
	op->opener = (struct rig_opener){ .name = op->name, .ops = &amd_dev_ops,
		.make = amd_pci_make, .arg = op };
	*out = &op->opener;
	return 0;
err:
	rig_amd_pci_opener_free(op ? &op->opener : NULL);
	return amd_fail(-ENOMEM, "no memory for the opener");
}

void
rig_amd_pci_opener_free(struct rig_opener *o)
{
	struct amd_pci_opener *op = (struct amd_pci_opener *)o;

	if (!op)
		return;
	for (size_t d = 0; op->dirs && op->dirs[d]; d++)
		free(op->dirs[d]);
	free(op->dirs);
	free(op);
}
