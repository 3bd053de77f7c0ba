/*
 * fuzz_corpus: writes the seed corpora of the AMD fuzz targets into two
 * folders: every pinned image of the real release (one byte of format,
 * then the file, and its first 4 KiB as a file of its own) and a discovery table of each supported GC built by
 * synth.c. Usage: fuzz_corpus FIRMWARE_DIR|'' FW_CORPUS DISCOVERY_CORPUS
 */
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
		/* Its first 4 KiB, size_bytes made the small file's size: the
		 * headers at a size the fuzzer mutates quickly. */
		if (f.len > 4096) {
			char small[300];
			uint32_t len = 4096;

			memcpy(f.bytes, &len, 4);
			snprintf(small, sizeof(small), "head-%s", pins[k].name);
			bad |= put(argv[2], small, (uint8_t)amd_fw_kind_of(pins[k].name),
				   f.bytes, len, 1);
		}
		free(f.bytes);
	}
	return bad;
}
