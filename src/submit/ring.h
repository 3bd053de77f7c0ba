/* SPDX-License-Identifier: MIT */
/*
 * submit/ring.h: the device's submission ring. Slots are indexed by value:
 * the submitter that drew value v from the device's counter fills slot
 * v % SRING_SLOTS, and the device's submission thread empties the slots in
 * value order, so the driver sees values in order however the submitters
 * interleave.
 *
 * Why not ck_ring: a ck_ring orders items by when they were enqueued, and
 * values are drawn (one fetch-add) before their submitters fill them, so
 * two submitters may finish in either order; the driver must see them in
 * value order. A slot per value is the ring that keeps that order with no
 * lock, and it lets each slot carry the job's bytes (room), so a submit
 * allocates nothing.
 *
 * Why its bell is not a ck_ec event count: the consumer sleeps on two
 * things that different threads move (v's slot, by v's producer, and the
 * cursor, by a submitter that ran v itself), and the one that moves the
 * cursor must wake it only where the next slot is already filled; an event
 * count orders one writer's change before its own bump, not that. A
 * seq_cst asleep flag read by both (ring.c) does.
 *
 * Producers: any number, each on the slot of its own value. Consumer: one,
 * the submission thread. room waits (yielding) only while the ring is full
 * (the slot still holds the value SRING_SLOTS earlier); publish and take
 * never block. What a producer wrote into the slot's room or its job
 * before sring_publish_mp() is visible once sring_take_sc() returns that
 * job; the consumer may use the room until sring_free_sc().
 *
 *               room/publish  take/free  sleep_sc
 *   room/publish      -           -         -
 *   take/free         -           X         X      (X: one thread only)
 *   sleep_sc          -           X         X
 *
 * Slot states, for the value v that maps to it: seq == v: free for v's
 * producer; seq == v + 1: holds v's job; sring_free_sc() then sets
 * seq = v + SRING_SLOTS, freeing it for the next value that maps there.
 */
#ifndef SUBMIT_RING_H
#define SUBMIT_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/membar.h"

#define SRING_SLOTS 256
#define SRING_ROOM 448		/* a job's bytes a slot holds: most jobs fit */
_Static_assert((SRING_SLOTS & (SRING_SLOTS - 1)) == 0, "a power of two");

struct sring_slot {
	alignas(64) _Atomic uint64_t seq;
	void *job;
	alignas(16) unsigned char room[SRING_ROOM];
};

struct sring {
	struct sring_slot slot[SRING_SLOTS];
	alignas(64) _Atomic uint32_t bell;	/* bumped by a publish that finds the consumer asleep */
	_Atomic uint32_t asleep;	/* the consumer is (about to be) in futex_wait */
};

/* Ready the ring for values base + 1, base + 2, ... */
void sring_init(struct sring *r, uint64_t base);
/* The SRING_ROOM bytes of v's slot, once the slot is free (reserved by
 * this thread: it waits only while the ring is full). */
void *sring_room(struct sring *r, uint64_t v);
/* Place v's job (after sring_room(r, v)); wakes the consumer if it sleeps. */
void sring_publish_mp(struct sring *r, uint64_t v, void *job);
/* v's job, or NULL while v is not yet published; its slot stays the
 * consumer's until sring_free_sc(). */
void *sring_take_sc(struct sring *r, uint64_t v);
/* Free v's slot (taken) for the value SRING_SLOTS later. */
void sring_free_sc(struct sring *r, uint64_t v);
/* True when v's job is published (the consumer's peek). */
bool sring_ready_sc(struct sring *r, uint64_t v);
/* The bell's count: read it before looking at what a ring announces. */
uint32_t sring_bell(struct sring *r);
/* Sleep until v is published, *cursor moved off v, or the bell rang since
 * it showed bell (sring_bell() read before the caller's last looks, so no
 * ring between those looks and the sleep is missed). */
void sring_sleep_sc(struct sring *r, uint64_t v, _Atomic uint64_t *cursor,
		    uint32_t bell);
/* Whether the consumer sleeps, or is about to (a hint, relaxed): a
 * publish now would ring the bell. */
static inline bool
sring_consumer_asleep(struct sring *r)
{
	return atomic_load_explicit(&r->asleep, memory_order_relaxed) != 0;
}
/* Between the cursor's store of a thread that ran a value itself and its
 * sring_moved(): the fast side of util/membar.h (ring.c). */
#define sring_moved_fence() membar_fast()
/* Wake the consumer whatever it waits for (a stop, a commit request). */
void sring_ring(struct sring *r);
/* The consumer's cursor moved to next, past a value it may sleep on (one
 * run by another thread): wake it if it sleeps and next is published.
 * Call after the cursor's store and sring_moved_fence(). */
void sring_moved(struct sring *r, uint64_t next);

#endif
