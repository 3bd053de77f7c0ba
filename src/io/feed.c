/*
 * io/feed.c: the MPSC queue of feed.h (after Dmitry Vyukov's intrusive
 * queue).
 *
 * Design. head is the last node pushed; tail the next to pop; a stub node
 * stands in when the queue is empty, so head and tail never go NULL. A push
 * swaps itself into head, then links the previous head to itself. Between
 * those two steps the queue is "unlinked": pop sees no next and answers
 * NULL though head moved on; feed_empty_sc() compares head, so the loop
 * never sleeps over it.
 *
 * No lost wake-up. The loop stores asleep = 1 then loads head; a producer
 * swaps head then exchanges asleep to 0. All four are seq_cst, so one of
 * the two sees the other: the loop sees the new head and stays up, or the
 * producer sees asleep = 1, clears it and rings. Only one producer rings
 * per sleep (the exchange).
 *
 * Worked interleaving: loop stores asleep = 1; producer P swaps head (seq_cst
 * after the store, so the loop's next load of head sees P) and exchanges
 * asleep: 1, so P rings; the loop's feed_sleep_sc() already answered true
 * (it saw P's head) and it does not block; P's ring leaves the bell's
 * eventfd counter at 1, so the loop's next block returns at once. A spurious
 * wake, never a lost one.
 */
#include <stddef.h>

#include "io/feed.h"

void
feed_init(struct feed *q)
{
	atomic_init(&q->stub.next, NULL);
	atomic_init(&q->head, &q->stub);
	q->tail = &q->stub;
	atomic_init(&q->asleep, 0);
}

bool
feed_push_mp(struct feed *q, struct feed_node *n)
{
	struct feed_node *prev;

	atomic_store_explicit(&n->next, NULL, memory_order_relaxed);
	/* seq_cst: the sleep handshake (see the file's notes); also a
	 * release of n's contents to the next producer's link. */
	prev = atomic_exchange_explicit(&q->head, n, memory_order_seq_cst);
	/* Pairs with the acquire of next in feed_pop_sc(): the consumer that
	 * reaches n through prev sees everything written to n before. */
	atomic_store_explicit(&prev->next, n, memory_order_release);
	return atomic_exchange_explicit(&q->asleep, 0, memory_order_seq_cst);
}

struct feed_node *
feed_pop_sc(struct feed *q)
{
	struct feed_node *tail = q->tail, *next, *head;

	/* Each acquire below pairs with the release link in feed_push_mp(). */
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (tail == &q->stub) {
		if (!next)
			return NULL;
		q->tail = tail = next;
		next = atomic_load_explicit(&tail->next, memory_order_acquire);
	}
	if (next) {
		q->tail = next;
		return tail;
	}
	head = atomic_load_explicit(&q->head, memory_order_acquire);
	if (tail != head)
		return NULL;		/* a push is between its two steps */
	feed_push_mp(q, &q->stub);	/* tail is the last node: put the stub behind it */
	next = atomic_load_explicit(&tail->next, memory_order_acquire);
	if (next) {
		q->tail = next;
		return tail;
	}
	return NULL;
}

bool
feed_empty_sc(struct feed *q)
{
	struct feed_node *tail = q->tail;

	return tail == &q->stub &&
	       atomic_load_explicit(&q->head, memory_order_seq_cst) == tail;
}

bool
feed_sleep_sc(struct feed *q)
{
	atomic_store_explicit(&q->asleep, 1, memory_order_seq_cst);
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
