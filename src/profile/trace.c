/* SPDX-License-Identifier: MIT */
/*
 * profile/trace.c: a profile as Chrome trace-event JSON (the "JSON Object
 * Format" that Perfetto and chrome://tracing open): one process per
 * device, one thread lane per queue name, one process "host" with a lane
 * per thread for spans and host waits, and flow arrows for the waits that
 * explain when work started: from a producer's value to the value whose
 * stamps waited for it (with the buffer's address range), and from a
 * value to the host wait that waited for it. A driver with pieces
 * (rig_edge.h: the host device) adds each part's span inside its value's
 * on the part's queue lane, and each thread's range of a part on a lane
 * of that thread's ("COMPUTE:0 worker 1").
 *
 * Events are gathered, then sorted by lane and time (stable), so each
 * lane's timestamps never decrease; a thread's spans are laid out with a
 * stack first, so its B and E events nest. Times are microseconds from
 * the profile's first time, with nanosecond decimals. No JSON library:
 * Debian's (json-c, jansson) would build a tree of every event first,
 * and the writer only ever prints flat objects.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "profile/trace.h"

static int
grow(struct trace *t)
{
	if (t->n < t->cap)
		return 0;
	size_t cap = t->cap ? 2 * t->cap : 256;
	struct trace_event *e = realloc(t->e, cap * sizeof(*e));

	if (!e)
		return -1;
	t->e = e;
	t->cap = cap;
	return 0;
}

static struct trace_event *
add(struct trace *t, char ph, int pid, uint32_t tid, uint64_t ts)
{
	if (grow(t) < 0) {
		t->failed = true;
		return NULL;
	}
	struct trace_event *e = &t->e[t->n];

	*e = (struct trace_event){ .ph = ph, .pid = pid, .tid = tid, .ts = ts,
				   .seq = t->n };
	t->n++;
	return e;
}

/* The first queue a record's parts ran on: its lane. */
static uint32_t
lane_of(const struct profile_rec *rec)
{
	for (uint32_t q = 0; q < 32; q++)
		if (rec->queues & (1u << q))
			return q;
	return 0;
}

/* The record of (slot, value) among the profile's reached records. */
static bool
find_value(struct rig_profile *p, uint32_t slot, uint64_t value, size_t *dev,
	   const struct profile_rec **out)
{
	for (size_t i = 0; i < p->ndev; i++) {
		struct profile_dev *pd = p->dev[i];
		const struct profile_rec *rec;

		if (pd->slot != (int)slot || !(rec = profile_rec_of(pd, value)))
			continue;
		if (atomic_load_explicit(&rec->value, memory_order_acquire) != value ||
		    !profile_times(pd, rec)->end_ns)
			return false;
		*dev = i;
		*out = rec;
		return true;
	}
	return false;
}

/* A flow from the producer's value to (pid, tid) at ts; false if the
 * producer is not in the profile. */
static void
flow(struct trace *t, struct rig_profile *p, uint32_t slot, uint64_t value,
     int pid, uint32_t tid, uint64_t ts, const struct profile_arrow *arrow)
{
	const struct profile_rec *from;
	struct trace_event *e;
	size_t dev;
	uint64_t at;

	if (!find_value(p, slot, value, &dev, &from))
		return;
	t->flows++;
	/* Inside the producer's slice, at its end: the arrow leaves there. */
	const struct rig_times *ft = profile_times(p->dev[dev], from);

	at = ft->end_ns > ft->start_ns ? ft->end_ns - 1 : ft->start_ns;
	if ((e = add(t, 's', TRACE_DEVICE_PID + (int)dev, lane_of(from) + 1, at))) {
		e->id = t->flows;
		e->value = value;
		e->arrow = arrow;
		e->producer = (int)dev;
	}
	if ((e = add(t, 'f', pid, tid, ts))) {
		e->id = t->flows;
		e->value = value;
		e->arrow = arrow;
		e->producer = (int)dev;
	}
}

/* Device i's pieces (rig_edge.h: pieces), taken at each value's settle:
 * each an X event inside its value's own, on the part's queue lane or on
 * the lane of the thread that ran a range of it. Under the driver lock,
 * which guards the array (a settle on another thread may grow it). */
static void
gather_pieces(struct trace *t, struct rig_profile *p, size_t i)
{
	struct profile_dev *pd = p->dev[i];

	slock_lock(&pd->d->sub.driver_lock);
	for (size_t k = 0; k < pd->npieces; k++) {
		const struct rig_piece *pc = &pd->pieces[k].piece;
		uint32_t tid = pc->worker < 0 ? pc->queue + 1 :
			       TRACE_WORKER_LANES * (pc->queue + 1) + (uint32_t)pc->worker;
		struct trace_event *e;

		if (pc->queue >= 32 || pc->end_ns < pc->start_ns ||
		    (pc->worker >= 0 && (uint32_t)pc->worker >= TRACE_WORKER_LANES))
			continue;	/* no lane of the trace's for it */
		if ((e = add(t, 'X', TRACE_DEVICE_PID + (int)i, tid, pc->start_ns))) {
			e->dur = pc->end_ns - pc->start_ns;
			e->value = pd->pieces[k].value;
			e->is_piece = true;
			e->piece = *pc;
		}
	}
	slock_unlock(&pd->d->sub.driver_lock);
}

static void
gather_values(struct trace *t, struct rig_profile *p)
{
	for (size_t i = 0; i < p->ndev; i++) {
		struct profile_dev *pd = p->dev[i];
		uint64_t word = timeline_word(&pd->d->tl);

		for (uint64_t k = 0; k < pd->n && pd->base + k <= word; k++) {
			const struct profile_rec *rec = &pd->rec[k];
			uint64_t v = atomic_load_explicit(&rec->value, memory_order_acquire);

			const struct rig_times *tm = profile_times(pd, rec);
			const struct profile_arrow *arrow = profile_arrows(pd, rec);

			if (!v || !tm->end_ns)
				continue;	/* untimed, or no times (lost first) */
			for (uint32_t q = 0; q < 32; q++) {
				struct trace_event *e;

				if (!(rec->queues & (1u << q)))
					continue;
				if ((e = add(t, 'X', TRACE_DEVICE_PID + (int)i, q + 1,
					     tm->start_ns))) {
					e->dur = tm->end_ns - tm->start_ns;
					e->value = v;
					e->rec = rec;
				}
			}
			for (uint32_t a = 0; a < rec->narrows; a++)
				flow(t, p, arrow[a].slot, arrow[a].value,
				     TRACE_DEVICE_PID + (int)i, lane_of(rec) + 1,
				     tm->start_ns, &arrow[a]);
		}
	}
}

/* One thread's spans, in begin order, as nested B and E events. */
static void
gather_thread(struct trace *t, struct rig_profile *p, uint32_t tid, uint64_t now)
{
	size_t stack[64 + 1], depth = 0;

	for (size_t i = 0; i <= p->nspan; i++) {
		const struct profile_span *s = i < p->nspan ? &p->span[i] : NULL;

		if (s && s->tid != tid)
			continue;
		/* End what ended before this span begins (all, at the last). */
		while (depth) {
			const struct profile_span *top = &p->span[stack[depth - 1]];
			uint64_t end = top->end_ns ? top->end_ns : now;

			if (s && end > s->begin_ns)
				break;
			add(t, 'E', TRACE_HOST_PID, tid, end);
			depth--;
		}
		if (!s)
			break;
		struct trace_event *e = add(t, 'B', TRACE_HOST_PID, tid, s->begin_ns);

		if (e) {
			e->span_name = s->name;
			e->span_wait = s->waited_value != 0;
		}
		if (s->waited_value && s->waited_slot >= 0) {
			uint64_t end = s->end_ns ? s->end_ns : now;

			flow(t, p, (uint32_t)s->waited_slot, s->waited_value, TRACE_HOST_PID,
			     tid, end > s->begin_ns ? end - 1 : end, NULL);
		}
		if (depth < 64)
			stack[depth++] = i;
		else
			add(t, 'E', TRACE_HOST_PID, tid, s->end_ns ? s->end_ns : now);
	}
}

static void
gather_spans(struct trace *t, struct rig_profile *p, uint64_t now)
{
	for (size_t i = 0; i < p->nspan; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = p->span[j].tid == p->span[i].tid;
		if (!seen)
			gather_thread(t, p, p->span[i].tid, now);
	}
}

static int
by_lane_then_time(const void *x, const void *y)
{
	const struct trace_event *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int
trace_gather(struct trace *t, struct rig_profile *p)
{
	uint64_t now = rig_now_ns();

	*t = (struct trace){ .origin = p->start_ns };
	/* The times a driver converts in settle: settle what is reached.
	 * Under profile_lock, which a device joining the profile takes (the
	 * list may grow); a driver lock is taken under it, never the other
	 * way round. */
	pthread_mutex_lock(&profile_lock);
	for (size_t i = 0; i < p->ndev; i++)
		if (!atomic_load(&p->dev[i]->d->tl.lost))
			profile_settle_upto(p->dev[i], timeline_word(&p->dev[i]->d->tl));
	gather_values(t, p);
	for (size_t i = 0; i < p->ndev; i++)
		gather_pieces(t, p, i);
	gather_spans(t, p, now);
	pthread_mutex_unlock(&profile_lock);
	if (t->failed) {
		free(t->e);
		return RIG_ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].ts < t->origin)
			t->origin = t->e[i].ts;
	if (t->n)	/* no event: t->e may be NULL, which qsort may not take */
		qsort(t->e, t->n, sizeof(*t->e), by_lane_then_time);
	return 0;
}

/* ---- Printing ---- */

static void
put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
put_ts(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static void
put_meta(FILE *f, bool *first, const char *what, int pid, uint32_t tid, const char *name)
{
	fprintf(f, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":",
		*first ? "" : ",", what, pid, tid);
	put_string(f, name);
	fputs("}}", f);
	*first = false;
}

static void
put_metadata(FILE *f, struct rig_profile *p, const struct trace *t, bool *first)
{
	char lane[64];

	put_meta(f, first, "process_name", TRACE_HOST_PID, 0, "host");
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].pid == TRACE_HOST_PID &&
		    (i == 0 || t->e[i - 1].pid != TRACE_HOST_PID || t->e[i - 1].tid != t->e[i].tid)) {
			snprintf(lane, sizeof(lane), "thread %u", t->e[i].tid);
			put_meta(f, first, "thread_name", TRACE_HOST_PID, t->e[i].tid, lane);
		}
	for (size_t i = 0; i < p->ndev; i++) {
		const struct rig_device *d = p->dev[i]->d;
		int pid = TRACE_DEVICE_PID + (int)i;

		put_meta(f, first, "process_name", pid, 0, d->name);
		for (size_t q = 0; q < d->facts.nqueues && q < 32; q++)
			put_meta(f, first, "thread_name", pid, (uint32_t)q + 1,
				 d->facts.queues[q].name);
		/* The threads' lanes that pieces used (events are sorted by lane). */
		for (size_t k = 0; k < t->n; k++)
			if (t->e[k].pid == pid && t->e[k].tid >= TRACE_WORKER_LANES &&
			    (k == 0 || t->e[k - 1].pid != pid || t->e[k - 1].tid != t->e[k].tid)) {
				trace_lane_name(d, t->e[k].tid, lane, sizeof(lane));
				put_meta(f, first, "thread_name", pid, t->e[k].tid, lane);
			}
	}
}

void
trace_lane_name(const struct rig_device *d, uint32_t tid, char *buf, size_t len)
{
	uint32_t q = (tid >= TRACE_WORKER_LANES ? tid / TRACE_WORKER_LANES : tid) - 1;
	const char *queue = q < d->facts.nqueues ? d->facts.queues[q].name : "?";

	if (tid >= TRACE_WORKER_LANES)
		snprintf(buf, len, "%s worker %u", queue, tid % TRACE_WORKER_LANES);
	else
		snprintf(buf, len, "%s", queue);
}

static void
put_arrow_args(FILE *f, struct rig_profile *p, const struct trace_event *e)
{
	fputs(",\"args\":{", f);
	if (e->arrow)
		fprintf(f, "\"buffer\":\"0x%" PRIx64 "-0x%" PRIx64 "\",", e->arrow->lo,
			e->arrow->hi);
	fputs("\"producer\":", f);
	put_string(f, p->dev[e->producer]->d->name);
	fprintf(f, ",\"producer_value\":%" PRIu64 "}", e->value);
}

static void
put_event(FILE *f, struct rig_profile *p, const struct trace *t,
	  const struct trace_event *e)
{
	fprintf(f, ",\n{\"ph\":\"%c\",\"pid\":%d,\"tid\":%u", e->ph, e->pid, e->tid);
	put_ts(f, "ts", e->ts - t->origin);
	switch (e->ph) {
	case 'X':
		if (e->is_piece) {
			fprintf(f, ",\"name\":\"%s (part %u)\",\"cat\":\"%s\"",
				e->piece.worker >= 0 ? "range" :
				e->piece.kind == RIG_LAUNCH_PART ? "launch" : "copy",
				e->piece.part, e->piece.worker >= 0 ? "range" : "part");
			put_ts(f, "dur", e->dur);
			fprintf(f, ",\"args\":{\"value\":%" PRIu64 ",\"part\":%u,\"worker\":%d}}",
				e->value, e->piece.part, e->piece.worker);
			return;
		}
		fprintf(f, ",\"name\":\"value %" PRIu64 "\",\"cat\":\"value\"", e->value);
		put_ts(f, "dur", e->dur);
		fprintf(f, ",\"args\":{\"value\":%" PRIu64 ",\"launches\":%u,\"waits\":%u}}",
			e->value, e->rec->nlaunch, e->rec->narrows);
		return;
	case 'B':
		fputs(",\"name\":", f);
		put_string(f, e->span_name);
		fprintf(f, ",\"cat\":\"%s\"}", e->span_wait ? "wait" : "span");
		return;
	case 'E':
		fputs("}", f);
		return;
	case 's':
	case 'f':
		fprintf(f, ",\"name\":\"%s\",\"cat\":\"wait\",\"id\":%" PRIu64 "%s",
			e->arrow ? "waits for" : "host waits for", e->id,
			e->ph == 'f' ? ",\"bp\":\"e\"" : "");
		put_arrow_args(f, p, e);
		fputs("}", f);
		return;
	}
}

int
rig_profile_write(struct rig_profile *p, const char *path)
{
	struct trace t;
	bool first = true;
	FILE *f;
	int ret;

	if (!p)
		return rig_fail(RIG_EINVAL, "the profile is NULL");
	if (!path)
		return rig_fail(RIG_EINVAL, "the path is NULL");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	if (!(f = fopen(path, "w")))
		return rig_fail(RIG_EINVAL, "%s: %s", path, strerror(errno));
	if ((ret = trace_gather(&t, p)) < 0) {
		fclose(f);
		remove(path);
		return rig_fail(ret, "no memory for the trace's events");
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	put_metadata(f, p, &t, &first);
	for (size_t i = 0; i < t.n; i++)
		put_event(f, p, &t, &t.e[i]);
	fputs("\n]}\n", f);
	free(t.e);
	if (ferror(f) | (fclose(f) != 0)) {
		remove(path);
		return rig_fail(RIG_EINVAL, "%s: a write failed", path);
	}
	return 0;
}
