/* SPDX-License-Identifier: MIT */
/*
 * host/pool.h: the host device's workers. One runner at a time (the device
 * thread) hands the pool a range [0, n) of indices and a function; the
 * runner and the workers take chunks of it until none is left, each chunk
 * one call fn(params, first, end), so every index runs exactly once.
 * host_pool_run_sc() returns once every call has returned, and everything
 * those calls wrote is then visible to the runner.
 *
 *               run_sc   stop   help   interrupt
 *   run_sc        X       X
 *   stop          X       X       X        X     (X: needs exclusion; the
 *   help                  X                       device thread alone calls
 *   interrupt             X                       run_sc and stop; the owner
 *                                                 stops help before stop)
 */
#ifndef HOST_POOL_H
#define HOST_POOL_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A host kernel's calling convention, also used for the copy engine's chunks. */
typedef void (*host_range_fn)(const void *params, int64_t first, int64_t end);

struct host_pool;
struct host_guard;
struct host_fault;

/*
 * host_pool_start() - a pool of `workers` threads (0: a pool whose runner
 * does everything), each run on the cores of *cores (NULL: any).
 * Returns 0, or a negative errno with why filled.
 */
int host_pool_start(struct host_pool **out, unsigned workers, const cpu_set_t *cores,
		    char *why, size_t why_len);

/* Run fn over [0, n) in chunks of chunk indices (>= 1); the caller joins in. */
void host_pool_run_sc(struct host_pool *p, host_range_fn fn,
		      const void *params, int64_t n, int64_t chunk);

/*
 * A launch that ends its value (exec.c): the last thread out of it, where
 * no call faulted, stores value in *word (release: after every call's
 * writes) and calls wake (exec.c's: rig_word_wake, which wakes the word's
 * sleepers), then sets stored.
 * The caller gives it only when that store keeps device order: the
 * launch is its value's last part and the previous value is complete.
 */
struct host_pool_done {
	_Atomic uint64_t *word;
	uint64_t value;
	void (*wake)(const _Atomic uint64_t *word);
	/* Optional: called by the runner as a split launch starts (exec.c's:
	 * rig_word_wake, so a waiter asleep wakes to join it: assist.c). */
	void (*begin)(const _Atomic uint64_t *word);
	bool stored;		/* read by the runner once the launch returned */
};

/*
 * host_pool_launch() - as host_pool_run_sc(), for a kernel: every call
 * runs guarded (guard.h), the runner's on runner. Returns false, or true
 * once a call faulted or was interrupted: *fault says how (the first such
 * call's), and the range's chunks not yet claimed are dropped. done (or
 * NULL): the value the launch completes, stored by whichever thread ends
 * it last, so a waiter wakes from that thread, not after a hand-back to
 * the runner; done->stored says whether it was (never after a fault).
 * ranges (or NULL, with no clock read): host_pool_runners() pairs, zeroed
 * by the caller, where each thread that ran chunks writes when its first
 * began and its last ended (index 0 the runner, 1 + i worker i), on the
 * clock rig_now_ns() reads; a profile's only. A launch small enough for
 * one call runs on the runner untimed, all of it: the caller's own times
 * of the launch are then the runner's range.
 */
struct rig_times;
bool host_pool_launch(struct host_pool *p, struct host_guard *runner,
		      host_range_fn fn, const void *params, int64_t n,
		      int64_t chunk, struct host_pool_done *done,
		      struct rig_times *ranges, struct host_fault *fault);

/*
 * Helpers (pool.c): a thread not the pool's that waits for a value (a
 * waiter lent to the device, assist.c) runs chunks of the open task.
 * host_pool_open_task(): the open task's generation, 0 for none (a
 * relaxed look, any thread; a task is its pool's id and generation). host_pool_help(): join the open task (false
 * where none is open or MAX_HELPERS help now), run its chunks armed on g
 * (the caller's own guard, borrowed: guard.h) until none is left or
 * *word shows value, leave it (storing the word where this thread ends
 * it last), and fill *h. While it may run a chunk, host_pool_interrupt()
 * interrupts it too.
 */
struct host_pool_help {
	uint64_t gen;		/* the task it joined (or found): join each once */
	uint64_t longest_ns;	/* its longest chunk, 0 if it ran none */
	uint64_t chunk_ns;	/* the pool's hint: how long a helper's chunk took */
};
uint64_t host_pool_open_task(const struct host_pool *p);
/* The pool's id: no other pool of the process has had it. */
uint64_t host_pool_id(const struct host_pool *p);
bool host_pool_help(struct host_pool *p, struct host_guard *g,
		    const _Atomic uint64_t *word, uint64_t value,
		    struct host_pool_help *h);

/* From any thread: interrupt every worker, and helper, that runs a kernel now. */
void host_pool_interrupt(struct host_pool *p);

/* The number of threads that run chunks: the workers and the runner. */
unsigned host_pool_runners(const struct host_pool *p);

/* Join the workers and free the pool. NULL does nothing. */
void host_pool_stop(struct host_pool *p);

#endif
