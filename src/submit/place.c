/* SPDX-License-Identifier: MIT */
/*
 * submit/place.c: rule 2 (docs/order.md) and queue placement (place.h). A submission is
 * made once, but made often enough to count (make_1000_parts): a slot
 * conflicts with every use of the other part where either writes, so a
 * summary of each part (does it use a slot, write one, write anything)
 * answers most pairs at once, and only two buffers need their ranges
 * compared. A part's queue depends only on the last part it follows, found
 * scanning back; its follow list is built only where earlier parts lie on
 * other queues.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "submit/place.h"

static const char *const kind_names[] = {
	[RIG_WORDS_PART] = "words", [RIG_FILL_PART] = "fill",
	[RIG_COPY_PART] = "copy", [RIG_LAUNCH_PART] = "launch",
};

static const char *const plural[] = {
	[RIG_WORDS_PART] = "words", [RIG_FILL_PART] = "fills",
	[RIG_COPY_PART] = "copies", [RIG_LAUNCH_PART] = "launches",
};

static bool
uses_conflict(const struct place_use *a, const struct place_use *b)
{
	if (a->kind != USE_WRITE && b->kind != USE_WRITE)
		return false;
	if (a->is_slot || b->is_slot)
		return true;
	if (a->alloc != b->alloc || !a->bytes || !b->bytes)
		return false;
	return a->offset / 4 < (b->offset + b->bytes + 3) / 4 &&
	       b->offset / 4 < (a->offset + a->bytes + 3) / 4;
}

/* What a part's uses (its own and the common ones) do, at a glance. */
struct summary {
	bool slot_write, slot_any;	/* its own uses: slots are never common */
	bool write, any;		/* every use, common ones too */
	bool buffers;			/* a use that is a buffer (its own or common) */
};

static struct summary
summarize(const struct place_part *p, const struct place_use *common, size_t ncommon)
{
	struct summary m = { .any = ncommon > 0, .buffers = ncommon > 0 };

	for (size_t i = 0; i < p->nuses + ncommon; i++) {
		const struct place_use *u = i < p->nuses ? &p->uses[i] : &common[i - p->nuses];
		bool w = u->kind == USE_WRITE;

		m.any = true;
		m.write |= w;
		m.slot_any |= u->is_slot;
		m.slot_write |= u->is_slot && w;
		m.buffers |= !u->is_slot;
	}
	return m;
}

/* A slot may be any buffer: it conflicts with every use of the other part
 * where either of the two writes. */
static bool
slots_conflict(const struct summary *a, const struct summary *b)
{
	return (a->slot_write && b->any) || (b->slot_write && a->any) ||
	       (a->slot_any && b->write) || (b->slot_any && a->write);
}

static bool
parts_conflict(const struct place_part *a, const struct place_part *b,
	       const struct summary *sa, const struct summary *sb,
	       const struct place_use *common, size_t ncommon)
{
	if (slots_conflict(sa, sb))
		return true;
	if (!sa->buffers || !sb->buffers || (!sa->write && !sb->write))
		return false;
	for (size_t i = 0; i < a->nuses + ncommon; i++) {
		const struct place_use *x = i < a->nuses ? &a->uses[i] : &common[i - a->nuses];

		for (size_t j = 0; j < b->nuses + ncommon; j++) {
			const struct place_use *y = j < b->nuses ? &b->uses[j] :
						    &common[j - b->nuses];

			if (!x->is_slot && !y->is_slot && uses_conflict(x, y))
				return true;
		}
	}
	return false;
}

static int
first_queue(const struct rig_facts *f, unsigned runs)
{
	for (size_t q = 0; q < f->nqueues; q++)
		if ((f->queues[q].runs & runs) == runs)
			return (int)q;
	return -1;
}

/* The queue of part i, given the last earlier part it follows (or -1). */
static int
queue_of(const struct rig_facts *f, const struct place_part *parts, size_t i,
	 long last)
{
	switch (parts[i].kind) {
	case RIG_WORDS_PART: {
		int q = first_queue(f, RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_WORDS_PART));

		return q >= 0 ? q : first_queue(f, RIG_RUNS(RIG_WORDS_PART));
	}
	case RIG_COPY_PART:
		if (last >= 0 && (f->queues[parts[last].queue].runs & RIG_RUNS(RIG_COPY_PART)))
			return (int)parts[last].queue;
		return f->copy_engine;
	default:
		return first_queue(f, RIG_RUNS(parts[i].kind));
	}
}

/* Does part i follow part j (j < i)? */
static bool
follows_part(const struct place_part *parts, const struct summary *sum, size_t i,
	     size_t j, const struct place_use *common, size_t ncommon)
{
	return parts[i].kind == RIG_WORDS_PART || parts[j].kind == RIG_WORDS_PART ||
	       parts_conflict(&parts[i], &parts[j], &sum[i], &sum[j], common, ncommon);
}

/* Part i's follow list: the parts of other queues it follows. */
static int
list_follows(struct place_part *parts, const struct summary *sum, size_t i,
	     bool others, const struct place_use *common, size_t ncommon)
{
	uint32_t count = 0, k = 0;

	if (others)
		for (size_t j = 0; j < i; j++)
			count += parts[j].queue != parts[i].queue &&
				 follows_part(parts, sum, i, j, common, ncommon);
	parts[i].follows = calloc(count ? count : 1, sizeof(uint32_t));
	if (!parts[i].follows)
		return -ENOMEM;
	for (size_t j = 0; j < i && k < count; j++)
		if (parts[j].queue != parts[i].queue &&
		    follows_part(parts, sum, i, j, common, ncommon))
			parts[i].follows[k++] = (uint32_t)j;
	parts[i].nfollows = count;
	return 0;
}

int
place_parts(const struct rig_facts *f, struct place_part *parts, size_t n,
	    const struct place_use *common, size_t ncommon, char *why,
	    size_t why_len)
{
	struct summary *sum = calloc(n ? n : 1, sizeof(*sum));
	size_t *on = calloc(f->nqueues ? f->nqueues : 1, sizeof(*on));	/* parts per queue so far */
	int ret = 0;

	if (!sum || !on) {
		free(sum);
		free(on);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		sum[i] = summarize(&parts[i], common, ncommon);
	for (size_t i = 0; i < n && ret == 0; i++) {
		long last = -1;
		int q;

		for (size_t j = i; j-- > 0 && last < 0;)
			if (follows_part(parts, sum, i, j, common, ncommon))
				last = (long)j;
		q = queue_of(f, parts, i, last);
		if (q < 0) {
			snprintf(why, why_len, "part %zu (%s): the device has no queue that runs %s",
				 i, kind_names[parts[i].kind], plural[parts[i].kind]);
			ret = -EINVAL;
			break;
		}
		parts[i].queue = (uint32_t)q;
		ret = list_follows(parts, sum, i, on[q] < i, common, ncommon);
		on[q]++;
	}
	free(sum);
	free(on);
	return ret;
}
