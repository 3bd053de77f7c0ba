/* SPDX-License-Identifier: MIT */
/*
 * io/loop.c: the disk's loop thread. It alone issues pieces, reaps them and
 * writes the word.
 *
 * Design notes.
 *  - Jobs (values) come from the feed and join a list sorted by value
 *    (first..last), and, while they have ops left to cut, a second one
 *    (cursor..pending_last, through pending). With one submitter they
 *    arrive in order; concurrent submitters may swap neighbours, so the
 *    insert walks back from last, and the loop never starts a value
 *    before every earlier one arrived (cut_value: all values up to it
 *    arrived).
 *  - A value with waits (submit_after) starts only once each wait's word
 *    shows its value (an acquire load, before any of its pieces is
 *    issued: `ready`); until then the loop looks at the word between its
 *    reaps (d->blocked, wait_word()).
 *  - The cursor is the first job with ops left to cut (or not ready); a
 *    pass walks that list alone, not the jobs that only wait for their
 *    pieces to end. Ops are cut into pieces of at most chunk_bytes, in op
 *    order; a barrier is one piece.
 *  - Hazards: two uses conflict where they touch the same file, overlapping
 *    bytes, one of them a write (a barrier counts as a read of the whole
 *    file, so it waits for the writes before it and holds the writes after
 *    it); or overlapping host bytes, one of them a read (a read writes
 *    host memory). Each pass walks the jobs from the cursor in value
 *    order. A piece is issued only if it conflicts with no piece in flight
 *    (at most depth) and with nothing left to cut of the jobs the walk
 *    passed (a job not ready, or whose piece had to wait): so two
 *    conflicting uses are issued in op order and never run at once, and
 *    the result is the one of running the ops one by one, while a piece
 *    that conflicts with nothing before it (another file's write behind
 *    an fsync) goes at once. Invariant: a job is cut only once every
 *    value before it arrived.
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
#include <sched.h>
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

	d->walk_due = true;	/* a walk may start it */
	if (d->last && d->last->value < j->value)
		at = &d->last->later;
	else
		while (*at && (*at)->value < j->value)
			at = &(*at)->later;
	j->later = *at;
	*at = j;
	if (!j->later)
		d->last = j;
	/* Values up to cut_value all arrived; j may close a gap. */
	for (struct disk_job *k = j; k && k->value == d->cut_value + 1; k = k->later)
		d->cut_value = k->value;
	if (halted(d)) {
		j->op = j->nops;	/* dropped: nothing of it runs */
		j->ready = true;
		return;
	}
	/* The list of jobs with ops left to cut: at its end, as a rule. */
	at = &d->cursor;
	if (d->pending_last && d->pending_last->value < j->value)
		at = &d->pending_last->pending;
	else
		while (*at && (*at)->value < j->value)
			at = &(*at)->pending;
	j->pending = *at;
	*at = j;
	if (!j->pending)
		d->pending_last = j;
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

/* What a piece or the rest of an op touches. */
struct span {
	enum rig_io_op_kind kind;
	const void *file;
	uint64_t offset, bytes;
	uintptr_t host;
};

static struct span
piece_span(const struct disk_piece *p)
{
	return (struct span){ p->kind, p->file, p->offset, p->bytes, (uintptr_t)p->host };
}

/* Whether a and b may not run at once: on one file, a write against any
 * use of its bytes (a barrier uses the whole file); in host memory, a read
 * (which writes it) against any use. */
static bool
conflict(const struct span *a, const struct span *b)
{
	if (a->file == b->file) {
		if (a->kind == RIG_IO_BARRIER || b->kind == RIG_IO_BARRIER) {
			if (a->kind == RIG_IO_WRITE || b->kind == RIG_IO_WRITE)
				return true;
		} else if ((a->kind == RIG_IO_WRITE || b->kind == RIG_IO_WRITE) &&
			   overlap(a->offset, a->bytes, b->offset, b->bytes)) {
			return true;
		}
	}
	return a->kind != RIG_IO_BARRIER && b->kind != RIG_IO_BARRIER &&
	       (a->kind == RIG_IO_READ || b->kind == RIG_IO_READ) &&
	       overlap(a->host, a->bytes, b->host, b->bytes);
}

/* Does the piece q (not yet issued) conflict with a piece in flight? */
static bool
held_back(struct disk *d, const struct disk_piece *q)
{
	struct span sq = piece_span(q);

	if (!may_conflict(d, q))
		return false;
	for (unsigned i = 0; i < d->opt.depth; i++) {
		const struct disk_piece *p = &d->pieces[i];
		struct span sp;

		if (!p->job)
			continue;
		sp = piece_span(p);
		if (conflict(&sp, &sq))
			return true;
	}
	return false;
}

/* Does q conflict with what is left to cut of an earlier job s (its op
 * being cut from s->cut on, and the ops after it)? */
static bool
behind(const struct disk_job *s, const struct disk_piece *q)
{
	struct span sq = piece_span(q);

	for (size_t k = s->op; k < s->nops; k++) {
		const struct rig_io_op *op = &s->ops[k];
		uint64_t skip = k == s->op ? s->cut : 0;
		struct span so = { op->kind, op->file, op->offset + skip, op->bytes - skip,
				   op->host ? (uintptr_t)op->host + skip : 0 };

		if (conflict(&so, &sq))
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

static bool
shows(const struct rig_wait *w)
{
	/* Pairs with the producer's release store of its word: what its
	 * work wrote (the host bytes a write reads) is visible to the I/O
	 * issued after this load. */
	return atomic_load_explicit(w->word, memory_order_acquire) >= w->value;
}

/* Whether j may start: every word it waits for shows its value. Sets
 * d->blocked to the first that does not, unless an earlier job's is set.
 * Within a pass, a wait for a value at or above one that d->blocked's
 * word did not show is not looked at again: the word is another
 * device's, written by another core, and most waits of a pass name it. */
static bool
waits_shown(struct disk *d, struct disk_job *j)
{
	const struct rig_wait *b = d->blocked, *w;

	while (j->waited < j->nwaits) {
		w = &j->waits[j->waited];
		if ((b && w->word == b->word && w->value >= b->value) || !shows(w))
			break;
		j->waited++;
	}
	if (j->waited == j->nwaits)
		return j->ready = true;
	if (!b)
		d->blocked = &j->waits[j->waited];
	return false;
}

/* Move j past ops with nothing to cut (empty copies); true if all are cut. */
static bool
cut_all(struct disk_job *j)
{
	while (j->op < j->nops && j->ops[j->op].kind != RIG_IO_BARRIER &&
	       j->ops[j->op].bytes == 0)
		j->op++;
	return j->op == j->nops;
}

static void
piece_free(struct disk *d, struct disk_piece *p)
{
	p->job = NULL;
	p->next = d->free_pieces;
	d->free_pieces = p;
}

/* Jobs the issue walk looks at past the cursor, and jobs with ops left
 * that it passes, at most: it stays bounded while everything waits, and
 * is long enough that one program thread's values held behind its fsync
 * (a batch of them) do not hold back another's. */
#define WALK_JOBS	512
#define WALK_PASSED	256
#define WALK_FILES	4

/* What the walk passed: the jobs, and a coarse summary of what is left of
 * them (its files, up to WALK_FILES, and the bounds of its host bytes), so
 * that a piece that touches none of it skips the scan of the jobs. */
struct passed {
	struct disk_job *job[WALK_PASSED];
	size_t n;
	const void *file[WALK_FILES];
	size_t nfiles;			/* WALK_FILES + 1: too many to list */
	uintptr_t host_lo, host_hi;
	/* The files with a barrier in flight, up to WALK_FILES (nbarred
	 * WALK_FILES + 1: more, unlisted): every write to one of them is
	 * held back (conflict()), so the walk holds it at once, without the
	 * scans of held_back() and behind_passed(), which cost a check of
	 * each write behind an fsync against everything, each walk. */
	const void *barred[WALK_FILES];
	size_t nbarred;
};

static void
barred_find(const struct disk *d, struct passed *ps)
{
	ps->nbarred = 0;
	if (!d->box.barriers)
		return;
	for (unsigned i = 0; i < d->opt.depth && ps->nbarred <= WALK_FILES; i++) {
		const struct disk_piece *p = &d->pieces[i];

		if (p->job && p->kind == RIG_IO_BARRIER) {
			if (ps->nbarred < WALK_FILES)
				ps->barred[ps->nbarred] = p->file;
			ps->nbarred++;
		}
	}
}

/* Is q a write to a file whose barrier is in flight (so held back)? */
static bool
barred(const struct passed *ps, const struct disk_piece *q)
{
	if (q->kind != RIG_IO_WRITE || ps->nbarred > WALK_FILES)
		return false;
	for (size_t i = 0; i < ps->nbarred; i++)
		if (ps->barred[i] == q->file)
			return true;
	return false;
}

static void
passed_add(struct passed *ps, struct disk_job *j)
{
	ps->job[ps->n++] = j;
	for (size_t k = j->op; k < j->nops; k++) {
		const struct rig_io_op *op = &j->ops[k];
		size_t f = 0;

		while (f < ps->nfiles && f < WALK_FILES && ps->file[f] != op->file)
			f++;
		if (f == ps->nfiles && f < WALK_FILES)
			ps->file[ps->nfiles++] = op->file;
		else if (f == WALK_FILES)
			ps->nfiles = WALK_FILES + 1;
		if (!op->host || !op->bytes)
			continue;
		if (ps->host_lo == ps->host_hi || (uintptr_t)op->host < ps->host_lo)
			ps->host_lo = (uintptr_t)op->host;
		if ((uintptr_t)op->host + op->bytes > ps->host_hi)
			ps->host_hi = (uintptr_t)op->host + op->bytes;
	}
}

/* Does q conflict with what is left of a job the walk passed? */
static bool
behind_passed(const struct passed *ps, const struct disk_piece *q)
{
	bool file = ps->nfiles > WALK_FILES;

	for (size_t f = 0; f < ps->nfiles && f < WALK_FILES && !file; f++)
		file = ps->file[f] == q->file;
	if (!file && (q->kind == RIG_IO_BARRIER ||
		      !overlap((uintptr_t)q->host, q->bytes, ps->host_lo, ps->host_hi - ps->host_lo)))
		return false;
	for (size_t i = 0; i < ps->n; i++)
		if (behind(ps->job[i], q))
			return true;
	return false;
}

/* Issue j's next piece: 1 if it went, 0 if it waits for a piece in flight
 * or for what is left of a job passed (passed[0..n)), -1 if the backend
 * takes no more now. */
static int
issue_next(struct disk *d, struct disk_job *j, const struct passed *ps)
{
	struct disk_piece *p = d->free_pieces;
	bool held = (cut_piece(d, j, p), barred(ps, p)) || held_back(d, p) ||
		    behind_passed(ps, p);

	if (held) {
		stat_add(&d->stats.held);
		return 0;
	}
	p->job = j;
	d->free_pieces = p->next;
	if (d->be->issue(d, p) < 0) {
		piece_free(d, p);
		return -1;
	}
	if (j->times && !j->started_ns)	/* a profile's start: its first piece */
		j->started_ns = rig_now_ns();
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
	return 1;
}

/* Issue what may go now; true if anything went. The walk goes from the
 * cursor in value order (and stops where a value has not arrived); a job
 * that must wait (its words, a conflict) is passed, and a later job's
 * piece goes only if it conflicts with nothing in flight and with nothing
 * left of the jobs passed. */
static bool
issue_some(struct disk *d)
{
	struct disk_job **link = &d->cursor, *j, *prev = NULL;
	struct passed ps;
	size_t walked = 0;
	struct disk_piece *p;
	bool went = false;
	int r = 1;

	if (halted(d))
		d->blocked = NULL;	/* its job goes at a halt (drop_unstarted) */
	while ((p = d->again)) {
		d->again = p->next;	/* before issue, which may reuse next */
		if (d->be->issue(d, p) < 0) {
			p->next = d->again;
			d->again = p;
			return went;
		}
		went = true;
	}
	if (halted(d) || !(d->walk_due || (d->blocked && shows(d->blocked))))
		return went;
	/* Nothing changed since the last walk (no value came, no piece
	 * ended, d->blocked's word did not move): it would find what it found,
	 * and while a barrier holds a batch of writes back that costs a check
	 * of each against every piece in flight and every job passed, each
	 * look. bench/server.c's loops spent ~3% of its CPU time there. */
	d->walk_due = false;
	d->blocked = NULL;	/* waits_shown() says again */
	ps.n = ps.nfiles = 0;
	ps.host_lo = ps.host_hi = 0;
	barred_find(d, &ps);
	/* Only values whose earlier values all arrived (cut_value). */
	while ((j = *link) && j->value <= d->cut_value && r >= 0 && d->free_pieces &&
	       ps.n < WALK_PASSED && walked++ < WALK_JOBS) {
		if (j->ready || waits_shown(d, j))
			while (!cut_all(j) && d->free_pieces && (r = issue_next(d, j, &ps)) > 0)
				went = true;
		if (j->ready && cut_all(j)) {
			*link = j->pending;	/* all cut: off the list */
			if (d->pending_last == j)
				d->pending_last = prev;
			continue;
		}
		passed_add(&ps, j);
		prev = j;
		link = &j->pending;
	}
	if (r < 0)
		d->walk_due = true;	/* the backend was full: again after a reap */
	return went;
}

/* A cached job's memory goes back before its files' references: the last
 * file_put() may end the disk, and its job cache with it. */
static void
job_free(struct disk *d, struct disk_job *j)
{
	struct disk_file *files[JOBS_OPS];
	size_t n = j->nops;

	if (!j->cached) {
		for (size_t i = 0; i < n; i++)
			file_put(j->ops[i].file);	/* taken in disk_submit() */
		jobs_give(&d->jobs, j);		/* free(): no disk memory */
		return;
	}
	for (size_t i = 0; i < n; i++)
		files[i] = j->ops[i].file;
	jobs_give(&d->jobs, j);
	for (size_t i = 0; i < n; i++)
		file_put(files[i]);
}

/*
 * A profile's pair for j, retiring in value order: from its first piece
 * to now. The loop runs the pieces of values that use no common bytes at
 * once, so a start is moved to the previous value's end: a profile shows
 * the device's values one after another (rig_edge.h, device order).
 */
static void
time_job(struct disk *d, struct disk_job *j)
{
	uint64_t end = rig_now_ns(), start = j->started_ns ? j->started_ns : end;

	if (start < d->timed_end)
		start = d->timed_end;
	if (end < start)
		end = start;
	*j->times = (struct rig_times){ start, end };
	d->timed_end = end;
}

/* Retire finished jobs from the head, showing each value in the word. */
static void
advance(struct disk *d)
{
	uint64_t was = d->shown;
	struct disk_job *j;

	while ((j = d->first) && j->ready && j->op == j->nops && !j->in_flight &&
	       j != d->cursor) {
		if (!halted(d)) {
			if (j->times)
				time_job(d, j);
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
		job_free(d, j);
	}
	/* After the stores: a waiter asleep on the word (a program's wait
	 * for a barrier) wakes now, not at the polling thread's next look.
	 * One increment while nobody sleeps. */
	if (d->shown != was)
		rig_word_wake(d->word);
}

/* After a failure or at stop: nothing more is cut. */
static void
drop_unstarted(struct disk *d)
{
	struct disk_piece *p;

	for (struct disk_job *j = d->first; j; j = j->later) {
		j->op = j->nops;
		j->ready = true;
	}
	d->cursor = d->pending_last = NULL;
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

	d->walk_due = true;	/* a piece ended or comes again: a walk may issue more */
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

/* Look a little for new values before sleeping: a submitter that streams
 * values then feeds a loop that is awake, and pays no wake-up per value.
 * IDLE_PAUSES pauses (~15 us here: a program thread's next value is
 * usually a few us away), then IDLE_YIELDS yields, not a long spin: on two
 * cores a loop that spins with pauses keeps the very threads that make its
 * next value (the submitter, the device that runs its kernel) off a core.
 * bench/server.c's loops spun 4096 pauses (~250 us) when idle before. */
#define IDLE_PAUSES	256
#define IDLE_YIELDS	32

/* Looks at a word the cursor waits for: pauses, then yields (the thread
 * that will store it may want this core), then sleeps for growing times,
 * from WAIT_SLEEP_MIN_NS doubling to WAIT_SLEEP_MAX_NS, so a long wait
 * costs a look every 100 us at most. With pieces of ours in flight the
 * sleep is the backend's reap, which their completions and the bell end.
 * With none, it is a sleep on the word itself (rig_word_sleep), which the
 * producer's rig_word_wake() after its store ends at once (the host
 * device calls it after each value): the value a copy waits for wakes the
 * loop the moment it is stored, not at its next timed look, and the loop
 * pays no timer and no io_uring wait per look. A submit meanwhile wakes
 * it too (sleep_on_word() says how, and the one case that waits for the
 * timeout). */
#define WAIT_PAUSES		32
#define WAIT_YIELDS		32
#define WAIT_SLEEP_MIN_NS	2000u
#define WAIT_SLEEP_MAX_NS	100000u

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
	for (int i = 0; i < IDLE_PAUSES + IDLE_YIELDS; i++) {
		if (!feed_empty_sc(&d->feed))
			return true;
		if (i < IDLE_PAUSES)
			relax();
		else
			sched_yield();
	}
	return false;
}

/*
 * Sleep on w's word for timeout_ns at most, nothing of ours being in
 * flight. A submit that finds the loop asleep rings the bell and wakes the
 * word named in d->sleep_word (disk_submit_timed): the loop publishes the
 * word, then marks itself asleep (feed_sleep_sc, a full barrier), so a
 * pusher that reads the mark reads the word too. Such a wake also wakes
 * that word's other sleepers, who look again and sleep on: harmless. The
 * one lost wake: a push whose wake lands between the mark and
 * rig_word_sleep()'s read of the word's count waits for this sleep's
 * timeout (WAIT_SLEEP_MAX_NS at most), never longer.
 */
static void
sleep_on_word(struct disk *d, const struct rig_wait *w, uint64_t timeout_ns)
{
	atomic_store_explicit(&d->sleep_word, w->word, memory_order_seq_cst);
	if (!feed_sleep_sc(&d->feed)) {
		rig_word_sleep(w->word, w->value, timeout_ns);
		feed_wake_sc(&d->feed);
	}
	atomic_store_explicit(&d->sleep_word, NULL, memory_order_relaxed);
}

/* The cursor waits for d->blocked's word: look again, after a pause, a
 * yield or a sleep (above). Completions are reaped meanwhile. */
static int
wait_word(struct disk *d)
{
	unsigned step = d->wait_step++, n;
	uint64_t sleep_ns;

	if (shows(d->blocked)) {
		d->wait_step = 0;
		d->walk_due = true;
		return d->be->reap(d, false, 0);
	}
	if (step < WAIT_PAUSES) {
		relax();
		return d->be->reap(d, false, 0);
	}
	if (step < WAIT_PAUSES + WAIT_YIELDS) {
		sched_yield();
		return d->be->reap(d, false, 0);
	}
	n = step - WAIT_PAUSES - WAIT_YIELDS;
	sleep_ns = n < 6 ? WAIT_SLEEP_MIN_NS << n : WAIT_SLEEP_MAX_NS;
	/* After each sleep, a whole walk: a job waiting for a word other
	 * than d->blocked's is seen to go within one sleep. */
	d->walk_due = true;
	if (d->in_flight)
		return d->be->reap(d, true, sleep_ns);
	sleep_on_word(d, d->blocked, sleep_ns);
	return d->be->reap(d, false, 0);
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
		/* Show what the last reap ended before the walk: the walk may
		 * run an fsync inline (uring.c), which would hold it back. */
		advance(d);
		went = issue_some(d);
		advance(d);
		if (!d->blocked)
			d->wait_step = 0;
		if (went) {
			/* All pieces out: submit and wait for one in one call. */
			ret = d->be->reap(d, !d->free_pieces && !d->blocked, 0);
		} else if (d->blocked) {
			/* The cursor waits for another device's word, which no
			 * completion of ours moves: look at it, also while
			 * pieces are in flight (an fsync may take long). */
			ret = wait_word(d);
		} else if (d->in_flight) {
			/* Nothing more may go until a piece ends (no free piece,
			 * a conflict, a full ring): wait for one, not spin. */
			ret = d->be->reap(d, true, 0);
		} else if (work_came(d) || feed_sleep_sc(&d->feed)) {
			ret = d->be->reap(d, false, 0);
		} else {
			ret = d->be->reap(d, true, 0);	/* idle: until the bell */
			feed_wake_sc(&d->feed);
		}
		if (ret < 0)
			disk_fail(d, "the loop's wait for completions: %s", strerror(-ret));
	}
	return NULL;
}
