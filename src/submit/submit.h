/* SPDX-License-Identifier: MIT */
/*
 * submit/submit.h: handing work to a driver. A submitter owns the calls of
 * the five C functions for one device: rig calls them one at a time, under
 * the driver lock, from the device's submission thread, or from a
 * submitting thread whose value is the thread's next (and, for a device
 * whose work runs before submit returns, always from the submitting one).
 *
 * A submit is three steps, so that its caller can claim memory (stamps) in
 * the same order as values:
 *   submit_reserve()  - the device's next value (one fetch-add);
 *   submit_job_memory() - where that value's job lies (its ring slot, or
 *                     the caller's heap block once the slot is free);
 *   submit_publish()  - the job, handed to the ring (or run).
 * Between them the caller records the value in the stamps of the memory the
 * job uses and builds the job. Every reserved value must be published.
 *
 * Not here: what the memory a job uses is (core/), the words and futexes
 * (timeline/).
 */
#ifndef SUBMIT_SUBMIT_H
#define SUBMIT_SUBMIT_H

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>

#include "rig_edge.h"
#include "submit/ring.h"
#include "submit/stamp.h"
#include "timeline/timeline.h"
#include "util/slock.h"

/*
 * The work of one value. It lives in its ring slot's room (or in heap, when
 * larger, which the submitter frees after the driver's submit). The
 * submitter calls prepare (if set) under the driver lock just before room,
 * so parts may live in the submission (their scratch kept from one call to
 * the next) and be filled for this value there.
 */
struct profile_dev;

struct job {
	struct rig_part *parts;
	size_t nparts;
	struct rig_wait *waits;		/* waits the device's queues do */
	size_t nwaits;
	struct stamp *host_waits;	/* points the host waits for first */
	size_t nhost_waits;
	void (*prepare)(struct job *);
	void *heap;			/* the job's bytes when malloc'd, else NULL */
	const void *owner;		/* the submission it runs, or NULL (a loss names it) */
	struct rig_times *times;	/* the pair the driver's submit writes while a
					 * profile times the value, else NULL */
};

#define SUBMIT_OWNERS 1024	/* the last values whose submissions a loss can name */

struct submitter {
	struct timeline *tl;
	const struct rig_driver *drv;
	void *edge;
	const struct rig_ops *ops;
	void *handle;
	bool inline_run;		/* the submitting thread calls the driver */
	bool may_block;			/* facts.may_block: no submitter runs a value itself */
	struct slock driver_lock;	/* one driver call at a time (util/slock.h) */
	/* Read-held around every driver call made outside the driver lock
	 * (alloc, free, load, an events call...), write-held around stop. */
	pthread_rwlock_t ops_lock;
	_Atomic bool stopped;		/* the driver's stop returned */
	/* The next value to reach the driver: the thread's cursor, moved
	 * under the driver lock (by the thread, or by a submitter that ran
	 * its own value there). Every value below it is done with. */
	_Atomic uint64_t next;
	/* The submissions of the last SUBMIT_OWNERS values handed over, for a
	 * loss's record: value, then owner, read as a sequence lock. */
	struct { _Atomic uint64_t value; const void *_Atomic owner; } owners[SUBMIT_OWNERS];
	_Atomic bool stopping;
	bool has_thread;
	pthread_t thread;
	char name[64];			/* the device's, for messages */
	/* Return released memory for a grow that came up short; true if
	 * some came back. Set by core. */
	bool (*reclaim)(struct submitter *s);
	/* The profile timing this device's values (src/profile/), or NULL:
	 * a submit's one branch when none is taken. */
	struct profile_dev *_Atomic prof;
	/* An inline device's job, under the driver lock. Aligned as a ring
	 * slot's room is: a job holds parts with 16-byte aligned scratch. */
	alignas(16) unsigned char inline_room[SRING_ROOM];
	struct sring ring;
};

/* Whether a profile times s's values: the submit's one branch for
 * profiles, none where they are compiled out (meson option profiles). */
#ifdef RIG_NO_PROFILES
#define submit_profiled(s) false
#else
#define submit_profiled(s) \
	(atomic_load_explicit(&(s)->prof, memory_order_relaxed) != NULL)
#endif

/* Set up s for the timeline tl (started) and start its thread unless
 * inline. 0 or a negative errno. */
int submit_start(struct submitter *s, struct timeline *tl);
/*
 * Stop s: every published job is run or dropped, the driver stopped (if
 * the thread did not already, as it does soon after a loss) and the thread
 * joined. Call once the timeline is lost (no new reserve succeeds).
 */
void submit_stop(struct submitter *s);

/*
 * Counted calls: every driver call made outside the driver lock is
 * bracketed by these, so the driver's stop never runs while one is in
 * flight, even one that blocks (room, submit and commit run under the
 * driver lock, which stop takes too). enter: for calls that make
 * something new (alloc, load, map, events); false, holding nothing, once
 * the device is lost. hold: for calls that return things (free, unload),
 * which run before stop or after it, never during. Hold nothing else
 * that a counted call could wait for: take no lock of rig's in between.
 */
bool submit_call_enter(struct submitter *s);
void submit_call_hold(struct submitter *s);
void submit_call_leave(struct submitter *s);

/*
 * At exit, after the loss: wait until the thread has stopped the driver.
 * false, having waited no longer, once a driver call that may block has
 * been in flight for SUBMIT_CALL_BOUND_NS (or SUBMIT_SETTLE_BOUND_NS
 * passed in all): the caller then leaves the device lost, never stopped.
 * true at once for a device with no thread (its stop needs none).
 */
#define SUBMIT_CALL_BOUND_NS 1000000000ull
#define SUBMIT_SETTLE_BOUND_NS 10000000000ull
bool submit_settle(struct submitter *s);

/* Free what submit_start() made, once nothing can reach s. */
void submit_free(struct submitter *s);

/* A value v drawn by a reserve that then saw the loss (submit.c): the
 * thread gets a job that runs nothing for it if it waits for v (below
 * issued_end); else v is left, named by nothing. */
void submit_refuse_drawn(struct submitter *s, uint64_t v);

#ifdef RIG_TEST_HOOKS
/* A test's window on a reserve (test_stress_lose_submit): when set,
 * called before the draw (drawn false) and after it, with the value. NULL
 * in programs; absent from release builds. */
extern void (*submit_reserve_trace)(struct submitter *s, bool drawn, uint64_t v);
#endif

/* Reserve the next value into *v; RIG_ELOST (-ENODEV, rig.h) once the
 * device is lost. Inline: it is on every submit's path, a few
 * instructions around its one locked one, where a call cost as many. */
static inline int
submit_reserve(struct submitter *s, uint64_t *v)
{
	if (s->inline_run) {
		/* The driver lock, held until the publish, is what a stop
		 * waits for: no count needed. A loss comes before the stop,
		 * which takes the lock, so one seen after it is final. */
		slock_lock(&s->driver_lock);
		if (atomic_load_explicit(&s->tl->lost, memory_order_acquire)) {
			slock_unlock(&s->driver_lock);
			return -ENODEV;
		}
		/* Release, not seq_cst (an xchg, a full barrier, every copy):
		 * the driver lock orders issued against a stop, and its one
		 * Dekker partner, a profile's detach, is a profiled submit's
		 * (profile_note() fences before it reads the pointer). */
		*v = atomic_load_explicit(&s->tl->issued, memory_order_relaxed) + 1;
		atomic_store_explicit(&s->tl->issued, *v, memory_order_release);
		return 0;
	}
	/* A loss already seen draws no value. */
	if (atomic_load_explicit(&s->tl->lost, memory_order_acquire))
		return -ENODEV;
	/* The draw before the loss check, both seq_cst, against the loss's
	 * store of lost, then its read of issued (issued_end): either we see
	 * the loss, or our value lies below issued_end, and the thread, which
	 * drops every value below issued_end before it stops the driver,
	 * waits for our publish. No count of reserves in flight: the draw's
	 * fetch-add is the one locked instruction. */
#ifdef RIG_TEST_HOOKS
	if (submit_reserve_trace)
		submit_reserve_trace(s, false, 0);
#endif
	*v = atomic_fetch_add(&s->tl->issued, 1) + 1;
#ifdef RIG_TEST_HOOKS
	if (submit_reserve_trace)
		submit_reserve_trace(s, true, *v);
#endif
	if (__builtin_expect(atomic_load(&s->tl->lost) != NULL, 0)) {
		submit_refuse_drawn(s, *v);
		return -ENODEV;
	}
	return 0;
}
/* Where v's job lies (v reserved by this thread): heap if the job needed
 * one, else the SRING_ROOM bytes of v's slot. Either way it waits for v's
 * ring slot, which the value takes even when its job
 * lies on the heap (or it would overwrite a value not yet taken). */
void *submit_job_memory(struct submitter *s, uint64_t v, void *heap);
/* Hand over v's job (reserved by this thread, in its room or in heap). A
 * submitter that finds the device's thread with nothing before v runs the
 * driver's submit itself (values stay in order: under the driver lock,
 * and only for the thread's next value). */
void submit_publish(struct submitter *s, uint64_t v, struct job *job);
/* Whether the submitter is done with v's job: nothing of rig's reads what
 * v's job named (its submission) any more once this holds and v is
 * settled. */
bool submit_passed(struct submitter *s, uint64_t v);

#ifdef RIG_TEST_HOOKS
/*
 * A test's window on routing (test_order): when set, called by
 * submit_publish() with the device's slot, the value and its job, before
 * the job is handed over. NULL in programs; absent from release builds.
 */
extern void (*submit_trace)(int slot, uint64_t value, const struct job *job);
#endif

/* The submission whose job value was, while it is among the last
 * SUBMIT_OWNERS handed over; else NULL. */
const void *submit_owner_of(struct submitter *s, uint64_t value);

/* Lose the device: the reason, kept; no new work reaches the driver. */
void submit_lose(struct submitter *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, naming value and the job's submission as the culprit. */
void submit_lose_at(struct submitter *s, uint64_t value, const struct job *job,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
