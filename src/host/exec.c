/* SPDX-License-Identifier: MIT */
/*
 * host/exec.c: the device thread, the consumer side of the value ring
 * (dev.h). It takes published values in order; for each it waits for the
 * value's waits (other devices' words), runs its launches over the pool and
 * its copies on the copy engine in part order, then stores the value in the
 * word with release and wakes the word's sleepers (rig_word_wake). Where
 * the value's last part is a launch, the thread that ends that launch
 * stores and wakes instead (pool.c), so a waiter wakes one hop after the
 * last group, not two. Values complete one after another either way (this
 * thread starts v + 1 only once v's launch returned, after its store), so
 * device order holds on both queues and the word advances in value order.
 *
 * Between values the thread waits for the next publish as spin.h says: a
 * few pauses, then yields, then a sleep on pub_ec. No clock is read for a
 * value unless a profile times it (then run_job_timed() also keeps the
 * value's pieces: each part's times and each thread's range of a launch,
 * pieces.c). A launch the pool would not split (one
 * group, or one chunk's worth) runs on this thread itself (pool.c), so an
 * empty kernel's round trip wakes no worker.
 *
 * The sleep, and why no publish is missed: the thread reads pub_ec, then
 * looks at published (and stop) once more, then sleeps only while pub_ec
 * still shows what it read. submit stores published, then bumps pub_ec,
 * and ck_ec orders the bump after the store. So either the last look sees
 * the value, or the bump comes after the read and the wait returns (ck_ec
 * flagged the count before sleeping, so that bump wakes it).
 *
 * Stop: the device thread leaves at the next value (or inside a wait), so
 * values published but not run are dropped; host_exec_stop() then raises the
 * word to the last submitted value, as rig's loss rules allow. A kernel
 * still running is interrupted (guard.h) until every thread is out of it,
 * so a stop (a close, a hang's loss, exit()) never waits on a kernel.
 *
 * Faults: a launch whose kernel faulted (host_pool_launch) ends the
 * thread's run: the value's word is never written, the fault's site and
 * message go to fault_site and fault_text, fault_ready is set, and the
 * events fd turns readable; rig's poller then calls events (host.c),
 * which loses the device with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/ec.h"
#include "host/dev.h"

/* The longest sleep between two reads of another device's word. */
#define WAIT_POLL_MAX_NS	1000000u

static bool
stopping(struct host_dev *d)
{
	/* Pairs with host_exec_stop()'s release store. */
	return atomic_load_explicit(&d->stop, memory_order_acquire);
}

/* CLOCK_MONOTONIC, the clock rig_now_ns() reads: only for a profile. */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool
shows(const struct rig_wait *w)
{
	/* Pairs with the producer's release store of its word: its work's
	 * writes are visible to what runs after this wait. */
	return atomic_load_explicit(w->word, memory_order_acquire) >= w->value;
}

/*
 * Spin, then sleep on the word (rig_word_sleep) for growing times; false if
 * the device stopped. A producer that calls rig_word_wake() after its
 * store (the disk, this device) ends a sleep at once; for others the sleep
 * times out and the thread looks again, as a poll.
 */
static bool
wait_word(struct host_dev *d, const struct rig_wait *w)
{
	struct host_wait hw;
	long sleep_ns = 1000;

	if (shows(w))
		return true;
	hw = host_wait_begin(&d->word_spin);
	while (!shows(w) && !stopping(d)) {
		if (host_wait_spin(&hw))
			continue;
		host_wait_slept(&hw);
		if (rig_word_sleep(w->word, w->value, sleep_ns))
			break;
		if (sleep_ns < WAIT_POLL_MAX_NS)
			sleep_ns *= 2;
	}
	host_wait_end(&hw);
	return shows(w);
}

/* Groups per chunk: a quarter of each runner's share, at least 1. */
static int64_t
launch_chunk(const struct host_dev *d, int64_t groups)
{
	int64_t shares = (int64_t)host_pool_runners(d->pool) * 4;

	/* A small grid (an empty kernel's one group) skips the division. */
	return groups < 2 * shares ? 1 : groups / shares;
}

/* Keep a kernel's fault for events (host.c) and make events_fd readable. */
void
host_report_fault(struct host_dev *d, const struct host_job *job, const struct host_op *op,
		  const struct host_fault *f)
{
	uintptr_t fn = (uintptr_t)op->u.launch.fn;

	if (f->interrupted)
		return;	/* the device stops: its loss has its reason already */
	d->fault_site = (struct rig_fault_site){
		.value = job->value, .part = op->part, .queue = HOST_COMPUTE,
	};
	if (f->pc >= fn && f->pc - fn < (1u << 20))
		snprintf(d->fault_text, sizeof(d->fault_text),
			 "kernel '%s' faulted: %s at address 0x%llx (instruction %s+0x%llx), part %d of value %llu",
			 op->u.launch.name, host_fault_name(f), (unsigned long long)f->addr,
			 op->u.launch.name, (unsigned long long)(f->pc - fn), op->part,
			 (unsigned long long)job->value);
	else
		snprintf(d->fault_text, sizeof(d->fault_text),
			 "kernel '%s' faulted: %s at address 0x%llx (instruction 0x%llx), part %d of value %llu",
			 op->u.launch.name, host_fault_name(f), (unsigned long long)f->addr,
			 (unsigned long long)f->pc, op->part, (unsigned long long)job->value);
	/* Release pairs with events' acquire: the site and text first. */
	atomic_store_explicit(&d->fault_ready, true, memory_order_release);
	(void)eventfd_write(d->events_fd, 1);
}

/*
 * The completion a launch may make itself (pool.h): only as the value's
 * last part, where device order allows it (the earlier parts, copies too,
 * ran on this thread before it; the previous value is complete, since this
 * thread runs values one after another); never for a value a profile
 * times (run_job_timed), whose end must be written before the word.
 */
static struct host_pool_done *
completion(struct host_dev *d, const struct host_job *job, size_t i,
	   struct host_pool_done *done)
{
	if (i + 1 != job->nops)
		return NULL;
	*done = (struct host_pool_done){
		.word = d->word, .value = job->value, .wake = rig_word_wake,
		.begin = rig_word_wake,
	};
	return done;
}

/* A profiled value's work (run_job's): its pair, and its pieces
 * (pieces.c): each part's start and end, and each thread's range of a
 * launch, kept before the word shows the value. */
static bool
run_job_timed(struct host_dev *d, const struct host_job *job)
{
	struct host_pieces_of *pc = host_pieces_new(d, job);
	unsigned runners = host_pool_runners(d->pool);
	struct host_fault fault;
	uint64_t start = now_ns(), t0 = start, t1;

	for (size_t i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind == RIG_LAUNCH_PART) {
			memset(d->ranges, 0, runners * sizeof(*d->ranges));
			if (host_pool_launch(d->pool, &d->guard, op->u.launch.fn, op->u.launch.params,
					     op->u.launch.groups,
					     launch_chunk(d, op->u.launch.groups), NULL,
					     d->ranges, &fault)) {
				free(pc);
				host_report_fault(d, job, op, &fault);
				return false;
			}
		} else
			host_copy_run(d->pool, &op->u.copy);
		t1 = now_ns();
		if (pc)
			host_pieces_add(d, pc, op, t0, t1, d->ranges);
		t0 = t1;
	}
	job->times->start_ns = start;
	job->times->end_ns = now_ns();
	if (pc)
		host_pieces_keep(d, pc);
	return true;
}

/* Run one value's work; false if the device stopped during its waits or
 * a kernel faulted. *stored: its last launch stored the word already. */
static bool
run_job(struct host_dev *d, const struct host_job *job, bool *stored)
{
	struct host_pool_done done = { 0 }, *last;
	struct host_fault fault;
	size_t i;

	*stored = false;
	for (i = 0; i < job->nwaits; i++)
		if (!wait_word(d, &job->waits[i]))
			return false;
	/* The one branch a value pays for profiles while none is taken. */
	if (job->times)
		return run_job_timed(d, job);
	for (i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind == RIG_LAUNCH_PART) {
			last = completion(d, job, i, &done);
			if (host_pool_launch(d->pool, &d->guard, op->u.launch.fn, op->u.launch.params,
					     op->u.launch.groups,
					     launch_chunk(d, op->u.launch.groups), last, NULL,
					     &fault)) {
				host_report_fault(d, job, op, &fault);
				return false;
			}
		} else
			host_copy_run(d->pool, &op->u.copy);
	}
	*stored = done.stored;
	return true;
}

static bool
published(struct host_dev *d, uint64_t v)
{
	if (v <= d->pub_seen)
		return true;
	/* Pairs with submit's release store: the job is written. */
	d->pub_seen = atomic_load_explicit(&d->published, memory_order_acquire);
	return v <= d->pub_seen;
}

/* Wait until value v is published; false if the device stopped. */
static bool
wait_published(struct host_dev *d, uint64_t v)
{
	struct host_wait w;
	uint32_t seen;

	if (published(d, v))
		return true;
	w = host_wait_begin(&d->pub_spin);
	while (!published(d, v) && !stopping(d)) {
		if (host_wait_spin(&w))
			continue;
		/* The count first, then the last looks (see the top). */
		seen = ck_ec32_value(&d->pub_ec);
		if (published(d, v) || stopping(d))
			break;
		ck_ec32_wait(&d->pub_ec, ec_sp(), seen, NULL);
		host_wait_slept(&w);
	}
	host_wait_end(&w);
	return !stopping(d);
}

static void *
exec_main(void *arg)
{
	struct host_dev *d = arg;
	uint64_t v = atomic_load_explicit(&d->done, memory_order_relaxed) + 1;

	bool stored;

	host_guard_begin(&d->guard);
	while (wait_published(d, v)) {
		/* Acquire pairs with here.c's release store of done: the
		 * values the submitter ran itself (never published, all
		 * before the one just published) are skipped. */
		uint64_t ran = atomic_load_explicit(&d->done, memory_order_acquire);

		if (ran >= v) {
			v = ran + 1;
			continue;
		}
		if (!run_job(d, &d->ring[v % HOST_RING], &stored))
			break;
		/* Release pairs with every reader of the word (rig's waits,
		 * other devices' waits): v's writes are visible to them. After
		 * the store, a waiter asleep on the word wakes now, not when
		 * rig's polling thread next looks. A last launch did both
		 * already, from the thread that ended it. */
		if (!stored) {
			atomic_store_explicit(d->word, v, memory_order_release);
			rig_word_wake(d->word);
		}
		/* Release pairs with room's and submit's acquire: the slot is
		 * no longer read. */
		atomic_store_explicit(&d->done, v, memory_order_release);
		v++;
	}
	host_guard_end(&d->guard);
	return NULL;
}

void
host_exec_wake(struct host_dev *d)
{
	/* submit's bumps never run at once (rig calls it one at a time):
	 * one producer, a plain increment while the thread is awake. */
	ck_ec32_inc(&d->pub_ec, ec_sp());
}

int
host_exec_start(struct host_dev *d, const cpu_set_t *cores, char *why, size_t why_len)
{
	int ret;

	ck_ec32_init(&d->pub_ec, 0);
	d->pub_seen = atomic_load_explicit(&d->published, memory_order_relaxed);
	host_spin_init(&d->pub_spin);
	host_spin_init(&d->word_spin);
	ret = -host_guard_prepare(&d->guard);
	if (ret != 0) {
		snprintf(why, why_len, "no memory for the device thread's signal stack: %s", strerror(ret));
		return -ret;
	}
	ret = pthread_create(&d->thread, NULL, exec_main, d);
	if (ret != 0) {
		host_guard_release(&d->guard);
		snprintf(why, why_len, "cannot start the device thread: %s", strerror(ret));
		return -ret;
	}
	pthread_setname_np(d->thread, "rig-host");
	if (cores)
		pthread_setaffinity_np(d->thread, sizeof(*cores), cores);
	return 0;
}

void
host_exec_stop(struct host_dev *d)
{
	/* Release pairs with stopping()'s acquire; the bump after it wakes
	 * a sleeping thread, which then sees stop. Locked (ec_mp): once per
	 * device, and it must not lose the flag of a thread going to sleep. */
	struct timespec at;

	/* seq_cst: assist.c's calls count themselves, then read it. */
	atomic_store(&d->stop, true);
	ck_ec32_inc(&d->pub_ec, ec_mp());
	/* A kernel still running after a millisecond is interrupted, and
	 * again each millisecond until the thread is out (an interrupt that
	 * lands before a kernel arms is ignored). */
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_nsec += 1000000;
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(d->thread, NULL, &at) == 0)
			break;
		host_guard_interrupt(&d->guard);
		host_pool_interrupt(d->pool);
	}
	host_guard_release(&d->guard);
	/* Dropped values: the word shows the last submitted one, so rig may
	 * free the device's memory (no work of this device runs any more). */
	if (d->submitted > atomic_load_explicit(d->word, memory_order_relaxed)) {
		atomic_store_explicit(d->word, d->submitted, memory_order_release);
		rig_word_wake(d->word);
	}
}
