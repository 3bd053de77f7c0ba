/* SPDX-License-Identifier: MIT */
/*
 * submit/stamp.h: the stamps of one allocation (docs/order.md, rule 3). For each
 * run of 4-byte words the allocation keeps the point of its last write and
 * the points of the reads since, at most one per timeline slot (a later
 * value of a device implies its earlier ones: device order).
 *
 * A point here is (slot, value) of rig_words: a slot's values keep counting
 * up across the devices that hold it, and a device's end raises its word
 * past every value it issued, so a stamp never needs its device to live.
 *
 * A claim is two steps under the allocation's lock: stamps_prepare() adds
 * to a waitset what the use must wait for (a read: the last write; a write:
 * the last write and every read since) and makes room, so that
 * stamps_record() of the use's point cannot fail once a value is drawn.
 * Not thread-safe: the caller holds the allocation's lock.
 */
#ifndef SUBMIT_STAMP_H
#define SUBMIT_STAMP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct stamp {
	uint32_t slot;
	uint64_t value;			/* 0: none */
};

struct seg {
	uint64_t lo, hi;		/* words [lo, hi) */
	struct stamp write;
	uint32_t nreads, cap;
	struct stamp *reads;
};

struct stamps {
	struct seg *seg;
	size_t n, cap;
};

/*
 * The points a submit waits for: at most one per slot, the highest, and
 * none of the claiming device's own slot (own; -1 for the host), which
 * device order already gives (rule 1), so a device's stream of submits on
 * the same buffers keeps an empty set. The first points go in its own
 * array, so a submit that waits on few devices allocates nothing. Made by
 * waitset_init(); not to be copied.
 */
#define WAITSET_SMALL 8
struct waitset {
	struct stamp *w;
	size_t n, cap;
	int own;
	struct stamp small[WAITSET_SMALL];
};

enum use_kind { USE_READ = 1, USE_WRITE };

int stamps_init(struct stamps *s, uint64_t words);
void stamps_fini(struct stamps *s);
/* Forget every stamp, as stamps_init() left them, keeping the arrays of the
 * first segment (memory reused once every use is settled). Inline where
 * the map is one segment, as a buffer used whole leaves it (every park of
 * reusable memory, bench_reclaim): the call cost more than the clear. */
void stamps_clear_split(struct stamps *s);
static inline void
stamps_clear(struct stamps *s)
{
	if (s->n == 1) {
		s->seg[0].write = (struct stamp){ 0 };
		s->seg[0].nreads = 0;
	} else {
		stamps_clear_split(s);
	}
}
/* Add the waits of a use of words [lo, hi) to ws; 0 or -ENOMEM. */
int stamps_prepare(struct stamps *s, uint64_t lo, uint64_t hi, enum use_kind u,
		   struct waitset *ws);
/* Record a prepared use by the point st. Never fails. */
void stamps_record(struct stamps *s, uint64_t lo, uint64_t hi, enum use_kind u,
		   struct stamp st);

/*
 * Join neighbours that keep the same stamps around words [lo, hi), once a
 * claim of them ends (recorded or not). Only a claim's edges and stamps
 * make neighbours joinable, so tidying each claim's ranges keeps the whole
 * map joined, at the cost of a search and the segments in the range, not
 * of the whole map (which many views of one allocation make long).
 */
void stamps_tidy_near(struct stamps *s, uint64_t lo, uint64_t hi);

/* Add every stamp of s, writes and reads, to ws: 0, or -ENOMEM with ws
 * lacking some. */
int stamps_waits(const struct stamps *s, struct waitset *ws);

/* Add (slot, value) to ws, keeping the highest value per slot; none, of
 * no value or ws's own slot. 0 or -ENOMEM. */
int waitset_insert(struct waitset *ws, struct stamp st);
static inline int
waitset_add(struct waitset *ws, struct stamp st)
{
	if (!st.value || (int)st.slot == ws->own)
		return 0;
	return waitset_insert(ws, st);
}
/* Inline: a submit's set is most often empty, or in its small array,
 * and this is on every submit's path. */
static inline void
waitset_fini(struct waitset *ws)
{
	if (ws->w && ws->w != ws->small)
		free(ws->w);
	ws->w = NULL;
	ws->n = ws->cap = 0;
}
/* An empty set for a claim by the device of slot own (-1: the host),
 * without zeroing its small array (a submit's hot path). */
static inline void
waitset_init(struct waitset *ws, int own)
{
	ws->w = NULL;
	ws->n = ws->cap = 0;
	ws->own = own;
}

/* The words a byte range [offset, offset + bytes) touches. */
static inline void
words_of(uint64_t offset, uint64_t bytes, uint64_t *lo, uint64_t *hi)
{
	*lo = offset / 4;
	*hi = (offset + bytes + 3) / 4;
}

/*
 * One segment's share of a claim: stamps_prepare() and stamps_record() for
 * each segment of a use, inline for a claim of a buffer used whole (its
 * map's one segment: the common case, no search, split or join).
 */
static inline bool
stamps_whole(const struct stamps *s, uint64_t lo, uint64_t hi)
{
	return s->n == 1 && lo == 0 && hi >= s->seg[0].hi;
}

int seg_grow_reads(struct seg *g);

/* What a use of g waits for, and room for its read. */
static inline int
seg_prepare(struct seg *g, enum use_kind u, struct waitset *ws)
{
	if (waitset_add(ws, g->write) < 0)
		return -ENOMEM;
	if (u == USE_READ)
		return g->nreads < g->cap ? 0 : seg_grow_reads(g);
	for (uint32_t k = 0; k < g->nreads; k++)
		if (waitset_add(ws, g->reads[k]) < 0)
			return -ENOMEM;
	return 0;
}

/* Record a prepared use of g by st. */
static inline void
seg_record(struct seg *g, enum use_kind u, struct stamp st)
{
	if (u != USE_READ) {
		g->write = st;
		g->nreads = 0;
		return;
	}
	for (uint32_t k = 0; k < g->nreads; k++)
		if (g->reads[k].slot == st.slot) {
			if (st.value > g->reads[k].value)
				g->reads[k].value = st.value;
			return;
		}
	g->reads[g->nreads++] = st;	/* room made by seg_prepare() */
}

#endif
