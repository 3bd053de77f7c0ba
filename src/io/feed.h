/* SPDX-License-Identifier: MIT */
/*
 * io/feed.h: the disk's feed, carrying values' jobs from submitters to the
 * loop: liburcu's wait-free concurrent queue (cds_wfcq, urcu/wfcqueue.h),
 * intrusive and unbounded, with the loop its one dequeuer, and beside it a
 * handshake that lets the loop sleep with no lost wake-up.
 *
 * Producers: any number, any thread. feed_push_mp() is wait-free: liburcu's
 * enqueue (one exchange, one store), then one load, and an exchange only
 * while the loop sleeps. Consumer: one, the loop. feed_pop_sc() never
 * blocks; it answers NULL when the queue is empty, and also for a moment
 * while a producer is between its exchange and its store (the queue is
 * then not empty: feed_empty_sc() says so, and that producer's push rings
 * the bell if the loop sleeps). Each producer's nodes come out in the order
 * it pushed them. What a producer wrote to a node before feed_push_mp() is
 * visible to the consumer once feed_pop_sc() returns the node.
 *
 * Sleeping: the loop calls feed_sleep_sc() before it blocks; when that
 * answers true it must not block (work arrived). A push that finds the loop
 * asleep answers true, and the pusher rings the loop's bell; one push per
 * sleep does. feed_wake_sc() clears the mark once the loop is up.
 *                push_mp   pop_sc   empty/sleep/wake_sc   (X: needs exclusion)
 *   push_mp         -         -            -
 *   pop_sc          -         X            X
 *   sleep_sc        -         X            X
 *
 * Why this queue: the job is the node (no allocation per value); nothing
 * bounds it, so the Io table's submit never waits for room; producers never
 * wait; and one consumer dequeues with no lock and never blocks. ck_ring is
 * bounded (a full ring would make submit wait or fail); ck_fifo_mpmc takes
 * an entry of its own per node and frees dequeued entries only after a
 * grace period.
 */
#ifndef IO_FEED_H
#define IO_FEED_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <urcu/wfcqueue.h>

struct feed_node {
	struct cds_wfcq_node link;
};

struct feed {
	struct __cds_wfcq_head head;		/* the loop's end */
	/* The producers' end, on a line of its own: liburcu asks that head
	 * and tail not share one where both ends run at once. */
	alignas(64) struct cds_wfcq_tail tail;
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
