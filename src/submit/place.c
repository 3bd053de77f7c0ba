/*
 * submit/place.c: rule 2 and queue placement (place.h). Quadratic in the
 * parts, which a submission makes once: a 1,000-part submission compares a
 * million pairs, well under a millisecond of words each.
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

static bool
parts_conflict(const struct place_part *a, const struct place_part *b,
	       const struct place_use *common, size_t ncommon)
{
	for (size_t i = 0; i < a->nuses + ncommon; i++) {
		const struct place_use *x = i < a->nuses ? &a->uses[i] : &common[i - a->nuses];

		for (size_t j = 0; j < b->nuses + ncommon; j++) {
			const struct place_use *y = j < b->nuses ? &b->uses[j] :
						    &common[j - b->nuses];

			if (uses_conflict(x, y))
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

int
place_parts(const struct rig_facts *f, struct place_part *parts, size_t n,
	    const struct place_use *common, size_t ncommon, char *why,
	    size_t why_len)
{
	bool *follows = calloc(n ? n : 1, sizeof(*follows));

	if (!follows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long last = -1;
		uint32_t k = 0, count = 0;
		int q;

		for (size_t j = 0; j < i; j++) {
			follows[j] = parts[i].kind == RIG_WORDS_PART ||
				     parts[j].kind == RIG_WORDS_PART ||
				     parts_conflict(&parts[i], &parts[j], common, ncommon);
			if (follows[j])
				last = (long)j;
		}
		q = queue_of(f, parts, i, last);
		if (q < 0) {
			snprintf(why, why_len, "part %zu (%s): the device has no queue that runs %s",
				 i, kind_names[parts[i].kind], plural[parts[i].kind]);
			free(follows);
			return -EINVAL;
		}
		parts[i].queue = (uint32_t)q;
		for (size_t j = 0; j < i; j++)
			count += follows[j] && parts[j].queue != parts[i].queue;
		parts[i].follows = calloc(count ? count : 1, sizeof(uint32_t));
		if (!parts[i].follows) {
			free(follows);
			return -ENOMEM;
		}
		for (size_t j = 0; j < i; j++)
			if (follows[j] && parts[j].queue != parts[i].queue)
				parts[i].follows[k++] = (uint32_t)j;
		parts[i].nfollows = count;
	}
	free(follows);
	return 0;
}
