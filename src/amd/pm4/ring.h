/* SPDX-License-Identifier: MIT */
/*
 * amd/pm4/ring.h: a ring of dwords that one engine reads, as both
 * encoders write it. wptr counts dwords written since the ring was made
 * (never wraps: 2^64 dwords), so its slot is wptr & (dwords - 1); a
 * packet is written whole between the slot and the ring's end, never
 * across it: amd_ring_reserve() fills what is left before the end with
 * the engine's NOPs when the packet does not fit there. How full the ring
 * is (wptr against the engine's rptr) is the queue's business, not this
 * file's. One writer at a time; nothing here is atomic.
 */
#ifndef AMD_PM4_RING_H
#define AMD_PM4_RING_H

#include <stdint.h>

struct amd_ring {
	uint32_t *base;
	uint32_t dwords;	/* a power of two */
	uint64_t wptr;		/* dwords written */
};

/* Fills n dwords at p with one engine's NOPs; returns p + n. */
typedef uint32_t *(*amd_nop_fn)(uint32_t *p, uint32_t n);

/* Dwords from the write slot to the ring's end. */
static inline uint32_t
amd_ring_to_end(const struct amd_ring *r)
{
	return r->dwords - (uint32_t)(r->wptr & (r->dwords - 1));
}

/*
 * amd_ring_reserve() - where a packet of need dwords (1 to r->dwords) is
 * written whole: the write slot, after NOPs to the ring's end (counted in
 * wptr) when fewer than need dwords are left before it. The caller writes
 * the packet there and calls amd_ring_advance() with its end.
 */
static inline uint32_t *
amd_ring_reserve(struct amd_ring *r, uint32_t need, amd_nop_fn nop)
{
	uint32_t left = amd_ring_to_end(r);

	if (need > left) {
		nop(r->base + (r->wptr & (r->dwords - 1)), left);
		r->wptr += left;
	}
	return r->base + (r->wptr & (r->dwords - 1));
}

/* Counts the dwords written from the last reserve's slot up to end. */
static inline void
amd_ring_advance(struct amd_ring *r, const uint32_t *end)
{
	r->wptr += (uint64_t)(end - (r->base + (r->wptr & (r->dwords - 1))));
}

#endif
