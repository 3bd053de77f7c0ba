/* SPDX-License-Identifier: MIT */
/*
 * polled/polled.h: the polled driver's state, shared by its two files: the
 * queue of values and the worker that runs them (queue.c), and the opener,
 * facts, memory, code and controls (polled.c). Nothing outside src/polled
 * includes it, but the driver's own tests (tests/polled).
 *
 * Who writes what (queue.c's opening comment has the design and its proof):
 *   rig's C functions (one at a time, rig_edge.h): submitted, the slots'
 *     contents, committed, and the slots' heap blocks;
 *   the worker: the word, done, its spin budget, the fault's site;
 *   stop: stopping, then (after the join) everything.
 * stopping sits with the worker's fields: it reads the flag before each
 * value, and its own line stays in its cache.
 * The three groups live on cache lines of their own, so the worker's loads
 * of committed do not miss on every store of rig's calls to another field.
 */
#ifndef POLLED_POLLED_H
#define POLLED_POLLED_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <ck_ec.h>

#include "rig_polled.h"

/* rig_polled.h states these three numbers, and SPIN_MAX_NS (queue.c). */
#define POLLED_SLOTS	512	/* values queued at most: room answers RIG_LATER beyond */
#define POLLED_STEPS	4	/* parts a slot holds inline; more go to its heap block */
#define POLLED_WAITS	4	/* waits a slot holds inline */
_Static_assert((POLLED_SLOTS & (POLLED_SLOTS - 1)) == 0, "POLLED_SLOTS is a power of two");

enum call { CALL_NONE, CALL_MAKE, CALL_FACTS, CALL_ALLOC, CALL_ROOM,
	    CALL_SUBMIT, CALL_COMMIT, CALL_GROW };

/* A part as the worker sees it: a copy it runs (both ends as host
 * addresses), or a part it only passes (whose index may fault). */
struct pstep {
	uint32_t queue;
	bool is_copy;
	int fill;		/* >= 0: a fill of dst with this byte */
	unsigned char *src, *dst;
	uint64_t bytes, rows, src_pitch, dst_pitch;
};
/* A heap block holds the steps, then the waits: the waits stay aligned. */
_Static_assert(sizeof(struct pstep) % alignof(struct rig_wait) == 0,
	       "waits follow steps in a heap block");

/* Value v's work: slot v % POLLED_SLOTS of the ring. Line-aligned, with
 * what every value reads on its first line and its first step on the
 * next: a value of one part moves two lines to the worker, and no slot
 * shares a line with its neighbour, which the other side may be using. */
struct pslot {
	alignas(64) _Atomic uint64_t committed_as;	/* the value it holds, once committed */
	const struct pstep *steps;	/* step[] or the heap block */
	const struct rig_wait *waits;	/* wait[] or the heap block */
	uint32_t nsteps, nwaits;
	/* Profiles (stamps.c): the value submit timed here (0: none) and
	 * the pair rig gave. */
	uint64_t timed;
	struct rig_times *times;
	void *heap;			/* kept for the slot's next large value */
	size_t heap_bytes;
	struct pstep step[POLLED_STEPS];
	struct rig_wait wait[POLLED_WAITS];
	uint64_t tick[2];		/* the fake ticks the worker wrote */
};
_Static_assert(offsetof(struct pslot, step) == 64, "a slot's first line is its header");

/* A timed value with launches, kept until measures(v, NULL) (stamps.c). */
struct pkept {
	struct pkept *next;
	uint64_t value;
	struct rig_times *times;
	uint32_t nlaunch;
	uint32_t part[];		/* the launches' part indices */
};

struct pdev {
	const struct rig_driver *drv;	/* first: the facts' edge points here */
	struct rig_polled *p;
	_Atomic uint64_t *word;
	pthread_t worker;
	int efd;			/* the interrupt source: an eventfd */
	uint64_t base;			/* the word's value when make returned */

	/* rig's calls' own (one at a time), on lines of their own: the
	 * worker reads the fields above on every value, and a store here
	 * per value would take their line from it each time. */
	alignas(128) uint64_t submitted;	/* the last value submit filled */
	uint64_t done_seen;		/* done, as they last read it */
	char failure[64];
	/* Profiles (stamps.c): the next value to convert, the last end
	 * converted, the values kept for measures, and the table of the
	 * five functions with settle and measures as the config asks. */
	uint64_t conv_next, last_end;
	uint64_t corr_tick[2], corr_ns[2];	/* the counter's correlation */
	uint64_t corr_rate;		/* ns per tick between them, 32.32 */
	struct pkept *kept;
	struct rig_driver table;

	/* Written by rig's calls; the count read by the worker on its way
	 * to sleep, committed by the controls. 128 apart, not 64: the
	 * core's prefetcher fetches a line's neighbour with it, so a
	 * neighbour the other side writes would bounce as if shared. */
	alignas(128) _Atomic uint64_t committed;	/* the last value the worker may run */
	ck_ec32_t ec;			/* bumped after each change the worker waits for */

	/* Written by the worker, read by rig's calls and events; and the
	 * flag stop sets once, which the worker reads before each value. */
	alignas(128) _Atomic uint64_t done;	/* the last value whose slot it let go */
	_Atomic bool stopping;
	uint64_t spin_ns;		/* how long it spins before it sleeps */
	_Atomic bool faulted;		/* it met the injected fault */
	struct rig_fault_site site;	/* where (written before faulted) */
	char fault_text[96];

	alignas(128) struct pslot slot[POLLED_SLOTS];
};

struct rig_polled {
	struct rig_polled_config c;
	struct rig_opener opener;
	struct rig_queue queue;		/* the default one */
	struct pdev *_Atomic dev;
	bool grown;			/* room and grow run one at a time */
	/* The control calls (stall, committed...) look at dev under it, so
	 * the device's release never frees what one still uses. */
	pthread_mutex_t ctl_lock;

	/* Set by the controls, read on every call and value: a line that
	 * stays shared in every core's cache. */
	alignas(128) _Atomic int fail;
	_Atomic bool stalled;
	_Atomic uint64_t fault_value;	/* rig_polled_fault(); 0: none */
	_Atomic int fault_part;
	_Atomic unsigned block_mask;	/* rig_polled_block(): 1 << call */

	/* Bumped by rig's calls. */
	alignas(128) _Atomic int in_call;	/* rig's other calls in the driver now */
	_Atomic int c_calls;		/* room, submit and commit in the driver now */
	_Atomic uint64_t commits, submits, grows;
	_Atomic int blocked;
	_Atomic int64_t live, images;
	_Atomic uint64_t stops, overlaps, makes;

	/* Bumped by the worker. */
	alignas(128) _Atomic uint64_t ran;

	/* Profiles (stamps.c), written by rig's settle and measures. */
	_Atomic uint64_t settles, freed;
	_Atomic uint64_t settle_log[4096];
};

/* stamps.c: the driver's side of profiles. */
/* submit: note value's pair (times, or NULL) and its launches in its
 * slot; false on no memory. */
bool polled_stamps_note(struct pdev *d, uint64_t value, const struct rig_part *parts,
			size_t n, struct rig_times *times);
/* The worker, around value's work in slot s. */
void polled_stamps_start(struct pdev *d, struct pslot *s, uint64_t value);
void polled_stamps_end(struct pdev *d, struct pslot *s, uint64_t value);
/* Fill d->table: the five functions, settle and measures as configured. */
void polled_stamps_table(struct pdev *d);
/* stop: free what is kept. */
void polled_stamps_free(struct pdev *d);

/* The driver's table (queue.c) and the queue's life (queue.c). */
extern const struct rig_driver polled_driver;
/* Ready d's queue for the values after d->base and start its worker;
 * 0, or the pthread_create error. */
int polled_queue_start(struct pdev *d);
/* Stop the worker (it leaves at its next value, or inside a wait) and free
 * what the slots hold. rig's calls are over (Driver.stop). */
void polled_queue_stop(struct pdev *d);

/* Consume an injected failure of call; true if there was one. A plain
 * load first: the compare-exchange, a locked instruction, only when one
 * is set. */
static inline bool
polled_failing(struct rig_polled *p, enum call call)
{
	int want = call;

	if (atomic_load_explicit(&p->fail, memory_order_relaxed) != want)
		return false;
	return atomic_compare_exchange_strong(&p->fail, &want, CALL_NONE);
}

/* Whether any control is set that room, submit or commit must look at
 * (an injected failure of any call, a block of any call): one look on
 * their common path, the controls' own on their slow one. Relaxed: a
 * control set before the call (in happens-before order) is seen all the
 * same, and one set meanwhile may be seen by either. */
static inline bool
polled_controlled(struct rig_polled *p)
{
	return atomic_load_explicit(&p->fail, memory_order_relaxed) != CALL_NONE ||
	       atomic_load_explicit(&p->block_mask, memory_order_relaxed) != 0;
}

/*
 * Bump a counter that one thread at a time bumps: rig's C functions (one
 * at a time, rig_edge.h), or the worker. No locked instruction; other
 * threads read it with a plain atomic load.
 */
static inline void
polled_bump(_Atomic uint64_t *n)
{
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Every call of rig's into the driver, for the overlap check of stop:
 * the other operations, which any thread may call at once... */
static inline void
polled_enter(struct rig_polled *p)
{
	atomic_fetch_add(&p->in_call, 1);
}

static inline void
polled_leave(struct rig_polled *p)
{
	atomic_fetch_sub(&p->in_call, 1);
}

/* ...and room, submit and commit, which come one at a time: a count
 * without a locked instruction (a broken promise leaves it off 0, which
 * the overlap check then reports). */
static inline void
polled_enter_c(struct rig_polled *p)
{
	atomic_store_explicit(&p->c_calls,
			      atomic_load_explicit(&p->c_calls, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline void
polled_leave_c(struct rig_polled *p)
{
	atomic_store_explicit(&p->c_calls,
			      atomic_load_explicit(&p->c_calls, memory_order_relaxed) - 1,
			      memory_order_relaxed);
}

/* A short sleep, between two looks at something no one wakes us for. */
static inline void
polled_nap(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

/* A call rig_polled_block() holds: block until released. */
static inline void
polled_maybe_block(struct rig_polled *p, enum call call)
{
	if (!(atomic_load(&p->block_mask) & (1u << call)))
		return;
	atomic_fetch_add(&p->blocked, 1);
	while (atomic_load(&p->block_mask) & (1u << call))
		polled_nap();
	atomic_fetch_sub(&p->blocked, 1);
}

/* "injected <call> failure", kept in d for the device's life. */
const char *polled_injected(struct pdev *d, enum call call);

#endif
