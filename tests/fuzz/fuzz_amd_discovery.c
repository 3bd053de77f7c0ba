/* SPDX-License-Identifier: MIT */
/*
 * fuzz_amd_discovery: libFuzzer target for the discovery table parser
 * (src/amd/discovery/parse.c). A table that parses must hold at most the
 * blocks its entries can describe, each with at most 16 bases.
 */
#include <stdint.h>
#include <stdlib.h>

#include "amd/discovery/discovery.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct amd_discovery t;

	if (amd_discovery_parse(data, size, &t) == 0) {
		if (t.nblocks > AMD_BLOCKS || t.nblocks * 8 > size)
			abort();
		for (size_t k = 0; k < t.nblocks; k++)
			if (t.blocks[k].nbases > AMD_BLOCK_BASES)
				abort();
		(void)amd_discovery_block(&t, GC_HWID);
	}
	return 0;
}
