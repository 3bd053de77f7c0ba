/*
 * host/exec.c: the device thread, the consumer side of the value ring
 * (dev.h). It runs published values: for each, once its waits hold, its
 * launches over the pool and its copies on the copy engine in part order;
 * then it stores in the word, with release, the last value of the prefix
 * of values run, and wakes the word's sleepers (rig_word_wake). The word
 * so advances in value order, and shows a value only once it and every
 * earlier one ran.
 *
 * Order. The device's queues wait for other devices' words and for its
 * own earlier values (facts.waits.self): rig hands a value every wait its
 * memory needs, those on this device's values included, so two values
 * that touch the same memory are ordered by their waits, not by the ring.
 * A value whose wait does not hold yet is passed: each pass runs, in value
 * order, every published value whose waits hold (a wait on this device's
 * value u holds once u and every value before it ran: rig coalesces a
 * use's waits to one per device, the latest, so u alone would not do), so
 * a value that waits for the disk does not hold back a later one that
 * waits for nothing not yet done. A wait always names an earlier value,
 * so one pass in value order runs everything that can run.
 *
 * Between values the thread waits for the next publish as spin.h says: a
 * few pauses, then yields, then a sleep on pub_ec. When every published
 * value not run waits for another device, it waits for the first such
 * word the same way, then sleeps on it (rig_word_sleep) for growing
 * times, with the word in sleeping_on so that a publish wakes it (dev.h).
 * No clock is read for a value unless a profile times it. A launch the
 * pool would not split (one group, or one chunk's worth) runs on this
 * thread itself (pool.c), so an empty kernel's round trip wakes no worker.
 *
 * The sleep on pub_ec, and why no publish is missed: the thread reads
 * pub_ec, then looks at published (and stop) once more, then sleeps only
 * while pub_ec still shows what it read. submit stores published, then
 * bumps pub_ec, and ck_ec orders the bump after the store. So either the
 * last look sees the value, or the bump comes after the read and the wait
 * returns (ck_ec flagged the count before sleeping, so that bump wakes it).
 *
 * Stop: the device thread leaves at the next pass (or inside a wait), so
 * values published but not run are dropped; host_exec_stop() then raises
 * the word to the last submitted value, as rig's loss rules allow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
 * Whether a wait on this device's own value v holds: v and every value
 * before it ran (v < head, what the word shows). Not v alone: rig keeps
 * one wait per device, the latest of the values a use conflicts with
 * (waitset_add), and counts on the device's order for the earlier ones,
 * so that v ran says nothing of an earlier value the use also follows.
 */
static bool
ran(const struct host_dev *d, uint64_t v)
{
	return v < d->head;
}

/* The first of job's waits that does not hold yet, or NULL. */
static const struct rig_wait *
blocker(const struct host_dev *d, const struct host_job *job)
{
	for (size_t i = 0; i < job->nwaits; i++) {
		const struct rig_wait *w = &job->waits[i];

		if (w->word == d->word ? !ran(d, w->value) : !shows(w))
			return w;
	}
	return NULL;
}
/* Groups per chunk: a quarter of each runner's share, at least 1. */
static int64_t
launch_chunk(const struct host_dev *d, int64_t groups)
{
	int64_t shares = (int64_t)host_pool_runners(d->pool) * 4;

	/* A small grid (an empty kernel's one group) skips the division. */
	return groups < 2 * shares ? 1 : groups / shares;
}

/* Run one value's work (its waits hold). */
static void
run_job(struct host_dev *d, const struct host_job *job)
{
	uint64_t start = job->times ? now_ns() : 0;

	for (size_t i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind == RIG_LAUNCH_PART)
			host_pool_run_sc(d->pool, op->u.launch.fn, op->u.launch.params,
					 op->u.launch.groups, launch_chunk(d, op->u.launch.groups));
		else
			host_copy_run(d->pool, &op->u.copy);
	}
	if (job->times) {
		job->times->start_ns = start;
		job->times->end_ns = now_ns();
	}
}

/* The word shows the prefix of values run; their slots are free. */
static void
retire(struct host_dev *d)
{
	uint64_t v = d->head;

	while (v <= d->pub_seen && d->ran[v % HOST_RING] == v)
		v++;
	if (v == d->head)
		return;
	d->head = v;
	/* Release pairs with every reader of the word (rig's waits, other
	 * devices' waits): the values' writes are visible to them. */
	atomic_store_explicit(d->word, v - 1, memory_order_release);
	/* After the store: a waiter asleep on the word wakes now, not when
	 * rig's polling thread next looks. */
	rig_word_wake(d->word);
	/* Release pairs with room's and submit's acquire: the slots are no
	 * longer read. */
	atomic_store_explicit(&d->done, v - 1, memory_order_release);
}

/*
 * One pass over the published values not run, in value order: run each
 * whose waits hold. Returns whether any ran; *blocked gets the first wait
 * on another device that held one back (NULL if none did).
 */
static bool
run_pass(struct host_dev *d, const struct rig_wait **blocked)
{
	bool any = false;

	*blocked = NULL;
	for (uint64_t v = d->head; v <= d->pub_seen && !stopping(d); v++) {
		const struct host_job *job = &d->ring[v % HOST_RING];
		const struct rig_wait *w;

		if (d->ran[v % HOST_RING] == v)
			continue;
		if ((w = blocker(d, job))) {
			if (!*blocked && w->word != d->word)
				*blocked = w;
			continue;
		}
		run_job(d, job);
		d->ran[v % HOST_RING] = v;
		any = true;
		if (v == d->head)
			retire(d);
	}
	return any;
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

/* Whether the thread has something to look at again: a publish after
 * pub_seen, or w's word showing its value. */
static bool
woken(struct host_dev *d, const struct rig_wait *w)
{
	return shows(w) || atomic_load_explicit(&d->published, memory_order_seq_cst) > d->pub_seen;
}

/*
 * Every published value not run waits for another device; w is the first
 * such wait. Spin, then sleep on w's word for growing times, until it
 * shows, a value is published, or the device stops.
 */
static void
wait_unblocked(struct host_dev *d, const struct rig_wait *w)
{
	struct host_wait hw;
	uint64_t sleep_ns = 1000;

	if (woken(d, w))
		return;
	hw = host_wait_begin(&d->word_spin);
	while (!woken(d, w) && !stopping(d)) {
		if (host_wait_spin(&hw))
			continue;
		/* The mark, then the last looks (dev.h: sleeping_on). */
		atomic_store_explicit(&d->sleeping_on, w->word, memory_order_seq_cst);
		if (!woken(d, w) && !atomic_load_explicit(&d->stop, memory_order_seq_cst))
			rig_word_sleep(w->word, w->value, sleep_ns);
		atomic_store_explicit(&d->sleeping_on, NULL, memory_order_relaxed);
		host_wait_slept(&hw);
		if (sleep_ns < WAIT_POLL_MAX_NS)
			sleep_ns *= 2;
	}
	host_wait_end(&hw);
}

static void *
exec_main(void *arg)
{
	struct host_dev *d = arg;
	const struct rig_wait *blocked;

	d->head = atomic_load_explicit(&d->done, memory_order_relaxed) + 1;
	while (!stopping(d)) {
		if (!published(d, d->head)) {
			if (!wait_published(d, d->head))
				break;
			continue;
		}
		/* Pairs with submit's release store: the jobs are written. */
		d->pub_seen = atomic_load_explicit(&d->published, memory_order_acquire);
		if (!run_pass(d, &blocked) && blocked)
			wait_unblocked(d, blocked);
	}
	return NULL;
}

void
host_exec_wake(struct host_dev *d)
{
	const _Atomic uint64_t *on;

	/* submit's bumps never run at once (rig calls it one at a time):
	 * one producer, a plain increment while the thread is awake. */
	ck_ec32_inc(&d->pub_ec, ec_sp());
	/* After the store of published (seq_cst): a thread asleep on another
	 * device's word wakes for the new value (dev.h: sleeping_on). */
	on = atomic_load_explicit(&d->sleeping_on, memory_order_seq_cst);
	if (on)
		rig_word_wake(on);
}

int
host_exec_start(struct host_dev *d, char *why, size_t why_len)
{
	int ret;

	ck_ec32_init(&d->pub_ec, 0);
	d->pub_seen = atomic_load_explicit(&d->published, memory_order_relaxed);
	host_spin_init(&d->pub_spin);
	host_spin_init(&d->word_spin);
	ret = pthread_create(&d->thread, NULL, exec_main, d);
	if (ret != 0) {
		snprintf(why, why_len, "cannot start the device thread: %s", strerror(ret));
		return -ret;
	}
	pthread_setname_np(d->thread, "rig-host");
	return 0;
}

void
host_exec_stop(struct host_dev *d)
{
	/* Release pairs with stopping()'s acquire; the bump after it wakes
	 * a sleeping thread, which then sees stop. Locked (ec_mp): once per
	 * device, and it must not lose the flag of a thread going to sleep. */
	const _Atomic uint64_t *on;

	atomic_store_explicit(&d->stop, true, memory_order_seq_cst);
	ck_ec32_inc(&d->pub_ec, ec_mp());
	/* seq_cst: against the thread's mark, then its look at stop. */
	on = atomic_load_explicit(&d->sleeping_on, memory_order_seq_cst);
	if (on)
		rig_word_wake(on);
	pthread_join(d->thread, NULL);
	/* Dropped values: the word shows the last submitted one, so rig may
	 * free the device's memory (no work of this device runs any more). */
	if (d->submitted > atomic_load_explicit(d->word, memory_order_relaxed)) {
		atomic_store_explicit(d->word, d->submitted, memory_order_release);
		rig_word_wake(d->word);
	}
}
