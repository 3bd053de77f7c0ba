/* SPDX-License-Identifier: MIT */
/*
 * submit/runs.c: a submission's runs and their takers (docs/submissions.md, Runs).
 *
 * Lock-free: a taker first swaps the submission's cached run out (a lone
 * taker finds its own run there every time, with its stores), then pops the
 * free stack, and only when both are empty makes a run. The stack is
 * Concurrency Kit's ck_stack: many pushers, many poppers, its head tagged
 * with a generation a double-width compare-and-swap bumps, so a pop that
 * read a stale head fails (no ABA). A pop may read the link of a run that
 * another thread popped meanwhile: runs live in chunks that never move or
 * go until the submission goes, so that read is of live memory, and the
 * generation makes the pop retry.
 *
 * Producers (give back) and consumers (take): any threads. Both lock-free.
 * What a thread stored in a run before giving it back is visible to the
 * thread that takes it next (release on give back, acquire on take; ck's
 * asm is told to ThreadSanitizer by hand).
 *
 * References. A taken run holds one on its submission, so it stays valid
 * after rig_submission_release(). The cached run keeps the one it was
 * taken with, so a lone taker's take and give back cost no locked count:
 * the cache's exchange hands the reference over with the run. Runs on
 * the stack hold none. The program's release sets released, then takes
 * the cached run out (and its reference back); a give back that cached
 * its run then reads released and, set, takes the cache out again. Both
 * pairs are sequentially consistent, so whichever comes second in their
 * order sees the other: no run stays cached, holding a reference, after
 * the release.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "util/tsan.h"
#include "submit/submission.h"

static struct rig_run *
pop(struct rig_submission *s)
{
	ck_stack_entry_t *e = ck_stack_pop_mpmc(&s->free_runs);
	struct rig_run *r = e ? (struct rig_run *)((char *)e - offsetof(struct rig_run, entry)) : NULL;

	if (r)
		tsan_acquire(r);	/* the giver's stores */
	return r;
}

static void
push(struct rig_submission *s, struct rig_run *r)
{
	tsan_release(r);
	ck_stack_push_upmc(&s->free_runs, &r->entry);
}

/* A new run, zeroed; NULL when out of memory or of chunks. */
static struct rig_run *
make_run(struct rig_submission *s)
{
	uint32_t index = atomic_fetch_add(&s->nruns, 1);
	size_t c = index / RUN_CHUNK;
	struct rig_run *chunk, *none = NULL, *r;

	if (c >= RUN_CHUNKS)
		return NULL;
	chunk = atomic_load_explicit(&s->chunk[c], memory_order_acquire);
	if (!chunk) {
		if (!(chunk = calloc(RUN_CHUNK, sizeof(*chunk))))
			return NULL;
		/* Pairs with the acquire load above: the chunk is zeroed. */
		if (!atomic_compare_exchange_strong_explicit(&s->chunk[c], &none, chunk,
				memory_order_acq_rel, memory_order_acquire)) {
			free(chunk);
			chunk = none;
		}
	}
	r = &chunk[index % RUN_CHUNK];
	r->s = s;
	r->index = index;
	if (!(r->bytes = calloc(1, s->run_bytes))) {
		/* The index is spent; its run stays empty and is never given. */
		return NULL;
	}
	return r;
}

int
rig_run_take(struct rig_submission *s, struct rig_run **out)
{
	struct rig_run *r;

	if (!s || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !s ? "submission" : "out");
	if (!s->run_bytes) {
		/* Shared, but each take holds s like any run: a taken run
		 * stays valid after rig_submission_release(). */
		submission_get(s);
		if (s->nheld)
			submission_hold(s, 1);
		*out = &s->shared;
		return 0;
	}
	/* The cached run comes with its reference (above). */
	r = atomic_exchange_explicit(&s->cached, NULL, memory_order_acquire);
	if (!r) {
		if (!(r = pop(s)) && !(r = make_run(s)))
			return rig_fail(RIG_ENOMEM, "no memory for a new run of %zu bytes",
					s->run_bytes);
		submission_get(s);
	}
	if (s->nheld)
		submission_hold(s, 1);
	*out = r;
	return 0;
}

void
run_give_back(struct rig_run *r)
{
	struct rig_submission *s = r->s;
	struct rig_run *none = NULL;

	if (s->nheld)
		submission_hold(s, -1);
	if (r == &s->shared) {
		submission_put(s);	/* may free s, and r with it */
		return;
	}
	/* Pairs with the acquire exchange in take: the stores travel. The
	 * run keeps its reference in the cache, unless the program has let
	 * s go (seq_cst: against runs_release(), above). */
	if (atomic_compare_exchange_strong_explicit(&s->cached, &none, r,
			memory_order_seq_cst, memory_order_relaxed)) {
		if (!atomic_load(&s->released))
			return;
		if (!(r = atomic_exchange(&s->cached, NULL)))
			return;		/* the release took it */
	}
	push(s, r);
	submission_put(s);	/* may free s */
}

void
runs_release(struct rig_submission *s)
{
	struct rig_run *r;

	atomic_store(&s->released, true);
	if ((r = atomic_exchange(&s->cached, NULL))) {
		push(s, r);
		submission_put(s);	/* its reference; the program's remains */
	}
}

void
rig_run_release(struct rig_run *r)
{
	if (r)
		run_give_back(r);
}

static int
check_store(struct rig_run *r, size_t i, size_t bytes)
{
	const struct rig_submission *s = r->s;

	if ((ptrdiff_t)bytes < 0)
		return rig_fail_at("rig_run_store", RIG_EINVAL, "%td bytes is negative",
				   (ptrdiff_t)bytes);
	if (i >= s->nparts)
		return rig_fail_at("rig_run_store", RIG_EINVAL, "no part %zu (the submission has %zu)",
				   i, s->nparts);
	if (s->parts[i].kind != RIG_LAUNCH && s->parts[i].kind != RIG_FILL)
		return rig_fail_at("rig_run_store", RIG_EINVAL,
				   "part %zu is no launch or fill: it has no block", i);
	if (bytes > s->parts[i].params)
		return rig_fail_at("rig_run_store", RIG_EINVAL,
				   "%zu bytes for part %zu, which has %u params bytes",
				   bytes, i, s->parts[i].params);
	return 0;
}

/* A group's threads, or a grid's groups; UINT64_MAX where the product
 * passes 64 bits. */
static uint64_t
product(const uint32_t n[3])
{
	uint64_t t = (uint64_t)n[0] * n[1];

	return __builtin_mul_overflow(t, n[2], &t) ? UINT64_MAX : t;
}

int
rig_run_store(struct rig_run *r, size_t i, const uint32_t grid[3],
	      const uint32_t group[3], const void *params, size_t bytes)
{
	const struct rig_opt *most;
	struct block *b;
	int ret;

	if (!r)
		return rig_fail(RIG_EINVAL, "the run is NULL");
	if ((ret = check_store(r, i, bytes)) < 0)
		return ret;
	if (bytes && !params)
		return rig_fail(RIG_EINVAL, "the params are NULL");
	b = (struct block *)(r->bytes + r->s->parts[i].block);
	if (r->s->parts[i].kind == RIG_LAUNCH) {
		if (!grid || !group || !grid[0] || !grid[1] || !grid[2] ||
		    !group[0] || !group[1] || !group[2])
			return rig_fail(RIG_EINVAL, "part %zu: an empty grid or group", i);
		/* Seed 000, entry: rig refuses a run that sets more threads
		 * than the function allows. */
		most = &r->s->parts[i].fn->entry.threads;
		if (most->some && product(group) > (uint64_t)most->value)
			return rig_fail(RIG_EINVAL,
					"part %zu: a group of %u x %u x %u threads, more than the %lld its function allows",
					i, group[0], group[1], group[2], (long long)most->value);
		/* A grid the driver would refuse at submit, losing the
		 * device (the host runs 2^62 groups at most). */
		most = &r->s->parts[i].fn->entry.groups;
		if (most->some && product(grid) > (uint64_t)most->value)
			return rig_fail(RIG_EINVAL,
					"part %zu: a grid of %u x %u x %u groups, more than the %lld its function allows",
					i, grid[0], grid[1], grid[2], (long long)most->value);
		memcpy(b->grid, grid, sizeof(b->grid));
		memcpy(b->group, group, sizeof(b->group));
	}
	if (bytes)
		memcpy(b + 1, params, bytes);
	return 0;
}

void *
rig_run_params(struct rig_run *r, size_t i)
{
	if (!r)
		return rig_fail(0, "the run is NULL"), NULL;
	if (i >= r->s->nparts || (r->s->parts[i].kind != RIG_LAUNCH &&
				  r->s->parts[i].kind != RIG_FILL))
		return NULL;
	return r->bytes + r->s->parts[i].block + BLOCK_HEADER;
}
