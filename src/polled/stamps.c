/* SPDX-License-Identifier: MIT */
/*
 * polled/stamps.c: the polled device's side of profiles (rig_edge.h:
 * submit's pair of times, settle, measures). The worker stamps a timed
 * value's start and end into its slot, as a GPU's work stamps its own
 * memory, and settle converts the stamps to the host clock. The stamps are
 * the config's fake ticks where it has a stamp function (the conversion
 * tests check exactly, since they choose the ticks), else the CPU's time
 * stamp counter: a read of it costs a few nanoseconds where a read of the
 * host clock costs 60-90 here (a VM), and the worker would pay two per
 * value. The counter converts by a correlation of it with rig_now_ns():
 * two pairs of reads taken at make, the later one taken again by each
 * settle (one read of each clock); between them the counter runs at a
 * constant rate (x86-64's invariant TSC; elsewhere the ticks are
 * rig_now_ns() itself and the conversion is the identity).
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

/* The device's own clock. */
static inline uint64_t
device_ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#else
	return rig_now_ns();
#endif
}

/* The later pair of the correlation: a read of each clock, now; and the
 * rate between the pairs, ns per tick in 32.32 fixed point, so that a
 * conversion is a multiply (a submit converts the value whose slot it
 * takes). */
static void
correlate(struct pdev *d)
{
	uint64_t ticks;

	d->corr_tick[1] = device_ticks();
	d->corr_ns[1] = rig_now_ns();
	ticks = d->corr_tick[1] - d->corr_tick[0];
	d->corr_rate = ticks ? (uint64_t)(((unsigned __int128)(d->corr_ns[1] - d->corr_ns[0]) << 32) /
					  ticks) : 0;
}

static uint64_t
to_host(const struct pdev *d, uint64_t tick)
{
	const struct rig_polled_config *c = &d->p->c;

	if (c->stamp)
		return c->stamp_origin_ns + tick * c->stamp_ns_per_tick;
	/* Linear from the first pair (and beyond the second, at its rate). */
	if (tick >= d->corr_tick[0])
		return d->corr_ns[0] + (uint64_t)(((unsigned __int128)(tick - d->corr_tick[0]) *
						    d->corr_rate) >> 32);
	return d->corr_ns[0] - (uint64_t)(((unsigned __int128)(d->corr_tick[0] - tick) *
					   d->corr_rate) >> 32);
}

/* Convert u, whose work completed, if a profile timed it. */
static void
convert_one(struct pdev *d, uint64_t u)
{
	struct pslot *s = &d->slot[u % POLLED_SLOTS];
	uint64_t start, end;

	if (s->timed != u || !s->times)
		return;
	start = to_host(d, s->tick[0]);
	end = to_host(d, s->tick[1]);
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

	s->tick[0] = c->stamp ? c->stamp(c->stamp_arg, value, 0) : device_ticks();
}

void
polled_stamps_end(struct pdev *d, struct pslot *s, uint64_t value)
{
	const struct rig_polled_config *c = &d->p->c;

	s->tick[1] = c->stamp ? c->stamp(c->stamp_arg, value, 1) : device_ticks();
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
	/* A fresh pair only for stamps newer than the last: a pass over many
	 * settled values reads the clocks once. */
	if (d->conv_next <= value && !d->p->c.stamp &&
	    d->slot[value % POLLED_SLOTS].timed == value &&
	    d->slot[value % POLLED_SLOTS].tick[1] > d->corr_tick[1])
		correlate(d);
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
	uint64_t until;

	d->table = polled_driver;
	d->table.settle = polled_settle;
	d->table.measures = d->p->c.counters && d->p->c.ncounters ? polled_measures : NULL;
	d->drv = &d->table;
	d->conv_next = d->base + 1;
	/* Two pairs 20 us apart: a rate before the first settle. */
	d->corr_tick[0] = device_ticks();
	d->corr_ns[0] = rig_now_ns();
	until = d->corr_ns[0] + 20000;
	while (rig_now_ns() < until)
		;
	correlate(d);
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
