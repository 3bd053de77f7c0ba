/* SPDX-License-Identifier: MIT */
/*
 * host/assist.c: ops.assist (rig_edge.h): a thread that waits for one of
 * the device's values runs chunks of the launch now running (pool.c's
 * helpers), so the waiter is awake at the launch's end, and is often the
 * thread that ends it and stores the word (no wake-up at all then).
 *
 * Each waiting thread keeps, in its own thread-local storage, a guard
 * (guard.h: an alternate stack mapped at its first help, unmapped at the
 * thread's end by a key's destructor) and the last task it joined, so it
 * joins each task once. It runs nothing on a device opened on a set of
 * cores (its kernels run on those cores alone, as the opener asked), nor
 * where its thread cannot contain a fault (host_guard_borrow()).
 *
 * Against stop: host_stop() frees the pool once the device thread is
 * joined. A call counts itself in `assists` (seq_cst) and then reads stop
 * (seq_cst); stop stores stop (seq_cst, host_exec_stop()) and, after the
 * join, waits until `assists` is 0. So either the call sees stop and
 * touches nothing, or stop waits for the call to return; a call that
 * runs a chunk meanwhile is interrupted as the workers are (pool.c).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "host/dev.h"

/* When the rest of a task should end, where no helper timed a chunk yet. */
#define STAY_UNKNOWN_NS	100000u

struct helper {
	struct host_guard guard;
	bool prepared;			/* guard's stack is mapped */
	uint64_t pool;			/* the last task joined: its pool's id, */
	struct host_pool_help help;	/* and its generation */
};

static _Thread_local struct helper me;
static pthread_key_t helper_key;
static pthread_once_t helper_once = PTHREAD_ONCE_INIT;
static bool helper_key_made;

/* At the thread's end: its guard's stack goes back. */
static void
helper_end(void *arg)
{
	struct helper *h = arg;

	host_guard_unkeep(&h->guard);
	host_guard_forget(&h->guard);
	host_guard_release(&h->guard);
	h->prepared = false;
}

static void
helper_key_make(void)
{
	helper_key_made = pthread_key_create(&helper_key, helper_end) == 0;
}

/* This thread's helper, its guard prepared; NULL where it cannot be. */
static struct helper *
helper_self(void)
{
	if (me.prepared)
		return &me;
	pthread_once(&helper_once, helper_key_make);
	/* Without the key the stack would outlive the thread: no help. */
	if (!helper_key_made || host_guard_prepare(&me.guard) != 0)
		return NULL;
	if (pthread_setspecific(helper_key, &me) != 0) {
		host_guard_release(&me.guard);
		return NULL;
	}
	me.prepared = true;
	return &me;
}

struct host_guard *
host_thread_guard(void)
{
	struct helper *h = helper_self();

	return h ? &h->guard : NULL;
}

/* The open task this thread has not joined yet, or 0. */
static uint64_t
unjoined_task(const struct host_dev *d)
{
	uint64_t gen = host_pool_open_task(d->pool);

	return gen && !(me.pool == host_pool_id(d->pool) && me.help.gen == gen) ? gen : 0;
}

int
host_assist(void *t, uint64_t value, bool run, uint64_t *stay_ns)
{
	struct host_dev *d = t;
	struct helper *h;
	int ret = RIG_ASSIST_NONE;
	uint64_t gen;

	if (d->pinned)
		return RIG_ASSIST_NONE;
	atomic_fetch_add(&d->assists, 1);
	if (atomic_load(&d->stop) || !(gen = unjoined_task(d)))
		goto out;
	if (!run) {
		ret = RIG_ASSIST_READY;
		goto out;
	}
	/* Tried once per task, joined or not: a thread that cannot help
	 * (no guard, a guarded signal blocked) asks nothing more of it. */
	me.pool = host_pool_id(d->pool);
	me.help.gen = gen;
	h = helper_self();
	if (!h || !host_guard_borrow(&h->guard))
		goto out;
	if (host_pool_help(d->pool, &h->guard, d->word, value, &h->help)) {
		uint64_t chunk = h->help.longest_ns ? h->help.longest_ns : h->help.chunk_ns;

		/* Another thread's chunk began at most one chunk's time ago. */
		*stay_ns = chunk ? 2 * chunk : STAY_UNKNOWN_NS;
		ret = RIG_ASSIST_RAN;
	}
	host_guard_return(&h->guard);
out:
	atomic_fetch_sub(&d->assists, 1);
	return ret;
}

void
host_assist_drain(struct host_dev *d)
{
	/* After stop's seq_cst store (see the top): calls now in flight
	 * return soon, their kernels interrupted. */
	while (atomic_load(&d->assists))
		sched_yield();
}
