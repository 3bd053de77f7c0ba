/* SPDX-License-Identifier: MIT */
/*
 * serve.c: the work of one request in bench/server.c, a host kernel: every
 * 4-byte word of the request, xored with the request's key and rotated,
 * plus its index, into the result. Group g does words [g * 1024, g * 1024 +
 * 1024) below words; a call does the whole groups [first, end).
 *
 * The pthreads server links this same object and calls serve() itself, so
 * both servers run the same machine code and the figures differ only by
 * how the work reaches a core and the disk.
 */
#include <stdint.h>

#define WORDS_PER_GROUP 1024

struct serve_params {
	const uint32_t *in;	/* rig places the buffers' addresses here */
	uint32_t *out;
	uint32_t key;
	uint32_t pad;
	int64_t words;
};

void
serve(const void *params, int64_t first, int64_t end)
{
	const struct serve_params *p = params;
	int64_t stop = end * WORDS_PER_GROUP < p->words ? end * WORDS_PER_GROUP : p->words;

	for (int64_t i = first * WORDS_PER_GROUP; i < stop; i++) {
		uint32_t x = p->in[i] ^ p->key;

		p->out[i] = ((x << 7) | (x >> 25)) + (uint32_t)i;
	}
}
