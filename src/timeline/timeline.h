/* SPDX-License-Identifier: MIT */
/*
 * timeline/timeline.h: a device's timeline as rig sees it. The word is the
 * driver's; everything else here is rig's bookkeeping of values:
 *
 *   word <= committed <= submitted <= issued      (while the device is live)
 *
 * issued: the last value given to a submitter (one fetch-add); submitted: the
 * last value handed to the driver's submit; committed: the last value the
 * driver was told to run (or that submit said was committed). Values start
 * after base, the word's value when make returned, so a reused slot keeps
 * counting up and a timeline never wraps within 2^64 values.
 *
 * Not here: who calls the driver (submit/), the objects a program holds
 * (core/).
 */
#ifndef TIMELINE_TIMELINE_H
#define TIMELINE_TIMELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ck_ec.h>

#include "rig.h"
#include "rig_edge.h"

struct timeline {
	int _Atomic slot;		/* index in rig_words, or -1; atomic: a submit racing the device's end reads it as the end gives it back */
	const char *name;		/* the device's, for messages */
	_Atomic uint64_t *word;		/* &rig_words[slot] */
	struct ck_ec32 *futex;		/* event count bumped whenever the word moves or the
					 * device is lost (util/ec.h); waits sleep on it */
	uint64_t base;			/* the word's value when make returned */
	_Atomic uint64_t issued;
	_Atomic uint64_t submitted;
	_Atomic uint64_t committed;
	_Atomic uint64_t commit_want;	/* highest value a waiter needs committed */
	_Atomic uint32_t waiters;	/* threads in the sleeping part of a wait (the poller
					 * watches the word while any are) */
	/* How long a wait that sleeps takes here, as the last ones did
	 * (wait.c; 0: none yet). A hint each wait tunes: relaxed loads and
	 * stores. */
	_Atomic uint64_t expect_ns;
	_Atomic(const char *) lost;	/* why the device was lost (loss->reason); NULL while live */
	struct rig_loss *loss;		/* the loss's record, set before lost */
	_Atomic uint64_t lost_at;	/* values above it were dropped by the loss */
	/* issued + 1, read just after lost was stored (0 before): every value
	 * a reserve drew that did not see the loss lies below it (both
	 * seq_cst; submit/submit.h, submit_reserve()). */
	_Atomic uint64_t issued_end;
	_Atomic bool spread_done;	/* the loss reached every device waiting on it */
	/* A loss has begun (set under loss.c's lock, before lost): whoever
	 * sees it and needs lost_at takes that lock, then reads lost. */
	_Atomic bool losing;
	struct timeline *lose_next;	/* loss.c's list of the devices one loss loses */
	/*
	 * For each producer slot, the highest value of it this device's
	 * queues were given to wait for (loss.c: a producer's loss loses the
	 * devices whose queues wait for its dropped values). NULL until the
	 * first such wait.
	 */
	_Atomic(_Atomic uint64_t *) waits_on;
	_Atomic uint32_t waits_hi;	/* waits_on's producer slots are all below it */
	/*
	 * The highest value of this device whose queues wait for a producer
	 * with a hang clock (route.c): while the word is below it, the poller
	 * looks at those producers' clocks as if someone waited on the host
	 * (SPEC §8), and pauses this device's own clock while one of them has
	 * not shown the value it waits for (the hang is the producer's).
	 */
	_Atomic uint64_t queue_until;
	/* Since when (rig_now_ns) a driver call that may block (facts.may_block:
	 * room, submit, commit) is in flight; 0: none. The hang clock runs
	 * while one is and someone waits, and exit gives up on a device whose
	 * call does not return (submit/). */
	_Atomic uint64_t busy_since;
	uint64_t hang_ns;		/* facts.hang_ms in ns; 0: never hangs */
	int events_fd;			/* the driver's interrupt source, or -1 */
	/*
	 * Commits up to v (no further than submitted); set by submit/. Returns
	 * 0, the loss, or 1 where a driver call that may block holds the
	 * driver now (the commit is asked of it; ask again later rather than
	 * wait behind it). Called by waiters before they sleep.
	 */
	int (*commit)(struct timeline *tl, uint64_t v);
	void *commit_arg;
	enum rig_completion completion;	/* how the word advances (facts) */
	/* Keep the timeline's owner alive (take) or let it go; set by core. */
	void (*hold)(struct timeline *tl, bool take);
	/* The driver's ops.assist and its handle (or NULL): a waiter runs
	 * the work it waits for (wait.c). */
	int (*assist)(void *t, uint64_t value, bool run, uint64_t *stay_ns);
	void *assist_arg;
	/* A word of the driver's own, read through Driver.signaled (or NULL).
	 * Called only inside a read-side section (timeline_word): the
	 * device's end clears it and waits a grace period before the
	 * driver's release frees signaled_arg. */
	uint64_t (*signaled)(void *t);
	void *signaled_arg;
	/*
	 * Hooks of the layers above, each optional. on_lose: the device was
	 * just lost (submit/: wake the thread that stops the driver).
	 * owner: the submission whose work value is, or NULL (core/).
	 * events: events_fd is readable: ask the driver (core/; called by
	 * the poller). reap: the word moved, or reap_at came: return what
	 * waited (reclaim/; the poller calls it while reap_pending is set).
	 */
	void (*on_lose)(struct timeline *tl);
	const void *(*owner)(struct timeline *tl, uint64_t value);
	void (*events)(struct timeline *tl);
	void (*reap)(struct timeline *tl);
	_Atomic uint32_t reap_pending;	/* things wait in reclaim/ for the word to move */
	_Atomic uint64_t reap_at;	/* reap then even if the word stays (0: never) */
};

/* ---- words.c: the process-wide array and its slots ---- */

/* Take a free slot for tl (word and futex set); -1 when all are taken. */
int timeline_slot_take(struct timeline *tl);
/* Give tl's slot back once no work of its device can write the word. */
void timeline_slot_give(struct timeline *tl);
/* Start counting values after the word's present value (after make). */
void timeline_start(struct timeline *tl);

/* ---- state.c: reading and changing a timeline ---- */

/* The word's value, refreshed from a driver's own word where it has one. */
uint64_t timeline_word(struct timeline *tl);
bool timeline_reached(struct timeline *tl, uint64_t v);
bool timeline_signaled(struct timeline *tl, uint64_t v);
/* The word itself shows v: v's work is over, or the device is stopped
 * (after a loss rig raises the word once the driver stopped). What memory
 * and code wait for before they go back, and other devices before they
 * use memory v's work wrote. */
bool timeline_settled(struct timeline *tl, uint64_t v);

/* ---- loss.c: losses, their records, and their spread ---- */

/* Mark the device lost; true for the first loss only. Wakes every waiter,
 * then loses the devices whose queues wait for its dropped values. */
bool timeline_lose(struct timeline *tl, const char *reason);
/* The same, with the fault's site (or NULL), the submission it ran (or
 * NULL: ask the owner hook) and the loss it followed (or NULL). */
bool timeline_lose_at(struct timeline *tl, const char *reason,
		      const struct rig_fault_site *site, const void *owner,
		      const struct rig_loss *cause);
/* Before tl's queues are told to wait for value of producer (held): note
 * it, then check that value is not dropped. 0; -ENOMEM; RIG_ELOST, tl
 * lost naming the producer, where it is. */
int timeline_note_wait(struct timeline *tl, struct timeline *producer, uint64_t value);
/* Whether value of producer was dropped by its loss: it will never be
 * reached. Once this says so it always will. */
bool timeline_dropped(struct timeline *producer, uint64_t value);
/* "<reason>; <cause's device> is lost: <its reason>; ..." into buf. */
void loss_chain_text(const struct rig_loss *l, char *buf, size_t len);
/* Free the loss's record, at the device's end. */
void timeline_forget(struct timeline *tl);
/* Wake the waiters of tl (after rig itself saw the word move): a bump of
 * its event count, a system call only when one sleeps. */
void timeline_wake(struct timeline *tl);
/* Raise an atomic to at least v. */
void timeline_raise(_Atomic uint64_t *a, uint64_t v);

/* ---- wait.c ---- */

/* A wait's yields (wait.c): before it sleeps; before the end it expects
 * from the last waits; after that end, at most. */
#define TIMELINE_YIELD_NS	50000u
#define TIMELINE_EARLY_NS	200000u
#define TIMELINE_LATE_MAX_NS	1000000u
/* The end a timeline's waits expect, after one that took waited_ns from its
 * start to its value (expect_ns: what they expected; 0: nothing yet). */
uint64_t timeline_expect_next(uint64_t expect_ns, uint64_t waited_ns);
/* Where a wait that started at start_ns and expects expect_ns (> 0) yields:
 * from *from_ns to *to_ns. */
void timeline_yield_span(uint64_t start_ns, uint64_t expect_ns, uint64_t *from_ns,
			 uint64_t *to_ns);
/* Block until v is signaled or timeout_ns passes: 0, RIG_ELOST, RIG_ETIMEDOUT. */
int timeline_wait(struct timeline *tl, uint64_t v, uint64_t timeout_ns);
/* The same, ending too (RIG_ELOST) once also is lost, which it looks at
 * every millisecond or so. */
int timeline_wait_also(struct timeline *tl, uint64_t v, struct timeline *also);
/* Block until v is settled (the same answers): the waits of rig's own
 * that order memory, which must not pass work still running. */
int timeline_wait_settled(struct timeline *tl, uint64_t v, uint64_t timeout_ns);

/* ---- poller.c: the polling thread ---- */

/* Watch tl: its word while it has waiters or returns pending, its hang
 * clock, its events_fd. 0, or -EAGAIN where no poller could start. */
int poller_register(struct timeline *tl);
/* Stop watching tl; on return the poller no longer reads it. */
void poller_unregister(struct timeline *tl);
/*
 * The timeline holding slot, held (tl->hold) so it stays valid until
 * timeline_put(); NULL when no device holds the slot, whose word then shows
 * every value issued on it. Any thread, never blocks.
 */
struct timeline *timeline_get(uint32_t slot);
void timeline_put(struct timeline *tl);
/* Wait on the host until value of slot is settled (0 when no device
 * holds the slot). */
int timeline_wait_slot(uint32_t slot, uint64_t value, uint64_t timeout_ns);
/*
 * A device's own wait on the host, before its driver sees a job, for
 * value of the producer at slot: one wait, counted as a waiter the whole
 * time (the producer's hang clock runs on), that also ends once self is
 * lost. 0 once the value is reached (or no device holds the slot);
 * RIG_ELOST once self is lost, which it is, "lost with <producer>", where
 * the producer's loss dropped the value: no work runs on memory whose
 * last write was dropped (README, Loss).
 */
int timeline_wait_producer(struct timeline *self, uint32_t slot, uint64_t value);
/* v's job makes tl's queues wait for a value of producer (route.c): the
 * poller watches producer's hang clock while tl's word is below v. */
void timeline_queue_wait(struct timeline *tl, struct timeline *producer, uint64_t v);
/* The timeline watched at slot, or NULL; only inside p_rcu_read_lock(). */
struct timeline *poller_watched(uint32_t slot);
/* The slots taken now (a test's leak check). */
int timeline_slots_taken(void);
/* Around fork(): hold the timelines' locks (loss.c, words.c), so no copy
 * of one is taken; after: release them, in the parent and in the child. */
void timeline_fork_prepare(void);
void timeline_fork_after(void);
void words_fork_prepare(void);
void words_fork_after(void);
/* In a forked child: the poller thread is gone; forget it (and its fds)
 * without touching what the parent shares, so a later wait starts anew. */
void poller_forget_after_fork(void);

/* A waiter is about to sleep: make sure the poller is watching. False when
 * no poller thread could start: the waiter then naps and looks itself. */
bool poller_kick(void);
/* A timeline's reap_pending was just raised: wake the poller if it sleeps
 * with nothing to look at (a system call only then). */
void poller_nudge(void);

/* ---- fd.c: watches, values waited on together (any, or all) ---- */

struct watch_value {
	struct timeline *tl;		/* compared, read only while found at slot */
	uint32_t slot;
	uint64_t base;			/* tl's base: tells a later device at slot apart */
	uint64_t value;
};

struct timeline_watch {
	struct timeline_watch *next;	/* the push stack, then the poller's list */
	_Atomic uint32_t refs;		/* the poller's, and a sleeper's */
	_Atomic uint32_t fired;		/* 1 once fired; a sleeper's futex word */
	_Atomic bool cancelled;		/* the sleeper left: retire it unfired */
	bool any;			/* fire on any value, else on all (or a drop) */
	int efd;			/* rig's own eventfd to make readable, or -1 */
	size_t n;
	struct watch_value at[];
};

/* A watch of n values, set with timeline_watch_set(); efd >= 0: rig's copy
 * of an eventfd, written at the fire and closed (the watch is then the
 * poller's alone), else a sleeper's (timeline_watch_sleep()). NULL: no
 * memory. A watch of all fires once every value is signaled or one is
 * dropped; of any, once one is signaled. */
struct timeline_watch *timeline_watch_new(size_t n, bool any, int efd);
/* Value i of w: value of tl, which the caller holds until the push. */
void timeline_watch_set(struct timeline_watch *w, size_t i, struct timeline *tl,
			uint64_t value);
/* Hand w to the poller (lock-free) and kick it; false when no poller
 * could start (w is then still handed over, and retired once one runs). */
bool timeline_watch_push(struct timeline_watch *w);
/* Sleep until w fired (true) or the clock shows deadline_ns (false). */
bool timeline_watch_sleep(struct timeline_watch *w, uint64_t deadline_ns);
/* The sleeper is done with w, fired or not. */
void timeline_watch_cancel(struct timeline_watch *w);
/* The poller's, once per pass: fire the watches that are due; true while
 * any is left (the poller keeps looking). */
bool timeline_watches_scan(void);
/* In a forked child: forget the watches (the parent's sleepers). */
void timeline_watches_forget_after_fork(void);

#endif
