/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/fake.c: builds fake machines (see fake.h). BAR files are sparse
 * files of the BAR's size, so a test machine with 512 MiB of "memory" costs
 * a few pages of disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake.h"

#define DIE(...) do { fprintf(stderr, __VA_ARGS__); abort(); } while (0)

void
fake_root(char *root)
{
	/* Under the temporary directory, not the test's own: a test that fails
	 * before fake_remove() leaves nothing in the source or build tree. */
	const char *tmp = getenv("TMPDIR");
	char tmpl[1024];

	snprintf(tmpl, sizeof(tmpl), "%s/amd-fake-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl))
		DIE("mkdtemp: %s\n", strerror(errno));
	if (!realpath(tmpl, root))
		DIE("realpath: %s\n", strerror(errno));
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

void
fake_remove(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
make_parents(const char *path)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				DIE("mkdir %s: %s\n", p, strerror(errno));
			*s = '/';
		}
}

void
fake_mkdir(const char *root, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s/", root, rel);
	make_parents(p);
}

void
fake_write(const char *root, const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	make_parents(p);
	if (!(f = fopen(p, "w")) || fputs(text, f) < 0 || fclose(f))
		DIE("write %s: %s\n", p, strerror(errno));
}

const char *
fake_read(const char *root, const char *rel)
{
	static char buf[4096];
	char p[1024];
	size_t n;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (!(f = fopen(p, "r")))
		return "(absent)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

void
fake_link(const char *root, const char *rel, const char *target)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	make_parents(p);
	unlink(p);
	if (symlink(target, p) < 0)
		DIE("symlink %s: %s\n", p, strerror(errno));
}

/* A sparse file of bytes, with data written at offsets. */
static void
sparse(const char *root, const char *rel, uint64_t bytes)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	make_parents(p);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) < 0)
		DIE("sparse %s: %s\n", p, strerror(errno));
	close(fd);
}

static void
poke(const char *root, const char *rel, uint64_t at, const void *data, size_t n)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_RDWR);
	if (fd < 0 || pwrite(fd, data, n, (off_t)at) != (ssize_t)n)
		DIE("poke %s: %s\n", p, strerror(errno));
	close(fd);
}

static void
ids(const char *root, const char *dir, uint16_t vendor, uint16_t device,
    uint32_t class_code)
{
	char rel[256], text[32];
	uint8_t config[256] = { 0 };

	snprintf(rel, sizeof(rel), "%s/vendor", dir);
	snprintf(text, sizeof(text), "0x%04x\n", vendor);
	fake_write(root, rel, text);
	snprintf(rel, sizeof(rel), "%s/device", dir);
	snprintf(text, sizeof(text), "0x%04x\n", device);
	fake_write(root, rel, text);
	snprintf(rel, sizeof(rel), "%s/class", dir);
	snprintf(text, sizeof(text), "0x%06x\n", class_code);
	fake_write(root, rel, text);
	memcpy(config, &vendor, 2);
	memcpy(config + 2, &device, 2);
	snprintf(rel, sizeof(rel), "%s/config", dir);
	sparse(root, rel, sizeof(config));
	poke(root, rel, 0, config, sizeof(config));
	snprintf(rel, sizeof(rel), "%s/enable", dir);
	fake_write(root, rel, "0\n");
}

void
fake_function(const char *root, const char *bus, uint16_t vendor,
	      uint16_t device, uint32_t class_code)
{
	char dir[128], rel[160];

	snprintf(dir, sizeof(dir), "sys/bus/pci/devices/%s", bus);
	ids(root, dir, vendor, device, class_code);
	snprintf(rel, sizeof(rel), "%s/resource", dir);
	fake_write(root, rel, "0x00000000f0000000 0x00000000f0003fff 0x0000000000040200\n"
		   "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
}

void
fake_gpu(const char *root, const struct fake_gpu *g)
{
	uint64_t bar0 = g->bar0 ? g->bar0 : 512ull << 20;
	uint64_t vram = g->memsize_mib ? (uint64_t)g->memsize_mib << 20 : bar0;
	uint32_t mib = (uint32_t)(vram >> 20);
	uint64_t bar5 = g->bar5 ? g->bar5 : 512 << 10;
	char dir[128], rel[192], text[1024];

	snprintf(dir, sizeof(dir), "sys/bus/pci/devices/%s", g->bus);
	ids(root, dir, 0x1002, g->device ? g->device : 0x744c,
	    g->class_code ? g->class_code : 0x030000);
	/* BAR0 VRAM 64-bit prefetchable, BAR2 doorbells 2 MiB, BAR5 MMIO 512 KiB */
	snprintf(text, sizeof(text),
		 "0x%016llx 0x%016llx 0x%016llx\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x000000fc00000000 0x000000fc001fffff 0x000000000014220c\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x00000000fcc00000 0x%016llx 0x0000000000040200\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
		 0x7000000000ull, 0x7000000000ull + bar0 - 1, 0x14220cull,
		 0xfcc00000ull + bar5 - 1);
	snprintf(rel, sizeof(rel), "%s/resource", dir);
	fake_write(root, rel, text);
	snprintf(rel, sizeof(rel), "%s/resource0", dir);
	sparse(root, rel, bar0);
	if (!g->no_bar2) {
		snprintf(rel, sizeof(rel), "%s/resource2", dir);
		sparse(root, rel, 2 << 20);
	}
	snprintf(rel, sizeof(rel), "%s/resource5", dir);
	sparse(root, rel, 512 << 10);			/* the file: always whole */
	poke(root, rel, 0xde3 * 4, &mib, 4);		/* RCC_CONFIG_MEMSIZE */
	poke(root, rel, (0x16000 + 0x91) * 4, &g->c2pmsg_81, 4);
	if (g->table && g->table_at) {
		uint32_t s[3] = { (uint32_t)g->table_at, (uint32_t)(g->table_at >> 32),
				  10 << 10 };

		poke(root, rel, 0x94 * 4, s, sizeof(s));	/* DRIVER_SCRATCH_0..2 */
		snprintf(rel, sizeof(rel), "%s/resource0", dir);
		poke(root, rel, g->table_at, g->table, g->table_len);
	} else if (g->table && vram - (64 << 10) + g->table_len <= bar0) {
		snprintf(rel, sizeof(rel), "%s/resource0", dir);
		poke(root, rel, vram - (64 << 10), g->table, g->table_len);
	}
	snprintf(rel, sizeof(rel), "%s/driver_override", dir);
	fake_write(root, rel, "(null)\n");
	snprintf(rel, sizeof(rel), "%s/reset", dir);
	fake_write(root, rel, "");
	fake_write(root, "sys/bus/pci/drivers/amdgpu/bind", "");
	fake_write(root, "sys/bus/pci/drivers/amdgpu/unbind", "");
	if (g->driver) {
		snprintf(rel, sizeof(rel), "%s/driver", dir);
		snprintf(text, sizeof(text), "../../drivers/%s", g->driver);
		fake_link(root, rel, text);
	}
	if (g->iommu_group) {
		snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%d/type",
			 g->iommu_group);
		fake_write(root, rel, "DMA\n");
		snprintf(rel, sizeof(rel), "%s/iommu_group", dir);
		snprintf(text, sizeof(text), "../../../../kernel/iommu_groups/%d",
			 g->iommu_group);
		fake_link(root, rel, text);
	}
	if (g->resize) {
		snprintf(rel, sizeof(rel), "%s/resource0_resize", dir);
		fake_write(root, rel, g->resize);
	}
}

void
fake_holder(const char *root, int pid, const char *target)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/fd/3", pid);
	fake_link(root, rel, target);
	snprintf(rel, sizeof(rel), "proc/%d/maps", pid);
	fake_write(root, rel, "");
}

void
fake_kfd(const char *root, int n, const char *bus)
{
	unsigned dom, b, dev, fn;
	char rel[96], text[256];

	if (sscanf(bus, "%x:%x:%x.%u", &dom, &b, &dev, &fn) != 4)
		DIE("fake_kfd: bad bus %s\n", bus);
	snprintf(rel, sizeof(rel), "sys/class/kfd/kfd/topology/nodes/%d/properties", n);
	snprintf(text, sizeof(text), "cpu_cores_count 0\nsimd_count 192\n"
		 "location_id %u\ndomain %u\n", b << 8 | dev << 3 | fn, dom);
	fake_write(root, rel, text);
}

void
fake_reg(const char *root, const char *bus, uint32_t index, uint32_t value)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource5", bus);
	poke(root, rel, (uint64_t)index * 4, &value, 4);
}
