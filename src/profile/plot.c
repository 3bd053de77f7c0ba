/* SPDX-License-Identifier: MIT */
/*
 * profile/plot.c: a profile as a gnuplot script that draws a timeline for
 * people who would rather look than read: one row per lane (a device's
 * queue or a thread of its, a host thread), a box per value or span (a
 * value's pieces narrower, over it), and an arrow per wait,
 * from the producer's value to the value or host wait that waited for it.
 * gnuplot writes the PNG the script names (the variable out, which
 * `gnuplot -e "out='x.png'"` sets; else the script's path with .png).
 * The same events as the JSON (trace.h), so the picture and the trace
 * never disagree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "profile/trace.h"

/* The row of each event's lane: lanes in sorted order, counted. */
static size_t
rows_of(const struct trace *t, size_t *row)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (i && (t->e[i].pid != t->e[i - 1].pid || t->e[i].tid != t->e[i - 1].tid))
			n++;
		row[i] = n;
	}
	return t->n ? n + 1 : 0;
}

static void
put_label(FILE *f, struct rig_profile *p, const struct trace_event *e, size_t row,
	  bool first)
{
	fprintf(f, "%s\"", first ? "" : ", ");
	if (e->pid == TRACE_HOST_PID) {
		fprintf(f, "host %u", e->tid);
	} else {
		const struct rig_device *d = p->dev[e->pid - TRACE_DEVICE_PID]->d;
		char lane[64];

		trace_lane_name(d, e->tid, lane, sizeof(lane));
		fprintf(f, "%s %s", d->name, lane);
	}
	fprintf(f, "\" %zu", row);
}

static double
us(const struct trace *t, uint64_t ns)
{
	return (double)(ns - t->origin) / 1000.0;
}

/* The row of the 's' event of flow id. */
static bool
flow_start(const struct trace *t, const size_t *row, uint64_t id, size_t *at)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].ph == 's' && t->e[i].id == id) {
			*at = i;
			return row != NULL;
		}
	return false;
}

static void
put_shapes(FILE *f, const struct trace *t, const size_t *row)
{
	size_t stack[128], depth = 0, obj = 1;
	uint64_t last = t->origin, first = UINT64_MAX;
	double from, to;

	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->e[i];
		size_t s;

		if (e->ts + e->dur > last)
			last = e->ts + e->dur;
		if (e->ph == 'X' && e->ts < first)
			first = e->ts;
		if (e->ph == 'X' && !e->is_piece)
			fprintf(f, "set object %zu rect from %.3f,%zu.0-0.35 to %.3f,%zu.0+0.35 fc rgb \"#4477aa\" fs solid 0.8 border rgb \"#223355\"\n",
				obj++, us(t, e->ts), row[i], us(t, e->ts + (e->dur ? e->dur : 1)), row[i]);
		else if (e->ph == 'X')	/* a piece: narrower, over its value's box */
			fprintf(f, "set object %zu rect from %.3f,%zu.0-0.2 to %.3f,%zu.0+0.2 fc rgb \"%s\" fs solid 0.9 border rgb \"#225566\" front\n",
				obj++, us(t, e->ts), row[i], us(t, e->ts + (e->dur ? e->dur : 1)), row[i],
				e->piece.worker >= 0 ? "#44aa99" : "#88ccee");
		else if (e->ph == 'B' && depth < 128)
			stack[depth++] = i;
		else if (e->ph == 'E' && depth) {
			const struct trace_event *b = &t->e[stack[--depth]];
			bool wait = b->span_wait;

			fprintf(f, "set object %zu rect from %.3f,%zu.0-%.2f to %.3f,%zu.0+%.2f fc rgb \"%s\" fs solid 0.5 border rgb \"#555555\"\n",
				obj++, us(t, b->ts), row[i], 0.4 - 0.05 * (double)depth,
				us(t, e->ts > b->ts ? e->ts : b->ts + 1), row[i],
				0.4 - 0.05 * (double)depth, wait ? "#cc6677" : "#ddcc77");
		} else if (e->ph == 'f' && flow_start(t, row, e->id, &s)) {
			fprintf(f, "set arrow from %.3f,%zu to %.3f,%zu head filled lc rgb \"#aa3377\" lw 1.5\n",
				us(t, t->e[s].ts), row[s], us(t, e->ts), row[i]);
		}
	}
	/* From the devices' first work, not the profile's start: opening
	 * devices takes milliseconds that would squeeze microseconds of work
	 * into a sliver. A host span begun earlier is cut at the left edge. */
	to = us(t, last);
	from = first == UINT64_MAX || first > last ? 0 : us(t, first);
	from -= (to - from) * 0.02;
	if (from < 0)
		from = 0;
	fprintf(f, "set xrange [%.3f:%.3f]\n", from, to + (to - from) * 0.02 + 1);
}

int
rig_profile_write_plot(struct rig_profile *p, const char *path)
{
	struct trace t;
	size_t *row, rows;
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
	if ((ret = trace_gather(&t, p)) < 0 ||
	    !(row = malloc((t.n ? t.n : 1) * sizeof(*row)))) {
		if (ret == 0)
			free(t.e);
		fclose(f);
		remove(path);
		return rig_fail(RIG_ENOMEM, "no memory for the picture's events");
	}
	rows = rows_of(&t, row);
	fprintf(f, "# A rig profile's timeline: gnuplot -e \"out='x.png'\" %s\n", path);
	fprintf(f, "if (!exists(\"out\")) out = \"%s.png\"\n", path);
	fprintf(f, "set terminal pngcairo size 1600,%zu font \",10\"\nset output out\n",
		200 + 40 * rows);
	fputs("set xlabel \"microseconds\"\nset grid xtics\nunset key\n", f);
	fprintf(f, "set yrange [-0.8:%zu.8]\nset ytics (", rows ? rows - 1 : 0);
	for (size_t i = 0; i < t.n; i++)
		if (!i || row[i] != row[i - 1])
			put_label(f, p, &t.e[i], row[i], i == 0);
	fputs(t.n ? ")\n" : "\"nothing timed\" 0)\n", f);
	put_shapes(f, &t, row);
	fputs("plot NaN notitle\n", f);
	free(row);
	free(t.e);
	if (ferror(f) | (fclose(f) != 0)) {
		remove(path);
		return rig_fail(RIG_EINVAL, "%s: a write failed", path);
	}
	return 0;
}
