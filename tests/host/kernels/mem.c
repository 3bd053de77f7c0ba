/* SPDX-License-Identifier: MIT */
/* mem: the memory functions a freestanding compile calls, per group. */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *, const void *, size_t);
void *memset(void *, int, size_t);
void *memmove(void *, const void *, size_t);

struct mem_params {
	unsigned char *dst;
	const unsigned char *src;
	int64_t bytes;		/* per group */
};

/* Group g copies its bytes of src to dst. */
void
mem_copy(const void *params, int64_t first, int64_t end)
{
	const struct mem_params *p = params;

	for (; first < end; first++)
		memcpy(p->dst + first * p->bytes, p->src + first * p->bytes, (size_t)p->bytes);
}

/* Group g sets its bytes of dst to g. */
void
mem_set(const void *params, int64_t first, int64_t end)
{
	const struct mem_params *p = params;

	for (; first < end; first++)
		memset(p->dst + first * p->bytes, (int)(first & 0xff), (size_t)p->bytes);
}

/* Group g moves its bytes of dst one byte up, overlapping. */
void
mem_move(const void *params, int64_t first, int64_t end)
{
	const struct mem_params *p = params;

	for (; first < end; first++)
		memmove(p->dst + first * p->bytes + 1, p->dst + first * p->bytes, (size_t)p->bytes - 1);
}

/* A structure copy, which the compiler turns into a call of memcpy. */
struct big {
	unsigned char b[4096];
};

void
mem_struct(const void *params, int64_t first, int64_t end)
{
	const struct mem_params *p = params;

	for (; first < end; first++)
		((struct big *)p->dst)[first] = ((const struct big *)p->src)[first];
}
