/* SPDX-License-Identifier: MIT */
/*
 * io/loop.c: the disk's loop thread. It alone issues pieces, reaps them and
 * writes the word.
 *
 * Design notes.
 *  - Jobs (values) come from the feed and join a list sorted by value
 *    (first..last). With one submitter they arrive in order; concurrent
 *    submitters may swap neighbours, so the insert walks back from last,
 *    and the cursor never starts a value before the one after cut_value
 *    arrived: values are started in value order, always.
 *  - The cursor is the first job with ops left to cut. Ops are cut into
 *    pieces of at most chunk_bytes, in op order; a barrier is one piece.
 *  - Hazards: before a piece is issued, it is checked against every piece
 *    in flight (at most depth): same file, overlapping bytes, one of them a
 *    write (a barrier counts as a read of the whole file, so it waits for
 *    the writes before it and holds the writes after it); or overlapping
 *    host bytes, one of them a read (a read writes host memory). A
 *    conflicting piece waits, and so does everything after it: issue order
 *    is op order, so the result is the one of running the ops one by one.
 *  - The word: a job retires once it is fully cut and its pieces are done,
 *    and only from the head of the list, so the word shows values in order
 *    whatever order their completions came in. Invariant: shown <= the
 *    value of first - 1, and every value <= shown completed.
 *  - After a failure or at stop nothing more is cut; pieces in flight are
 *    reaped (their results dropped) and the word is left alone. At stop
 *    the backend is also asked once to cancel what has not started.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "io/engine.h"

/* The loop is the stats' only writer: a relaxed load and store (no locked
 * add) keep them cheap; readers see some recent value. */
static void
stat_max(_Atomic uint64_t *s, uint64_t v)
{
	if (atomic_load_explicit(s, memory_order_relaxed) < v)
		atomic_store_explicit(s, v, memory_order_relaxed);
}

static void
stat_add(_Atomic uint64_t *s)
{
	atomic_store_explicit(s, atomic_load_explicit(s, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static bool
halted(struct disk *d)
{
	return disk_has_failed(d) ||
	       atomic_load_explicit(&d->stopping, memory_order_acquire);
}

/* Insert j in value order: at the end, as a rule; else where it belongs. */
static void
job_insert(struct disk *d, struct disk_job *j)
{
	struct disk_job **at = &d->first;

	if (d->last && d->last->value < j->value)
		at = &d->last->later;
	else
		while (*at && (*at)->value < j->value)
			at = &(*at)->later;
	j->later = *at;
	*at = j;
	if (!j->later)
		d->last = j;
	if (halted(d))
		j->op = j->nops;	/* dropped: nothing of it runs */
	else if (!d->cursor || j->value < d->cursor->value)
		d->cursor = j;
}

static void
take_feed(struct disk *d)
{
	struct feed_node *n;

	while ((n = feed_pop_sc(&d->feed)))
		job_insert(d, (struct disk_job *)n);
}

static bool
overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

/* Could q conflict with a piece in flight at all? The boxes hold every
 * in-flight piece's host bytes and file bytes (of any file), and writes
 * and barriers are counted; a stream into fresh memory never enters the
 * scan below. */
static bool
may_conflict(const struct disk *d, const struct disk_piece *q)
{
	const struct disk_box *b = &d->box;

	if (!d->in_flight)
		return false;
	if (q->kind == RIG_IO_BARRIER)
		return b->writes > 0;
	if (overlap((uintptr_t)q->host, q->bytes, b->host_lo, b->host_hi - b->host_lo))
		return true;
	if (q->kind == RIG_IO_READ)
		return b->writes > 0 && overlap(q->offset, q->bytes, b->file_lo,
						b->file_hi - b->file_lo);
	return b->barriers > 0 ||
	       overlap(q->offset, q->bytes, b->file_lo, b->file_hi - b->file_lo);
}

static void
box_add(struct disk *d, const struct disk_piece *p)
{
	struct disk_box *b = &d->box;

	if (p->kind == RIG_IO_BARRIER) {
		b->barriers++;
		return;
	}
	b->writes += p->kind == RIG_IO_WRITE;
	if (b->host_lo == b->host_hi) {
		b->host_lo = (uintptr_t)p->host;
		b->host_hi = (uintptr_t)p->host + p->bytes;
		b->file_lo = p->offset;
		b->file_hi = p->offset + p->bytes;
		return;
	}
	if ((uintptr_t)p->host < b->host_lo)
		b->host_lo = (uintptr_t)p->host;
	if ((uintptr_t)p->host + p->bytes > b->host_hi)
		b->host_hi = (uintptr_t)p->host + p->bytes;
	if (p->offset < b->file_lo)
		b->file_lo = p->offset;
	if (p->offset + p->bytes > b->file_hi)
		b->file_hi = p->offset + p->bytes;
}

/* A piece ended: the counts drop; the boxes empty once nothing is in flight. */
static void
box_remove(struct disk *d, const struct disk_piece *p)
{
	struct disk_box *b = &d->box;

	b->barriers -= p->kind == RIG_IO_BARRIER;
	b->writes -= p->kind == RIG_IO_WRITE;
	if (!d->in_flight)
		*b = (struct disk_box){ 0 };
}

/* Does the piece q (not yet issued) conflict with a piece in flight? */
static bool
held_back(struct disk *d, const struct disk_piece *q)
{
	if (!may_conflict(d, q))
		return false;
	for (unsigned i = 0; i < d->opt.depth; i++) {
		const struct disk_piece *p = &d->pieces[i];

		if (!p->job)
			continue;
		if (p->file == q->file) {
			if (q->kind == RIG_IO_BARRIER || p->kind == RIG_IO_BARRIER) {
				if (p->kind == RIG_IO_WRITE || q->kind == RIG_IO_WRITE)
					return true;
			} else if ((p->kind == RIG_IO_WRITE || q->kind == RIG_IO_WRITE) &&
				   overlap(p->offset, p->bytes, q->offset, q->bytes)) {
				return true;
			}
		}
		if (p->kind != RIG_IO_BARRIER && q->kind != RIG_IO_BARRIER &&
		    (p->kind == RIG_IO_READ || q->kind == RIG_IO_READ) &&
		    overlap((uintptr_t)p->host, p->bytes, (uintptr_t)q->host, q->bytes))
			return true;
	}
	return false;
}

/* The registered host range holding [host, host + bytes), or -1. */
static int
buffer_of(struct disk *d, const char *host, uint64_t bytes)
{
	if (!atomic_load_explicit(&d->nranges, memory_order_relaxed))
		return -1;
	for (int i = 0; i < DISK_BUFFER_SLOTS; i++) {
		/* Pairs with the release in disk_host_register(). */
		uint64_t n = atomic_load_explicit(&d->ranges[i].bytes, memory_order_acquire);
		uintptr_t b = atomic_load_explicit(&d->ranges[i].base, memory_order_relaxed);

		if (n && b <= (uintptr_t)host && (uintptr_t)host + bytes <= b + n)
			return i;
	}
	return -1;
}

/* Cut the next piece of the cursor's op into p; false if none is due. */
static bool
cut_piece(struct disk *d, struct disk_job *j, struct disk_piece *p)
{
	const struct rig_io_op *op = &j->ops[j->op];
	uint64_t left = op->bytes - j->cut;

	p->job = NULL;
	p->file = op->file;
	p->kind = op->kind;
	p->offset = op->offset + j->cut;
	p->host = op->host ? (char *)op->host + j->cut : NULL;	/* NULL: a barrier */
	p->bytes = op->kind == RIG_IO_BARRIER ? 0 :
		   (uint32_t)(left < d->opt.chunk_bytes ? left : d->opt.chunk_bytes);
	p->done = 0;
	p->buf = op->kind == RIG_IO_BARRIER ? -1 : buffer_of(d, p->host, p->bytes);
	return true;
}

/* Move the cursor past ops (and jobs) with nothing left to cut. */
static struct disk_job *
cursor_job(struct disk *d)
{
	struct disk_job *j;

	while ((j = d->cursor)) {
		if (j->op == 0 && j->cut == 0 && j->value != d->cut_value + 1)
			return NULL;	/* an earlier value has not arrived */
		while (j->op < j->nops && j->ops[j->op].kind != RIG_IO_BARRIER &&
		       j->ops[j->op].bytes == 0)
			j->op++;
		if (j->op < j->nops)
			return j;
		d->cut_value = j->value;
		d->cursor = j->later;
	}
	return NULL;
}

static void
piece_free(struct disk *d, struct disk_piece *p)
{
	p->job = NULL;
	p->next = d->free_pieces;
	d->free_pieces = p;
}

/* Issue what may go now; true if anything went. */
static bool
issue_some(struct disk *d)
{
	struct disk_piece *p;
	struct disk_job *j;
	bool went = false;

	while ((p = d->again)) {
		d->again = p->next;	/* before issue, which may reuse next */
		if (d->be->issue(d, p) < 0) {
			p->next = d->again;
			d->again = p;
			return went;
		}
		went = true;
	}
	while (!halted(d) && d->free_pieces && (j = cursor_job(d))) {
		p = d->free_pieces;
		cut_piece(d, j, p);
		if (held_back(d, p)) {
			stat_add(&d->stats.held);
			break;
		}
		p->job = j;
		d->free_pieces = p->next;
		if (d->be->issue(d, p) < 0) {
			piece_free(d, p);
			break;
		}
		went = true;
		j->in_flight++;
		d->in_flight++;
		box_add(d, p);
		stat_add(&d->stats.pieces);
		if (p->buf >= 0)
			stat_add(&d->stats.fixed_buffers);
		stat_max(&d->stats.max_in_flight, d->in_flight);
		j->cut += p->bytes;
		if (p->kind == RIG_IO_BARRIER || j->cut == j->ops[j->op].bytes) {
			j->op++;
			j->cut = 0;
		}
		cursor_job(d);		/* move past j at once if it is cut */
	}
	return went;
}

static void
job_free(struct disk_job *j)
{
	for (size_t i = 0; i < j->nops; i++)
		file_put(j->ops[i].file);	/* taken in disk_submit() */
	free(j);
}

/* Retire finished jobs from the head, showing each value in the word. */
static void
advance(struct disk *d)
{
	struct disk_job *j;

	while ((j = d->first) && j->op == j->nops && !j->in_flight &&
	       j != d->cursor) {
		if (!halted(d)) {
			/* Pairs with the acquire loads of the word by rig and
			 * by waiters: the value's bytes (read into host memory
			 * by the kernel or a pool thread, whose completion this
			 * thread reaped) are visible to whoever sees the value. */
			atomic_store_explicit(d->word, j->value, memory_order_release);
			d->shown = j->value;
		}
		d->first = j->later;
		if (!d->first)
			d->last = NULL;
		job_free(j);
	}
}

/* After a failure or at stop: nothing more is cut. */
static void
drop_unstarted(struct disk *d)
{
	struct disk_piece *p;

	for (struct disk_job *j = d->first; j; j = j->later)
		j->op = j->nops;
	d->cursor = NULL;
	while ((p = d->again)) {
		d->again = p->next;
		p->job->in_flight--;
		d->in_flight--;
		box_remove(d, p);
		piece_free(d, p);
	}
}

/* Consume an injected fault, if this completion is the one; report every
 * short_every-th transfer as moving half its bytes (disk_short_inject). */
static int64_t
injected(struct disk *d, const struct disk_piece *p, int64_t res)
{
	uint64_t n = atomic_load_explicit(&d->fault_nth, memory_order_relaxed);
	uint64_t every = atomic_load_explicit(&d->short_every, memory_order_relaxed);

	if (every && p->kind != RIG_IO_BARRIER && res > 1 && ++d->short_count % every == 0)
		res /= 2;

	while (n) {
		if (atomic_compare_exchange_weak_explicit(&d->fault_nth, &n, n - 1,
							  memory_order_relaxed,
							  memory_order_relaxed))
			return n == 1 ? -atomic_load(&d->fault_err) : res;
	}
	return res;
}

void
loop_piece_done(struct disk *d, struct disk_piece *p, int64_t res)
{
	struct disk_job *j = p->job;
	const char *op = disk_op_name(p->kind);

	res = injected(d, p, res);
	if (res == -EINTR || res == -EAGAIN) {
		p->next = d->again;	/* try the same piece again */
		d->again = p;
		return;
	}
	if (res < 0) {
		disk_fail(d, "%s of %s at %" PRIu64 ": %s", op, p->file->path,
			  p->offset + p->done, strerror((int)-res));
	} else if (p->kind != RIG_IO_BARRIER && res == 0) {
		disk_fail(d, "%s of %s at %" PRIu64 ": %s after %" PRIu32 " of %" PRIu32 " bytes",
			  op, p->file->path, p->offset + p->done,
			  p->kind == RIG_IO_READ ? "end of file" : "nothing written",
			  p->done, p->bytes);
	} else if (p->kind != RIG_IO_BARRIER && p->done + res < p->bytes) {
		p->done += (uint32_t)res;
		stat_add(&d->stats.resubmits);
		p->next = d->again;
		d->again = p;
		return;
	}
	j->in_flight--;
	d->in_flight--;
	box_remove(d, p);
	piece_free(d, p);
	if (!j->in_flight && j->op == j->nops && j != d->first)
		stat_add(&d->stats.out_of_order);
}

/* Spin a little for new values before sleeping: a submitter that streams
 * values then feeds a loop that is awake, and pays no wake-up per value. */
#define SPINS 4096

static void
relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static bool
work_came(struct disk *d)
{
	for (int i = 0; i < SPINS; i++) {
		if (!feed_empty_sc(&d->feed))
			return true;
		relax();
	}
	return false;
}

void *
loop_main(void *arg)
{
	struct disk *d = arg;
	bool went;
	int ret;

	prctl(PR_SET_NAME, "rig-disk");
	for (;;) {
		take_feed(d);
		if (halted(d)) {
			bool stopping = atomic_load_explicit(&d->stopping,
							     memory_order_acquire);

			drop_unstarted(d);
			advance(d);
			if (stopping && !d->in_flight && feed_empty_sc(&d->feed))
				break;
			if (stopping && d->in_flight && !d->cancelled) {
				d->be->cancel(d);
				d->cancelled = true;
			}
		}
		went = issue_some(d);
		advance(d);
		if (went) {
			/* All pieces out: submit and wait for one in one call. */
			ret = d->be->reap(d, !d->free_pieces);
		} else if (d->in_flight) {
			/* Nothing more may go until a piece ends (no free piece,
			 * a conflict, a full ring): wait for one, not spin. */
			ret = d->be->reap(d, true);
		} else if (work_came(d) || feed_sleep_sc(&d->feed)) {
			ret = d->be->reap(d, false);
		} else {
			ret = d->be->reap(d, true);	/* idle: until the bell */
			feed_wake_sc(&d->feed);
		}
		if (ret < 0)
			disk_fail(d, "the loop's wait for completions: %s", strerror(-ret));
	}
	return NULL;
}
