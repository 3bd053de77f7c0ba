/* SPDX-License-Identifier: MIT */
/*
 * host/here.c: a value run by its submit, on the submitting thread, on a
 * device opened with run_at_submit (rig_host.h), as the memory device runs
 * its copies: no hand-off to the device thread, no wake-up of it, and the
 * word shows the value before the submit returns. What a server whose
 * workers each own a device of one core gains: its request's kernel runs
 * where the plain program would run it, and the device thread, which would
 * only have waited for it, never wakes.
 *
 * When. Only where the device thread would run the value on one thread
 * anyway (every launch runs in one call: a device of one core, or a grid
 * of one group; every copy below the copy engine's split), where no
 * profile times it, where every word it waits for already shows its value
 * (acquire: the producers' writes are visible to its work), and where the
 * device is idle: done shows the value before it (acquire: the thread ran
 * every value published, and reads no slot any more). Otherwise the value
 * is published to the device thread as before, so device order holds:
 * values run one after another, in value order.
 *
 * The ring's protocol (dev.h) with a second writer of done. The submitter
 * (rig calls submit one at a time: the one producer) writes done only for
 * a value it never published, while done shows the value before it, so
 * the device thread, which writes done only after running a published
 * value, is between values then and never writes done at the same time.
 * Order: the word (release), then done (release); published is left
 * alone and pub_ec not bumped, so the device thread, asleep or spinning,
 * sees nothing new and is not woken. A later value published to it comes
 * after (its release store of published follows this done): the thread,
 * on reading a published value, reads done (acquire) and first skips
 * every value done shows (exec.c), never running one twice.
 *
 * Faults: the kernel runs armed on this thread's guard (borrowed as a
 * waiter's is, assist.c: one per thread, and kept: guard.h), so a fault is contained and
 * reported as the device thread's are (the events fd: rig's poller loses
 * the device with the kernel's site); the value is never shown, no value
 * runs after it, and later submits fail. A kernel that never returns
 * holds the submitting thread, as a plain call of it would: the device's
 * stop cannot interrupt it (rig stops a device only once its submits in
 * flight returned), which is why a program asks for this per device.
 * Against stop: the call counts itself in assists and then reads stop,
 * as a waiter's help does (assist.c), so the pool is never freed under it.
 */
#include <stdio.h>

#include "host/dev.h"

/* The copy engine's split (copy.c): a copy below it runs on one thread. */
#define HERE_COPY_MAX	(1u << 20)

static bool
one_thread(const struct host_dev *d, const struct host_job *job)
{
	bool alone = host_pool_runners(d->pool) == 1;

	for (size_t i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind == RIG_LAUNCH_PART) {
			if (!alone && op->u.launch.groups != 1)
				return false;
		} else if (op->u.copy.rows && op->u.copy.bytes >= HERE_COPY_MAX / op->u.copy.rows) {
			return false;
		}
	}
	return true;
}

static bool
ready(const struct host_dev *d, const struct host_job *job, uint64_t value)
{
	/* Acquire pairs with the device thread's release store of done:
	 * the values before this one, and their work, are complete. */
	if (atomic_load_explicit(&d->done, memory_order_acquire) != value - 1)
		return false;
	for (size_t i = 0; i < job->nwaits; i++)
		/* Pairs with the producer's release store of its word. */
		if (atomic_load_explicit(job->waits[i].word, memory_order_acquire) <
		    job->waits[i].value)
			return false;
	return true;
}

/* Run one launch armed on g: whether it faulted. A frame of its own, so
 * that the loop's locals do not live across the sigsetjmp. */
static bool
run_launch(struct host_guard *g, const struct host_op *op)
{
	bool f = false;

	HOST_GUARDED(g, f, op->u.launch.fn(op->u.launch.params, 0, op->u.launch.groups));
	return f;
}

/* Run job's ops armed on g; the op that faulted, or NULL. */
static const struct host_op *
run_ops(struct host_dev *d, struct host_guard *g, const struct host_job *job,
	struct host_fault *fault)
{
	for (size_t i = 0; i < job->nops; i++) {
		const struct host_op *op = &job->ops[i];

		if (op->kind != RIG_LAUNCH_PART) {
			host_copy_run(d->pool, &op->u.copy);
			continue;
		}
		if (run_launch(g, op)) {
			*fault = g->fault;
			return op;
		}
	}
	return NULL;
}

bool
host_run_here(struct host_dev *d, struct host_job *job, uint64_t value)
{
	const struct host_op *faulted;
	struct host_fault fault;
	struct host_guard *g;
	bool ran = false;

	if (job->times || !one_thread(d, job) || !ready(d, job, value))
		return false;
	/* seq_cst, then stop (see the top). */
	atomic_fetch_add(&d->assists, 1);
	if (atomic_load(&d->stop) || !(g = host_thread_guard()) || !host_guard_keep(g))
		goto out;
	faulted = run_ops(d, g, job, &fault);
	host_guard_keep_return(g);
	ran = true;
	d->submitted = value;
	if (faulted) {
		/* Never shown; the thread never runs it; submits now fail. */
		host_report_fault(d, job, faulted, &fault);
		snprintf(d->failure, sizeof(d->failure), "value %llu's kernel faulted",
			 (unsigned long long)value);
		d->failed = true;
		goto out;
	}
	/* Release pairs with every reader of the word (exec.c's store). */
	atomic_store_explicit(d->word, value, memory_order_release);
	rig_word_wake(d->word);
	/* Release pairs with the device thread's acquire (see the top). */
	atomic_store_explicit(&d->done, value, memory_order_release);
	d->done_seen = value;
out:
	atomic_fetch_sub(&d->assists, 1);
	return ran;
}
