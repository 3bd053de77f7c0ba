/*
 * submit/ring.h: the device's submission ring. Slots are indexed by value:
 * the submitter that drew value v from the device's counter fills slot
 * v % SRING_SLOTS, and the device's submission thread empties the slots in
 * value order, so the driver sees values in order however the submitters
 * interleave.
 *
 * Producers: any number, each on the slot of its own value. Consumer: one,
 * the submission thread. publish is wait-free unless the ring is full (the
 * slot still holds the value SRING_SLOTS earlier), when it yields until the
 * consumer frees it. take never blocks. What a producer wrote before
 * sring_publish_mp() is visible once sring_take_sc() returns that job.
 *
 *               publish_mp  take_sc  sleep_sc
 *   publish_mp      -          -        -
 *   take_sc         -          X        X      (X: one thread only)
 *   sleep_sc        -          X        X
 *
 * Slot states, for the value v that maps to it: seq == v: free for v's
 * producer; seq == v + 1: holds v's job; the consumer then sets
 * seq = v + SRING_SLOTS, freeing it for the next value that maps there.
 */
#ifndef SUBMIT_RING_H
#define SUBMIT_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SRING_SLOTS 1024
_Static_assert((SRING_SLOTS & (SRING_SLOTS - 1)) == 0, "a power of two");

struct sring_slot {
	_Atomic uint64_t seq;
	void *job;
};

struct sring {
	struct sring_slot slot[SRING_SLOTS];
	_Atomic uint32_t bell;		/* bumped by a publish that finds the consumer asleep */
	_Atomic uint32_t asleep;	/* the consumer is (about to be) in futex_wait */
};

/* Ready the ring for values base + 1, base + 2, ... */
void sring_init(struct sring *r, uint64_t base);
/* Place v's job; wakes the consumer if it sleeps. */
void sring_publish_mp(struct sring *r, uint64_t v, void *job);
/* v's job, and frees its slot; NULL while v is not yet published. */
void *sring_take_sc(struct sring *r, uint64_t v);
/* True when v's job is published (the consumer's peek). */
bool sring_ready_sc(struct sring *r, uint64_t v);
/* The bell's count: read it before looking at what a ring announces. */
uint32_t sring_bell(struct sring *r);
/* Sleep until v is published or the bell rang since it showed bell
 * (sring_bell() read before the caller's last looks, so no ring between
 * those looks and the sleep is missed). */
void sring_sleep_sc(struct sring *r, uint64_t v, uint32_t bell);
/* Wake the consumer whatever it waits for (a stop, a commit request). */
void sring_ring(struct sring *r);

#endif
