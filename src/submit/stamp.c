/* SPDX-License-Identifier: MIT */
/*
 * submit/stamp.c: the segment map of stamp.h. Segments are sorted, cover
 * the allocation's words without gaps, and are split only at the edges of
 * the uses a submit claims; before a claim prepares its uses, neighbours
 * last written by one point and read since by none are joined again, so a
 * buffer used whole keeps a single segment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "submit/stamp.h"

int
stamps_init(struct stamps *s, uint64_t words)
{
	s->seg = calloc(1, sizeof(*s->seg));
	if (!s->seg)
		return -ENOMEM;
	s->seg[0].hi = words;
	s->n = s->cap = 1;
	return 0;
}

void
stamps_fini(struct stamps *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->seg[i].reads);
	free(s->seg);
	s->seg = NULL;
	s->n = s->cap = 0;
}

void
stamps_clear_split(struct stamps *s)
{
	if (!s->n)
		return;
	for (size_t i = 1; i < s->n; i++)
		free(s->seg[i].reads);
	s->seg[0].hi = s->seg[s->n - 1].hi;
	s->seg[0].write = (struct stamp){ 0 };
	s->seg[0].nreads = 0;
	s->n = 1;
}

int
waitset_insert(struct waitset *ws, struct stamp st)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->w[i].slot == st.slot) {
			if (st.value > ws->w[i].value)
				ws->w[i].value = st.value;
			return 0;
		}
	if (!ws->w) {
		ws->w = ws->small;
		ws->cap = WAITSET_SMALL;
	}
	if (ws->n == ws->cap) {
		struct stamp *w = malloc(ws->cap * 2 * sizeof(*w));

		if (!w)
			return -ENOMEM;
		memcpy(w, ws->w, ws->n * sizeof(*w));
		if (ws->w != ws->small)
			free(ws->w);
		ws->w = w;
		ws->cap *= 2;
	}
	ws->w[ws->n++] = st;
	return 0;
}

/* The index of the segment holding word x (x < the last hi). */
static size_t
find(const struct stamps *s, uint64_t x)
{
	size_t a = 0, b = s->n;

	while (b - a > 1) {
		size_t m = (a + b) / 2;

		if (s->seg[m].lo <= x)
			a = m;
		else
			b = m;
	}
	return a;
}

static int
copy_reads(struct seg *to, const struct seg *from)
{
	to->reads = NULL;
	to->cap = to->nreads = 0;
	if (!from->cap)		/* room a prepare made counts too */
		return 0;
	to->reads = malloc(from->cap * sizeof(*to->reads));
	if (!to->reads)
		return -ENOMEM;
	memcpy(to->reads, from->reads, from->nreads * sizeof(*to->reads));
	to->nreads = from->nreads;
	to->cap = from->cap;
	return 0;
}

/* Make x a segment edge (x inside the map). */
static int
split_at(struct stamps *s, uint64_t x)
{
	size_t i = find(s, x);
	struct seg right;

	if (s->seg[i].lo == x || x >= s->seg[s->n - 1].hi)
		return 0;
	if (s->n == s->cap) {
		struct seg *seg = realloc(s->seg, s->cap * 2 * sizeof(*seg));

		if (!seg)
			return -ENOMEM;
		s->seg = seg;
		s->cap *= 2;
	}
	right = s->seg[i];
	if (copy_reads(&right, &s->seg[i]) < 0)
		return -ENOMEM;
	right.lo = x;
	s->seg[i].hi = x;
	memmove(&s->seg[i + 2], &s->seg[i + 1], (s->n - i - 1) * sizeof(*s->seg));
	s->seg[i + 1] = right;
	s->n++;
	return 0;
}

int
seg_grow_reads(struct seg *g)
{
	uint32_t cap = g->cap ? g->cap * 2 : 4;
	struct stamp *r = realloc(g->reads, cap * sizeof(*r));

	if (!r)
		return -ENOMEM;
	g->reads = r;
	g->cap = cap;
	return 0;
}

int
stamps_prepare(struct stamps *s, uint64_t lo, uint64_t hi, enum use_kind u,
	       struct waitset *ws)
{
	size_t first = 0;

	if (lo >= hi)
		return 0;
	if (!stamps_whole(s, lo, hi)) {
		if (split_at(s, lo) < 0 || split_at(s, hi) < 0)
			return -ENOMEM;
		first = find(s, lo);
	}
	for (size_t i = first; i < s->n && s->seg[i].lo < hi; i++)
		if (seg_prepare(&s->seg[i], u, ws) < 0)
			return -ENOMEM;
	return 0;
}

void
stamps_record(struct stamps *s, uint64_t lo, uint64_t hi, enum use_kind u,
	      struct stamp st)
{
	/* The edges lo and hi were made by stamps_prepare(), and nothing
	 * joins segments until the claim ends (stamps_tidy_near). */
	for (size_t i = stamps_whole(s, lo, hi) ? 0 : find(s, lo);
	     i < s->n && s->seg[i].lo < hi; i++)
		seg_record(&s->seg[i], u, st);
}

int
stamps_waits(const struct stamps *s, struct waitset *ws)
{
	int ret = 0;

	for (size_t i = 0; i < s->n; i++) {
		ret |= waitset_add(ws, s->seg[i].write);
		for (uint32_t k = 0; k < s->seg[i].nreads; k++)
			ret |= waitset_add(ws, s->seg[i].reads[k]);
	}
	return ret ? -ENOMEM : 0;
}

static bool
mergeable(const struct seg *a, const struct seg *b)
{
	return !a->nreads && !b->nreads && a->write.slot == b->write.slot &&
	       a->write.value == b->write.value;
}

void
stamps_tidy_near(struct stamps *s, uint64_t lo, uint64_t hi)
{
	uint64_t end;
	size_t first, last, k;

	if (s->n <= 1)
		return;		/* nothing to join */
	/* From the segment left of lo to the one holding hi: every pair
	 * the claim's edges or stamps may have made joinable. */
	end = s->seg[s->n - 1].hi;
	first = lo < end ? find(s, lo) : s->n - 1;
	first -= first > 0;
	last = hi < end ? find(s, hi) : s->n - 1;
	k = first;
	for (size_t i = first + 1; i <= last; i++) {
		struct seg *a = &s->seg[k], *b = &s->seg[i];

		if (mergeable(a, b)) {
			a->hi = b->hi;
			free(b->reads);
			continue;
		}
		s->seg[++k] = *b;
	}
	if (k == last)
		return;
	memmove(&s->seg[k + 1], &s->seg[last + 1], (s->n - last - 1) * sizeof(*s->seg));
	s->n -= last - k;
}
