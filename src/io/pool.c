/* SPDX-License-Identifier: MIT */
/*
 * io/pool.c: the threads backend, for where io_uring is denied. workers
 * threads take pieces from a FIFO and run one pread, pwrite or fsync each
 * (the loop resubmits the rest of a short one); finished pieces go back on
 * a list the loop reaps. One mutex guards both lists and the bell; the loop
 * sleeps on done_cv, the workers on work_cv. Everything a worker wrote
 * (host memory, the piece's res) is visible to the loop after it takes the
 * piece under the mutex.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/engine.h"

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work_cv, done_cv;
	struct disk_piece *work, *work_last, *done;
	bool bell, quit;
	unsigned nworkers;
	pthread_t workers[];
};

static struct pool *
P(struct disk *d)
{
	return d->be_state;
}

static int64_t
run_piece(struct disk_piece *p)
{
	char *host = p->host ? p->host + p->done : NULL;
	size_t len = p->bytes - p->done;
	off_t at = (off_t)(p->offset + p->done);
	ssize_t n;

	switch (p->kind) {
	case RIG_IO_READ:
		n = pread(p->file->fd, host, len, at);
		break;
	case RIG_IO_WRITE:
		n = pwrite(p->file->fd, host, len, at);
		break;
	default:
		n = fsync(p->file->fd);
		break;
	}
	return n < 0 ? -errno : n;
}

static void *
worker_main(void *arg)
{
	struct pool *q = arg;
	struct disk_piece *p;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->work && !q->quit)
			pthread_cond_wait(&q->work_cv, &q->lock);
		if (!q->work)
			break;
		p = q->work;
		q->work = p->next;
		pthread_mutex_unlock(&q->lock);
		p->res = run_piece(p);
		pthread_mutex_lock(&q->lock);
		p->next = q->done;
		q->done = p;
		pthread_cond_signal(&q->done_cv);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static int
pool_issue(struct disk *d, struct disk_piece *p)
{
	struct pool *q = P(d);

	p->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->work)
		q->work_last->next = p;
	else
		q->work = p;
	q->work_last = p;
	pthread_cond_signal(&q->work_cv);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

/* timeout_ns from now on the clock done_cv waits by (CLOCK_MONOTONIC). */
static struct timespec
deadline(uint64_t timeout_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(timeout_ns / 1000000000u);
	ts.tv_nsec += (long)(timeout_ns % 1000000000u);
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static int
pool_reap(struct disk *d, bool block, uint64_t timeout_ns)
{
	struct pool *q = P(d);
	struct disk_piece *p, *next;
	struct timespec until;

	if (block && timeout_ns)
		until = deadline(timeout_ns);
	pthread_mutex_lock(&q->lock);
	while (block && !q->done && !q->bell) {
		if (!timeout_ns)
			pthread_cond_wait(&q->done_cv, &q->lock);
		else if (pthread_cond_timedwait(&q->done_cv, &q->lock, &until) == ETIMEDOUT)
			break;
	}
	p = q->done;
	q->done = NULL;
	q->bell = false;
	pthread_mutex_unlock(&q->lock);
	for (; p; p = next) {
		next = p->next;
		loop_piece_done(d, p, p->res);
	}
	return 0;
}

static void
pool_bell(struct disk *d)
{
	struct pool *q = P(d);

	pthread_mutex_lock(&q->lock);
	q->bell = true;
	pthread_cond_signal(&q->done_cv);
	pthread_mutex_unlock(&q->lock);
}

/* Hand back the pieces no worker took yet, as cancelled. */
static void
pool_cancel(struct disk *d)
{
	struct pool *q = P(d);
	struct disk_piece *p;

	pthread_mutex_lock(&q->lock);
	while ((p = q->work)) {
		q->work = p->next;
		p->res = -ECANCELED;
		p->next = q->done;
		q->done = p;
	}
	pthread_mutex_unlock(&q->lock);
}

static void
pool_join(struct pool *q, unsigned n)
{
	pthread_mutex_lock(&q->lock);
	q->quit = true;
	pthread_cond_broadcast(&q->work_cv);
	pthread_mutex_unlock(&q->lock);
	for (unsigned i = 0; i < n; i++)
		pthread_join(q->workers[i], NULL);
}

/* Under files_lock, after the loop ended. */
static void
pool_fini(struct disk *d)
{
	struct pool *q = P(d);

	pool_join(q, q->nworkers);
	pthread_cond_destroy(&q->work_cv);
	pthread_cond_destroy(&q->done_cv);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

static int
pool_file_add(struct disk *d, struct disk_file *f)
{
	f->slot = -1;
	return 0;
}

static void
pool_file_drop(struct disk *d, struct disk_file *f)
{
}

static const struct disk_backend pool_backend = {
	.issue = pool_issue,
	.reap = pool_reap,
	.bell = pool_bell,
	.cancel = pool_cancel,
	.fini = pool_fini,
	.file_add = pool_file_add,
	.file_drop = pool_file_drop,
};

/* Start the workers. Returns 0, or a negative errno with why filled. */
int
pool_start(struct disk *d, char *why, size_t len)
{
	struct pool *q = calloc(1, sizeof(*q) + d->opt.workers * sizeof(pthread_t));
	pthread_condattr_t monotonic;
	int ret;

	if (!q) {
		snprintf(why, len, "make: no memory for %u workers", d->opt.workers);
		return -ENOMEM;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work_cv, NULL);
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&q->done_cv, &monotonic);
	pthread_condattr_destroy(&monotonic);
	for (unsigned i = 0; i < d->opt.workers; i++) {
		ret = pthread_create(&q->workers[i], NULL, worker_main, q);
		if (ret) {
			snprintf(why, len, "make: starting worker %u of %u: %s", i,
				 d->opt.workers, strerror(ret));
			pool_join(q, i);
			pthread_cond_destroy(&q->work_cv);
			pthread_cond_destroy(&q->done_cv);
			pthread_mutex_destroy(&q->lock);
			free(q);
			return -ret;
		}
	}
	q->nworkers = d->opt.workers;
	d->be_state = q;
	d->be = &pool_backend;
	d->mode = "threads";
	return 0;
}
