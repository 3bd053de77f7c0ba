/* SPDX-License-Identifier: MIT */
/*
 * fuzz_corpus: writes the seed corpora of the AMD fuzz targets into two
 * folders: every pinned image of the real release (one byte of format,
 * then the file, whole), a small image of every header version, short
 * images of 32 to 63 bytes with a consistent common header, and a discovery
 * table of each supported GC built by
 * synth.c. Usage: fuzz_corpus FIRMWARE_DIR|'' FW_CORPUS DISCOVERY_CORPUS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "amd/firmware/firmware.h"
#include "synth.h"

static int
put(const char *dir, const char *name, uint8_t head, const uint8_t *b, size_t n,
    int with_head)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")))
		return perror(path), 1;
	if (with_head)
		fputc(head, f);
	fwrite(b, 1, n, f);
	return fclose(f) ? 1 : 0;
}

/*
 * Small images of every header version the parser reads, laid out right:
 * 1 KiB, a 0x100-byte header area and 0x300 bytes of "ucode", so the
 * fuzzer reaches every format's checks at a size it mutates quickly.
 */
static uint8_t small[1024];

static void
at32(size_t at, uint32_t v)
{
	memcpy(small + at, &v, 4);
}

static void
head(uint16_t major, uint16_t minor, uint32_t header_size)
{
	memset(small, 0, sizeof(small));
	at32(0x00, sizeof(small));		/* size_bytes */
	at32(0x04, header_size);
	at32(0x08, (uint32_t)minor << 16 | major);
	at32(0x14, 0x300);			/* ucode_size_bytes */
	at32(0x18, 0x100);			/* ucode_array_offset_bytes */
}

static int
put_small(const char *dir, const char *name, enum amd_fw_kind kind)
{
	return put(dir, name, (uint8_t)kind, small, sizeof(small), 1);
}

static int
smalls(const char *dir)
{
	int bad = 0;

	head(2, 0, 0x24);			/* PSP v2.0: SYS_DRV, SOS */
	at32(0x20, 2);
	at32(0x24, 2); at32(0x2c, 0); at32(0x30, 0x100);
	at32(0x34, 1); at32(0x3c, 0x100); at32(0x40, 0x100);
	bad |= put_small(dir, "small-psp-2.0", AMD_FW_PSP_SOS);
	head(2, 1, 0x28);			/* PSP v2.1: aux set from bin 2 */
	at32(0x20, 3); at32(0x24, 2);
	at32(0x28, 2); at32(0x30, 0); at32(0x34, 0x100);
	at32(0x38, 1); at32(0x40, 0x100); at32(0x44, 0x100);
	at32(0x48, 2); at32(0x50, 0x200); at32(0x54, 0x100);
	bad |= put_small(dir, "small-psp-2.1", AMD_FW_PSP_SOS);
	head(1, 0, 0x24);
	bad |= put_small(dir, "small-smc-1.0", AMD_FW_SMC);
	head(2, 0, 0x2c);
	at32(0x24, 0x300); at32(0x28, 0x100);
	bad |= put_small(dir, "small-smc-2.0", AMD_FW_SMC);
	head(2, 1, 0x2c);			/* two soft pptables */
	at32(0x24, 2); at32(0x28, 0x100);
	at32(0x100, 0x50325358); at32(0x104, 0x200); at32(0x108, 0x80);
	at32(0x10c, 0xe50); at32(0x110, 0x280); at32(0x114, 0x80);
	bad |= put_small(dir, "small-smc-2.1", AMD_FW_SMC);
	head(1, 0, 0x30);
	at32(0x28, 0x10); at32(0x2c, 0x10);
	bad |= put_small(dir, "small-sdma-1.0", AMD_FW_SDMA);
	head(2, 0, 0x40);
	at32(0x24, 0x100); at32(0x28, 0x10); at32(0x2c, 0x10);
	at32(0x30, 0x200); at32(0x34, 0x100);
	bad |= put_small(dir, "small-sdma-2.0", AMD_FW_SDMA);
	head(3, 0, 0x2c);
	at32(0x24, 0x100); at32(0x28, 0x300);
	bad |= put_small(dir, "small-sdma-3.0", AMD_FW_SDMA);
	head(1, 0, 0x2c);
	at32(0x24, 0x20); at32(0x28, 0x20);
	bad |= put_small(dir, "small-gfx-1.0", AMD_FW_GFX);
	head(2, 0, 0x3c);
	at32(0x24, 0x100); at32(0x28, 0x100); at32(0x2c, 0x200);
	at32(0x30, 0x200); at32(0x34, 0x3000); at32(0x38, 0x70000);
	bad |= put_small(dir, "small-gfx-2.0", AMD_FW_GFX);
	for (uint16_t minor = 0; minor <= 4; minor++) {
		static const uint32_t sizes[] = { 0x68, 0x9c, 0xac, 0xcc, 0xf4 };
		char name[32];

		head(2, minor, sizes[minor]);
		at32(0x48, 0x40); at32(0x4c, 0x100);	/* register list format */
		if (minor >= 1) {
			at32(0x84, 0x40); at32(0x88, 0x140);	/* GPM list */
		}
		if (minor >= 2) {
			at32(0x9c, 0x80); at32(0xa0, 0x180);	/* IRAM */
		}
		if (minor >= 3) {
			at32(0xc4, 0x80); at32(0xc8, 0x200);	/* RLC_V */
		}
		if (minor >= 4) {
			at32(0xcc, 0x80); at32(0xd0, 0x280);	/* global taps */
		}
		snprintf(name, sizeof(name), "small-rlc-2.%u", minor);
		bad |= put_small(dir, name, AMD_FW_RLC);
	}
	head(1, 0, 0x30);
	at32(0x20, 0x100); at32(0x24, 0); at32(0x28, 0x100); at32(0x2c, 0x100);
	bad |= put_small(dir, "small-imu-1.0", AMD_FW_IMU);
	return bad;
}

/*
 * Short images: 32 to 63 bytes with a consistent common header (size_bytes
 * the file's size, the ucode window [32, len)) in every header version,
 * shorter than most versions' own header: the files whose version header
 * a parser must check fits before reading it.
 */
static int
shorts(const char *dir)
{
	static const struct { enum amd_fw_kind kind; uint16_t major, minor; } v[] = {
		{ AMD_FW_PSP_SOS, 2, 0 }, { AMD_FW_PSP_SOS, 2, 1 },
		{ AMD_FW_SMC, 1, 0 }, { AMD_FW_SMC, 2, 0 }, { AMD_FW_SMC, 2, 1 },
		{ AMD_FW_SDMA, 1, 0 }, { AMD_FW_SDMA, 1, 1 }, { AMD_FW_SDMA, 2, 0 },
		{ AMD_FW_SDMA, 3, 0 }, { AMD_FW_GFX, 1, 0 }, { AMD_FW_GFX, 2, 0 },
		{ AMD_FW_RLC, 2, 0 }, { AMD_FW_RLC, 2, 4 }, { AMD_FW_IMU, 1, 0 },
	};
	static const uint32_t lens[] = { 32, 35, 36, 40, 44, 48, 52, 60, 63 };
	int bad = 0;

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			char name[48];

			memset(small, 0x5a, sizeof(small));
			at32(0x00, lens[l]);
			at32(0x04, 32);
			at32(0x08, (uint32_t)v[k].minor << 16 | v[k].major);
			at32(0x14, lens[l] - 32);
			at32(0x18, 32);
			snprintf(name, sizeof(name), "short-%d-%u.%u-%u", (int)v[k].kind,
				 v[k].major, v[k].minor, lens[l]);
			bad |= put(dir, name, (uint8_t)v[k].kind, small, lens[l], 1);
		}
	return bad;
}

int
main(int argc, char **argv)
{
	static const char *const gcs[] = { "9.4.3", "9.5.0", "11.0.0", "11.0.2",
					   "12.0.0", "12.0.1" };
	struct amd_search s = { .ndirs = 1 };
	const struct amd_pin *pins;
	struct synth t;
	size_t n;
	int bad = 0;

	if (argc != 4)
		return fprintf(stderr, "usage: fuzz_corpus FWDIR FWCORPUS DISCCORPUS\n"), 2;
	mkdir(argv[2], 0755);
	mkdir(argv[3], 0755);
	for (size_t g = 0; g < 6; g++) {
		synth_build(&t, gcs[g], 0);
		bad |= put(argv[3], gcs[g], 0, t.b, t.len, 0);
	}
	bad |= smalls(argv[2]);
	bad |= shorts(argv[2]);
	if (!argv[1][0])
		return bad;
	snprintf(s.dirs[0], sizeof(s.dirs[0]), "%s", argv[1]);
	pins = amd_pins(&n);
	for (size_t k = 0; k < n; k++) {
		struct amd_found f;

		if (amd_fw_find(&s, &pins[k], &f) < 0) {
			fprintf(stderr, "fuzz_corpus: %s\n", pins[k].name);
			return 1;
		}
		bad |= put(argv[2], pins[k].name, (uint8_t)amd_fw_kind_of(pins[k].name),
			   f.bytes, f.len, 1);
		free(f.bytes);
	}
	return bad;
}
