/* SPDX-License-Identifier: MIT */
/*
 * amd/driver.c: detach, attach and reset (Rig_pci.Driver), through the
 * machine's sysfs files. detach sets driver_override so no driver binds
 * the GPU again, unbinds amdgpu, makes the memory BAR as large as the BAR
 * and its bridge allow (resource0_resize, amd-facts §8.3) and waits for
 * amdgpu to let go (the DRM files KFD keeps for exited processes before the
 * unbind; KFD's topology and the ip_discovery directory after it). attach
 * resets a detached GPU as reset does, clears driver_override and binds
 * amdgpu. reset is seed 003's (amd/boot/reset.c: stop, interrupt rings
 * off, mode 1 through the SMU where the sOS runs, the post-reset checks),
 * on the function taken as an open takes it. A GPU of a fabric is never
 * reset alone:
 * reset refuses it (its reset only stops it, which the boot does) and
 * attach leaves its reset to amdgpu. Each refuses a GPU a process holds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/boot/boot.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"
#include "amd/regs/regs.h"

int amd_driver_wait_ms = 30000;

#define DEV(rel, bus, file) \
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", bus, file)

struct change {
	const struct rig_pci_machine *m;
	struct pci_function f;
	size_t count;			/* the machine's AMD GPUs */
	int i;
	char driver[64];
	int lock_fd;			/* the function's lock among processes */
};

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Gives back both locks begin took. */
static void
end(struct change *c)
{
	pci_function_unlock(c->lock_fd);
	c->lock_fd = -1;
	pci_unlock();
}

/* Finds GPU i and refuses a held one; takes the locks on success. */
static int
begin(const struct rig_pci_machine *m, int i, struct change *c)
{
	char what[400];
	int ret, pid;

	if (i < 0)
		return amd_fail(-EINVAL, "GPU %d is negative", i);
	if (rig_in_callback())
		return amd_fail(-EINVAL, "called from inside one of rig's callbacks, "
				"which holds a lock");
	c->m = pci_machine_or_this(m);
	c->i = i;
	c->lock_fd = -1;
	pci_lock();
	ret = pci_amd_gpu(c->m, i, &c->f, &c->count);
	if (ret == 0 && pci_held_here(c->f.bus))
		ret = amd_fail(-EBUSY, "this process holds GPU %d (%s)", i, c->f.bus);
	if (ret == 0)
		ret = pci_function_lock(c->m, c->f.bus, &c->lock_fd);
	if (ret == 0 && (pid = pci_holder(c->m, c->f.bus, what, sizeof(what))) != 0) {
		if (pid < 0)
			ret = pid;
		else if (pid == getpid())
			ret = amd_fail(-EBUSY, "this process holds GPU %d (%s): it %s",
				       i, c->f.bus, what);
		else
			ret = amd_fail(-EBUSY, "process %d holds GPU %d (%s): it %s",
				       pid, i, c->f.bus, what);
	}
	if (ret == 0)
		ret = pci_driver_of(c->m, c->f.bus, c->driver, sizeof(c->driver));
	if (ret < 0)
		end(c);
	return ret;
}

static int
write_file(struct change *c, const char *rel, const char *text)
{
	return c->m->ops->file_write(c->m, rel, text);
}

/* Still listed by amdgpu, after waiting up to amd_driver_wait_ms. */
static int
wait_let_go(struct change *c, char *why, size_t len)
{
	for (int waited = 0; ; waited += 100) {
		if (pci_amdgpu_lingers(c->m, c->f.bus, why, len) != 1)
			return 0;
		if (waited >= amd_driver_wait_ms)
			return 1;
		sleep_ms(100);
	}
}

/*
 * Waits up to amd_driver_wait_ms for KFD to drop the DRM files of exited
 * processes (docs/amd.md, Moving GPUs); note says which stayed.
 */
static void
wait_dead_files(struct change *c, char *note, size_t len)
{
	char files[200];

	note[0] = '\0';
	for (int waited = 0; ; waited += 100) {
		if (pci_dead_drm_files(c->m, c->f.bus, files, sizeof(files)) == 0)
			return;
		if (waited >= amd_driver_wait_ms)
			break;
		sleep_ms(100);
	}
	snprintf(note, len, "; KFD still held the DRM files of exited processes "
		 "%s after %d ms", files, amd_driver_wait_ms);
}

/* Makes BAR0 as large as allowed: the largest size a write is taken for. */
static void
resize_bar(struct change *c, char *note, size_t len)
{
	char rel[128], text[64];
	unsigned long long sizes;
	int now = -1;

	DEV(rel, c->f.bus, "resource0_resize");
	note[0] = '\0';
	if (c->m->ops->file_read(c->m, rel, text, sizeof(text)) < 0) {
		snprintf(note, len, "; BAR0 is not resizable (%llu MiB)",
			 (unsigned long long)(c->f.bar_bytes[AMD_BAR_VRAM] >> 20));
		return;
	}
	sizes = strtoull(text, NULL, 16);
	for (int b = 0; b < 64; b++)
		if ((1ull << 20) << b == c->f.bar_bytes[AMD_BAR_VRAM])
			now = b;
	for (int b = 63; b > now; b--) {
		char bit[8];

		if (!(sizes >> b & 1))
			continue;
		snprintf(bit, sizeof(bit), "%d", b);
		if (write_file(c, rel, bit) == 0) {
			snprintf(note, len, "; BAR0 resized to %llu MiB", 1ull << b);
			return;
		}
	}
	if (now >= 0)
		snprintf(note, len, "; BAR0 stays %llu MiB", 1ull << now);
}

int
rig_amd_pci_detach(const struct rig_pci_machine *m, int i,
		   enum rig_pci_progress *progress)
{
	char rel[160], why[400], note[96], held[300];
	struct change c;
	bool unbound = false;
	int ret;

	if (!progress)
		return amd_fail(-EINVAL, "progress is NULL");
	ret = begin(m, i, &c);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	if (c.driver[0] && strcmp(c.driver, "amdgpu") && strcmp(c.driver, "vfio-pci")) {
		end(&c);
		return amd_fail(-EBUSY, "GPU %d (%s) is bound to %s, not amdgpu", i,
				c.f.bus, c.driver);
	}
	held[0] = '\0';
	if (!strcmp(c.driver, "amdgpu")) {
		wait_dead_files(&c, held, sizeof(held));
		DEV(rel, c.f.bus, "driver_override");
		ret = write_file(&c, rel, "none");
		if (ret == 0) {
			snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/amdgpu/unbind");
			ret = write_file(&c, rel, c.f.bus);
			if (ret < 0) {
				*progress = RIG_PCI_PART_WAY;
				snprintf(why, sizeof(why), "GPU %d (%s) part way: "
					 "driver_override is none, but ", i, c.f.bus);
				amd_rewrap(__func__, 0, why);
				end(&c);
				return 0;
			}
			unbound = true;
		}
		if (ret < 0) {
			end(&c);
			snprintf(why, sizeof(why), "GPU %d (%s): ", i, c.f.bus);
			return amd_rewrap(__func__, -EIO, why);
		}
	}
	resize_bar(&c, note, sizeof(note));
	if (wait_let_go(&c, why, sizeof(why))) {
		end(&c);
		if (!unbound)
			return amd_fail(-ETIMEDOUT, "GPU %d (%s): %s after %d ms", i,
					c.f.bus, why, amd_driver_wait_ms);
		*progress = RIG_PCI_UNRELEASED;
		amd_fail(0, "GPU %d (%s) unreleased: %s%s%s; a later detach waits "
			 "again", i, c.f.bus, why, note, held);
		return 0;
	}
	end(&c);
	*progress = RIG_PCI_DETACHED;
	amd_fail(0, "GPU %d (%s) detached%s%s", i, c.f.bus, note, held);
	return 0;
}

/* Whether the GPU is one of a fabric: 1, 0, or -EIO saying why not known. */
static int
fabric_member(struct change *c)
{
	char prefix[96];
	int ret = amd_fabric_member(c->m, &c->f, c->count);

	if (ret >= 0)
		return ret;
	snprintf(prefix, sizeof(prefix), "GPU %d (%s): cannot tell whether it is "
		 "one of a fabric: ", c->i, c->f.bus);
	return amd_rewrap(__func__, -EIO, prefix);
}

/*
 * Seed 003's reset of GPU c->i (amd/boot/reset.c does it): its function
 * taken, its discovery table read for its registers' places, its windows
 * mapped; all given back after. Under the locks. The cause starts "GPU i
 * (bus): ".
 */
static int
gpu_reset(struct change *c)
{
	struct amd_discovery *table = calloc(1, sizeof(*table));
	struct amd_dev *d = calloc(1, sizeof(*d));
	const struct amd_block *gc;
	char prefix[96], cause[900];
	uint8_t *bytes = NULL;
	uint64_t vram = 0;
	size_t n = 0;
	int ret;

	snprintf(prefix, sizeof(prefix), "GPU %d (%s): ", c->i, c->f.bus);
	if (!table || !d) {
		free(table);
		free(d);
		return amd_fail(-ENOMEM, "%sno memory for the reset", prefix);
	}
	d->m = c->m;
	snprintf(d->bus, sizeof(d->bus), "%s", c->f.bus);
	if ((ret = c->m->ops->take(c->m, c->f.bus, &d->t)) < 0) {
		snprintf(cause, sizeof(cause), "%s", amd_cause());
		free(table);
		free(d);
		return amd_fail(ret, "%sits function cannot be taken: %s", prefix, cause);
	}
	if ((ret = amd_discovery_read(c->m, &c->f, &bytes, &n, &vram)) < 0 ||
	    (ret = amd_discovery_parse(bytes, n, table)) < 0) {
		snprintf(cause, sizeof(cause), "its discovery table, which names its "
			 "registers' places, cannot be read: %s", amd_cause());
		ret = -EPROTO;
	} else if (!(gc = amd_discovery_block(table, GC_HWID))) {
		snprintf(cause, sizeof(cause), "its discovery table lacks GC");
		ret = -EPROTO;
	} else if ((ret = amd_regs_resolve(table, &d->regs)) < 0) {
		amd_cause_copy(cause, sizeof(cause));
	} else if ((ret = pci_windows_map(c->m, &d->t)) < 0) {
		snprintf(cause, sizeof(cause), "its windows cannot be mapped into the "
			 "process: %s", amd_cause());
	} else {
		d->gc_major = gc->major;
		d->gc_minor = gc->minor;
		d->gc_rev = gc->revision;
		d->vram = d->t.vram.addr;
		d->vram_bytes = d->t.vram.bytes;
		ret = amd_boot_reset_gpu(d, cause, sizeof(cause));
	}
	free(bytes);
	/* Unmapped here: not every machine's give_back does (the sim's does not). */
	c->m->ops->window_unmap(c->m, &d->t.mmio);
	c->m->ops->window_unmap(c->m, &d->t.doorbell);
	c->m->ops->window_unmap(c->m, &d->t.vram);
	c->m->ops->give_back(c->m, &d->t);
	free(table);
	free(d);
	return ret < 0 ? amd_fail(ret, "%s%s", prefix, cause) : 0;
}

int
rig_amd_pci_attach(const struct rig_pci_machine *m, int i)
{
	char rel[160];
	struct change c;
	int ret;

	ret = begin(m, i, &c);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	if (!strcmp(c.driver, "amdgpu")) {
		end(&c);
		return 0;	/* attached already */
	}
	ret = fabric_member(&c);
	if (ret == 0)
		ret = gpu_reset(&c);
	else if (ret == 1)
		ret = 0;	/* amdgpu resets the fabric as it takes it back */
	if (ret < 0) {		/* its cause names the GPU */
		end(&c);
		return amd_rewrap(__func__, ret, "");
	}
	if (c.driver[0]) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/unbind", c.driver);
		ret = write_file(&c, rel, c.f.bus);
	}
	if (ret == 0) {
		DEV(rel, c.f.bus, "driver_override");
		ret = write_file(&c, rel, "\n");
	}
	if (ret == 0) {
		snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/amdgpu/bind");
		ret = write_file(&c, rel, c.f.bus);
	}
	end(&c);
	if (ret < 0 && ret != -EIO) {
		snprintf(rel, sizeof(rel), "GPU %d (%s): ", i, c.f.bus);
		return amd_rewrap(__func__, -EIO, rel);
	}
	return ret < 0 ? amd_rewrap(__func__, ret, "") : 0;
}

int
rig_amd_pci_reset(const struct rig_pci_machine *m, int i)
{
	char why[300];
	struct change c;
	int ret;

	ret = begin(m, i, &c);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	if (!strcmp(c.driver, "amdgpu")) {
		end(&c);
		return amd_fail(-EBUSY, "GPU %d (%s) is bound to amdgpu; `rig detach "
				"%d` first", i, c.f.bus, i);
	}
	/* Seed 003: a GPU a kernel driver holds is not reset; only an unbound
	 * one or vfio-pci's (which lends it to a process) is detached. */
	if (c.driver[0] && strcmp(c.driver, "vfio-pci")) {
		end(&c);
		return amd_fail(-EBUSY, "GPU %d (%s) is bound to %s, which holds it: "
				"unbind it first", i, c.f.bus, c.driver);
	}
	if (pci_amdgpu_lingers(c.m, c.f.bus, why, sizeof(why)) == 1) {
		end(&c);
		return amd_fail(-EBUSY, "GPU %d (%s): %s; `rig detach %d` waits for "
				"it to", i, c.f.bus, why, i);
	}
	ret = fabric_member(&c);
	if (ret == 1) {
		end(&c);
		return amd_fail(-ENOTSUP, "GPU %d (%s) is one of a fabric of %d GPUs, "
				"which reset together: its reset only stops it, which "
				"comes with the boot; attach the fabric's GPUs to "
				"amdgpu to reset them", i, c.f.bus, AMD_FABRIC_GPUS);
	}
	if (ret == 0)
		ret = gpu_reset(&c);
	end(&c);
	return ret < 0 ? amd_rewrap(__func__, ret, "") : 0;
}
