/* SPDX-License-Identifier: MIT */
/*
 * io/feed.c: the feed of feed.h: liburcu's wfcqueue, called as a library
 * (no _LGPL_SOURCE), and the sleep handshake.
 *
 * No lost wake-up. The loop stores asleep = 1, then reads whether the
 * queue is empty; a producer links its node with liburcu's exchange of
 * the tail, then loads asleep. Both pairs are ordered by full barriers
 * (the loop's seq_cst fence; the exchange, which liburcu documents as a
 * full barrier before and after), so one of the two sees the other: the
 * loop sees the new tail and stays up, or the producer sees asleep = 1,
 * exchanges it to 0 and rings. Only the producer whose exchange read 1
 * rings: one per sleep.
 *
 * Worked interleaving: the loop stores asleep = 1; producer P exchanges
 * the tail (the loop's next emptiness check sees P's node) and loads
 * asleep: 1, so P exchanges it (1: P rings); the loop's feed_sleep_sc()
 * already answered true (it saw P's node) and it does not block; P's ring
 * leaves the bell's counter at 1, so the loop's next block returns at
 * once. A spurious wake, never a lost one.
 *
 * ThreadSanitizer sees nothing inside liburcu (an uninstrumented library:
 * no reports from it, and no ordering either), so each node's hand-off is
 * annotated: the release before the enqueue pairs with the acquire after
 * the dequeue. The handshake is C11 atomics, which it sees.
 */
#include <stddef.h>

#include "io/feed.h"
#include "util/tsan.h"

void
feed_init(struct feed *q)
{
	__cds_wfcq_init(&q->head, &q->tail);
	atomic_init(&q->asleep, 0);
}

bool
feed_push_mp(struct feed *q, struct feed_node *n)
{
	cds_wfcq_node_init(&n->link);
	tsan_release(n);	/* pairs with the acquire in feed_pop_sc() */
	cds_wfcq_enqueue(&q->head, &q->tail, &n->link);
	/* After the enqueue's exchange, a full barrier: the handshake. */
	if (!atomic_load_explicit(&q->asleep, memory_order_seq_cst))
		return false;
	return atomic_exchange_explicit(&q->asleep, 0, memory_order_seq_cst);
}

struct feed_node *
feed_pop_sc(struct feed *q)
{
	struct cds_wfcq_node *n = __cds_wfcq_dequeue_nonblocking(&q->head, &q->tail);

	/* WOULDBLOCK: a push is between its exchange and its store. */
	if (!n || n == CDS_WFCQ_WOULDBLOCK)
		return NULL;
	tsan_acquire(n);
	return (struct feed_node *)((char *)n - offsetof(struct feed_node, link));
}

bool
feed_empty_sc(struct feed *q)
{
	return cds_wfcq_empty(&q->head, &q->tail);
}

bool
feed_sleep_sc(struct feed *q)
{
	atomic_store_explicit(&q->asleep, 1, memory_order_seq_cst);
	/* cds_wfcq_empty() issues no barrier: the mark must be seen before
	 * the queue is read (the producer's side: its exchange, then its
	 * load of asleep). */
	atomic_thread_fence(memory_order_seq_cst);
	if (!feed_empty_sc(q)) {
		atomic_store_explicit(&q->asleep, 0, memory_order_relaxed);
		return true;
	}
	return false;
}

void
feed_wake_sc(struct feed *q)
{
	atomic_store_explicit(&q->asleep, 0, memory_order_relaxed);
}
