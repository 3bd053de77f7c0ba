/* SPDX-License-Identifier: MIT */
/*
 * fuzz_remote_wire: libFuzzer target for the agent's message decoder
 * (src/remote/wire.c). A message that decodes must encode again to the
 * same bytes (the decoder keeps nothing it does not check), and every
 * string and blob it returns lies inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
inside(const uint8_t *data, size_t size, struct remote_bytes b)
{
	if (b.len && (b.at < data || b.at + b.len > data + size))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct remote_msg m;
	uint8_t *again;
	size_t len;
	char why[160];

	if (remote_decode(data, size, &m, why, sizeof(why)) < 0)
		return 0;
	switch (m.type) {
	case REMOTE_OPEN: inside(data, size, m.u.name); break;
	case REMOTE_ERROR: inside(data, size, m.u.error); break;
	case REMOTE_LOAD: inside(data, size, m.u.load.image); break;
	case REMOTE_PIN: inside(data, size, m.u.pin.rkey); break;
	case REMOTE_BULK: inside(data, size, m.u.address); break;
	case REMOTE_SUBMIT:
		for (uint32_t i = 0; i < m.u.submit.nparts; i++)
			inside(data, size, m.u.submit.parts[i].params);
		break;
	default: break;
	}
	if (remote_encode(&m, &again, &len, why, sizeof(why)) < 0)
		abort();
	/* The header's flags are not kept: compare past them. */
	if (len != size || memcmp(again, data, 6) || memcmp(again + 8, data + 8, len - 8))
		abort();
	free(again);
	return 0;
}
