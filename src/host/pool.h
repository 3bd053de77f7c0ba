/* SPDX-License-Identifier: MIT */
/*
 * host/pool.h: the host device's workers. One runner at a time (the device
 * thread) hands the pool a range [0, n) of indices and a function; the
 * runner and the workers take chunks of it until none is left, each chunk
 * one call fn(params, first, end), so every index runs exactly once.
 * host_pool_run_sc() returns once every call has returned, and everything
 * those calls wrote is then visible to the runner.
 *
 *               run_sc   stop
 *   run_sc        X       X      (X: needs exclusion; the device thread
 *   stop          X       X       alone calls both)
 */
#ifndef HOST_POOL_H
#define HOST_POOL_H

#include <sched.h>
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

/* From any thread: interrupt every worker that runs a kernel now. */
void host_pool_interrupt(struct host_pool *p);

/* The number of threads that run chunks: the workers and the runner. */
unsigned host_pool_runners(const struct host_pool *p);

/* Join the workers and free the pool. NULL does nothing. */
void host_pool_stop(struct host_pool *p);

#endif
