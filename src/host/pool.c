/* SPDX-License-Identifier: MIT */
/*
 * host/pool.c: the worker pool (pool.h states its guarantees).
 *
 * Design. The runner publishes one task at a time: it writes the task's
 * fields, then stores `state` = (generation g, open, 0 joined) with release.
 * A worker that sees a new generation joins it by a CAS that adds one to the
 * joined count while the task is still open; joined, it claims chunks with
 * one fetch-add on `next` (so each index runs once) and leaves with a
 * release decrement. Once the runner has claimed past the end it closes the
 * task (a fetch-or of CLOSED) and waits only for the workers that joined:
 * a worker that was asleep or descheduled never delays a task it missed.
 *
 * Invariants: (1) a worker reads fn, params, n and chunk only between a
 * join of an open task and its leave; (2) the runner writes them only while
 * the last task is closed with no worker joined. So no field is written
 * while a worker may read it. A worker whose CAS finds the task closed, or
 * a newer one, joins nothing and reads nothing.
 *
 * Waiting (spin.h): a worker waits for a new generation with a few pauses,
 * then yields, then sleeps on `task_ec`, an event count (util/ec.h) the
 * runner bumps after each publish; each worker's budget of yields adapts
 * to how often tasks come. The runner waits for the joined workers to
 * leave the same way, on `left_ec`, which the last worker to leave a
 * closed task bumps. A bump makes a system call only when someone sleeps.
 * Worked interleaving of the lost-wake-up race: a worker reads task_ec = s,
 * re-reads state (old generation); the runner stores the new task, then
 * bumps task_ec to s+1 (ck_ec orders the bump after the store); the
 * worker's ck_ec32_wait(s) then finds s+1 and returns at once, or has
 * flagged the count first, so that the bump wakes it.
 *
 * Completing a value (host_pool_launch's done): the thread whose leave
 * ends the launch stores the value's word and wakes its sleepers, so the
 * waiter needs one wake-up, not the last worker's wake of the runner and
 * then the runner's of the waiter. Which thread is last: a worker that
 * reads state closed with itself the one joined (no one joins a closed
 * task, so no call of it runs elsewhere any more; the runner's own chunks
 * ended before it closed), or else the runner once none is joined. The
 * worker stores before its decrement, so the runner, which goes on only
 * after the decrement, stores the next value after it: the word never goes
 * backwards. Its acquire read of state also sees every other thread's
 * fault record (each wrote it before its release decrement or the close),
 * so a faulted launch's value is never stored. Then that thread yields
 * once (hand_over): a waiter awake for the launch's end (timeline/wait.c
 * yields near the end it expects) may share its core, and would otherwise
 * run only once this thread's next wait has spent its pauses. Not after a
 * launch of one call (the runner's alone): those are short, their waiters
 * rarely sleep, and back to back each yield would cost a batch of them
 * ~0.3 us a value (bench/host.c's batched_submit, 406 -> 745 ns).
 *
 * Helpers (host_pool_help): a thread that waits for the value a task
 * works for (assist.c, for rig's waits) joins it as a worker does, by the
 * same CAS while it is open, and leaves the same way, so invariants 1
 * and 2 and the completion rule hold unchanged: the runner waits for it
 * as for any joined worker, and whichever thread leaves last stores the
 * word, the waiter itself included (it then returns without a wake-up).
 * It runs its chunks armed on its own guard, registered in `helpers`
 * while it may run, so that host_pool_interrupt() reaches it too; it
 * stops claiming once the word shows its value, and joins each task at
 * most once (the caller keeps the generation), so a task whose chunks are
 * all claimed costs it one join. helper_lock guards the registry only:
 * an interrupt and a helper's leave never cross, so no signal is sent to
 * a thread that has left (it may have ended). Timed: each of its chunks
 * (two clock reads; a helper is a waiter, not on the launch's own path),
 * so it can tell the wait how long the others' chunks should take
 * (chunk_ns, a relaxed hint). A task that completes a value wakes the
 * word's sleepers as it starts (done->begin), so a waiter asleep since
 * before the launch began joins it rather than sleeping through its end.
 * The runner steps back once a helper runs
 * the task and every worker joined it too (`helped`, then the joined
 * count, read before each of its claims; a worker still asleep would
 * find the task closed): it closes the task and waits for the joined to
 * leave, so the launch keeps one thread per
 * core (the waiter's in the runner's place) rather than one more than
 * there are cores, where the scheduler would hold one of them, chunk and
 * all, off every core until the others ran out. What is left is claimed
 * by the helper, which claims until none is left (or a fault drops it).
 *
 * Faults (host_pool_launch): a kernel task is `guarded`, and each thread
 * runs its chunks armed (guard.h). A thread whose call faulted (or was
 * interrupted) comes back out of it, records the first fault of the task
 * (`faulted` 0 -> 1, then `fault`), moves `next` to the end so no one
 * claims more, and leaves as usual: the runner reads `fault` after every
 * joined worker left (the leave's release), so it sees the record.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig_edge.h"
#include "util/ec.h"
#include "host/guard.h"
#include "host/pool.h"
#include "host/spin.h"

/* state: generation << GEN_SHIFT | CLOSED | joined workers. */
#define GEN_SHIFT	24
#define CLOSED		((uint64_t)1 << 23)
#define JOINED		(CLOSED - 1)
#define MAX_WORKERS	4096u
#define MAX_HELPERS	16u
_Static_assert(MAX_WORKERS + MAX_HELPERS < JOINED, "the joined count holds every worker and helper");

struct worker {
	struct host_pool *p;
	pthread_t thread;
	struct host_spin spin;			/* its waits for a task */
	struct host_guard guard;		/* its kernels' faults */
};

struct host_pool {
	/* The task, written by the runner under invariant 2. */
	host_range_fn fn;
	const void *params;
	int64_t n, chunk;
	bool guarded;				/* a kernel: calls run armed */
	struct host_pool_done *done;		/* the value it completes, or NULL */
	struct rig_times *ranges;		/* a profile's: each thread's range, or NULL */
	unsigned nworkers;
	struct worker *w;
	uint64_t id;				/* this pool's, of every pool the process made */

	struct host_spin join_spin;		/* the runner's waits for leavers */

	alignas(64) _Atomic uint64_t state;
	struct ck_ec32 task_ec;			/* bumped after each publish, and at stop */
	_Atomic bool stop;
	alignas(64) _Atomic int64_t next;	/* the next unclaimed index */
	_Atomic int faulted;			/* 1 once a call of the task faulted */
	_Atomic bool helped;			/* a helper runs the task's chunks */
	struct host_fault fault;		/* the first, written by its thread */
	alignas(64) struct ck_ec32 left_ec;	/* bumped by the last to leave a closed task */

	/* Helpers (see the top): the guards of the waiters that may run
	 * chunks now, under helper_lock; and how long a chunk took them. */
	alignas(64) pthread_mutex_t helper_lock;
	struct host_guard *helpers[MAX_HELPERS];
	_Atomic uint64_t chunk_ns;
};

static _Atomic uint64_t pool_ids;

/* CLOCK_MONOTONIC, the clock rig_now_ns() reads: only for a profile. */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* As run_chunks(), timing this thread's range: from its first chunk's
 * start to its last's end, nothing where it claimed none. Out of line and
 * cold, so run_chunks() keeps its untimed loop as it was (callgrind). */
static __attribute__((noinline, cold)) void
run_chunks_timed(struct host_pool *p, struct rig_times *range)
{
	int64_t first, end;
	uint64_t start = now_ns();
	bool ran = false;

	for (;;) {
		first = atomic_fetch_add_explicit(&p->next, p->chunk, memory_order_relaxed);
		if (first >= p->n)
			break;
		end = p->n - first < p->chunk ? p->n : first + p->chunk;
		p->fn(p->params, first, end);
		ran = true;
	}
	if (ran) {
		range->start_ns = start;
		range->end_ns = now_ns();
	}
}

/* Whether the threads joined now (every worker and a helper, at least)
 * run the task on as many threads as the runner and workers would. */
static bool
stand_in(struct host_pool *p)
{
	uint64_t t = atomic_load_explicit(&p->state, memory_order_relaxed);

	return (t & JOINED) > p->nworkers;
}

/* Chunks until none is left; self: the thread's index in ranges. */
static void
run_chunks(struct host_pool *p, unsigned self)
{
	int64_t first, end;

	/* The one branch a launch pays for profiles while none is taken. */
	if (__builtin_expect(p->ranges != NULL, 0)) {
		run_chunks_timed(p, &p->ranges[self]);
		return;
	}
	for (;;) {
		/* The runner steps back for a helper (see the top). Relaxed:
		 * whoever is joined claims what is left either way. */
		if (self == 0 && atomic_load_explicit(&p->helped, memory_order_relaxed) &&
		    stand_in(p))
			return;
		/* Relaxed: the claim orders nothing; the fields were published
		 * by the acquire of the join (or are the runner's own). */
		first = atomic_fetch_add_explicit(&p->next, p->chunk, memory_order_relaxed);
		if (first >= p->n)
			return;
		end = p->n - first < p->chunk ? p->n : first + p->chunk;
		p->fn(p->params, first, end);
	}
}

/* A call of the task faulted on this thread: record the first, drop the rest. */
static void
faulted(struct host_pool *p, const struct host_fault *f)
{
	int none = 0;

	/* The CAS elects one writer; the runner reads fault after the
	 * writer's leave (release) or on its own thread. */
	if (atomic_compare_exchange_strong_explicit(&p->faulted, &none, 1,
						    memory_order_relaxed,
						    memory_order_relaxed))
		p->fault = *f;
	atomic_store_explicit(&p->next, p->n, memory_order_relaxed);
}

/* The chunks a thread runs, armed on g when the task is a kernel. */
static void
run_task(struct host_pool *p, struct host_guard *g, unsigned self)
{
	bool fault = false;

	if (!p->guarded || !g) {
		run_chunks(p, self);
		return;
	}
	HOST_GUARDED(g, fault, run_chunks(p, self));
	if (fault)
		faulted(p, &g->fault);
}

static bool
newer(uint64_t state, uint64_t seen_gen)
{
	return state >> GEN_SHIFT != seen_gen;
}

static bool
stopped(struct host_pool *p)
{
	/* Pairs with stop_workers()'s release store. */
	return atomic_load_explicit(&p->stop, memory_order_acquire);
}

/* A worker's wait for a generation other than seen_gen, or stop. */
static uint64_t
wait_task(struct host_pool *p, struct worker *w, uint64_t seen_gen)
{
	struct host_wait hw = host_wait_begin(&w->spin);
	uint32_t seen;
	uint64_t t;

	for (;;) {
		t = atomic_load_explicit(&p->state, memory_order_relaxed);
		if (newer(t, seen_gen) || stopped(p))
			break;
		if (host_wait_spin(&hw))
			continue;
		/* The count first, then the last look (see the top). */
		seen = ck_ec32_value(&p->task_ec);
		t = atomic_load_explicit(&p->state, memory_order_relaxed);
		if (newer(t, seen_gen) || stopped(p))
			break;
		ck_ec32_wait(&p->task_ec, ec_sp(), seen, NULL);
		host_wait_slept(&hw);
	}
	host_wait_end(&hw);
	return t;
}

/* Join the open task *t names, or a newer open one (*t follows the CAS);
 * false if the task is closed. */
static bool
join(struct host_pool *p, uint64_t *t)
{
	/* Acquire pairs with the runner's release store of state: the task's
	 * fields and the reset of next are visible once joined. */
	while (!(*t & CLOSED))
		if (atomic_compare_exchange_weak_explicit(&p->state, t, *t + 1,
							  memory_order_acquire,
							  memory_order_relaxed))
			return true;
	return false;
}

/* The launch's calls are over and none faulted: its value is complete. */
static void
complete(struct host_pool_done *done)
{
	/* Release pairs with every reader of the word: the calls' writes
	 * (this thread's, and the others' through state) come first. */
	atomic_store_explicit(done->word, done->value, memory_order_release);
	done->wake(done->word);
	done->stored = true;
}

/* After a split launch's completion: a waiter that yields on this core
 * runs now (see the top); a system call of well under a microsecond where
 * none does, once per launch of several chunks. */
static void
hand_over(void)
{
	sched_yield();
}

/* Leave the task joined; hand: yield after a completion (see the top). */
static void
leave(struct host_pool *p, bool hand)
{
	bool completed = false;
	uint64_t was, t;

	if (p->done) {
		/* Acquire: the other threads' calls and fault records (see the
		 * top) happen before this thread's store of the word. */
		t = atomic_load_explicit(&p->state, memory_order_acquire);
		if ((t & CLOSED) && (t & JOINED) == 1 &&
		    !atomic_load_explicit(&p->faulted, memory_order_relaxed)) {
			complete(p->done);
			completed = true;
		}
	}
	/* Release pairs with the runner's acquire in wait_joined(): what fn
	 * wrote is visible to it. */
	was = atomic_fetch_sub_explicit(&p->state, 1, memory_order_release);
	/* The last to leave a closed task: after the decrement, so a runner
	 * that reads the count after this bump sees none joined. The runner
	 * may go on once it sees the decrement, so the next task's last
	 * leaver may bump while this one does: ec_mp. */
	if ((was & JOINED) == 1 && (was & CLOSED))
		ck_ec32_inc(&p->left_ec, ec_mp());
	if (completed && hand)
		hand_over();
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct host_pool *p = w->p;
	uint64_t t, seen_gen = 0;
	bool joined;

	host_guard_begin(&w->guard);
	for (;;) {
		t = wait_task(p, w, seen_gen);
		if (stopped(p))
			break;
		joined = join(p, &t);
		seen_gen = t >> GEN_SHIFT;
		if (!joined)
			continue;	/* closed: reads no field (invariant 1) */
		run_task(p, &w->guard, (unsigned)(w - p->w) + 1);
		leave(p, true);
	}
	host_guard_end(&w->guard);
	return NULL;
}

static bool
none_joined(struct host_pool *p)
{
	/* Acquire pairs with each worker's release in leave(). */
	return !(atomic_load_explicit(&p->state, memory_order_acquire) & JOINED);
}

/* Close the task and wait for the workers that joined it to leave. */
static void
wait_joined(struct host_pool *p)
{
	struct host_wait w;
	uint32_t seen;

	/* The changes of state have one order, so a join CAS after the close
	 * finds the task closed; none_joined() acquires. Release: a worker
	 * that reads the close (leave) sees the runner's calls' writes and
	 * fault record. */
	atomic_fetch_or_explicit(&p->state, CLOSED, memory_order_release);
	if (none_joined(p))
		return;
	w = host_wait_begin(&p->join_spin);
	while (!none_joined(p)) {
		if (host_wait_spin(&w))
			continue;
		/* The count first, then the last look (see the top). */
		seen = ck_ec32_value(&p->left_ec);
		if (none_joined(p))
			break;
		ck_ec32_wait(&p->left_ec, ec_mp(), seen, NULL);
		host_wait_slept(&w);
	}
	host_wait_end(&w);
}

/* Publish a task and run it with the workers; g: the runner's guard. */
static void
run(struct host_pool *p, struct host_guard *g, bool guarded, host_range_fn fn,
    const void *params, int64_t n, int64_t chunk, struct host_pool_done *done,
    struct rig_times *ranges)
{
	uint64_t gen;

	p->done = done;
	p->ranges = ranges;
	p->fn = fn;
	p->params = params;
	p->n = n;
	p->chunk = chunk;
	p->guarded = guarded;
	atomic_store_explicit(&p->faulted, 0, memory_order_relaxed);
	atomic_store_explicit(&p->helped, false, memory_order_relaxed);
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	gen = (atomic_load_explicit(&p->state, memory_order_relaxed) >> GEN_SHIFT) + 1;
	/* Release pairs with join()'s acquire: the fields above first. */
	atomic_store_explicit(&p->state, gen << GEN_SHIFT, memory_order_release);
	/* After the store (see the top). The runner alone bumps it while
	 * workers run: ec_sp, a plain increment while none sleeps. */
	ck_ec32_inc(&p->task_ec, ec_sp());
	/* A waiter asleep on the value this task completes wakes to join it
	 * (see the top): a locked increment where none sleeps. */
	if (done && done->begin)
		done->begin(done->word);
	run_task(p, g, 0);
	wait_joined(p);
}

void
host_pool_run_sc(struct host_pool *p, host_range_fn fn, const void *params,
		 int64_t n, int64_t chunk)
{
	if (n <= 0)
		return;
	if (n <= chunk || p->nworkers == 0) {
		fn(params, 0, n);
		return;
	}
	run(p, NULL, false, fn, params, n, chunk, NULL, NULL);
}

bool
host_pool_launch(struct host_pool *p, struct host_guard *runner, host_range_fn fn,
		 const void *params, int64_t n, int64_t chunk,
		 struct host_pool_done *done, struct rig_times *ranges,
		 struct host_fault *fault)
{
	bool f = false;

	if (done)
		done->stored = false;
	if (n <= 0)
		return false;
	if (n <= chunk || p->nworkers == 0) {
		/* One call on the runner: a small grid wakes no worker. */
		/* Untimed even in a profile: the caller's times of the
		 * launch are the runner's range (pool.h). */
		HOST_GUARDED(runner, f, fn(params, 0, n));
		if (f)
			*fault = runner->fault;
		else if (done)
			complete(done);	/* no hand_over: a batch of small
					 * launches would pay a yield for each */
		return f;
	}
	run(p, runner, true, fn, params, n, chunk, done, ranges);
	if (!atomic_load_explicit(&p->faulted, memory_order_relaxed)) {
		/* No worker ended it last: the runner completes the value. */
		if (done && !done->stored) {
			complete(done);
			hand_over();
		}
		return false;
	}
	*fault = p->fault;
	return true;
}

void
host_pool_interrupt(struct host_pool *p)
{
	unsigned i;

	for (i = 0; i < p->nworkers; i++)
		host_guard_interrupt(&p->w[i].guard);
	/* Under the lock: a registered helper has not left (see the top). */
	pthread_mutex_lock(&p->helper_lock);
	for (i = 0; i < MAX_HELPERS; i++)
		if (p->helpers[i])
			host_guard_interrupt(p->helpers[i]);
	pthread_mutex_unlock(&p->helper_lock);
}

uint64_t
host_pool_id(const struct host_pool *p)
{
	return p->id;
}

uint64_t
host_pool_open_task(const struct host_pool *p)
{
	/* Relaxed: a hint; the join's CAS decides. Generation 0 is none. */
	uint64_t t = atomic_load_explicit(&p->state, memory_order_relaxed);

	return t & CLOSED ? 0 : t >> GEN_SHIFT;
}

/* A helper's chunks: until none is left or word shows value, each timed. */
static void
help_chunks(struct host_pool *p, const _Atomic uint64_t *word, uint64_t value,
	    uint64_t *longest)
{
	int64_t first, end;
	uint64_t t0, t;

	for (;;) {
		/* Relaxed: a reason to stop early; the wait looks again. */
		if (atomic_load_explicit(word, memory_order_relaxed) >= value)
			return;
		first = atomic_fetch_add_explicit(&p->next, p->chunk, memory_order_relaxed);
		if (first >= p->n)
			return;
		end = p->n - first < p->chunk ? p->n : first + p->chunk;
		t0 = now_ns();
		p->fn(p->params, first, end);
		t = now_ns() - t0;
		if (t > *longest)
			*longest = t;
	}
}

static bool
helper_add(struct host_pool *p, struct host_guard *g)
{
	bool added = false;

	pthread_mutex_lock(&p->helper_lock);
	for (unsigned i = 0; i < MAX_HELPERS && !added; i++)
		if (!p->helpers[i]) {
			p->helpers[i] = g;
			added = true;
		}
	pthread_mutex_unlock(&p->helper_lock);
	return added;
}

static void
helper_remove(struct host_pool *p, struct host_guard *g)
{
	pthread_mutex_lock(&p->helper_lock);
	for (unsigned i = 0; i < MAX_HELPERS; i++)
		if (p->helpers[i] == g)
			p->helpers[i] = NULL;
	pthread_mutex_unlock(&p->helper_lock);
}

bool
host_pool_help(struct host_pool *p, struct host_guard *g, const _Atomic uint64_t *word,
	       uint64_t value, struct host_pool_help *h)
{
	uint64_t t = atomic_load_explicit(&p->state, memory_order_relaxed);
	bool fault = false;

	h->gen = t >> GEN_SHIFT;
	h->longest_ns = 0;
	if (h->gen == 0 || !helper_add(p, g))
		return false;
	if (!join(p, &t)) {
		helper_remove(p, g);
		return false;
	}
	h->gen = t >> GEN_SHIFT;
	/* A profile's task times its runners by index: a helper has none. */
	if (!p->ranges) {
		atomic_store_explicit(&p->helped, true, memory_order_relaxed);
		if (p->guarded) {
			HOST_GUARDED(g, fault, help_chunks(p, word, value, &h->longest_ns));
			if (fault)
				faulted(p, &g->fault);
		} else {
			help_chunks(p, word, value, &h->longest_ns);
		}
	}
	if (h->longest_ns)
		atomic_store_explicit(&p->chunk_ns, h->longest_ns, memory_order_relaxed);
	h->chunk_ns = atomic_load_explicit(&p->chunk_ns, memory_order_relaxed);
	/* No hand-over: the helper is a waiter, and returns to its wait. */
	leave(p, false);
	helper_remove(p, g);
	return true;
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

	/* Release pairs with stopped(); the bump after it wakes sleepers,
	 * which then see stop. ec_mp: it must not lose a sleeper's flag. */
	atomic_store_explicit(&p->stop, true, memory_order_release);
	ck_ec32_inc(&p->task_ec, ec_mp());
	for (i = 0; i < started; i++) {
		pthread_join(p->w[i].thread, NULL);
		host_guard_release(&p->w[i].guard);
	}
}

int
host_pool_start(struct host_pool **out, unsigned workers, const cpu_set_t *cores,
		char *why, size_t why_len)
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
	/* A helper tells tasks apart by pool and generation; a pool's
	 * address may be a freed one's, its id never is. */
	p->id = atomic_fetch_add_explicit(&pool_ids, 1, memory_order_relaxed) + 1;
	ck_ec32_init(&p->task_ec, 0);
	ck_ec32_init(&p->left_ec, 0);
	pthread_mutex_init(&p->helper_lock, NULL);
	host_spin_init(&p->join_spin);
	p->nworkers = workers;
	p->w = calloc(workers ? workers : 1, sizeof(*p->w));
	if (!p->w) {
		free(p);
		snprintf(why, why_len, "no memory for %u workers", workers);
		return -ENOMEM;
	}
	for (i = 0; i < workers; i++) {
		p->w[i] = (struct worker){ .p = p };
		host_spin_init(&p->w[i].spin);
		ret = -host_guard_prepare(&p->w[i].guard);
		if (ret == 0)
			ret = pthread_create(&p->w[i].thread, NULL, worker_main, &p->w[i]);
		if (ret != 0)
			host_guard_release(&p->w[i].guard);
		if (ret == 0) {
			char name[16];

			snprintf(name, sizeof(name), "rig-host-w%u", i);
			pthread_setname_np(p->w[i].thread, name);
			if (cores)
				pthread_setaffinity_np(p->w[i].thread, sizeof(*cores), cores);
		}
		if (ret != 0) {
			snprintf(why, why_len, "cannot start worker %u of %u: %s", i, workers, strerror(ret));
			stop_workers(p, i);
			pthread_mutex_destroy(&p->helper_lock);
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
	pthread_mutex_destroy(&p->helper_lock);
	free(p->w);
	free(p);
}
