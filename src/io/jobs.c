/* SPDX-License-Identifier: MIT */
/*
 * io/jobs.c: the disk's cache of job memory (jobs.h). A job whose ops and
 * waits fit JOBS_BYTES is cut from memory that stays with the disk: the
 * loop gives a retired job back to a lock-free stack and the next submit
 * takes it, so a copy's submit calls no malloc and the loop no free (the
 * free of a block another thread allocated is glibc's slow path: a
 * submitter's malloc then takes it back from the arena under its lock;
 * both were ~1.4% of bench/server.c's CPU time at 4 KiB). A bigger job is
 * malloc'd and freed as before.
 *
 * The stack is Concurrency Kit's ck_stack, as submit/runs.c's: pushers and
 * poppers any threads, its head tagged with a generation that each pop's
 * double-width compare-and-swap bumps, so a pop that read a stale head
 * fails (no ABA). A pop may read the link of a job another thread took
 * meanwhile: a cached job's memory is never freed before jobs_fini(), so
 * that read is of live memory, and the generation makes the pop retry.
 * Bound: at most JOBS_MAX cached jobs are ever made per disk (the most a
 * program has in flight on one disk, up to that); past it, jobs are
 * malloc'd and freed. Where the machine has no double-width CAS the cache
 * is off and every job is malloc'd.
 *
 * Ordering: a give is a release (ck's push: a fence, then the CAS) and a
 * take an acquire (the pop's load fences); ck's asm is told to
 * ThreadSanitizer by hand (util/tsan.h).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "io/engine.h"

/* A job of up to JOBS_OPS ops and 8 waits: a copy (one op, its producers'
 * words) or a barrier. */
#define JOBS_BYTES	(sizeof(struct disk_job) + JOBS_OPS * sizeof(struct rig_io_op) + \
			 8 * sizeof(struct rig_wait))
#define JOBS_MAX	1024u

void
jobs_init(struct job_cache *c)
{
	ck_stack_init(&c->free);
	atomic_init(&c->made, 0);
}

#ifdef CK_F_STACK_POP_MPMC
static struct disk_job *
pop(struct job_cache *c)
{
	ck_stack_entry_t *e = ck_stack_pop_mpmc(&c->free);
	struct disk_job *j = e ? (struct disk_job *)((char *)e - offsetof(struct disk_job, entry)) : NULL;

	if (j)
		tsan_acquire(j);	/* the giver's stores */
	return j;
}
#endif

struct disk_job *
jobs_take(struct job_cache *c, size_t nops, size_t bytes)
{
	struct disk_job *j = NULL;
	bool cached = false;

#ifdef CK_F_STACK_POP_MPMC
	if (nops <= JOBS_OPS && bytes <= JOBS_BYTES) {
		if ((j = pop(c))) {
			cached = true;
		} else if (atomic_fetch_add_explicit(&c->made, 1, memory_order_relaxed) < JOBS_MAX) {
			if (!(j = malloc(JOBS_BYTES))) {
				atomic_fetch_sub_explicit(&c->made, 1, memory_order_relaxed);
				return NULL;
			}
			cached = true;
		} else {
			atomic_fetch_sub_explicit(&c->made, 1, memory_order_relaxed);
		}
	}
#endif
	if (!j && !(j = malloc(bytes)))
		return NULL;
	j->cached = cached;
	return j;
}

void
jobs_give(struct job_cache *c, struct disk_job *j)
{
#ifdef CK_F_STACK_POP_MPMC
	if (j->cached) {
		tsan_release(j);	/* pairs with the acquire in pop() */
		ck_stack_push_upmc(&c->free, &j->entry);
		return;
	}
#endif
	(void)c;
	free(j);
}

void
jobs_fini(struct job_cache *c)
{
#ifdef CK_F_STACK_POP_MPMC
	struct disk_job *j;

	while ((j = pop(c)))
		free(j);
#else
	(void)c;
#endif
}
