/* SPDX-License-Identifier: MIT */
/*
 * amd/doctor.c: `rig doctor`. One line per prerequisite of an open with no
 * kernel driver (docs/amd.md, Doctor), "pass" or "FAIL", a fail
 * with its fix on the same line: the bound driver, the IOMMU and
 * vfio-pci, the three BARs an open maps (the memory BAR at its largest
 * size and at least what a device maps), the locked-memory limit behind an
 * IOMMU and the free 2 MiB huge pages without one, CAP_SYS_ADMIN (for
 * pagemap), io_uring, and every pinned image with its digest. It reads
 * the machine's files and the process's facts and changes nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <liburing.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/firmware/firmware.h"
#include "amd/pci/pci.h"
#include "amd/dev/dev.h"

#define CAP_SYS_ADMIN_BIT 21

/* What an open's device maps of the memory BAR: its reserved VRAM, the
 * discovery table's kept top and 64 MiB to give out (open.c refuses less). */
#define DEVICE_BAR_BYTES	(AMD_RESERVED + AMD_TOP_KEPT + (64ull << 20))

void
rig_doctor_process_read(struct rig_doctor_process *out)
{
	struct io_uring ring;
	struct rlimit rl;
	char line[256];
	FILE *f;
	int ret;

	if (!out) {
		amd_fail(-EINVAL, "out is NULL");
		return;
	}
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		out->memlock_bytes = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
				     (uint64_t)rl.rlim_cur;
	if ((f = fopen("/proc/self/status", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "CapEff:", 7))
				out->cap_sys_admin = strtoull(line + 7, NULL, 16) >>
						     CAP_SYS_ADMIN_BIT & 1;
		fclose(f);
	}
	ret = io_uring_queue_init(2, &ring, 0);
	out->io_uring = ret == 0;
	if (ret == 0)
		io_uring_queue_exit(&ring);
	else
		out->io_uring_why = strerror(-ret);
}

struct tally {
	FILE *out;
	int failed;
};

static void __attribute__((format(printf, 3, 4)))
line(struct tally *t, bool pass, const char *fmt, ...)
{
	va_list ap;

	fprintf(t->out, "  %s  ", pass ? "pass" : "FAIL");
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	fputc('\n', t->out);
	t->failed += !pass;
}

static bool
dir_has_entries(const struct rig_pci_machine *m, const char *rel)
{
	char path[512];
	struct dirent *e;
	bool any = false;
	DIR *d;

	if (pci_path(m, path, sizeof(path), rel) < 0 || !(d = opendir(path)))
		return false;
	while (!any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	closedir(d);
	return any;
}

static bool
exists(const struct rig_pci_machine *m, const char *rel)
{
	char path[512];

	return pci_path(m, path, sizeof(path), rel) == 0 && access(path, F_OK) == 0;
}

static void
check_driver(const struct rig_pci_machine *m, int i, const char *bus,
	     struct tally *t)
{
	char driver[64], why[400];

	pci_driver_of(m, bus, driver, sizeof(driver));
	if (!strcmp(driver, "amdgpu"))
		line(t, false, "driver: amdgpu is bound; fix: rig detach %d", i);
	else if (pci_amdgpu_has(m, bus, why, sizeof(why)) == 1)
		line(t, false, "driver: %s; fix: rig detach %d (again), or reload "
		     "the amdgpu module", why, i);
	else if (driver[0] && strcmp(driver, "vfio-pci"))
		line(t, false, "driver: %s is bound; fix: echo %s > "
		     "/sys/bus/pci/drivers/%s/unbind", driver, bus, driver);
	else
		line(t, true, "driver: %s", driver[0] ? "vfio-pci" : "none (detached)");
}

static void
check_bar(const struct rig_pci_machine *m, int i, const struct pci_function *f,
	  struct tally *t)
{
	char rel[160], text[64];
	uint64_t bytes = f->bar_bytes[AMD_BAR_VRAM];
	unsigned long long sizes;
	int top = -1;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource0_resize", f->bus);
	if (m->ops->file_read(m, rel, text, sizeof(text)) < 0) {
		line(t, true, "memory BAR: %llu MiB (not resizable)",
		     (unsigned long long)(bytes >> 20));
		return;
	}
	sizes = strtoull(text, NULL, 16);
	for (int b = 0; b < 64; b++)
		if (sizes >> b & 1)
			top = b;
	if (top >= 0 && (1ull << 20 << top) > bytes)
		line(t, false, "memory BAR: %llu MiB, resizable to %llu MiB; fix: "
		     "rig detach %d (it resizes the BAR)",
		     (unsigned long long)(bytes >> 20), 1ull << top, i);
	else if (bytes < DEVICE_BAR_BYTES)
		line(t, false, "memory BAR: %llu MiB, its largest size, fewer than "
		     "the %llu MiB a device maps; fix: enable Resizable BAR and "
		     "Above 4G decoding in the firmware's settings",
		     (unsigned long long)(bytes >> 20), DEVICE_BAR_BYTES >> 20);
	else
		line(t, true, "memory BAR: %llu MiB, its largest size",
		     (unsigned long long)(bytes >> 20));
}

/* The doorbell and register BARs an open maps (amd-facts §8.2). */
static void
check_other_bars(const struct pci_function *f, struct tally *t)
{
	static const struct { int bar; const char *what; } bars[] = {
		{ AMD_BAR_DOORBELL, "doorbell BAR (2)" },
		{ AMD_BAR_MMIO, "register BAR (5)" },
	};

	for (size_t k = 0; k < sizeof(bars) / sizeof(bars[0]); k++) {
		uint64_t bytes = f->bar_bytes[bars[k].bar];

		if (bytes)
			line(t, true, "%s: %llu KiB", bars[k].what,
			     (unsigned long long)(bytes >> 10));
		else
			line(t, false, "%s: absent from its resource file, so an "
			     "open cannot map it; fix: check that the function is "
			     "enabled (lspci -vv -s %s)", bars[k].what, f->bus);
	}
}

/* The device's host memory at open against what the process may lock
 * (behind an IOMMU) or the free 2 MiB pages (without one). */
static void
check_host_memory(const struct rig_pci_machine *m, bool iommu,
		  const struct rig_doctor_process *p, struct tally *t)
{
	const unsigned long long need_kib = AMD_HOST_MEMORY_BYTES >> 10;
	const long pages = (long)(AMD_HOST_MEMORY_BYTES / PCI_DMA_PAGE);
	long free_pages = -1;
	char text[64];

	if (!iommu)
		line(t, true, "locked memory: not counted without an IOMMU");
	else if (p->memlock_bytes == UINT64_MAX)
		line(t, true, "locked memory: unlimited");
	else if (p->memlock_bytes >= AMD_HOST_MEMORY_BYTES)
		line(t, true, "locked memory: %llu KiB, at least the %llu KiB a "
		     "device locks at open", (unsigned long long)(p->memlock_bytes
		     >> 10), need_kib);
	else
		line(t, false, "locked memory: %llu KiB, less than the %llu KiB a "
		     "device locks at open (its rings, interrupt rings and "
		     "staging); fix: ulimit -l %llu or more (or memlock in "
		     "/etc/security/limits.conf)", (unsigned long long)
		     (p->memlock_bytes >> 10), need_kib, need_kib);
	if (iommu) {
		line(t, true, "hugepages: not needed behind an IOMMU");
		return;
	}
	if (m->ops->file_read(m, "sys/kernel/mm/hugepages/hugepages-2048kB/"
			      "free_hugepages", text, sizeof(text)) == 0)
		free_pages = strtol(text, NULL, 10);
	if (free_pages >= pages)
		line(t, true, "hugepages: %ld free 2 MiB pages, at least the %ld a "
		     "device takes at open", free_pages, pages);
	else
		line(t, false, "hugepages: %ld free 2 MiB page%s, fewer than the %ld "
		     "a device takes at open; fix: echo 1024 > "
		     "/proc/sys/vm/nr_hugepages", free_pages < 0 ? 0 : free_pages,
		     free_pages == 1 ? "" : "s", pages);
}

static void
check_gpu(const struct rig_pci_machine *m, int i, const struct pci_function *f,
	  const struct rig_doctor_process *p, struct tally *t)
{
	char rel[160], text[64], group[64] = "", path[512];
	bool iommu = dir_has_entries(m, "sys/kernel/iommu_groups");
	ssize_t n;

	fprintf(t->out, "GPU %d (%s):\n", i, f->bus);
	check_driver(m, i, f->bus, t);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group", f->bus);
	if (pci_path(m, path, sizeof(path), rel) == 0 &&
	    (n = readlink(path, text, sizeof(text) - 1)) > 0) {
		text[n] = '\0';
		snprintf(group, sizeof(group), "%s", strrchr(text, '/') ?
			 strrchr(text, '/') + 1 : text);
	}
	if (iommu)
		line(t, group[0] != '\0', "IOMMU: on; %s%s", group[0] ?
		     "the function's group is " : "the function has no group; fix: "
		     "check the IOMMU's kernel parameters", group);
	else
		line(t, true, "IOMMU: off (host memory comes from 2 MiB hugepages)");
	/* vfio-pci maps host memory into the IOMMU (VFIO type 1); without an
	 * IOMMU the function is taken through sysfs and needs none. */
	if (!iommu)
		line(t, true, "vfio-pci: not needed without an IOMMU (the function "
		     "is taken through sysfs)");
	else if (exists(m, "sys/bus/pci/drivers/vfio-pci") ||
		 exists(m, "sys/module/vfio_pci"))
		line(t, true, "vfio-pci: present");
	else
		line(t, false, "vfio-pci: absent, and behind an IOMMU host memory is "
		     "mapped through it; fix: modprobe vfio-pci");
	check_bar(m, i, f, t);
	check_other_bars(f, t);
	check_host_memory(m, iommu, p, t);
}

static void
check_process(const struct rig_doctor_process *p, struct tally *t)
{
	fprintf(t->out, "process:\n");
	if (p->cap_sys_admin)
		line(t, true, "CAP_SYS_ADMIN: held (for host memory's physical "
		     "addresses in /proc/self/pagemap, and detach's and attach's "
		     "sysfs writes)");
	else
		line(t, false, "CAP_SYS_ADMIN: missing, so /proc/self/pagemap reads "
		     "physical addresses as 0 and a device without an IOMMU gets no "
		     "host memory; fix: run as root, or setcap cap_sys_admin+ep on "
		     "the program");
	if (p->io_uring)
		line(t, true, "io_uring: available");
	else
		line(t, false, "io_uring: %s; fix: sysctl kernel.io_uring_disabled=0",
		     p->io_uring_why ? p->io_uring_why : "unavailable");
}

static void
check_firmware(const struct rig_pci_machine *m, const char *const *dirs,
	       struct tally *t)
{
	struct amd_search s;
	struct amd_found found;
	const struct amd_pin *pins;
	size_t n;

	fprintf(t->out, "firmware (%s):\n", AMD_FW_RELEASE);
	if (amd_fw_search_dirs(m->root, dirs, &s) < 0) {
		line(t, false, "search directories: %s", amd_cause());
		return;
	}
	pins = amd_pins(&n);
	for (size_t k = 0; k < n; k++) {
		const char *other;

		if (amd_fw_find(&s, &pins[k], &found) == 0) {
			line(t, true, "%s: %s, BLAKE2b-256 %s as pinned", pins[k].name,
			     found.path, pins[k].digest);
			free(found.bytes);
		} else if ((other = strstr(amd_why(), "another digest: "))) {
			line(t, false, "%s: only of another digest: %s; fix: rig "
			     "firmware amd", pins[k].name, other + 16);
		} else {
			line(t, false, "%s: missing; fix: rig firmware amd", pins[k].name);
		}
	}
}

int
rig_amd_pci_doctor(const struct rig_pci_machine *m, const char *const *firmware,
		   int i, const struct rig_doctor_process *proc, FILE *out)
{
	struct rig_doctor_process self;
	struct tally t = { .out = out };
	struct pci_function *fs;
	size_t n;
	int ret;

	if (!out)
		return amd_fail(-EINVAL, "out is NULL");
	if (proc && proc->size != sizeof(*proc))
		return amd_fail(-EINVAL, "proc->size %zu is not %zu", proc->size,
				sizeof(*proc));
	if (!proc) {
		rig_doctor_process_read(&self);
		proc = &self;
	}
	m = pci_machine_or_this(m);
	ret = pci_amd_gpus(m, &fs, &n);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "the machine's PCI functions cannot "
				  "be listed: ");
	if (i >= 0 && (size_t)i >= n) {
		free(fs);
		return amd_fail(-ENODEV, "no GPU %d: the machine has %zu AMD GPU%s",
				i, n, n == 1 ? "" : "s");
	}
	if (n == 0)
		fprintf(out, "no AMD GPU on this machine\n");
	for (size_t k = 0; k < n; k++)
		if (i < 0 || (size_t)i == k)
			check_gpu(m, (int)k, &fs[k], proc, &t);
	free(fs);
	check_process(proc, &t);
	check_firmware(m, firmware, &t);
	return t.failed;
}
