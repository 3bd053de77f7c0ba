/* SPDX-License-Identifier: MIT */
/*
 * polled/queue.c: the polled device's queue and its worker. rig's C
 * functions (room, submit, commit) fill a ring of value slots; the
 * device's worker thread runs each committed value's work in value order
 * and stores the value in the word, so the word is always the last
 * committed value whose work (and every earlier value's) completed. In the
 * steady state a value costs no allocation, no lock and no system call:
 * the worker spins a little before it sleeps, and a commit makes a system
 * call only to wake a worker that sleeps.
 *
 * The ring. Value v's work lives in slot v % POLLED_SLOTS: its parts as
 * steps and its waits, inline, or for a value of more than POLLED_STEPS
 * parts or POLLED_WAITS waits in a heap block that the slot keeps for its
 * next large value (stop frees it). Three cursors, all values:
 *   submitted  the last value submit filled; rig's calls alone use it;
 *   committed  the last value the worker may run; rig's calls store it;
 *   done       the last value the worker let go of; the worker stores it.
 * Invariant: base <= done <= committed <= submitted <= done + POLLED_SLOTS.
 * The first two hold because the worker runs v only once v <= committed,
 * the third because commit never passes submitted, the last because room
 * answers RIG_LATER while the next value's slot still holds the value
 * POLLED_SLOTS before it (rig then commits what it holds and waits for
 * the word; the worker stores done before the word, so once the word
 * shows a value, room sees its slot free).
 *
 * Slot v is rig's calls' from done >= v - POLLED_SLOTS until commit marks
 * it committed, then the worker's until it stores done = v:
 *   (A) commit's release store of the slot's mark (committed_as = v)
 *       pairs with the worker's acquire load of it: what submit wrote into
 *       the slot is visible to the worker;
 *   (B) the worker's release store of done pairs with room's and submit's
 *       acquire load: its reads of the slot are over before submit
 *       overwrites it (or reuses the slot's heap block).
 * The worker looks for its next value in that value's own slot, a line
 * submit just wrote, not at a cursor of rig's: a value moves the slot's
 * lines to the worker and nothing else (a cursor would be one more line
 * taken back and forth per value). committed stays, rig's calls' own
 * (and the controls' read); a slot's mark from the lap before is a value
 * POLLED_SLOTS lower, never v. rig's calls read done again only when what
 * they read last says no, so that line moves once per batch. A slot's
 * lines were the worker's a lap ago, and taking one back from its cache
 * costs as much as a submit (a line moves between this machine's two
 * cores in 135-265 ns): submit asks for those of the slot PREFETCH_AHEAD
 * values on (prefetchw), so the transfers overlap the submits between.
 * Values arrive in order, one call at a time (rig_edge.h), so the ring
 * needs no producer cursor of its own: submit checks that it is given
 * submitted + 1 and refuses another value rather than run a stale slot.
 *
 * The calls' common case (one part, no wait, no fill, no profile, no
 * control set, room free) takes the short way: one look at the controls
 * (polled_controlled()), the step and the slot's header stored in place;
 * everything else goes out of line, where submit_work() and the
 * _controlled() helpers do what the driver always did, so the common
 * call saves few registers. A polled copy's three calls came to ~200
 * instructions from ~270 (callgrind).
 *
 * Why not ck_ring: its SPSC ring copies each entry in and out (a slot is
 * ~400 bytes) and knows one producer cursor, while the worker may run
 * only up to committed, a second one; indexed by value, submit fills the
 * slot in place and the cursors are the values themselves.
 *
 * Waking: Concurrency Kit's event count (ck_ec), beside committed, in its
 * single-producer mode (util/ec.h): commits bump it, and rig's calls run
 * one at a time (rig_edge.h), so a bump is a plain increment on a line the
 * worker reads only on its way to sleep, not a locked one that would wait
 * for the line committed's store just took from the spinning worker. The
 * one other bump, stop's, comes once rig's calls are over (Driver.stop),
 * so no two ever run at once. A stall's end bumps nothing: a worker held
 * by a stall sleeps in slices of STALL_LOOK_NS and looks again. An
 * increment that finds the waiters' flag set makes the one futex wake.
 * Why no wake-up is lost: the worker reads the counter (snap), then
 * its slot's mark; a waker stores the marks, then increments. ck_ec_inc() is a
 * write barrier before its increment and ck_ec_value() a read barrier
 * after its load (ck_ec.h), so if snap saw the increment, the worker's
 * load of the mark sees the store and it does not sleep. If not,
 * ck_ec_wait() returns at once where the counter moved from snap, or it
 * flags the counter before the increment, which then sees the flag and
 * wakes it (futex_wait compares the counter in the kernel, so a wake
 * between the flag and the sleep is not lost either; the single-producer
 * mode's one race, an increment in flight that rewrites the flag, ck_ec's
 * timed sleeps cover, util/ec.h).
 *
 * Spinning: before it sleeps, the worker looks for work for spin_ns,
 * pausing briefly, then yielding the core (on two cores, the thread that
 * would end the wait may need it: with both on one core, a round trip
 * pays every pause before the yield). spin_ns adapts: after a sleep that
 * a spin of SPIN_MAX_NS (about a wake-up's cost) would have covered it
 * spins that long again; after a longer sleep half as long, down to
 * SPIN_MIN_NS, so an idle device stops burning the core it shares.
 *
 * One interleaving (lag 8): submit(5) fills slot 5 and commit(5) stores
 * committed = 5 and bumps the counter to 8 (no flag: the worker is
 * spinning, so no system call). The worker sees 5, runs slot 5, stores
 * the word = 5 and done = 5, spins on 6 for spin_ns, reads snap = 8 and
 * committed = 5, and sleeps (flag set). submit(6) and commit(6) store
 * committed = 6 and bump the counter: it had the flag, so commit wakes it.
 *
 * Which pairs may run at once (X: they exclude each other):
 *                   rig's calls  worker  stop
 *   rig's calls          X          -      X
 *   worker               -          X   (joined)
 *   stop                 X       (joins)   X
 * rig's calls are one at a time by the contract, and stop runs once none
 * is in flight (Driver.stop).
 */
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polled/polled.h"
#include "util/ec.h"

#define SPIN_MAX_NS	40000u	/* about a wake-up's cost on this kind of machine */
#define SPIN_MIN_NS	2000u
#define SPIN_PAUSES	32u	/* pauses (about a yield's cost) before the spin yields */
#define PREFETCH_AHEAD	16u	/* values: ~ a batch's worth of submits */
#define STALL_LOOK_NS	1000000u	/* a stalled worker looks this often */

/* ---- The worker ---- */

static bool
stopping(struct pdev *d)
{
	return atomic_load_explicit(&d->stopping, memory_order_acquire);
}

/* Poll each producer word until it shows its value (or we stop). */
static bool
await_producers(struct pdev *d, const struct pslot *s)
{
	for (uint32_t i = 0; i < s->nwaits; i++)
		/* Pairs with the producer's release store of its word: its
		 * work's writes are visible to what runs after the wait. */
		while (atomic_load_explicit(s->waits[i].word, memory_order_acquire) <
		       s->waits[i].value) {
			if (stopping(d))
				return false;
			polled_nap();
		}
	return true;
}

/* The device's addresses are host addresses, whatever the host is told. */
static void
run_copy(const struct pstep *c)
{
	for (uint64_t r = 0; r < c->rows; r++) {
		if (c->fill >= 0)
			memset(c->dst + r * c->dst_pitch, c->fill, c->bytes);
		else
			memmove(c->dst + r * c->dst_pitch, c->src + r * c->src_pitch,
				c->bytes);
	}
}

/* The injected fault at part of v, on queue: nothing more runs on this
 * device, and its interrupt source says why. */
static void
fault(struct pdev *d, uint64_t v, int part, uint32_t queue)
{
	uint64_t one = 1;

	d->site = (struct rig_fault_site){ v, part, (int)queue };
	snprintf(d->fault_text, sizeof(d->fault_text),
		 "injected fault at part %d of value %llu", part,
		 (unsigned long long)v);
	/* Release: polled_events() reads the site once it sees the flag. */
	atomic_store(&d->faulted, true);
	if (write(d->efd, &one, sizeof(one)) < 0)
		perror("polled: eventfd");
}

/* Run v's steps; false if it met the injected fault. */
static bool
run_steps(struct pdev *d, const struct pslot *s, uint64_t v)
{
	int part = atomic_load(&d->p->fault_part);
	bool faults = atomic_load(&d->p->fault_value) == v;
	uint32_t queue = s->nsteps ? s->steps[s->nsteps - 1].queue : 0;

	for (uint32_t i = 0; i < s->nsteps; i++) {
		if (faults && (int)i >= part) {
			queue = s->steps[i].queue;
			break;
		}
		if (s->steps[i].is_copy)
			run_copy(&s->steps[i]);
	}
	if (faults)
		fault(d, v, part, queue);
	return !faults;
}

/* Whether v is committed: its slot's mark shows it. (A): pairs with
 * commit's release store; the slot is written. */
static bool
is_committed(struct pdev *d, uint64_t v)
{
	return atomic_load_explicit(&d->slot[v % POLLED_SLOTS].committed_as,
				    memory_order_acquire) == v;
}

/* Whether the worker may run v now. */
static bool
runnable(struct pdev *d, uint64_t v)
{
	return is_committed(d, v) && !atomic_load(&d->p->stalled) &&
	       !atomic_load(&d->faulted);
}

static bool
wanted(struct pdev *d, uint64_t v)
{
	return stopping(d) || runnable(d, v);
}

/*
 * Nothing to run: spin for spin_ns, then sleep on the event count until
 * it moves. Returns when there may be something to do; the caller looks.
 */
static void
idle(struct pdev *d, uint64_t v)
{
	uint64_t start = rig_now_ns();
	uint32_t snap;

	for (unsigned i = 0;; i++) {
		if (wanted(d, v))
			return;
		if (i < SPIN_PAUSES) {
			ck_pr_stall();	/* the CPU's pause */
			continue;
		}
		if (rig_now_ns() - start >= d->spin_ns)
			break;
		sched_yield();
	}
	/* The snapshot before the last look: a change after the look
	 * moves the counter off it (the proof above). */
	snap = ck_ec_value(&d->ec);
	if (!wanted(d, v)) {
		/* Committed yet not runnable: a stall (or a fault) holds it,
		 * whose end bumps nothing; look again in a while. */
		bool held = is_committed(d, v);
		struct timespec until;

		ec32_wait_until(&d->ec, ec_sp(), snap,
				ec_until(held ? rig_now_ns() + STALL_LOOK_NS : UINT64_MAX, &until));
	}
	if (rig_now_ns() - start < SPIN_MAX_NS)
		d->spin_ns = SPIN_MAX_NS;
	else if (d->spin_ns / 2 >= SPIN_MIN_NS)
		d->spin_ns /= 2;
}

/* Run v; false if the worker stopped in its waits or v faulted. */
static bool
run_value(struct pdev *d, uint64_t v)
{
	struct pslot *s = &d->slot[v % POLLED_SLOTS];
	const struct rig_polled_config *c = &d->p->c;

	if (!await_producers(d, s))
		return false;
	if (c->ran)
		c->ran(c->ran_arg, v, 0);
	if (s->timed == v)	/* a profile times v (stamps.c) */
		polled_stamps_start(d, s, v);
	if (!run_steps(d, s, v))
		return false;
	if (s->timed == v)
		polled_stamps_end(d, s, v);
	if (c->ran)
		c->ran(c->ran_arg, v, 1);
	/* (B): pairs with room's and submit's acquire loads; the slot is
	 * no longer read. Before the word: whoever reads the word and then
	 * asks room finds the slot free (room's LATER means "once one of
	 * the values is reached", rig_edge.h). */
	atomic_store_explicit(&d->done, v, memory_order_release);
	/* Pairs with rig's acquire loads of the word (and other devices'
	 * waits): v's work is visible with it. */
	atomic_store_explicit(d->word, v, memory_order_release);
	polled_bump(&d->p->ran);
	return true;
}

static void *
worker(void *arg)
{
	struct pdev *d = arg;
	uint64_t v = d->base + 1;

	while (!stopping(d)) {
		if (!runnable(d, v))
			idle(d, v);
		else if (run_value(d, v))
			v++;
	}
	return NULL;
}

int
polled_queue_start(struct pdev *d)
{
	d->submitted = d->done_seen = d->base;
	atomic_init(&d->committed, d->base);
	for (size_t i = 0; i < POLLED_SLOTS; i++)
		atomic_init(&d->slot[i].committed_as, 0);	/* below every value */
	atomic_init(&d->done, d->base);
	atomic_init(&d->stopping, false);
	atomic_init(&d->faulted, false);
	ck_ec_init(&d->ec, 0);
	d->spin_ns = SPIN_MAX_NS;
	return pthread_create(&d->worker, NULL, worker, d);
}

void
polled_queue_stop(struct pdev *d)
{
	atomic_store(&d->stopping, true);
	/* rig's calls are over: no bump of theirs runs at once. Locked all
	 * the same, so a worker's flag is never rewritten. */
	ck_ec_inc(&d->ec, ec_mp());
	pthread_join(d->worker, NULL);
	/* The worker is gone and rig's calls are over: the slots are ours. */
	for (size_t i = 0; i < POLLED_SLOTS; i++) {
		free(d->slot[i].heap);
		d->slot[i].heap = NULL;
		d->slot[i].heap_bytes = 0;
	}
	polled_stamps_free(d);
}

/* ---- The five C functions ---- */

/* Whether v's slot is free: the worker let go of the value before it.
 * done is read again only when what rig's calls saw last says no. */
static bool
slot_free(struct pdev *d, uint64_t v)
{
	if (d->done_seen + POLLED_SLOTS >= v)
		return true;
	/* (B): pairs with the worker's release store of done. */
	d->done_seen = atomic_load_explicit(&d->done, memory_order_acquire);
	return d->done_seen + POLLED_SLOTS >= v;
}

/* room's answer with no control set: RIG_NEVER for a part no queue of
 * the config runs, RIG_LATER while the next value's slot is taken. */
static inline int
room_of(struct pdev *d, const struct rig_part *parts, size_t n)
{
	const struct rig_polled_config *c = &d->p->c;

	for (size_t i = 0; i < n; i++) {
		uint32_t q = parts[i].queue;

		if (parts[i].kind < RIG_WORDS_PART || parts[i].kind > RIG_LAUNCH_PART ||
		    q >= c->nqueues || !(c->queues[q].runs & RIG_RUNS(parts[i].kind)))
			return RIG_NEVER;
	}
	/* Full: the worker frees the slot once the word shows the value
	 * POLLED_SLOTS before the next one, which rig commits. */
	return slot_free(d, d->submitted + 1) ? RIG_FITS : RIG_LATER;
}

/* room while a control is set or the config grows: out of line, so the
 * common call keeps few registers to save. */
static __attribute__((noinline, cold)) int
room_controlled(struct pdev *d, const struct rig_part *parts, size_t n)
{
	polled_maybe_block(d->p, CALL_ROOM);
	if (polled_failing(d->p, CALL_ROOM))
		return RIG_NEVER;
	if (d->p->c.grows && !d->p->grown)
		return RIG_GROW;
	return room_of(d, parts, n);
}

static int
polled_room(void *edge, struct rig_part *parts, size_t n, size_t nwaits)
{
	struct pdev *d = edge;
	struct rig_polled *p = d->p;
	int r;

	polled_enter_c(p);
	if (__builtin_expect(polled_controlled(p) || p->c.grows, 0))
		r = room_controlled(d, parts, n);
	else
		r = room_of(d, parts, n);
	polled_leave_c(p);
	return r;
}

/* Where slot s keeps n steps and nwaits waits: inline, or its heap block
 * (grown when too small). false on no memory. */
static bool
slot_arrays(struct pslot *s, size_t n, size_t nwaits, struct pstep **steps,
	    struct rig_wait **waits)
{
	size_t need = n * sizeof(**steps) + nwaits * sizeof(**waits);

	if (n <= POLLED_STEPS && nwaits <= POLLED_WAITS) {
		*steps = s->step;
		*waits = s->wait;
		return true;
	}
	if (s->heap_bytes < need) {
		free(s->heap);
		s->heap_bytes = 0;
		if (!(s->heap = malloc(need)))
			return false;
		s->heap_bytes = need;
	}
	*steps = s->heap;
	*waits = (struct rig_wait *)(*steps + n);
	return true;
}

static void
step_of(struct pstep *st, const struct rig_part *part)
{
	const struct rig_copy *c = &part->u.copy;

	st->queue = part->queue;
	st->is_copy = part->kind == RIG_COPY_PART;
	if (!st->is_copy)
		return;
	st->src = (unsigned char *)(uintptr_t)c->src.at.address + c->src.offset;
	st->dst = (unsigned char *)(uintptr_t)c->dst.at.address + c->dst.offset;
	st->fill = c->fill;
	st->bytes = c->bytes;
	st->rows = c->rows;
	st->src_pitch = c->src_pitch;
	st->dst_pitch = c->dst_pitch;
}

/* Fill v's slot (free: room said so). false on no memory. */
static bool
fill_slot(struct pdev *d, uint64_t v, const struct rig_part *parts, size_t n,
	  const struct rig_wait *waits, size_t nwaits)
{
	struct pslot *s = &d->slot[v % POLLED_SLOTS];
	struct pstep *steps;
	struct rig_wait *w;

	if (!slot_arrays(s, n, nwaits, &steps, &w))
		return false;
	for (size_t i = 0; i < n; i++)
		step_of(&steps[i], &parts[i]);
	if (nwaits)
		memcpy(w, waits, nwaits * sizeof(*waits));
	s->steps = steps;
	s->waits = w;
	s->nsteps = (uint32_t)n;
	s->nwaits = (uint32_t)nwaits;
	return true;
}

/* Let the worker run up to v (rig's calls only). */
static void
publish_commit(struct pdev *d, uint64_t v)
{
	uint64_t from = atomic_load_explicit(&d->committed, memory_order_relaxed);

	/* (A): each mark pairs with the worker's acquire load; its slot is
	 * written. Then the event count, which wakes a sleeping worker. */
	for (uint64_t u = from + 1; u <= v; u++)
		atomic_store_explicit(&d->slot[u % POLLED_SLOTS].committed_as, u,
				      memory_order_release);
	atomic_store_explicit(&d->committed, v, memory_order_relaxed);
	ck_ec_inc(&d->ec, ec_sp());
}

/* Fills run inside submit, with their argument valid only then. */
static int
run_fills(struct pdev *d, uint64_t value, struct rig_part *parts, size_t n,
	  const char **failure)
{
	for (size_t i = 0; i < n; i++) {
		int r;

		if (parts[i].kind != RIG_FILL_PART)
			continue;
		r = parts[i].u.fill.fn(NULL, parts[i].u.fill.arg, value);
		if (r) {
			snprintf(d->failure, sizeof(d->failure),
				 "fill of part %zu returned %d", i, r);
			*failure = d->failure;
			return RIG_FAILED;
		}
	}
	return RIG_OK;
}

/* Why submit refuses value (not NULL: refusal() found a reason). */
static __attribute__((noinline, cold)) const char *
refusal_why(struct pdev *d, uint64_t value, bool injected)
{
	if (injected)
		return polled_injected(d, CALL_SUBMIT);
	snprintf(d->failure, sizeof(d->failure), "value %llu %s",
		 (unsigned long long)value, value != d->submitted + 1 ?
		 "is not the next" : "has no room (room said so)");
	return d->failure;
}

/* Why submit refuses value, or NULL: an injected failure, or a value
 * other than the next, or one without room (both break rig's promises,
 * and would run a stale slot). */
static inline const char *
refusal(struct pdev *d, uint64_t value)
{
	if (polled_failing(d->p, CALL_SUBMIT))
		return refusal_why(d, value, true);
	if (__builtin_expect(value == d->submitted + 1 && slot_free(d, value), 1))
		return NULL;
	return refusal_why(d, value, false);
}

/* A prefetch for writing: the line comes exclusive, not shared.
 * __builtin_prefetch's write hint emits a read prefetch on x86-64 unless
 * the target has PRFCHW; every x86-64 CPU decodes PREFETCHW (a no-op on
 * old Intel ones). */
static inline void
prefetch_write(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* The slot PREFETCH_AHEAD values on was the worker's a lap ago: ask for
 * its lines now, for writing, so taking them back from the worker's cache
 * overlaps the submits between instead of stalling the one that fills it. */
static void
prefetch_ahead(struct pdev *d, uint64_t value)
{
	const char *s = (const char *)&d->slot[(value + PREFETCH_AHEAD) % POLLED_SLOTS];

	for (size_t at = 0; at < offsetof(struct pslot, step[1]); at += 64)
		prefetch_write(s + at);
}

/* value is submitted; committed for the worker once lag values wait. */
static inline void
submitted_now(struct pdev *d, uint64_t value)
{
	d->submitted = value;
	if (value - atomic_load_explicit(&d->committed, memory_order_relaxed) >= d->p->c.lag)
		publish_commit(d, value);
}

static int
submit_work(struct pdev *d, uint64_t value, struct rig_part *parts, size_t n,
	    const struct rig_wait *waits, size_t nwaits,
	    struct rig_times *times, const char **failure)
{
	const char *why;

	prefetch_ahead(d, value);
	polled_bump(&d->p->submits);
	if (__builtin_expect(polled_controlled(d->p), 0))
		polled_maybe_block(d->p, CALL_SUBMIT);
	if ((why = refusal(d, value))) {
		*failure = why;
		return RIG_FAILED;
	}
	if (run_fills(d, value, parts, n, failure) != RIG_OK)
		return RIG_FAILED;
	if (!fill_slot(d, value, parts, n, waits, nwaits)) {
		*failure = "no memory to queue the work";
		return RIG_FAILED;
	}
	/* Profiles (stamps.c): a timed value, or a slot a timed one left. */
	if (__builtin_expect(times || d->slot[value % POLLED_SLOTS].timed, 0) &&
	    !polled_stamps_note(d, value, parts, n, times)) {
		*failure = "no memory to keep a timed value's launches";
		return RIG_FAILED;
	}
	submitted_now(d, value);
	return RIG_OK;
}

/* commit while a control is set: out of line (see room_controlled()). */
static __attribute__((noinline, cold)) bool
commit_controlled(struct pdev *d, const char **failure)
{
	polled_maybe_block(d->p, CALL_COMMIT);
	if (polled_failing(d->p, CALL_COMMIT)) {
		*failure = polled_injected(d, CALL_COMMIT);
		return false;
	}
	return true;
}

static inline int
commit_work(struct pdev *d, uint64_t value, const char **failure)
{
	polled_bump(&d->p->commits);
	if (__builtin_expect(polled_controlled(d->p), 0) && !commit_controlled(d, failure))
		return RIG_FAILED;
	/* Never past submitted: the slots beyond hold older values. */
	if (value > d->submitted)
		value = d->submitted;
	if (value > atomic_load_explicit(&d->committed, memory_order_relaxed))
		publish_commit(d, value);
	return RIG_OK;
}

/* submit and commit, counted for the overlap check of stop. The value
 * of every call but a few (a fill, waits, more than one part, a profile,
 * a control set, a value submit must refuse) out of line, with the
 * registers they need. */
static __attribute__((noinline)) int
submit_counted(struct pdev *d, uint64_t value, struct rig_part *parts, size_t n,
	       const struct rig_wait *waits, size_t nwaits,
	       struct rig_times *times, const char **failure)
{
	int r;

	polled_enter_c(d->p);
	r = submit_work(d, value, parts, n, waits, nwaits, times, failure);
	polled_leave_c(d->p);
	return r;
}

/* The common value, one copy or launch with no wait, as submit_work()
 * would run it with no control set and room free: its step inline. */
static int
polled_submit(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	      const struct rig_wait *waits, size_t nwaits,
	      struct rig_times *times, const char **failure)
{
	struct pdev *d = edge;
	struct rig_polled *p = d->p;
	struct pslot *s = &d->slot[value % POLLED_SLOTS];

	if (__builtin_expect(n != 1 || nwaits || times || parts[0].kind == RIG_FILL_PART ||
			     s->timed || polled_controlled(p) || value != d->submitted + 1 ||
			     d->done_seen + POLLED_SLOTS < value, 0))
		return submit_counted(d, value, parts, n, waits, nwaits, times, failure);
	polled_enter_c(p);
	prefetch_ahead(d, value);
	polled_bump(&p->submits);
	step_of(&s->step[0], &parts[0]);
	s->steps = s->step;
	s->waits = s->wait;
	s->nsteps = 1;
	s->nwaits = 0;
	submitted_now(d, value);
	polled_leave_c(p);
	return RIG_OK;
}

static int
polled_commit(void *edge, uint64_t value, const char **failure)
{
	struct pdev *d = edge;
	int r;

	polled_enter_c(d->p);
	r = commit_work(d, value, failure);
	polled_leave_c(d->p);
	return r;
}

const struct rig_driver polled_driver = {
	.room = polled_room,
	.submit = polled_submit,
	.commit = polled_commit,
};
