/*
 * host/exec.c: the device thread, the consumer side of the value ring
 * (dev.h). It takes published values in order; for each it waits for the
 * value's waits (other devices' words), runs its launches over the pool and
 * its copies on the copy engine in part order, then stores the value in the
 * word with release. Values complete one after another, so device order
 * holds on both queues and the word advances in value order.
 *
 * Stop: the device thread leaves at the next value (or inside a wait), so
 * values published but not run are dropped; host_exec_stop() then raises the
 * word to the last submitted value, as rig's loss rules allow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "host/dev.h"
#include "host/futex.h"

/* The longest sleep between two reads of another device's word. */
#define WAIT_POLL_MAX_NS	1000000u

static bool
stopping(struct host_dev *d)
{
	return atomic_load_explicit(&d->stop, memory_order_acquire);
}

static bool
shows(const struct rig_wait *w)
{
	/* Pairs with the producer's release store of its word: its work's
	 * writes are visible to what runs after this wait. */
	return atomic_load_explicit(w->word, memory_order_acquire) >= w->value;
}

/* Spin briefly, then sleep-poll the word; false if the device stopped. */
static bool
wait_word(struct host_dev *d, const struct rig_wait *w)
{
	uint64_t start = host_now_ns(), sleep_ns = 1000;
	unsigned i;

	for (i = 0; !shows(w); i++) {
		if (stopping(d))
			return false;
		if (host_now_ns() - start < HOST_SPIN_NS) {
			host_backoff(i);
			continue;
		}
		nanosleep(&(struct timespec){ .tv_nsec = (long)sleep_ns }, NULL);
		if (sleep_ns < WAIT_POLL_MAX_NS)
			sleep_ns *= 2;
	}
	return true;
}

static int64_t
launch_chunk(const struct host_dev *d, int64_t groups)
{
	int64_t c = groups / (int64_t)(host_pool_runners(d->pool) * 4);

	return c ? c : 1;
}

/* Run one value's work; false if the device stopped during its waits. */
static bool
run_job(struct host_dev *d, const struct host_job *job)
{
	uint64_t start;
	size_t i;

	for (i = 0; i < job->nwaits; i++)
		if (!wait_word(d, &job->waits[i]))
			return false;
	start = job->times ? host_now_ns() : 0;
	for (i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind == RIG_LAUNCH_PART)
			host_pool_run_sc(d->pool, op->u.launch.fn, op->u.launch.params,
					 op->u.launch.groups, launch_chunk(d, op->u.launch.groups));
		else
			host_copy_run(d->pool, &op->u.copy);
	}
	if (job->times) {
		job->times->start_ns = start;
		job->times->end_ns = host_now_ns();
	}
	return true;
}

static bool
published(struct host_dev *d, uint64_t v)
{
	/* Pairs with submit's release store: the job is written. */
	return atomic_load_explicit(&d->published, memory_order_acquire) >= v;
}

/* Wait until value v is published; false if the device stopped. */
static bool
wait_published(struct host_dev *d, uint64_t v)
{
	uint64_t start = host_now_ns();
	uint32_t s;
	unsigned i;

	for (i = 0; !published(d, v); i++) {
		if (stopping(d))
			return false;
		if ((i & 63) != 63 || host_now_ns() - start < HOST_SPIN_NS) {
			host_backoff(i);
			continue;
		}
		/* seq_cst: against host_exec_wake()'s bump then sleeping load,
		 * either it sees us sleeping or we see its value (dev.h). */
		s = atomic_load_explicit(&d->pub_seq, memory_order_seq_cst);
		atomic_store_explicit(&d->sleeping, 1, memory_order_seq_cst);
		if (!published(d, v) && !stopping(d))
			host_futex_wait(&d->pub_seq, s);
		atomic_store_explicit(&d->sleeping, 0, memory_order_relaxed);
	}
	return true;
}

static void *
exec_main(void *arg)
{
	struct host_dev *d = arg;
	uint64_t v = atomic_load_explicit(&d->done, memory_order_relaxed) + 1;

	while (wait_published(d, v)) {
		if (!run_job(d, &d->ring[v % HOST_RING]))
			break;
		/* Release pairs with every reader of the word (rig's waits,
		 * other devices' waits): v's writes are visible to them. */
		atomic_store_explicit(d->word, v, memory_order_release);
		/* Release pairs with room's and submit's acquire: the slot is
		 * no longer read. */
		atomic_store_explicit(&d->done, v, memory_order_release);
		v++;
	}
	return NULL;
}

void
host_exec_wake(struct host_dev *d)
{
	atomic_fetch_add_explicit(&d->pub_seq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&d->sleeping, memory_order_seq_cst))
		host_futex_wake(&d->pub_seq);
}

int
host_exec_start(struct host_dev *d, char *why, size_t why_len)
{
	int ret = pthread_create(&d->thread, NULL, exec_main, d);

	if (ret == 0)
		pthread_setname_np(d->thread, "rig-host");
	if (ret != 0) {
		snprintf(why, why_len, "cannot start the device thread: %s", strerror(ret));
		return -ret;
	}
	return 0;
}

void
host_exec_stop(struct host_dev *d)
{
	atomic_store_explicit(&d->stop, true, memory_order_seq_cst);
	atomic_fetch_add_explicit(&d->pub_seq, 1, memory_order_seq_cst);
	host_futex_wake(&d->pub_seq);
	pthread_join(d->thread, NULL);
	/* Dropped values: the word shows the last submitted one, so rig may
	 * free the device's memory (no work of this device runs any more). */
	if (d->submitted > atomic_load_explicit(d->word, memory_order_relaxed))
		atomic_store_explicit(d->word, d->submitted, memory_order_release);
}
