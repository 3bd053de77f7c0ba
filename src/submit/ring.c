/* SPDX-License-Identifier: MIT */
/*
 * submit/ring.c: the sequence-numbered ring of ring.h.
 *
 * Sleeping without a lost wake-up: the consumer stores asleep = 1, then
 * reads the slot and the cursor; a producer stores the slot (or a thread
 * that ran a value itself stores the cursor), then reads asleep. All are
 * sequentially consistent, so at least one sees the other's store: either
 * the consumer sees the job (or the moved cursor) and does not sleep, or
 * the other sees asleep and rings the bell, whose value the consumer read
 * before it looked.
 *
 * The thread that ran a value itself pays no fence for that handshake
 * (sring_moved_fence(), ring.h): the consumer, between its store of
 * asleep and its looks, is the slow side of util/membar.h's asymmetric
 * Dekker, the runner (its store of the cursor, then its load of asleep)
 * the fast one. The consumer pays a system call on its way to sleep, once
 * per idle spell; the runner saves a locked instruction on every value
 * (5.4 ns here, of a polled copy's ~90).
 */
#include <sched.h>
#include <stdlib.h>

#include <ck_pr.h>

#include "util/futex.h"
#include "util/membar.h"
#include "submit/ring.h"

#define SPINS 64

void
sring_init(struct sring *r, uint64_t base)
{
	membar_init();
	for (uint64_t v = base + 1; v <= base + SRING_SLOTS; v++) {
		atomic_init(&r->slot[v % SRING_SLOTS].seq, v);
		r->slot[v % SRING_SLOTS].job = NULL;
	}
	atomic_init(&r->bell, 0);
	atomic_init(&r->asleep, 0);
}

void *
sring_room(struct sring *r, uint64_t v)
{
	struct sring_slot *s = &r->slot[v % SRING_SLOTS];

	/* Pairs with the consumer's release of seq in free: the slot's last
	 * job is no longer read before we overwrite its room. */
	while (atomic_load_explicit(&s->seq, memory_order_acquire) != v)
		sched_yield();
	return s->room;
}

void
sring_publish_mp(struct sring *r, uint64_t v, void *job)
{
	struct sring_slot *s = &r->slot[v % SRING_SLOTS];

	s->job = job;
	/* Pairs with the acquire in take/ready: the job (and all the
	 * producer wrote before) is visible with seq. seq_cst for the
	 * sleep handshake. */
	atomic_store_explicit(&s->seq, v + 1, memory_order_seq_cst);
	if (atomic_load_explicit(&r->asleep, memory_order_seq_cst))
		sring_ring(r);
}

bool
sring_ready_sc(struct sring *r, uint64_t v)
{
	return atomic_load_explicit(&r->slot[v % SRING_SLOTS].seq,
				    memory_order_acquire) == v + 1;
}

void *
sring_take_sc(struct sring *r, uint64_t v)
{
	return sring_ready_sc(r, v) ? r->slot[v % SRING_SLOTS].job : NULL;
}

void
sring_free_sc(struct sring *r, uint64_t v)
{
	/* Pairs with the acquire in room: frees the slot for v + SLOTS. */
	atomic_store_explicit(&r->slot[v % SRING_SLOTS].seq, v + SRING_SLOTS,
			      memory_order_release);
}

void
sring_ring(struct sring *r)
{
	atomic_fetch_add_explicit(&r->bell, 1, memory_order_seq_cst);
	futex_wake_all(&r->bell);
}

void
sring_moved(struct sring *r, uint64_t next)
{
	/* Only when the value at the new cursor is already published: a
	 * later publish finds the consumer asleep and rings itself. seq_cst
	 * loads: against the publisher's seq then asleep, and the consumer's
	 * asleep then cursor and seq. */
	if (atomic_load_explicit(&r->asleep, memory_order_seq_cst) &&
	    atomic_load_explicit(&r->slot[next % SRING_SLOTS].seq, memory_order_seq_cst) == next + 1)
		sring_ring(r);
}

uint32_t
sring_bell(struct sring *r)
{
	return atomic_load_explicit(&r->bell, memory_order_seq_cst);
}

static bool
ready_or_moved(struct sring *r, uint64_t v, _Atomic uint64_t *cursor)
{
	return sring_ready_sc(r, v) || atomic_load(cursor) != v;
}

void
sring_sleep_sc(struct sring *r, uint64_t v, _Atomic uint64_t *cursor, uint32_t bell)
{
	for (int i = 0; i < SPINS; i++) {
		if (ready_or_moved(r, v, cursor) || sring_bell(r) != bell)
			return;
		ck_pr_stall();
	}
	atomic_store_explicit(&r->asleep, 1, memory_order_seq_cst);
	/* The runners' barrier (above): they fence only the compiler. */
	membar_slow();
	if (!ready_or_moved(r, v, cursor))
		futex_wait(&r->bell, bell, UINT64_MAX);
	atomic_store_explicit(&r->asleep, 0, memory_order_relaxed);
}
