/* SPDX-License-Identifier: MIT */
/*
 * peers/pthread_queue.c: the pthread baseline, what a program writes
 * without a runtime: a work queue under one mutex, a condition variable to
 * wake the one worker thread, and one to wake the waiter.
 *
 *   round_trip      post an empty job, wait until the worker completed it
 *   batched_submit  post n empty jobs, then wait once for the last
 *
 * Two threads on this machine's two cores, both sleep when they wait:
 * nothing spins.
 */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * One producer (the main thread), one consumer (the worker). Everything is
 * under lock. posted counts jobs posted, done jobs completed; the queue is
 * the values in (done, posted], so an empty job is just a number.
 */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t work;	/* posted moved, or stop */
	pthread_cond_t idle;	/* done moved */
	uint64_t posted;
	uint64_t done;
	bool stop;
};

static void *
worker(void *arg)
{
	struct queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->done == q->posted && !q->stop)
			pthread_cond_wait(&q->work, &q->lock);
		if (q->done == q->posted)
			break;
		/* Take one job; run it (empty) outside the lock, as a worker would. */
		pthread_mutex_unlock(&q->lock);
		pthread_mutex_lock(&q->lock);
		q->done++;
		pthread_cond_signal(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* Returns the job's number. */
static uint64_t
post(struct queue *q)
{
	uint64_t v;

	pthread_mutex_lock(&q->lock);
	v = ++q->posted;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	return v;
}

static void
wait_done(struct queue *q, uint64_t v)
{
	pthread_mutex_lock(&q->lock);
	while (q->done < v)
		pthread_cond_wait(&q->idle, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

static int
round_trip(void *arg)
{
	struct queue *q = arg;

	wait_done(q, post(q));
	return 0;
}

static int
batched(void *arg, uint64_t n)
{
	struct queue *q = arg;
	uint64_t v = 0;

	for (uint64_t i = 0; i < n; i++)
		v = post(q);
	wait_done(q, v);
	return 0;
}

int
main(int argc, char **argv)
{
	struct queue q = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.work = PTHREAD_COND_INITIALIZER,
		.idle = PTHREAD_COND_INITIALIZER,
	};
	struct bench b;
	pthread_t t;
	int ret;

	bench_init(&b, "pthread", argc, argv);
	ret = -pthread_create(&t, NULL, worker, &q);
	if (ret < 0) {
		bench_note(&b, "pthread_create: error %d", -ret);
		return 1;
	}
	ret = bench_per_op(&b, "round_trip", "pthread", BENCH_PEER, round_trip, &q,
			   bench_count(&b, 20000, 2000), 0);
	if (ret == 0)
		ret = bench_per_run(&b, "batched_submit", "pthread", BENCH_PEER,
				    batched, &q, bench_count(&b, 200000, 20000), 0);
	pthread_mutex_lock(&q.lock);
	q.stop = true;
	pthread_cond_signal(&q.work);
	pthread_mutex_unlock(&q.lock);
	pthread_join(t, NULL);
	if (ret == 0 && q.done != q.posted) {
		bench_note(&b, "%llu jobs posted, %llu done",
			   (unsigned long long)q.posted, (unsigned long long)q.done);
		ret = -EPROTO;
	}
	return ret ? 1 : 0;
}
