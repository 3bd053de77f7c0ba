/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/list.c: a machine's PCI functions in bus order through libpci's
 * linux-sysfs method (toolchain.md §5), and the AMD GPUs among them.
 * libpci's error handler must not return, so it jumps back here with the
 * message; the hwdb is disabled (its lookups leak) and no names are read.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/pci/pci.h"

static _Thread_local jmp_buf pci_jump;
static _Thread_local char pci_message[256];

static void __attribute__((noreturn, format(printf, 1, 2)))
on_pci_error(char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pci_message, sizeof(pci_message), fmt, ap);
	va_end(ap);
	longjmp(pci_jump, 1);
}

static void __attribute__((format(printf, 1, 2)))
on_pci_quiet(char *fmt, ...)
{
	(void)fmt;
}

static int
by_bus(const void *a, const void *b)
{
	const struct pci_dev *x = *(struct pci_dev *const *)a;
	const struct pci_dev *y = *(struct pci_dev *const *)b;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

static void
fill_function(struct pci_dev *d, struct pci_function *f)
{
	snprintf(f->bus, sizeof(f->bus), "%04x:%02x:%02x.%d", d->domain,
		 d->bus, d->dev, d->func);
	f->vendor = d->vendor_id;
	f->device = d->device_id;
	f->class_code = (uint32_t)d->device_class << 8;
	for (int b = 0; b < PCI_BARS; b++)
		f->bar_bytes[b] = d->size[b];
}

/* Scans with libpci; any call here may jump to pci_jump. */
static int
scan(struct pci_access *a, const char *sysfs, struct pci_function **out,
     size_t *n)
{
	struct pci_dev **sorted;
	struct pci_function *fs = NULL;
	size_t count = 0, i = 0;

	a->error = on_pci_error;
	a->warning = on_pci_quiet;
	a->debug = on_pci_quiet;
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(a, "sysfs.path", (char *)sysfs);
	pci_set_param(a, "hwdb.disable", "1");
	pci_init(a);
	pci_scan_bus(a);
	/* Every libpci call that may jump is made before anything is allocated. */
	for (struct pci_dev *d = a->devices; d; d = d->next, count++)
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS |
				 PCI_FILL_BASES | PCI_FILL_SIZES);
	if (count) {
		sorted = calloc(count, sizeof(*sorted));
		fs = calloc(count, sizeof(*fs));
		if (!sorted || !fs) {
			free(sorted);
			free(fs);
			return amd_fail(-ENOMEM, "no memory for %zu functions", count);
		}
		for (struct pci_dev *d = a->devices; d; d = d->next)
			sorted[i++] = d;
		qsort(sorted, count, sizeof(*sorted), by_bus);
		for (i = 0; i < count; i++)
			fill_function(sorted[i], &fs[i]);
		free(sorted);
	}
	*out = fs;
	*n = count;
	return 0;
}

/*
 * libpci's error handler cannot return, and a jump out of its scan leaks
 * the directory it was reading, so what makes it fail is checked first:
 * every entry of devices/ a bus address with the four files it reads.
 */
static int
precheck(const char *sysfs)
{
	static const char *const files[] = { "vendor", "device", "class", "resource" };
	char dir[300], path[600];
	struct dirent *e;
	unsigned x;
	int ret = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/devices", sysfs);
	if (!(d = opendir(dir)))
		return amd_fail(-ENODEV, "cannot list %s: %s", dir, strerror(errno));
	while (ret == 0 && (e = readdir(d))) {
		char tail;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (sscanf(e->d_name, "%x:%x:%x.%x%c", &x, &x, &x, &x, &tail) != 4) {
			ret = amd_fail(-ENODEV, "cannot list %s: %s is not a PCI bus "
				       "address", dir, e->d_name);
			break;
		}
		for (int f = 0; f < 4 && ret == 0; f++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, files[f]);
			if (access(path, R_OK) < 0)
				ret = amd_fail(-ENODEV, "cannot read %s: %s", path,
					       strerror(errno));
		}
	}
	closedir(d);
	return ret;
}

/* The sysfs machine's functions operation. No root/sys/bus/pci at all is
 * a machine with no PCI functions (this one off Linux). */
int
pci_sysfs_functions(const struct rig_pci_machine *m, struct pci_function **out,
		    size_t *n)
{
	char sysfs[256];
	struct pci_access *volatile a = NULL;
	struct stat st;
	int ret;

	ret = pci_path(m, sysfs, sizeof(sysfs), "sys/bus/pci");
	if (ret < 0)
		return ret;
	if (stat(sysfs, &st) < 0 && errno == ENOENT) {
		*out = NULL;
		*n = 0;
		return 0;
	}
	ret = precheck(sysfs);
	if (ret < 0)
		return ret;
	a = pci_alloc();
	if (setjmp(pci_jump)) {
		pci_cleanup(a);
		return amd_fail(-ENODEV, "libpci: %s", pci_message);
	}
	ret = scan(a, sysfs, out, n);
	pci_cleanup(a);
	return ret;
}

bool
rig_amd_is_gpu(uint16_t vendor, uint32_t class_code)
{
	if (vendor != PCI_VENDOR_ID_ATI)
		return false;
	return (class_code >> 16) == PCI_BASE_CLASS_DISPLAY ||
	       (class_code >> 8) == PCI_CLASS_ACCELERATOR_PROCESSING;
}

int
pci_amd_gpus(const struct rig_pci_machine *m, struct pci_function **out,
	     size_t *n)
{
	struct pci_function *fs;
	size_t count, gpus = 0;
	int ret;

	m = pci_machine_or_this(m);
	ret = m->ops->functions(m, &fs, &count);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < count; i++)
		if (rig_amd_is_gpu(fs[i].vendor, fs[i].class_code))
			fs[gpus++] = fs[i];
	if (!gpus) {
		free(fs);
		fs = NULL;
	}
	*out = fs;
	*n = gpus;
	return 0;
}

int
pci_amd_gpu(const struct rig_pci_machine *m, int i, struct pci_function *out,
	    size_t *count)
{
	struct pci_function *fs;
	size_t n;
	int ret;

	ret = pci_amd_gpus(m, &fs, &n);
	if (ret < 0)
		return ret;
	*count = n;
	if ((size_t)i >= n) {
		free(fs);
		return amd_fail(-ENODEV, "no GPU %d: the machine has %zu AMD GPU%s",
				i, n, n == 1 ? "" : "s");
	}
	*out = fs[i];
	free(fs);
	return 0;
}

int
rig_amd_pci_buses(const struct rig_pci_machine *m,
		  struct rig_pci_address **out, size_t *n)
{
	struct pci_function *fs;
	struct rig_pci_address *as = NULL;
	size_t count;
	int ret;

	if (!out || !n)
		return amd_fail(-EINVAL, "out or n is NULL");
	ret = pci_amd_gpus(m, &fs, &count);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	if (count) {
		as = calloc(count, sizeof(*as));
		if (!as) {
			free(fs);
			return amd_fail(-ENOMEM, "no memory for %zu addresses", count);
		}
		for (size_t i = 0; i < count; i++)
			snprintf(as[i].text, sizeof(as[i].text), "%s", fs[i].bus);
	}
	free(fs);
	*out = as;
	*n = count;
	return 0;
}

int
rig_amd_pci_count(const struct rig_pci_machine *m)
{
	struct pci_function *fs;
	size_t count;
	int ret;

	ret = pci_amd_gpus(m, &fs, &count);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	free(fs);
	return (int)count;
}
