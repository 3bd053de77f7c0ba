/* SPDX-License-Identifier: MIT */
/*
 * test_place_model: place_parts() (submit/place.c) against the rule it
 * implements, written here the slow way: every pair of parts compared use
 * by use. Random submissions of launches, copies, fills and words parts
 * over slots and views of two allocations, with and without common
 * (fixed) memory, on devices of one to three queues: each part's queue and
 * follow list must be the model's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "submit/place.h"

#define MAX_PARTS 40
#define MAX_USES 4

static const struct rig_queue three[] = {
	{ "COMPUTE:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_FILL_PART) },
	{ "COPY:0", RIG_RUNS(RIG_COPY_PART) },
	{ "GFX:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_WORDS_PART) | RIG_RUNS(RIG_COPY_PART) },
};
static const struct rig_queue one[] = {
	{ "ALL:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_FILL_PART) |
		   RIG_RUNS(RIG_WORDS_PART) | RIG_RUNS(RIG_COPY_PART) },
};

static unsigned seed = 12345;

static unsigned
draw(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

/* Rule 2: two uses conflict where either writes and they may share
 * memory: a slot may be any buffer; two views share a 4-byte word. */
static bool
model_uses_conflict(const struct place_use *a, const struct place_use *b)
{
	uint64_t a0, a1, b0, b1;

	if (a->kind != USE_WRITE && b->kind != USE_WRITE)
		return false;
	if (a->is_slot || b->is_slot)
		return true;
	if (a->alloc != b->alloc || !a->bytes || !b->bytes)
		return false;
	a0 = a->offset / 4, a1 = (a->offset + a->bytes + 3) / 4;
	b0 = b->offset / 4, b1 = (b->offset + b->bytes + 3) / 4;
	return a0 < b1 && b0 < a1;
}

static bool
model_follows(const struct place_part *p, size_t i, size_t j,
	      const struct place_use *common, size_t ncommon)
{
	if (p[i].kind == RIG_WORDS_PART || p[j].kind == RIG_WORDS_PART)
		return true;
	for (size_t x = 0; x < p[i].nuses + ncommon; x++)
		for (size_t y = 0; y < p[j].nuses + ncommon; y++)
			if (model_uses_conflict(x < p[i].nuses ? &p[i].uses[x] : &common[x - p[i].nuses],
						y < p[j].nuses ? &p[j].uses[y] : &common[y - p[j].nuses]))
				return true;
	return false;
}

static int
model_first(const struct rig_facts *f, unsigned runs)
{
	for (size_t q = 0; q < f->nqueues; q++)
		if ((f->queues[q].runs & runs) == runs)
			return (int)q;
	return -1;
}

/* Seed 002's placement: words on a queue that also launches if one does;
 * a copy after the last part it follows where that queue copies, else on
 * the copy engine; the rest on the first queue that runs them. */
static int
model_queue(const struct rig_facts *f, const struct place_part *p, const int *queue,
	    size_t i, long last)
{
	int q;

	switch (p[i].kind) {
	case RIG_WORDS_PART:
		q = model_first(f, RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_WORDS_PART));
		return q >= 0 ? q : model_first(f, RIG_RUNS(RIG_WORDS_PART));
	case RIG_COPY_PART:
		if (last >= 0 && (f->queues[queue[last]].runs & RIG_RUNS(RIG_COPY_PART)))
			return queue[last];
		return f->copy_engine;
	default:
		return model_first(f, RIG_RUNS(p[i].kind));
	}
}

static void
random_use(struct place_use *u, const int *allocs)
{
	*u = (struct place_use){ .kind = draw(2) ? USE_WRITE : USE_READ };
	if (draw(3) == 0) {
		u->is_slot = true;
		u->slot = draw(4);
		return;
	}
	u->alloc = &allocs[draw(2)];
	u->offset = draw(64);
	u->bytes = draw(5) ? draw(40) + 1 : 0;
}

static void
one_submission(const struct rig_facts *f, size_t n, size_t ncommon)
{
	static const int allocs[2];
	static const enum rig_kind kinds[] = { RIG_LAUNCH_PART, RIG_LAUNCH_PART,
					       RIG_COPY_PART, RIG_FILL_PART, RIG_WORDS_PART };
	struct place_use uses[MAX_PARTS][MAX_USES], common[2];
	struct place_part parts[MAX_PARTS];
	int queue[MAX_PARTS];
	char why[128];

	for (size_t c = 0; c < ncommon; c++) {
		random_use(&common[c], allocs);
		common[c].is_slot = false;
		common[c].alloc = &allocs[draw(2)];
	}
	for (size_t i = 0; i < n; i++) {
		parts[i] = (struct place_part){ .kind = kinds[draw(5)], .uses = uses[i],
						.nuses = draw(MAX_USES + 1) };
		if (f->nqueues == 3 && parts[i].kind == RIG_WORDS_PART && draw(2))
			parts[i].kind = RIG_LAUNCH_PART;
		for (size_t k = 0; k < parts[i].nuses; k++)
			random_use(&uses[i][k], allocs);
	}
	assert_int_equal(place_parts(f, parts, n, common, ncommon, why, sizeof(why)), 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = 0;
		long last = -1;

		for (size_t j = 0; j < i; j++)
			if (model_follows(parts, i, j, common, ncommon))
				last = (long)j;
		queue[i] = model_queue(f, parts, queue, i, last);
		assert_int_equal(parts[i].queue, queue[i]);
		for (size_t j = 0; j < i; j++)
			if (queue[j] != queue[i] && model_follows(parts, i, j, common, ncommon)) {
				assert_true(k < parts[i].nfollows);
				assert_int_equal(parts[i].follows[k], j);
				k++;
			}
		assert_int_equal(parts[i].nfollows, k);
	}
	for (size_t i = 0; i < n; i++)
		free(parts[i].follows);
}

static void
test_place_matches_the_model(void **state)
{
	struct rig_facts f3 = { .queues = three, .nqueues = 3, .copy_engine = 1 };
	struct rig_facts f1 = { .queues = one, .nqueues = 1, .copy_engine = 0 };

	for (int round = 0; round < 3000; round++)
		one_submission(round % 2 ? &f3 : &f1, draw(MAX_PARTS) + 1, draw(3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_matches_the_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
