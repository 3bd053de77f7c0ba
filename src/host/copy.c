/* SPDX-License-Identifier: MIT */
/*
 * host/copy.c: the copy engine: rows of bytes between host memory, or a
 * byte written over rows, with each side's pitch. A copy of HOST_COPY_SPLIT
 * bytes or more is cut into pieces of rows and bytes that the pool's
 * threads run at once, for the memory bandwidth of several cores.
 */
#include <string.h>

#include "host/dev.h"

#define HOST_COPY_SPLIT	(1u << 20)	/* bytes below which one thread copies */
#define HOST_COPY_PIECE	(256u << 10)	/* bytes of one piece of a row */

/* Piece i of the copy: row i / pieces, bytes (i % pieces) * PIECE on. */
struct pieces {
	const struct host_copy *c;
	uint64_t per_row;
};

static void
copy_range(const struct host_copy *c, uint64_t row, uint64_t at, uint64_t bytes)
{
	unsigned char *dst = c->dst + row * c->dst_pitch + at;

	if (c->fill >= 0)
		memset(dst, c->fill, bytes);
	else
		memcpy(dst, c->src + row * c->src_pitch + at, bytes);
}

static void
copy_pieces(const void *params, int64_t first, int64_t end)
{
	const struct pieces *p = params;
	int64_t i;

	for (i = first; i < end; i++) {
		uint64_t row = (uint64_t)i / p->per_row;
		uint64_t at = ((uint64_t)i % p->per_row) * HOST_COPY_PIECE;
		uint64_t left = p->c->bytes - at;

		copy_range(p->c, row, at, left < HOST_COPY_PIECE ? left : HOST_COPY_PIECE);
	}
}

void
host_copy_run(struct host_pool *pool, const struct host_copy *c)
{
	struct pieces p = { .c = c };
	uint64_t r, n;
	int64_t chunk;

	if (!c->bytes || !c->rows)
		return;
	if (c->bytes * c->rows < HOST_COPY_SPLIT || host_pool_runners(pool) == 1) {
		for (r = 0; r < c->rows; r++)
			copy_range(c, r, 0, c->bytes);
		return;
	}
	p.per_row = (c->bytes + HOST_COPY_PIECE - 1) / HOST_COPY_PIECE;
	n = p.per_row * c->rows;
	chunk = (int64_t)(n / (host_pool_runners(pool) * 2));
	host_pool_run_sc(pool, copy_pieces, &p, (int64_t)n, chunk ? chunk : 1);
}
