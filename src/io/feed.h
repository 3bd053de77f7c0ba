/*
 * io/feed.h: the disk's feed, an intrusive multi-producer single-consumer
 * queue (Vyukov's) carrying values' jobs from submitters to the loop.
 *
 * Producers: any number, any thread. feed_push_mp() is wait-free (one
 * exchange, one store). Consumer: one, the loop. feed_pop_sc() never
 * blocks; it may answer NULL for a moment while a producer is between its
 * exchange and its store (the queue is then not empty: feed_empty_sc() says
 * so, and that producer's push rings the bell if the loop sleeps).
 * What a producer wrote to a node before feed_push_mp() is visible to the
 * consumer once feed_pop_sc() returns the node.
 *
 * Sleeping: the loop calls feed_sleep_sc() before it blocks; when that
 * answers true it must not block (work arrived). A push that finds the loop
 * asleep answers true, and the pusher rings the loop's bell.
 *                push_mp   pop_sc   empty_sc/sleep_sc   (X: needs exclusion)
 *   push_mp         -         -            -
 *   pop_sc          -         X            X
 *   sleep_sc        -         X            X
 */
#ifndef IO_FEED_H
#define IO_FEED_H

#include <stdatomic.h>
#include <stdbool.h>

struct feed_node {
	struct feed_node *_Atomic next;
};

struct feed {
	struct feed_node *_Atomic head;	/* producers' end */
	struct feed_node *tail;		/* consumer's end */
	struct feed_node stub;
	_Atomic int asleep;
};

void feed_init(struct feed *q);
/* Returns true when the consumer sleeps and must be woken. */
bool feed_push_mp(struct feed *q, struct feed_node *n);
struct feed_node *feed_pop_sc(struct feed *q);
bool feed_empty_sc(struct feed *q);
/* Mark the consumer asleep; true (and not asleep) if work is queued. */
bool feed_sleep_sc(struct feed *q);
/* The consumer woke: clear the mark. */
void feed_wake_sc(struct feed *q);

#endif
