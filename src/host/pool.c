/*
 * host/pool.c: the worker pool (pool.h states its guarantees).
 *
 * Design. The runner publishes one task at a time in `task`, a generation
 * and the number `used` of workers that take part, packed in one word so a
 * worker reads both at once. Workers with an id below `used` are counted in
 * `pending`; the runner rewrites the task's fields only once `pending` is 0,
 * so a counted worker reads stable fields, and a worker that is not counted
 * reads none. Chunks are claimed with one fetch-add on `next`, so each index
 * runs once whichever threads run it.
 *
 * Invariants: (1) a worker reads fn, params, n and chunk only between its
 * acquire load of a task that counts it and its release decrement of
 * `pending`; (2) the runner writes them only while `pending` is 0. Hence no
 * field is written while a worker may read it.
 *
 * Sleeping: a worker spins HOST_SPIN_NS for a new generation, then sleeps
 * on `wake_seq`, an eventcount the runner bumps after each publish. Worked
 * interleaving of the lost-wake-up race: worker reads wake_seq = s, counts
 * itself in `sleepers`, re-reads task (old generation); runner stores the
 * new task, bumps wake_seq to s+1, reads sleepers = 1 and wakes; the
 * worker's futex_wait(s) then finds s+1 and returns at once, or is woken.
 * The runner sleeps on `pending` the same way, flagged by `runner_waits`.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/futex.h"
#include "host/pool.h"

#define USED_BITS	16
#define MAX_WORKERS	((1u << USED_BITS) - 1)

struct worker {
	struct host_pool *p;
	unsigned id;
	pthread_t thread;
};

struct host_pool {
	/* The task, written by the runner while pending is 0 (invariant 2). */
	host_range_fn fn;
	const void *params;
	int64_t n, chunk;
	unsigned nworkers;
	struct worker *w;

	alignas(64) _Atomic uint64_t task;	/* generation << USED_BITS | used */
	_Atomic uint32_t wake_seq;		/* eventcount for sleeping workers */
	_Atomic uint32_t sleepers;
	_Atomic bool stop;
	alignas(64) _Atomic int64_t next;	/* the next unclaimed index */
	alignas(64) _Atomic uint32_t pending;	/* counted workers not yet done */
	_Atomic uint32_t runner_waits;
};

static void
run_chunks(struct host_pool *p)
{
	int64_t first, end;

	for (;;) {
		/* Relaxed: the claim orders nothing; the task's fields were
		 * published by the acquire on task (or are the runner's own). */
		first = atomic_fetch_add_explicit(&p->next, p->chunk, memory_order_relaxed);
		if (first >= p->n)
			return;
		end = p->n - first < p->chunk ? p->n : first + p->chunk;
		p->fn(p->params, first, end);
	}
}

/* A worker's wait for a task of another generation than seen, or stop. */
static uint64_t
wait_task(struct host_pool *p, uint64_t seen)
{
	uint64_t t, start = host_now_ns();
	uint32_t s;
	unsigned i;

	for (i = 0;; i++) {
		/* Pairs with the runner's release store of task: the task's
		 * fields and the reset of next and pending are visible. */
		t = atomic_load_explicit(&p->task, memory_order_acquire);
		if (t >> USED_BITS != seen >> USED_BITS ||
		    atomic_load_explicit(&p->stop, memory_order_acquire))
			return t;
		if ((i & 63) == 63 && host_now_ns() - start > HOST_SPIN_NS)
			break;
		host_relax();
	}
	for (;;) {
		s = atomic_load_explicit(&p->wake_seq, memory_order_seq_cst);
		atomic_fetch_add_explicit(&p->sleepers, 1, memory_order_seq_cst);
		/* seq_cst against the runner's wake_seq bump then sleepers
		 * load: either it sees us counted, or we see its task. */
		t = atomic_load_explicit(&p->task, memory_order_seq_cst);
		if (t >> USED_BITS == seen >> USED_BITS &&
		    !atomic_load_explicit(&p->stop, memory_order_seq_cst))
			host_futex_wait(&p->wake_seq, s);
		atomic_fetch_sub_explicit(&p->sleepers, 1, memory_order_relaxed);
		t = atomic_load_explicit(&p->task, memory_order_acquire);
		if (t >> USED_BITS != seen >> USED_BITS ||
		    atomic_load_explicit(&p->stop, memory_order_acquire))
			return t;
	}
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct host_pool *p = w->p;
	uint64_t seen = 0;

	for (;;) {
		seen = wait_task(p, seen);
		if (atomic_load_explicit(&p->stop, memory_order_acquire))
			return NULL;
		if (w->id >= (seen & MAX_WORKERS))
			continue;	/* not counted: reads no field (invariant 1) */
		run_chunks(p);
		/* Release pairs with the runner's acquire load of pending:
		 * what fn wrote is visible once the runner sees 0. seq_cst
		 * against runner_waits (see the design notes). */
		if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_seq_cst) == 1 &&
		    atomic_load_explicit(&p->runner_waits, memory_order_seq_cst))
			host_futex_wake(&p->pending);
	}
}

static void
wait_pending(struct host_pool *p)
{
	uint64_t start = host_now_ns();
	uint32_t v;
	unsigned i;

	/* Acquire pairs with each worker's release decrement. */
	for (i = 0; atomic_load_explicit(&p->pending, memory_order_acquire); i++) {
		if ((i & 63) == 63 && host_now_ns() - start > HOST_SPIN_NS)
			break;
		host_relax();
	}
	while ((v = atomic_load_explicit(&p->pending, memory_order_acquire)) != 0) {
		atomic_store_explicit(&p->runner_waits, 1, memory_order_seq_cst);
		if (atomic_load_explicit(&p->pending, memory_order_seq_cst) == v)
			host_futex_wait(&p->pending, v);
		atomic_store_explicit(&p->runner_waits, 0, memory_order_relaxed);
	}
}

void
host_pool_run_sc(struct host_pool *p, host_range_fn fn, const void *params,
		 int64_t n, int64_t chunk)
{
	int64_t chunks;
	uint64_t used, gen;

	if (n <= 0)
		return;
	chunks = (n - 1) / chunk + 1;
	used = (uint64_t)(chunks - 1) < p->nworkers ? (uint64_t)(chunks - 1) : p->nworkers;
	if (used == 0) {
		fn(params, 0, n);
		return;
	}
	p->fn = fn;
	p->params = params;
	p->n = n;
	p->chunk = chunk;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store_explicit(&p->pending, (uint32_t)used, memory_order_relaxed);
	gen = (atomic_load_explicit(&p->task, memory_order_relaxed) >> USED_BITS) + 1;
	/* Release pairs with wait_task()'s acquire: the fields above first. */
	atomic_store_explicit(&p->task, gen << USED_BITS | used, memory_order_release);
	atomic_fetch_add_explicit(&p->wake_seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&p->sleepers, memory_order_seq_cst))
		host_futex_wake(&p->wake_seq);
	run_chunks(p);
	wait_pending(p);
}

unsigned
host_pool_runners(const struct host_pool *p)
{
	return p->nworkers + 1;
}

static void
stop_workers(struct host_pool *p, unsigned started)
{
	unsigned i;

	atomic_store_explicit(&p->stop, true, memory_order_seq_cst);
	atomic_fetch_add_explicit(&p->wake_seq, 1, memory_order_seq_cst);
	host_futex_wake(&p->wake_seq);
	for (i = 0; i < started; i++)
		pthread_join(p->w[i].thread, NULL);
}

int
host_pool_start(struct host_pool **out, unsigned workers, char *why, size_t why_len)
{
	struct host_pool *p;
	unsigned i;
	int ret;

	if (workers > MAX_WORKERS)
		workers = MAX_WORKERS;
	p = aligned_alloc(64, sizeof(*p));
	if (!p) {
		snprintf(why, why_len, "no memory for the worker pool");
		return -ENOMEM;
	}
	memset(p, 0, sizeof(*p));
	p->nworkers = workers;
	p->w = calloc(workers ? workers : 1, sizeof(*p->w));
	if (!p->w) {
		free(p);
		snprintf(why, why_len, "no memory for %u workers", workers);
		return -ENOMEM;
	}
	for (i = 0; i < workers; i++) {
		p->w[i] = (struct worker){ .p = p, .id = i };
		ret = pthread_create(&p->w[i].thread, NULL, worker_main, &p->w[i]);
		if (ret != 0) {
			snprintf(why, why_len, "cannot start worker %u of %u: %s", i, workers, strerror(ret));
			stop_workers(p, i);
			free(p->w);
			free(p);
			return -ret;
		}
	}
	*out = p;
	return 0;
}

void
host_pool_stop(struct host_pool *p)
{
	if (!p)
		return;
	stop_workers(p, p->nworkers);
	free(p->w);
	free(p);
}
