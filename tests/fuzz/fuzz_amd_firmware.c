/* SPDX-License-Identifier: MIT */
/*
 * fuzz_amd_firmware: libFuzzer target for the firmware header parser
 * (src/amd/firmware/format.c). The first byte picks the format; the rest
 * is the file. A parse that succeeds must list pieces inside the file.
 */
#include <stdint.h>
#include <stdlib.h>

#include "amd/firmware/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct amd_fw fw;

	if (size < 1)
		return 0;
	if (amd_fw_parse("fuzz.bin", (enum amd_fw_kind)(data[0] % 8), data + 1,
			 size - 1, &fw) == 0)
		for (size_t k = 0; k < fw.npieces; k++)
			if (fw.pieces[k].offset + fw.pieces[k].bytes > size - 1)
				abort();
	return 0;
}
