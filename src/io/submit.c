/* SPDX-License-Identifier: MIT */
/*
 * io/submit.c: the table's submit and submit_after. Checks a value's ops
 * against its files, copies them (and the words it waits for) into a job
 * and feeds the job to the loop; never blocks, never waits for I/O or for
 * another device's word. A refusal fails the disk (RIG_FAILED loses the device in
 * rig_edge.h's contract), with a message naming the op and the cause.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io/engine.h"

int disk_submit(void *t, uint64_t value, const struct rig_io_op *ops,
		size_t nops, const char **failure);
int disk_submit_after(void *t, uint64_t value, const struct rig_io_op *ops,
		      size_t nops, const struct rig_wait *waits, size_t nwaits,
		      const char **failure);
int disk_submit_timed(void *t, uint64_t value, const struct rig_io_op *ops,
		      size_t nops, const struct rig_wait *waits, size_t nwaits,
		      struct rig_times *times, const char **failure);

/* Check one op; on a fault fail the disk and return false. */
static bool
op_ok(struct disk *d, uint64_t value, size_t i, const struct rig_io_op *op)
{
	const struct disk_file *f = op->file;

	if (op->kind < RIG_IO_READ || op->kind > RIG_IO_BARRIER) {
		disk_fail(d, "submit of value %" PRIu64 ": op %zu has kind %d, no Io op",
			  value, i, (int)op->kind);
		return false;
	}
	if (!file_of(d, f)) {
		disk_fail(d, "submit of value %" PRIu64 ": op %zu names %p, no file of this disk",
			  value, i, op->file);
		return false;
	}
	if (op->kind == RIG_IO_BARRIER)
		return true;
	if (op->bytes && !op->host) {
		disk_fail(d, "%s of %s at %" PRIu64 ": the host address is NULL",
			  disk_op_name(op->kind), f->path, op->offset);
		return false;
	}
	if (op->offset > f->bytes || op->bytes > f->bytes - op->offset) {
		disk_fail(d, "%s of %s at %" PRIu64 ": %" PRIu64 " bytes pass the end of the file (%" PRIu64 " bytes)",
			  disk_op_name(op->kind), f->path, op->offset,
			  op->bytes, f->bytes);
		return false;
	}
	if (op->kind == RIG_IO_WRITE && f->read_only) {
		disk_fail(d, "write of %s at %" PRIu64 ": the file is open read-only",
			  f->path, op->offset);
		return false;
	}
	return true;
}

/* The loop sleeps (feed_push_mp said so): in the backend's wait, which
 * the bell ends, or on another device's word (loop.c, sleep_on_word),
 * which a wake of that word ends. The mark came after the word's store
 * (a full barrier), so the word read here is the one it sleeps on, or
 * NULL once it is up again. */
static void
wake_loop(struct disk *d)
{
	const _Atomic uint64_t *w = atomic_load_explicit(&d->sleep_word, memory_order_seq_cst);

	d->be->bell(d);
	if (w)
		rig_word_wake(w);
}

int
disk_submit(void *t, uint64_t value, const struct rig_io_op *ops, size_t nops,
	    const char **failure)
{
	return disk_submit_after(t, value, ops, nops, NULL, 0, failure);
}

/* The table's submit_after: the loop starts the value's ops once every
 * wait's word shows its value (loop.c), so nothing here waits. */
int
disk_submit_after(void *t, uint64_t value, const struct rig_io_op *ops,
		  size_t nops, const struct rig_wait *waits, size_t nwaits,
		  const char **failure)
{
	return disk_submit_timed(t, value, ops, nops, waits, nwaits, NULL, failure);
}

/* The table's submit_timed (profiles): the loop writes *times (loop.c,
 * advance) before it shows the value in the word. */
int
disk_submit_timed(void *t, uint64_t value, const struct rig_io_op *ops,
		  size_t nops, const struct rig_wait *waits, size_t nwaits,
		  struct rig_times *times, const char **failure)
{
	struct disk *d = t;
	struct disk_job *j;
	uint64_t prev = value - 1;

	if (disk_has_failed(d))
		goto failed;
	for (size_t i = 0; i < nops; i++)
		if (!op_ok(d, value, i, &ops[i]))
			goto failed;
	for (size_t i = 0; i < nwaits; i++)
		if (!waits[i].word) {
			disk_fail(d, "submit of value %" PRIu64 ": wait %zu names no word",
				  value, i);
			goto failed;
		}
	j = jobs_take(&d->jobs, nops, sizeof(*j) + nops * sizeof(*ops) + nwaits * sizeof(*waits));
	if (!j) {
		disk_fail(d, "submit of value %" PRIu64 ": no memory for %zu ops", value, nops);
		goto failed;
	}
	/* Another submitter racing for the same value loses here: values
	 * are claimed one after another. */
	if (!atomic_compare_exchange_strong_explicit(&d->submitted, &prev, value,
						     memory_order_relaxed,
						     memory_order_relaxed)) {
		jobs_give(&d->jobs, j);
		disk_fail(d, "submit of value %" PRIu64 " after value %" PRIu64 ": values must follow one another",
			  value, prev);
		goto failed;
	}
	*j = (struct disk_job){ .cached = j->cached };
	j->value = value;
	j->times = times;
	j->nops = nops;
	memcpy(j->ops, ops, nops * sizeof(*ops));
	j->waits = (const struct rig_wait *)(j->ops + nops);
	j->nwaits = nwaits;
	if (nwaits)
		memcpy((struct rig_wait *)j->waits, waits, nwaits * sizeof(*waits));
	for (size_t i = 0; i < nops; i++)
		file_get(ops[i].file);	/* put when the job retires (loop.c) */
	if (feed_push_mp(&d->feed, &j->node))
		wake_loop(d);
	return RIG_OK;
failed:
	*failure = disk_failure_text(d);
	return RIG_FAILED;
}
