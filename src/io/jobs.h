/* SPDX-License-Identifier: MIT */
/*
 * io/jobs.h: the disk's cache of job memory (jobs.c), so that a submit of
 * a small value (a copy, a barrier) allocates nothing once the disk has
 * run a while. Takers: any threads (the table's submit); givers: any
 * threads (the loop, as a job retires). Both lock-free. What a giver
 * wrote in a job is visible to its next taker.
 */
#ifndef IO_JOBS_H
#define IO_JOBS_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <ck_stack.h>

struct disk_job;

/* A cached job has JOBS_OPS ops at most (jobs.c: and 8 waits). */
#define JOBS_OPS	2

struct job_cache {
	alignas(16) ck_stack_t free;	/* 16-byte aligned: a double-width CAS */
	_Atomic uint32_t made;		/* cached jobs made: JOBS_MAX at most */
};

void jobs_init(struct job_cache *c);
/* Memory for a job of nops ops in bytes (header, ops, waits), its cached
 * set; NULL: out of memory. */
struct disk_job *jobs_take(struct job_cache *c, size_t nops, size_t bytes);
/* j's memory back; j is not used after. */
void jobs_give(struct job_cache *c, struct disk_job *j);
/* Free the cached jobs; no take or give runs, none runs after. */
void jobs_fini(struct job_cache *c);

#endif
