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

#include "rig_edge.h"

struct timeline {
	int slot;			/* index in rig_words, or -1 */
	const char *name;		/* the device's, for messages */
	_Atomic uint64_t *word;		/* &rig_words[slot] */
	_Atomic uint32_t *futex;	/* bumped whenever the word moves or the device is lost */
	uint64_t base;			/* the word's value when make returned */
	_Atomic uint64_t issued;
	_Atomic uint64_t submitted;
	_Atomic uint64_t committed;
	_Atomic uint64_t commit_want;	/* highest value a waiter needs committed */
	_Atomic uint32_t waiters;	/* threads sleeping on futex */
	_Atomic(char *) lost;		/* why the device was lost; NULL while live */
	_Atomic uint64_t lost_at;	/* values above it were dropped by the loss */
	/*
	 * Commits up to v (no further than submitted); set by submit/. Returns
	 * 0 or the loss. Called by waiters before they sleep.
	 */
	int (*commit)(struct timeline *tl, uint64_t v);
	void *commit_arg;
	enum rig_completion completion;	/* how the word advances (facts) */
	/* Keep the timeline's owner alive (take) or let it go; set by core. */
	void (*hold)(struct timeline *tl, bool take);
	/* A word of the driver's own, read through Driver.signaled (or NULL). */
	uint64_t (*signaled)(void *t);
	void *signaled_arg;
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
/* Mark the device lost; true for the first loss only. Wakes every waiter. */
bool timeline_lose(struct timeline *tl, const char *reason);
/* Free the loss's reason, at the device's end. */
void timeline_forget(struct timeline *tl);
/* Wake the waiters of tl (after rig itself saw the word move). */
void timeline_wake(struct timeline *tl);
/* Raise an atomic to at least v. */
void timeline_raise(_Atomic uint64_t *a, uint64_t v);

/* ---- wait.c ---- */

/* Block until v is signaled or timeout_ns passes: 0, RIG_ELOST, RIG_ETIMEDOUT. */
int timeline_wait(struct timeline *tl, uint64_t v, uint64_t timeout_ns);

/* ---- poller.c: the polling thread ---- */

/* Watch tl's word while it has waiters (registered at slot take). */
void poller_register(struct timeline *tl);
/* Stop watching tl; on return the poller no longer reads it. */
void poller_unregister(struct timeline *tl);
/*
 * The timeline holding slot, held (tl->hold) so it stays valid until
 * timeline_put(); NULL when no device holds the slot, whose word then shows
 * every value issued on it. Any thread, never blocks.
 */
struct timeline *timeline_get(uint32_t slot);
void timeline_put(struct timeline *tl);
/* Wait on the host for value of slot (0 when no device holds it). */
int timeline_wait_slot(uint32_t slot, uint64_t value, uint64_t timeout_ns);

/* A waiter is about to sleep: make sure the poller is watching. False when
 * no poller thread could start: the waiter then naps and looks itself. */
bool poller_kick(void);

#endif
