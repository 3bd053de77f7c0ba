/* SPDX-License-Identifier: MIT */
/*
 * submit/submit.c: the device's submission thread and the driver calls.
 *
 * The thread takes the ring's jobs in value order. For each it waits on the
 * host for the producers the device's queues cannot wait for, asks room
 * until the parts fit, calls submit, and commits when nothing else is
 * queued (docs/order.md, Commits: work never idles uncommitted while nothing else
 * arrives) or when a waiter asked for the value. Waiters that find their
 * value already submitted commit it themselves, under the driver lock.
 *
 * A submitter whose value is the thread's next (its cursor, moved only
 * under the driver lock) and whose driver lock is free calls room and
 * submit itself instead of handing the job over (run_direct): no hand-off
 * and no wake-up while the thread has nothing before that value. Values
 * stay in order: one caller at a time, and only the cursor's value. Room
 * that does not fit now, host waits, and drivers whose calls may block
 * stay the thread's.
 *
 * An inline device (work run before submit returns) has no thread: its
 * reserve takes the driver lock and its publish runs the job and lets the
 * lock go, so values run in the order drawn.
 *
 * A driver whose calls may block (facts.may_block): the thread marks each
 * call busy (timeline busy_since: the hang clock runs while one holds a
 * waiter up, and exit gives up on one that does not return), and a
 * waiter only tries the driver lock, asking again rather than sleeping
 * behind the call.
 *
 * A loss (docs/loss.md): no reserve succeeds any more, and the thread, woken,
 * drops the jobs still published (they never reach the driver). Once it
 * passed every value below issued_end (timeline.h: issued read just after
 * the loss; a reserve that drew a value there and then saw the loss
 * publishes a job that runs nothing for it) and no counted call is in
 * flight, it stops the driver under the driver lock, so no room, submit or
 * commit runs meanwhile, even one that blocks (may_block), then raises the
 * word to the last issued value: the dropped values are settled and their
 * memory may go back. A value drawn at or past issued_end was refused and
 * names nothing (submit_refuse_drawn()). Closing (submit_stop) loses
 * first, then joins the thread once it passed issued_end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <ck_pr.h>

#include "rig.h"
#include "submit/submit.h"

_Static_assert(RIG_ELOST == -ENODEV, "submit_reserve() (submit.h) returns -ENODEV");

static bool
is_lost(struct submitter *s)
{
	return atomic_load_explicit(&s->tl->lost, memory_order_acquire) != NULL;
}

void
submit_lose(struct submitter *s, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	timeline_lose(s->tl, why);
}

void
submit_lose_at(struct submitter *s, uint64_t value, const struct job *job,
	       const char *fmt, ...)
{
	struct rig_fault_site site = { value, -1, -1 };
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	timeline_lose_at(s->tl, why, &site, job ? job->owner : NULL, NULL);
}

bool
submit_call_enter(struct submitter *s)
{
	pthread_rwlock_rdlock(&s->ops_lock);
	if (is_lost(s)) {
		pthread_rwlock_unlock(&s->ops_lock);
		return false;
	}
	return true;
}

void
submit_call_hold(struct submitter *s)
{
	pthread_rwlock_rdlock(&s->ops_lock);
}

void
submit_call_leave(struct submitter *s)
{
	pthread_rwlock_unlock(&s->ops_lock);
}

/* Under the driver lock, which every writer of committed holds: no
 * read-modify-write needed. Release: readers of committed then see the
 * driver's state the commit made. */
static void
raise_committed(struct submitter *s, uint64_t v)
{
	if (v > atomic_load_explicit(&s->tl->committed, memory_order_relaxed))
		atomic_store_explicit(&s->tl->committed, v, memory_order_release);
}

/* Under the driver lock: the driver's commit of v, which lies above
 * committed and at most at submitted; a failure loses the device. */
static int
commit_driver(struct submitter *s, uint64_t v)
{
	const char *failure = "no reason given";

	if (is_lost(s))
		return RIG_ELOST;
	if (s->drv->commit(s->edge, v, &failure) != RIG_OK) {
		submit_lose(s, "commit failed: %s", failure);
		return RIG_ELOST;
	}
	raise_committed(s, v);
	return 0;
}

/* Under the driver lock: commit up to v (no further than submitted). */
static int
commit_locked(struct submitter *s, uint64_t v)
{
	uint64_t sub = atomic_load(&s->tl->submitted);

	if (v > sub)
		v = sub;
	if (v <= atomic_load(&s->tl->committed))
		return 0;
	return commit_driver(s, v);
}

/* The timeline's commit hook: a waiter needs v committed before it sleeps. */
static int
commit_for_waiter(struct timeline *tl, uint64_t v)
{
	struct submitter *s = tl->commit_arg;
	int ret;

	if (v <= atomic_load(&tl->committed))
		return 0;
	/* Dekker with the thread's store of submitted then load of
	 * commit_want (both seq_cst): one of us commits v. */
	timeline_raise(&tl->commit_want, v);
	if (v > atomic_load(&tl->submitted)) {
		sring_ring(&s->ring);
		return 0;
	}
	if (!s->may_block) {
		slock_lock(&s->driver_lock);
		ret = commit_locked(s, v);
		slock_unlock(&s->driver_lock);
		return ret;
	}
	/* A driver whose calls may block: never wait behind one (a waiter
	 * keeps its deadline, and the hang clock runs meanwhile); ask
	 * again later (1), and the call itself is counted as busy. */
	if (!slock_try(&s->driver_lock))
		return is_lost(s) ? RIG_ELOST : 1;
	atomic_store(&tl->busy_since, rig_now_ns());
	ret = commit_locked(s, v);
	atomic_store(&tl->busy_since, 0);
	slock_unlock(&s->driver_lock);
	return ret;
}

/*
 * Under the driver lock: grow the queues for v's job. Short: return
 * released memory and grow again; when none comes back, let the device's
 * earlier values finish (their memory may be what is released) once, then
 * give up and lose the device.
 */
static bool
grow(struct submitter *s, uint64_t v, struct job *job)
{
	bool waited = false;
	uint64_t need = 0;

	while (s->ops->grow(s->handle, job->parts, job->nparts, job->nwaits,
			    &need) != RIG_GROWN) {
		if (s->reclaim && s->reclaim(s))
			continue;
		if (waited || s->inline_run || commit_locked(s, v - 1) < 0) {
			submit_lose(s, "grow: no memory for %llu bytes of queue",
				    (unsigned long long)need);
			return false;
		}
		slock_unlock(&s->driver_lock);
		timeline_wait(s->tl, v - 1, UINT64_MAX);
		slock_lock(&s->driver_lock);
		waited = true;
	}
	return true;
}

/* A short sleep, between two looks at something no one wakes us for. */
static void
nap(void)
{
	struct timespec ts = { 0, 50000 };

	nanosleep(&ts, NULL);
}

/*
 * Ask room until the parts fit; false if the device was lost meanwhile.
 *
 * RIG_LATER means the parts fit once one of the device's values is
 * reached. The word is read after the call, not before each one: a read
 * per submit cost the fast path a line the device's thread writes at
 * every value (for a device with a word of its own, ops.signaled and the
 * raise of rig's copy too), where only a LATER needs it. Read after, it
 * may already show values reached since room looked, so the wait is for
 * the next value submitted after it (one more than room needed, at
 * worst), and where it shows every value submitted there is no next one
 * to wait for (the device ran them all in between: a wait for the next
 * never ended, and bench/submit.c hung so, with its ring full, once in
 * some millions of submits): room is asked again after a yield. Where it
 * still says LATER then, the driver's room reads a mark its device stores
 * a moment after the word (the host device's done, stored by its thread
 * after a launch's last group moved the word): nothing is left to wait
 * for, so ask again once the device's thread has had the core, up to
 * SUBMIT_SETTLE_BOUND_NS, and past it lose the device, whose room then
 * breaks the contract (rig_edge.h, room).
 */
#define LATER_YIELD_NS 100000ull	/* asks after a yield; then after a nap */

static bool
make_room(struct submitter *s, uint64_t v, struct job *job)
{
	uint64_t since = 0;	/* when room first said LATER with nothing to wait for */

	for (;;) {
		int r = s->drv->room(s->edge, job->parts, job->nparts,
				     job->nwaits);
		uint64_t w;

		switch (r) {
		case RIG_FITS:
			return true;
		case RIG_LATER:
			if (s->inline_run) {
				/* Waiting would let a later value pass. */
				submit_lose(s, "room answered RIG_LATER on a device whose work runs before submit returns");
				return false;
			}
			/* Our own next value frees room: commit what we
			 * hold, then wait for the word to move past w. */
			if (commit_locked(s, v - 1) < 0)
				return false;
			slock_unlock(&s->driver_lock);
			w = timeline_word(s->tl);
			if (w < atomic_load(&s->tl->submitted)) {
				timeline_wait(s->tl, w + 1, UINT64_MAX);
				since = 0;	/* the device moved */
			} else {
				if (!since)
					since = rig_now_ns();
				if (rig_now_ns() - since < LATER_YIELD_NS)
					sched_yield();
				else
					nap();
			}
			slock_lock(&s->driver_lock);
			if (since && rig_now_ns() - since > SUBMIT_SETTLE_BOUND_NS) {
				submit_lose(s, "room answered RIG_LATER for value %llu for %llu s with every value before it reached",
					    (unsigned long long)v,
					    (unsigned long long)(SUBMIT_SETTLE_BOUND_NS / 1000000000ull));
				return false;
			}
			break;
		case RIG_GROW:
			if (!grow(s, v, job))
				return false;
			break;
		default:
			submit_lose(s, "room answered RIG_NEVER for value %llu",
				    (unsigned long long)v);
			return false;
		}
		if (is_lost(s))
			return false;
	}
}

/* Note v's owner for a loss's record: a sequence lock whose writer is
 * the one holding the driver lock. */
static void
note_owner(struct submitter *s, uint64_t v, const void *owner)
{
	__typeof__(s->owners[0]) *o = &s->owners[v % SUBMIT_OWNERS];

	atomic_store_explicit(&o->value, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&o->owner, owner, memory_order_relaxed);
	atomic_store_explicit(&o->value, v, memory_order_release);
}

const void *
submit_owner_of(struct submitter *s, uint64_t value)
{
	__typeof__(s->owners[0]) *o = &s->owners[value % SUBMIT_OWNERS];
	const void *owner;

	if (!value || atomic_load_explicit(&o->value, memory_order_acquire) != value)
		return NULL;
	owner = atomic_load_explicit(&o->owner, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&o->value, memory_order_relaxed) == value ? owner : NULL;
}

/*
 * An inline device's value ran inside its submit: wake the word's
 * sleepers, if it has any. Two plain loads first spare every copy the
 * event count's locked increment. A sleeper that flags the count while we
 * look (no full barrier parts our store of the word from these loads) is
 * still woken: a rig wait counts itself in waiters before it sleeps, and
 * the poller watches the word of a timeline with waiters and bumps the
 * count when it moved (wait.c); a driver's rig_word_sleep() is bounded
 * and looks again.
 */
static inline void
wake_inline_sleepers(struct timeline *tl)
{
	if (atomic_load_explicit(&tl->waiters, memory_order_relaxed) ||
	    ck_ec32_has_waiters(tl->futex))
		timeline_wake(tl);
}

/*
 * Under the driver lock: v's job reaches the driver (or is dropped), and
 * the cursor moves past v. direct: a submitter's own value, which goes
 * only if room says it fits now (false: nothing was done, and the job goes
 * to the ring, where the thread waits for room instead of the submitter).
 * Inlined into its three callers, each of which fixes more and direct.
 */
static inline __attribute__((always_inline)) bool
run_locked(struct submitter *s, uint64_t v, struct job *job, bool more, bool direct)
{
	static struct job empty;
	const char *failure = "no reason given";
	int r;

	if (!job)
		job = &empty;
	if (job->prepare)
		job->prepare(job);
	if (is_lost(s))
		goto out;
	if (direct) {
		/* Only what is final here: waiting for room (LATER) or growing
		 * the queues (GROW) is the thread's. */
		r = s->drv->room(s->edge, job->parts, job->nparts, job->nwaits);
		if (r == RIG_LATER || r == RIG_GROW)
			return false;
		if (r != RIG_FITS) {
			submit_lose(s, "room answered RIG_NEVER for value %llu",
				    (unsigned long long)v);
			goto out;
		}
	} else if (s->drv->room(s->edge, job->parts, job->nparts, job->nwaits) != RIG_FITS &&
		   !make_room(s, v, job)) {
		/* The common answer (it fits) costs no call of make_room,
		 * which asks room again and waits or grows until it fits. */
		goto out;
	}
	note_owner(s, v, job->owner);
	r = s->drv->submit(s->edge, v, job->parts, job->nparts, job->waits,
			   job->nwaits, job->times, &failure);
	if (r == RIG_FAILED) {
		submit_lose_at(s, v, job, "submit failed: %s", failure);
		goto out;
	}
	/* seq_cst where more follows: Dekker with a waiter's raise of
	 * commit_want (commit_for_waiter), one of us commits v. Else v is
	 * committed here whatever a waiter did. */
	atomic_store_explicit(&s->tl->submitted, v,
			      more ? memory_order_seq_cst : memory_order_release);
	if (r == RIG_COMMITTED) {
		raise_committed(s, v);
		/* Work that ran inside submit moved the word, and nobody else
		 * looks; otherwise the poller sees the word move. */
		if (s->inline_run)
			wake_inline_sleepers(s->tl);
	} else if (direct) {
		/* A submitter's own value, just submitted: committed lies
		 * below it (every commit stops at submitted, and we hold the
		 * lock), so commit_locked()'s looks are known here. */
		(void)commit_driver(s, v);
	} else if (!more || atomic_load(&s->tl->commit_want) >= v) {
		commit_locked(s, v);
	}
out:
	if (job->heap)
		free(job->heap);
	/* Release: what was done for v is seen with the cursor (a direct
	 * runner adds the fence the ring's sleep handshake needs). */
	atomic_store_explicit(&s->next, v + 1, memory_order_release);
	return true;
}

bool
submit_passed(struct submitter *s, uint64_t v)
{
	return atomic_load_explicit(&s->next, memory_order_acquire) > v;
}

/*
 * The host's share of v's job: its waits on producers the queues can't
 * wait for. Each is one wait, so the producer's hang clock runs on for
 * its whole length; a loss of our own ends it (the job is then dropped),
 * so the driver's stop is never held up by another device's stalled
 * work. A producer's loss that dropped a value the job waits for loses
 * this device "lost with" the producer (timeline_wait_producer()): the
 * job never runs on memory whose last write was dropped (README, Loss).
 */
static void
host_waits(struct submitter *s, struct job *job)
{
	if (!job)
		return;
	for (size_t i = 0; i < job->nhost_waits && !is_lost(s); i++)
		timeline_wait_producer(s->tl, job->host_waits[i].slot,
				       job->host_waits[i].value);
}

/* Drop the published jobs from the cursor on (the device is lost). A
 * submitter running its own value moves the cursor past it itself. */
static void
drop_ready(struct submitter *s)
{
	struct job *job;
	uint64_t v;

	while ((job = sring_take_sc(&s->ring, v = atomic_load(&s->next)))) {
		free(job->heap);
		atomic_store(&s->next, v + 1);
		sring_free_sc(&s->ring, v);
	}
}

/* After a loss: whether the cursor passed every value a reserve drew
 * before it could see the loss (0: the loss has not read issued yet). */
static bool
passed_end(struct submitter *s)
{
	uint64_t end = atomic_load(&s->tl->issued_end);

	return end && atomic_load(&s->next) >= end;
}

/* A job that runs nothing, for a value refused after its draw. */
static struct job refused_job;

void
submit_refuse_drawn(struct submitter *s, uint64_t v)
{
	uint64_t end;

	/* The loss stores issued_end just after lost, under its lock. */
	while (!(end = atomic_load(&s->tl->issued_end)))
		sched_yield();
	/* The thread waits for v before it stops the driver, and drops
	 * what it finds; the slot frees as it drops. From end on it waits
	 * for nothing: v stays a value no submit returned and no stamp
	 * names, so no wait asks for it (a wait on a lost device ends at
	 * lost_at), whether or not the stop's raise passes it. Nothing is
	 * touched then, as a device's end may give its word's slot away
	 * next. */
	if (v < end) {
		sring_room(&s->ring, v);
		sring_publish_mp(&s->ring, v, &refused_job);
	}
}

/*
 * After a loss: stop the driver once nothing of ours is in flight, then
 * show every issued value in the word. thread: called by the device's
 * thread (an inline device's reserves hold the driver lock instead).
 */
static void
stop_driver(struct submitter *s, bool thread)
{
	if (atomic_load(&s->stopped))
		return;
	/* Every value below issued_end is published (or run by its
	 * submitter) in the end: drop them all first. */
	while (thread && !passed_end(s)) {
		drop_ready(s);
		if (!passed_end(s))
			nap();
	}
	/* Not before the loss reached the devices whose queues wait for
	 * this word: a stop may raise it (and rig does after it), which
	 * would let them run on work that was dropped. */
	while (!atomic_load(&s->tl->spread_done))
		sched_yield();
	/* The driver lock first: it comes before the locks counted calls
	 * run under (mem_lock, then the ops lock). */
	slock_lock(&s->driver_lock);
	if (atomic_load(&s->stopped)) {
		/* An inline device's submitter and its end may both stop it:
		 * the first one does. */
		slock_unlock(&s->driver_lock);
		return;
	}
	pthread_rwlock_wrlock(&s->ops_lock);
	s->ops->stop(s->handle, atomic_load(&s->tl->lost));
	atomic_store(&s->stopped, true);
	pthread_rwlock_unlock(&s->ops_lock);
	slock_unlock(&s->driver_lock);
	/* The driver writes the word no more: show every value issued, so
	 * the dropped values are settled, and a stamp naming this slot is
	 * signaled whoever holds the slot next. */
	timeline_raise(s->tl->word, atomic_load(&s->tl->issued));
	timeline_wake(s->tl);
}

/* The timeline's loss hook: wake the thread, which stops the driver. */
static void
on_lose(struct timeline *tl)
{
	struct submitter *s = tl->commit_arg;

	sring_ring(&s->ring);
}

static void *
thread_loop(void *arg)
{
	struct submitter *s = arg;

	prctl(PR_SET_NAME, "rig-submit");
	for (;;) {
		uint32_t bell = sring_bell(&s->ring);	/* before the looks */
		uint64_t v = atomic_load(&s->next);
		struct job *job;

		if (is_lost(s)) {
			stop_driver(s, true);
			v = atomic_load(&s->next);
		}
		if (!(job = sring_take_sc(&s->ring, v))) {
			/* Stopping comes after the loss, and the values from
			 * issued_end on were refused: nothing more comes. */
			if (atomic_load(&s->stopping) && passed_end(s))
				break;
			sring_sleep_sc(&s->ring, v, &s->next, bell);
			continue;
		}
		host_waits(s, job);
		slock_lock(&s->driver_lock);
		/* Calls that may block are marked busy: the hang clock runs
		 * while one holds a waiter up, and exit can give up on one. */
		if (s->may_block)
			atomic_store(&s->tl->busy_since, rig_now_ns());
		run_locked(s, v, job, sring_ready_sc(&s->ring, v + 1), false);
		if (s->may_block)
			atomic_store(&s->tl->busy_since, 0);
		slock_unlock(&s->driver_lock);
		sring_free_sc(&s->ring, v);
	}
	return NULL;
}

/* A stop waiting for the lock goes before new calls: they would only
 * find the device lost. */
static void
rwlock_init_writers_first(pthread_rwlock_t *l)
{
	pthread_rwlockattr_t a;

	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(l, &a);
	pthread_rwlockattr_destroy(&a);
}

int
submit_start(struct submitter *s, struct timeline *tl)
{
	s->tl = tl;
	tl->commit = commit_for_waiter;
	tl->commit_arg = s;
	tl->on_lose = on_lose;
	slock_init(&s->driver_lock);
	rwlock_init_writers_first(&s->ops_lock);
	atomic_init(&s->stopped, false);
	atomic_init(&s->stopping, false);
	sring_init(&s->ring, tl->base);
	atomic_init(&s->next, tl->base + 1);
	atomic_init(&s->prof, NULL);
	s->has_thread = false;
	if (s->inline_run)
		return 0;
	if (pthread_create(&s->thread, NULL, thread_loop, s) != 0)
		return -EAGAIN;
	s->has_thread = true;
	return 0;
}

void
submit_stop(struct submitter *s)
{
	if (s->has_thread) {
		atomic_store(&s->stopping, true);
		sring_ring(&s->ring);
		pthread_join(s->thread, NULL);
		s->has_thread = false;
	}
	stop_driver(s, false);	/* inline, or a thread that never started */
	/* The driver lock stays: a waiter holding the timeline may still
	 * take it, and finds the device lost (submit_free destroys it). */
}

bool
submit_settle(struct submitter *s)
{
	uint64_t t0 = rig_now_ns();

	while (s->has_thread && !atomic_load(&s->stopped)) {
		uint64_t now = rig_now_ns(), busy = atomic_load(&s->tl->busy_since);

		if ((busy && now > busy && now - busy > SUBMIT_CALL_BOUND_NS) ||
		    now - t0 > SUBMIT_SETTLE_BOUND_NS)
			return false;
		nap();
	}
	return true;
}

void
submit_free(struct submitter *s)
{
	pthread_rwlock_destroy(&s->ops_lock);
}

void *
submit_job_memory(struct submitter *s, uint64_t v, void *heap)
{
	void *room = s->inline_run ? s->inline_room : sring_room(&s->ring, v);

	return heap ? heap : room;
}

#ifdef RIG_TEST_HOOKS
void (*submit_trace)(int slot, uint64_t value, const struct job *job);
void (*submit_reserve_trace)(struct submitter *s, bool drawn, uint64_t v);
#endif

/*
 * A submitter whose value is the thread's next, with no host waits, runs
 * it itself when the driver lock is free: no hand-off, no wake-up. The
 * thread, which may be looking at v's slot, sees the cursor move. Not
 * where the driver's calls may block: a submit returns at once. Inline in
 * its two callers: the call and the saved registers were a sixth of its
 * own instructions on a polled copy.
 */
static inline __attribute__((always_inline)) bool
run_direct(struct submitter *s, uint64_t v, struct job *job)
{
	if (s->may_block || job->nhost_waits ||
	    atomic_load_explicit(&s->next, memory_order_relaxed) != v ||
	    !slock_try(&s->driver_lock))
		return false;
	if (atomic_load(&s->next) != v) {
		slock_unlock(&s->driver_lock);
		return false;
	}
	if (!run_locked(s, v, job, false, true)) {
		slock_unlock(&s->driver_lock);
		return false;
	}
	slock_unlock(&s->driver_lock);
	sring_free_sc(&s->ring, v);
	/* The cursor's store, then the consumer's asleep (ring.c). */
	sring_moved_fence();
	sring_moved(&s->ring, v + 1);
	return true;
}

/*
 * run_direct() found no room for v now (the driver's queues are full: its
 * device is busy), or its lock taken, while the submission thread sleeps.
 * Handing v over would cost that thread's wake-up (a futex wake, then its
 * way back onto a core: more here than the work of many values), and the
 * thread would then only wait for the same room; meanwhile the values after
 * v go through it too, as v is the cursor's. So the submitter asks again,
 * DIRECT_ROOM_TRIES times at most, a few pauses apart (~0.5 us here: a
 * device running on another core frees room within a value's time), as it
 * waits for a slot while the ring is full (sring_room). Pauses, not
 * yields: on a machine whose cores other work wants, a yield hands the
 * core away for a slice (measured: 2-3x slower than no wait at all),
 * where the pauses keep it. Only while v is still the cursor's and the
 * thread still sleeps. A device that makes no room within the tries (~30
 * us: a long value, a stall) gets v through the thread as before.
 * Measured on the host device (empty kernels back to back, 2 cores under
 * load 34-38 from other work): 530-735 ns a submit against 620-768 with no
 * wait, and 1,640-2,280 where the second half of the tries yielded. Where
 * the device's thread gets a core the hand-off goes: with yields, 450k
 * submits made 7 futex wakes instead of 8,437; under load 42, with pauses
 * alone, 6,226 (the device's thread was off its core for the whole spin).
 */
#define DIRECT_ROOM_TRIES 64
#define DIRECT_ROOM_PAUSES 8

static bool
run_direct_when_room(struct submitter *s, uint64_t v, struct job *job)
{
	if (s->may_block || job->nhost_waits)
		return false;
	for (int i = 0; i < DIRECT_ROOM_TRIES; i++) {
		if (!sring_consumer_asleep(&s->ring) ||
		    atomic_load_explicit(&s->next, memory_order_relaxed) != v)
			return false;
		for (int k = 0; k < DIRECT_ROOM_PAUSES; k++)
			ck_pr_stall();
		if (run_direct(s, v, job))
			return true;
	}
	return false;
}

void
submit_publish(struct submitter *s, uint64_t v, struct job *job)
{
#ifdef RIG_TEST_HOOKS
	if (submit_trace)
		submit_trace(s->tl->slot, v, job);
#endif
	if (s->inline_run) {
		/* The driver lock is held since submit_reserve(). Host waits
		 * under it keep values in order on a synchronous device. */
		if (job->nhost_waits)
			host_waits(s, job);
		run_locked(s, v, job, false, false);
		slock_unlock(&s->driver_lock);
		/* No thread of its own stops an inline device: the call that
		 * found it lost does, so the value it dropped is settled now,
		 * not at the device's end (the devices whose memory it used
		 * wait for that at their own end). */
		if (is_lost(s))
			stop_driver(s, false);
		return;
	}
	if (!run_direct(s, v, job) && !run_direct_when_room(s, v, job))
		sring_publish_mp(&s->ring, v, job);
}
