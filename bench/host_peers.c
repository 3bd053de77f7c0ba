/* SPDX-License-Identifier: MIT */
/*
 * bench/host_peers.c: bench_host's peers (host_peers.h), written as a
 * program without a runtime writes them: everything under one mutex with
 * condition variables for the queue; pthread_barrier_wait at the start
 * and the end of each launch for the team.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "host_peers.h"

struct peer_queue {
	pthread_mutex_t lock;
	pthread_cond_t work, idle;
	uint64_t posted, done;
	bool stop;
	peer_kernel_fn fn;
	const void *params;
	pthread_t thread;
};

static void *
queue_worker(void *arg)
{
	struct peer_queue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->done == q->posted && !q->stop)
			pthread_cond_wait(&q->work, &q->lock);
		if (q->stop)
			break;
		pthread_mutex_unlock(&q->lock);
		q->fn(q->params, 0, 1);
		pthread_mutex_lock(&q->lock);
		q->done++;
		pthread_cond_signal(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct peer_queue *
peer_queue_start(peer_kernel_fn fn, const void *params)
{
	struct peer_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->idle, NULL);
	q->fn = fn;
	q->params = params;
	if (pthread_create(&q->thread, NULL, queue_worker, q) != 0) {
		free(q);
		return NULL;
	}
	return q;
}

void
peer_queue_round_trip(struct peer_queue *q)
{
	uint64_t mine;

	pthread_mutex_lock(&q->lock);
	mine = ++q->posted;
	pthread_cond_signal(&q->work);
	while (q->done < mine)
		pthread_cond_wait(&q->idle, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void
peer_queue_stop(struct peer_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	free(q);
}

struct member {
	struct peer_team *t;
	unsigned index;
	pthread_t thread;
};

struct peer_team {
	pthread_barrier_t start, end;
	unsigned n;
	peer_kernel_fn fn;
	const void *params;
	int64_t groups;
	bool stop;
	struct member *m;
};

static void
share(struct peer_team *t, unsigned i)
{
	int64_t first = t->groups * i / t->n, end = t->groups * (i + 1) / t->n;

	if (end > first)
		t->fn(t->params, first, end);
}

static void *
team_member(void *arg)
{
	struct member *m = arg;
	struct peer_team *t = m->t;

	for (;;) {
		pthread_barrier_wait(&t->start);
		if (t->stop)
			return NULL;
		share(t, m->index);
		pthread_barrier_wait(&t->end);
	}
}

struct peer_team *
peer_team_start(unsigned n)
{
	struct peer_team *t = calloc(1, sizeof(*t));

	if (!t || !(t->m = calloc(n, sizeof(*t->m)))) {
		free(t);
		return NULL;
	}
	t->n = n;
	pthread_barrier_init(&t->start, NULL, n);
	pthread_barrier_init(&t->end, NULL, n);
	for (unsigned i = 1; i < n; i++) {
		t->m[i] = (struct member){ t, i, 0 };
		if (pthread_create(&t->m[i].thread, NULL, team_member, &t->m[i]) != 0)
			abort();	/* a benchmark: no partial team */
	}
	return t;
}

void
peer_team_launch(struct peer_team *t, peer_kernel_fn fn, const void *params, int64_t groups)
{
	t->fn = fn;
	t->params = params;
	t->groups = groups;
	pthread_barrier_wait(&t->start);
	share(t, 0);
	pthread_barrier_wait(&t->end);
}

void
peer_team_stop(struct peer_team *t)
{
	t->stop = true;
	pthread_barrier_wait(&t->start);
	for (unsigned i = 1; i < t->n; i++)
		pthread_join(t->m[i].thread, NULL);
	pthread_barrier_destroy(&t->start);
	pthread_barrier_destroy(&t->end);
	free(t->m);
	free(t);
}
