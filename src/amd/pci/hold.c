/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/hold.c: who holds a GPU. This process records the GPUs it holds
 * (Rig_pci.Driver.hold: from open until the device stops); another process
 * holds one when it has the function's config or resource files, its
 * /dev/vfio group or its DRM nodes open or mapped, as /proc shows; amdgpu
 * holds one while bound, and has not let go while KFD's topology lists it
 * or its ip_discovery directory stays (docs/amd.md, Moving GPUs). KFD also keeps
 * the DRM files of processes that have exited for a while; debugfs's
 * dri/<minor>/clients lists them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

#define HELD_MAX 64

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static char held[HELD_MAX][32];

int
pci_hold_mark(const char *bus)
{
	int free_slot = -1, ret = 0;

	pthread_mutex_lock(&held_lock);
	for (int i = 0; i < HELD_MAX; i++) {
		if (!strcmp(held[i], bus))
			ret = -EBUSY;
		if (!held[i][0] && free_slot < 0)
			free_slot = i;
	}
	if (ret == 0 && free_slot >= 0)
		snprintf(held[free_slot], sizeof(held[0]), "%s", bus);
	pthread_mutex_unlock(&held_lock);
	if (ret < 0)
		return amd_fail(ret, "this process holds %s", bus);
	if (free_slot < 0)
		return amd_fail(-EBUSY, "this process holds %d GPUs already", HELD_MAX);
	return 0;
}

void
pci_hold_clear(const char *bus)
{
	pthread_mutex_lock(&held_lock);
	for (int i = 0; i < HELD_MAX; i++)
		if (!strcmp(held[i], bus))
			held[i][0] = '\0';
	pthread_mutex_unlock(&held_lock);
}

bool
pci_held_here(const char *bus)
{
	bool yes = false;

	pthread_mutex_lock(&held_lock);
	for (int i = 0; i < HELD_MAX; i++)
		yes |= !strcmp(held[i], bus);
	pthread_mutex_unlock(&held_lock);
	return yes;
}

/* The basename of the symlink root/rel, or "" when there is none. */
static int
link_name(const struct rig_pci_machine *m, const char *rel, char *buf,
	  size_t len)
{
	char path[512], target[512];
	ssize_t n;
	const char *slash;
	int ret;

	ret = pci_path(m, path, sizeof(path), rel);
	if (ret < 0)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		buf[0] = '\0';
		return errno == ENOENT ? 0 :
			amd_fail(-errno, "cannot read link %s: %s", path,
				 strerror(errno));
	}
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if ((size_t)snprintf(buf, len, "%s", slash) >= len) {
		buf[0] = '\0';
		return amd_fail(-ENAMETOOLONG, "%s points at %s, a name "
				"longer than %zu bytes", path, slash, len - 1);
	}
	return 0;
}

int
pci_driver_of(const struct rig_pci_machine *m, const char *bus, char *buf,
	      size_t len)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", bus);
	return link_name(m, rel, buf, len);
}

/* The paths of a function that mean "held" when a process has them. */
struct held_paths {
	char bus_dir[48];	/* "/<bus>/": its sysfs files end so */
	char vfio[64];		/* "/dev/vfio/<group>" */
	char drm[8][64];	/* "/dev/dri/<node>" */
	int ndrm;
};

static void
held_paths_of(const struct rig_pci_machine *m, const char *bus,
	      struct held_paths *h)
{
	char rel[128], path[512], group[32];
	struct dirent *e;
	DIR *d;

	memset(h, 0, sizeof(*h));
	snprintf(h->bus_dir, sizeof(h->bus_dir), "/%s/", bus);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/iommu_group", bus);
	if (link_name(m, rel, group, sizeof(group)) == 0 && group[0])
		snprintf(h->vfio, sizeof(h->vfio), "/dev/vfio/%s", group);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/drm", bus);
	if (pci_path(m, path, sizeof(path), rel) < 0 || !(d = opendir(path)))
		return;
	while ((e = readdir(d)) && h->ndrm < 8)
		if (e->d_name[0] != '.')
			snprintf(h->drm[h->ndrm++], sizeof(h->drm[0]),
				 "/dev/dri/%.50s", e->d_name);
	closedir(d);
}

static bool
is_held_path(const struct held_paths *h, const char *target)
{
	const char *at = strstr(target, h->bus_dir);

	if (at) {
		at += strlen(h->bus_dir);
		if (!strcmp(at, "config") || !strncmp(at, "resource", 8))
			return true;
	}
	if (h->vfio[0] && !strcmp(target, h->vfio))
		return true;
	for (int i = 0; i < h->ndrm; i++)
		if (!strcmp(target, h->drm[i]))
			return true;
	return false;
}

/* A process's open files (fd/) and mappings (maps) that hold the function. */
static bool
process_holds(const char *proc, const struct held_paths *h, char *what,
	      size_t len)
{
	char path[1200], target[512], line[1024];
	struct dirent *e;
	bool found = false;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/fd", proc);
	if ((d = opendir(path))) {
		while (!found && (e = readdir(d))) {
			ssize_t n;

			snprintf(path, sizeof(path), "%s/fd/%.20s", proc, e->d_name);
			n = readlink(path, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if ((found = is_held_path(h, target)))
				snprintf(what, len, "has %s open", target);
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "%s/maps", proc);
	if (!found && (f = fopen(path, "re"))) {
		while (!found && fgets(line, sizeof(line), f)) {
			char *file = strchr(line, '/');

			if (!file)
				continue;
			file[strcspn(file, "\n")] = '\0';
			if ((found = is_held_path(h, file)))
				snprintf(what, len, "has %s mapped", file);
		}
		fclose(f);
	}
	return found;
}

int
pci_holder(const struct rig_pci_machine *m, const char *bus, char *what,
	   size_t len)
{
	char procdir[512], proc[560];
	struct held_paths h;
	struct dirent *e;
	int pid = 0, ret;
	DIR *d;

	held_paths_of(m, bus, &h);
	ret = pci_path(m, procdir, sizeof(procdir), "proc");
	if (ret < 0)
		return ret;
	if (!(d = opendir(procdir)))
		return 0;	/* no /proc: nothing is known to hold it */
	while (!pid && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(proc, sizeof(proc), "%s/%.40s", procdir, e->d_name);
		if (process_holds(proc, &h, what, len))
			pid = atoi(e->d_name);
	}
	closedir(d);
	return pid;
}

/* Whether KFD's topology lists bus: a node whose domain and location_id
 * (bus << 8 | devfn) are the function's. */
static int
kfd_lists(const struct rig_pci_machine *m, const char *bus, int *node)
{
	char dir[512], rel[160], text[4096];
	unsigned dom, b, dev, fn;
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (sscanf(bus, "%x:%x:%x.%u", &dom, &b, &dev, &fn) != 4)
		return 0;
	if (pci_path(m, dir, sizeof(dir), "sys/class/kfd/kfd/topology/nodes") < 0 ||
	    !(d = opendir(dir)))
		return 0;
	while (!found && (e = readdir(d))) {
		char *p;
		long loc = -1, domain = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel),
			 "sys/class/kfd/kfd/topology/nodes/%.20s/properties",
			 e->d_name);
		if (m->ops->file_read(m, rel, text, sizeof(text)) < 0)
			continue;
		if ((p = strstr(text, "location_id ")))
			loc = strtol(p + 12, NULL, 10);
		if ((p = strstr(text, "\ndomain ")))
			domain = strtol(p + 8, NULL, 10);
		if (loc == (long)(b << 8 | dev << 3 | fn) && domain == (long)dom) {
			found = 1;
			*node = atoi(e->d_name);
		}
	}
	closedir(d);
	return found;
}

int
pci_amdgpu_has(const struct rig_pci_machine *m, const char *bus, char *why,
	       size_t len)
{
	char driver[64];
	int ret;

	ret = pci_driver_of(m, bus, driver, sizeof(driver));
	if (ret < 0)
		return ret;
	if (!strcmp(driver, "amdgpu")) {
		snprintf(why, len, "amdgpu is bound to it");
		return 1;
	}
	return pci_amdgpu_lingers(m, bus, why, len);
}

int
pci_amdgpu_lingers(const struct rig_pci_machine *m, const char *bus, char *why,
		   size_t len)
{
	char rel[128], path[512];
	int node = -1;

	if (kfd_lists(m, bus, &node)) {
		snprintf(why, len, "amdgpu has not let go of it: KFD's topology "
			 "still lists it (node %d)", node);
		return 1;
	}
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/ip_discovery", bus);
	if (pci_path(m, path, sizeof(path), rel) == 0 && access(path, F_OK) == 0) {
		snprintf(why, len, "amdgpu has not let go of it: its ip_discovery "
			 "directory stays");
		return 1;
	}
	return 0;
}

/*
 * The DRM files of the GPU's nodes that processes which have exited still
 * hold: rows of debugfs's dri/<minor>/clients ("command tgid dev master a
 * uid magic") whose tgid has no /proc entry. Returns their number, listing
 * "<tgid> (<node>)" in why; 0 when debugfs is not mounted.
 */
int
pci_dead_drm_files(const struct rig_pci_machine *m, const char *bus, char *why,
		   size_t len)
{
	char rel[160], path[512], line[256];
	struct dirent *e;
	size_t at = 0;
	int dead = 0;
	DIR *d;

	why[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/drm", bus);
	if (pci_path(m, path, sizeof(path), rel) < 0 || !(d = opendir(path)))
		return 0;
	while ((e = readdir(d))) {
		const char *digits = strpbrk(e->d_name, "0123456789");
		FILE *f;

		if (e->d_name[0] == '.' || !digits)
			continue;
		snprintf(rel, sizeof(rel), "sys/kernel/debug/dri/%d/clients",
			 atoi(digits));
		if (pci_path(m, path, sizeof(path), rel) < 0 ||
		    !(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f)) {
			char command[64], proc[600];
			int tgid;

			if (sscanf(line, "%63s %d", command, &tgid) != 2)
				continue;	/* the heading */
			snprintf(rel, sizeof(rel), "proc/%d", tgid);
			if (pci_path(m, proc, sizeof(proc), rel) < 0 ||
			    access(proc, F_OK) == 0)
				continue;
			dead++;
			if (at < len)
				at += (size_t)snprintf(why + at, len - at, "%s%d (%.20s)",
						       at ? ", " : "", tgid, e->d_name);
		}
		fclose(f);
	}
	closedir(d);
	return dead;
}
