/* SPDX-License-Identifier: MIT */
/*
 * polled/stamps.c: the polled device's side of profiles (rig_edge.h:
 * submit's pair of times, settle, measures). Without a stamp function in
 * the config, the worker writes a timed value's start and end on the host
 * clock before it stores the word, and the table has no settle. With one,
 * the worker writes fake device ticks into the value's slot, as a GPU's
 * work stamps its own memory, and settle converts them to the host clock:
 * the conversion tests check exactly, since they choose the ticks.
 *
 * Conversion runs in value order (conv_next counts up through every value
 * the device ran), in settle or in a later submit once the slot is needed
 * again, and clamps: a start never before the end converted before it
 * (device order), an end never before its start. Everything here but the
 * worker's two calls runs in rig's C functions, one at a time: the kept
 * list and the cursors need no lock. The worker writes a slot's ticks
 * before its release store of the word; rig reads the word (acquire)
 * before it calls settle, so the ticks are visible to the conversion.
 */
#include <errno.h>
#include <stdlib.h>

#include "polled/polled.h"

static uint64_t
to_host(const struct rig_polled_config *c, uint64_t tick)
{
	return c->stamp_origin_ns + tick * c->stamp_ns_per_tick;
}

/* Convert u, whose work completed, if a profile timed it. */
static void
convert_one(struct pdev *d, uint64_t u)
{
	struct pslot *s = &d->slot[u % POLLED_SLOTS];
	uint64_t start, end;

	if (s->timed != u || !s->times)
		return;
	start = to_host(&d->p->c, s->tick[0]);
	end = to_host(&d->p->c, s->tick[1]);
	if (start < d->last_end)
		start = d->last_end;
	if (end < start)
		end = start;
	*s->times = (struct rig_times){ start, end };
	d->last_end = end;
	s->times = NULL;	/* converted: a later call leaves it */
}

/* Convert every value up to v, in order; each has completed. */
static void
convert_upto(struct pdev *d, uint64_t v)
{
	if (!d->p->c.stamp)
		return;
	for (; d->conv_next <= v; d->conv_next++)
		convert_one(d, d->conv_next);
}

bool
polled_stamps_note(struct pdev *d, uint64_t value, const struct rig_part *parts,
		   size_t n, struct rig_times *times)
{
	struct pslot *s = &d->slot[value % POLLED_SLOTS];
	uint32_t nlaunch = 0;
	struct pkept *k;

	/* The slot's last value completed (room saw it let go): convert
	 * it, and those before it, before the slot forgets its ticks. */
	if (value > POLLED_SLOTS)
		convert_upto(d, value - POLLED_SLOTS);
	s->timed = times ? value : 0;
	s->times = times;
	if (!times || !d->p->c.counters)
		return true;
	for (size_t i = 0; i < n; i++)
		nlaunch += parts[i].kind == RIG_LAUNCH_PART;
	if (!nlaunch)
		return true;	/* rig names no value without a launch */
	if (!(k = malloc(sizeof(*k) + nlaunch * sizeof(k->part[0]))))
		return false;
	*k = (struct pkept){ d->kept, value, times, 0 };
	for (size_t i = 0; i < n; i++)
		if (parts[i].kind == RIG_LAUNCH_PART)
			k->part[k->nlaunch++] = (uint32_t)i;
	d->kept = k;
	return true;
}

void
polled_stamps_start(struct pdev *d, struct pslot *s, uint64_t value)
{
	const struct rig_polled_config *c = &d->p->c;

	if (c->stamp)
		s->tick[0] = c->stamp(c->stamp_arg, value, 0);
	else
		s->times->start_ns = rig_now_ns();
}

void
polled_stamps_end(struct pdev *d, struct pslot *s, uint64_t value)
{
	const struct rig_polled_config *c = &d->p->c;

	if (c->stamp)
		s->tick[1] = c->stamp(c->stamp_arg, value, 1);
	else
		s->times->end_ns = rig_now_ns();
}

static void
log_settle(struct rig_polled *p, uint64_t v)
{
	uint64_t n = atomic_load_explicit(&p->settles, memory_order_relaxed);

	atomic_store_explicit(&p->settle_log[n % 4096], v, memory_order_relaxed);
	atomic_store_explicit(&p->settles, n + 1, memory_order_release);
}

static int
polled_settle(void *edge, uint64_t value, const char **failure)
{
	struct pdev *d = edge;

	log_settle(d->p, value);
	if (value > atomic_load_explicit(d->word, memory_order_acquire)) {
		snprintf(d->failure, sizeof(d->failure),
			 "settle of value %llu before the word shows it",
			 (unsigned long long)value);
		*failure = d->failure;
		return RIG_FAILED;
	}
	convert_upto(d, value);
	return RIG_OK;
}

static int
polled_measures(void *edge, uint64_t value, uint64_t *out, const char **failure)
{
	struct pdev *d = edge;
	const struct rig_polled_config *c = &d->p->c;
	struct pkept **at = &d->kept, *k;

	while (*at && (*at)->value != value)
		at = &(*at)->next;
	if (!(k = *at)) {
		snprintf(d->failure, sizeof(d->failure),
			 "measures of value %llu after its end, or of no launch",
			 (unsigned long long)value);
		*failure = d->failure;
		return RIG_FAILED;
	}
	if (!out) {
		*at = k->next;
		free(k);
		atomic_fetch_add(&d->p->freed, 1);
		return RIG_OK;
	}
	convert_upto(d, value);
	for (uint32_t l = 0; l < k->nlaunch; l++) {
		*out++ = 1;
		*out++ = k->times->start_ns;
		*out++ = k->times->end_ns;
		for (size_t ci = 0; ci < c->ncounters; ci++)
			for (int j = 0; j < c->counters[ci].values; j++)
				*out++ = value * 1000 + k->part[l] * 10 + (uint64_t)j;
	}
	return RIG_OK;
}

void
polled_stamps_table(struct pdev *d)
{
	d->table = polled_driver;
	d->table.settle = d->p->c.stamp ? polled_settle : NULL;
	d->table.measures = d->p->c.counters && d->p->c.ncounters ? polled_measures : NULL;
	d->drv = &d->table;
	d->conv_next = d->base + 1;
}

void
polled_stamps_free(struct pdev *d)
{
	while (d->kept) {
		struct pkept *k = d->kept;

		d->kept = k->next;
		free(k);
	}
}

size_t
rig_polled_settles(struct rig_polled *p, uint64_t *values, size_t cap)
{
	uint64_t n;

	if (!p || (cap && !values)) {
		rig_why_set(__func__, -EINVAL, "the %s is NULL", !p ? "polled driver" : "values");
		return 0;
	}
	n = atomic_load_explicit(&p->settles, memory_order_acquire);
	for (size_t i = 0; i < cap && i < n && i < 4096; i++)
		values[i] = atomic_load_explicit(&p->settle_log[((n > 4096 ? n - 4096 : 0) + i) % 4096],
						 memory_order_relaxed);
	return (size_t)n;
}

uint64_t
rig_polled_measures_freed(struct rig_polled *p)
{
	if (!p) {
		rig_why_set(__func__, -EINVAL, "the polled driver is NULL");
		return 0;
	}
	return atomic_load(&p->freed);
}
