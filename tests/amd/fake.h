/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/fake.h: fake machines built at run time under the build folder:
 * a root holding sys/ (the files libpci and rig read, values with 0x),
 * proc/ (processes that hold files) and lib/firmware. Plain files stand for
 * sysfs attributes, so every write rig makes stays there for a test to
 * read. A helper that fails aborts the test program.
 */
#ifndef TESTS_AMD_FAKE_H
#define TESTS_AMD_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fake_gpu {
	const char *bus;		/* "0000:03:00.0" */
	uint16_t device;		/* 0 → 0x744c */
	uint32_t class_code;		/* 0 → 0x030000 */
	const char *driver;		/* NULL: none */
	uint64_t bar0;			/* 0 → 512 MiB */
	uint32_t memsize_mib;		/* 0 → bar0 in MiB */
	const uint8_t *table;		/* written 64 KiB below the top of memory */
	size_t table_len;
	uint32_t c2pmsg_81;		/* at MP0's base 0x16000 + 0x91 */
	int iommu_group;		/* 0: none */
	const char *resize;		/* resource0_resize text, NULL: none */
	bool no_bar2;			/* resource2 missing: windows fail */
	uint64_t table_at;		/* non-zero: placed here, said in DRIVER_SCRATCH_0..2 */
	uint64_t bar5;			/* 0 → 512 KiB */
};

/* Writes a 32-bit register (dword index) of a GPU's MMIO BAR. */
void fake_reg(const char *root, const char *bus, uint32_t index, uint32_t value);

/* A new root under the current directory (absolute path into root[256]). */
void fake_root(char *root);
/* rm -rf root. */
void fake_remove(const char *root);

/* A PCI function that is no GPU (a bridge, the GPU's audio function). */
void fake_function(const char *root, const char *bus, uint16_t vendor,
		   uint16_t device, uint32_t class_code);
void fake_gpu(const char *root, const struct fake_gpu *g);

/* Files: write text (creating directories), read back (static buffer). */
void fake_write(const char *root, const char *rel, const char *text);
const char *fake_read(const char *root, const char *rel);
void fake_mkdir(const char *root, const char *rel);
void fake_link(const char *root, const char *rel, const char *target);

/* Process pid holds target through fd 3 (a symlink in proc/pid/fd). */
void fake_holder(const char *root, int pid, const char *target);
/* KFD's topology lists bus as node n. */
void fake_kfd(const char *root, int n, const char *bus);

#endif
