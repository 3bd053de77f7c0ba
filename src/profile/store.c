/* SPDX-License-Identifier: MIT */
/*
 * profile/store.c: taking a profile and reading it (rig.h, Profiles): the
 * devices a profile times, the driver's settle, measures and pieces,
 * called as rig_edge.h says, and a profile's end.
 *
 * Attach: base = issued + 1, then the pointer (seq_cst). A submit draws
 * its value, then reads the pointer (note.c): one drawn before base finds
 * no record; one drawn after may find the pointer or not (then its value
 * is not timed). Detach: the pointer cleared, then issued read (both
 * seq_cst): a submit that read the pointer set drew a value no greater,
 * and the stop waits until the word shows that value, after which no
 * driver writes a pair of the profile's unless settle asks it to.
 *
 * Settle runs under the device's driver lock (rig calls the five C
 * functions one at a time), for the records in value order: each read
 * settles every earlier record first (settle_next), so the calls come in
 * value order whoever reads. A lost device gets no settle or measures call
 * after the loss: its driver is about to stop, and a value it dropped has
 * no times. A driver's pieces (rig_edge.h) are taken at each value's
 * settle, into the profile's memory, and freed in the driver at once; a
 * device that ends while a profile times it settles what it reached first
 * (profile_device_ending), and a stop settles every value, so a trace
 * written after the device ended still has them.
 *
 * One profile at a time in a process (profile_lock): spans and the
 * devices opened while an all-devices profile is taken find it there.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "profile/profile.h"

pthread_mutex_t profile_lock = PTHREAD_MUTEX_INITIALIZER;
struct rig_profile *profile_current;
uint64_t profile_generation;
_Atomic bool profile_taken;

static bool
lost(struct rig_device *d)
{
	return atomic_load_explicit(&d->tl.lost, memory_order_acquire) != NULL;
}

static size_t
row_words_of(const struct rig_device *d)
{
	size_t n = 3;

	for (size_t i = 0; i < d->facts.ncounters; i++)
		n += (size_t)d->facts.counters[i].values;
	return n;
}

static size_t
round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

/* Under profile_lock: a record array for d (not yet timing). */
static int
attach(struct rig_profile *p, struct rig_device *d)
{
	struct profile_dev *pd;

	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i]->d == d)
			return 0;
	if (p->ndev == p->capdev) {
		size_t cap = p->capdev ? 2 * p->capdev : 4;
		struct profile_dev **dev = realloc(p->dev, cap * sizeof(*dev));

		if (!dev)
			return RIG_ENOMEM;
		p->dev = dev;
		p->capdev = cap;
	}
	if (!(pd = calloc(1, sizeof(*pd))))
		return RIG_ENOMEM;
	*pd = (struct profile_dev){ .d = d, .slot = d->tl.slot, .n = p->max_values };
	pd->rec = aligned_alloc(64, round64(pd->n * sizeof(*pd->rec)));
	pd->times = aligned_alloc(64, round64(pd->n * sizeof(*pd->times)));
	pd->arrows = calloc(pd->n * PROFILE_ARROWS, sizeof(*pd->arrows));
	if (!pd->rec || !pd->times || !pd->arrows) {
		free(pd->rec);
		free(pd->times);
		free(pd->arrows);
		free(pd);
		return RIG_ENOMEM;
	}
	/* Touched now, not page by page by the submits and the driver: a
	 * first touch costs a fault per page. The arrows stay untouched
	 * (calloc's pages) until a submit waits for another device. */
	memset(pd->rec, 0, pd->n * sizeof(*pd->rec));
	memset(pd->times, 0, pd->n * sizeof(*pd->times));
	pd->measured = d->sub.drv->measures && d->facts.ncounters;
	pd->row_words = row_words_of(d);
	device_get(d);
	p->dev[p->ndev++] = pd;
	return 0;
}

/* Start timing: base, then the pointer (the opening comment). */
static void
arm(struct profile_dev *pd)
{
	pd->base = atomic_load(&pd->d->tl.issued) + 1;
	atomic_store(&pd->d->sub.prof, pd);
}

static void
free_dev(struct profile_dev *pd)
{
	device_put(pd->d);
	free(pd->times);
	free(pd->arrows);
	free(pd->rec);
	free(pd->pieces);
	free(pd);
}

static void
free_profile(struct rig_profile *p)
{
	for (size_t i = 0; i < p->ndev; i++)
		free_dev(p->dev[i]);
	for (size_t i = 0; i < p->nspan; i++)
		free((char *)p->span[i].name);
	free(p->dev);
	free(p->span);
	free(p);
}

int
rig_profile_start(struct rig_device *const *devices, size_t n, size_t max_values,
		  struct rig_profile **out)
{
	/* RIG_PROFILE's profile, before the program's own: that one is
	 * then refused (one at a time), also before the first open. */
	profile_env_once();
	return profile_start(devices, n, max_values, out);
}

int
profile_start(struct rig_device *const *devices, size_t n, size_t max_values,
	      struct rig_profile **out)
{
	const char *const func = "rig_profile_start";
	struct rig_profile *p;
	int ret = 0;

	if (!out)
		return rig_fail_at(func, RIG_EINVAL, "out is NULL");
#ifdef RIG_NO_PROFILES
	return rig_fail_at(func, RIG_EINVAL,
			   "profiles are compiled out of this build (meson option profiles=false)");
#endif
	if ((ptrdiff_t)n < 0 || (ptrdiff_t)max_values < 0)
		return rig_fail_at(func, RIG_EINVAL, "%td %s is negative",
				(ptrdiff_t)((ptrdiff_t)n < 0 ? n : max_values),
				(ptrdiff_t)n < 0 ? "devices" : "values");
	if (n && !devices)
		return rig_fail_at(func, RIG_EINVAL, "the devices array is NULL");
	if (!n && devices)
		return rig_fail_at(func, RIG_EINVAL, "a devices array with 0 devices (NULL and 0 mean every device)");
	if (!max_values)
		return rig_fail_at(func, RIG_EINVAL, "a bound of 0 values keeps nothing");
	if (max_values > (1u << 24))
		return rig_fail_at(func, RIG_EINVAL, "a bound of %zu values exceeds 16777216 per device",
				max_values);
	for (size_t i = 0; i < n; i++) {
		if (!devices[i])
			return rig_fail_at(func, RIG_EINVAL, "device %zu is NULL", i);
		if (lost(devices[i]))
			return rig_fail_at(func, RIG_ELOST, "device %zu, %s, is lost: %s", i,
					devices[i]->name, atomic_load(&devices[i]->tl.lost));
	}
	if ((ret = callback_refuse(func)) < 0)
		return ret;
	if (!(p = calloc(1, sizeof(*p))))
		return rig_fail_at(func, RIG_ENOMEM, "no memory for the profile");
	p->max_values = max_values;
	p->all = !n;
	pthread_mutex_lock(&profile_lock);
	if (profile_current) {
		pthread_mutex_unlock(&profile_lock);
		free(p);
		return rig_fail_at(func, RIG_EAGAIN, "a profile is taken already (one at a time; stop it first)");
	}
	if (p->all) {
		struct rig_device *open[256];
		size_t k = devices_open_list(open, 256);

		for (size_t i = 0; i < k; i++) {
			if (ret == 0)
				ret = attach(p, open[i]);
			device_put(open[i]);
		}
	}
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = attach(p, devices[i]);
	if (ret < 0) {
		pthread_mutex_unlock(&profile_lock);
		free_profile(p);
		return rig_fail_at(func, ret, "no memory for the records of %zu values", max_values);
	}
	p->start_ns = rig_now_ns();
	for (size_t i = 0; i < p->ndev; i++)
		arm(p->dev[i]);
	profile_current = p;
	profile_generation++;
	atomic_store(&profile_taken, true);
	pthread_mutex_unlock(&profile_lock);
	*out = p;
	return 0;
}

void
profile_device_opened(struct rig_device *d)
{
	profile_env_once();
	pthread_mutex_lock(&profile_lock);
	if (profile_current && profile_current->all &&
	    !atomic_load(&d->sub.prof) && attach(profile_current, d) == 0)
		for (size_t i = 0; i < profile_current->ndev; i++)
			if (profile_current->dev[i]->d == d)
				arm(profile_current->dev[i]);
	pthread_mutex_unlock(&profile_lock);
}

/* Under d's driver lock, once the word shows value: its pieces into
 * pd->pieces, then pieces(value, NULL) (rig_edge.h). Without memory for
 * them the value keeps its pair only. */
static int
take_pieces(struct profile_dev *pd, uint64_t value)
{
	struct submitter *s = &pd->d->sub;
	const char *failure = "no reason given";
	struct rig_piece some[64], *got = some;
	size_t n = 0, cap = 64;
	int ret;

	while ((ret = s->drv->pieces(s->edge, value, got, cap, &n, &failure)) == RIG_OK &&
	       n > cap) {
		if (got != some)
			free(got);
		if (!(got = malloc(n * sizeof(*got)))) {
			got = some;
			n = 0;
			break;
		}
		cap = n;
	}
	if (ret == RIG_OK && pd->npieces + n > pd->cappieces) {
		size_t want = pd->cappieces ? 2 * pd->cappieces : 256;
		struct profile_piece *grown;

		while (want < pd->npieces + n)
			want *= 2;
		if ((grown = realloc(pd->pieces, want * sizeof(*grown)))) {
			pd->pieces = grown;
			pd->cappieces = want;
		} else {
			n = 0;
		}
	}
	for (size_t k = 0; ret == RIG_OK && k < n; k++)
		pd->pieces[pd->npieces++] = (struct profile_piece){ .value = value, .piece = got[k] };
	if (got != some)
		free(got);
	if (ret == RIG_OK)
		ret = s->drv->pieces(s->edge, value, NULL, 0, &n, &failure);
	if (ret != RIG_OK) {
		submit_lose(s, "pieces failed: %s", failure);
		return RIG_ELOST;
	}
	return 0;
}

/* Under d's driver lock: settle pd's records up to value v, in order. */
static int
settle_locked(struct profile_dev *pd, uint64_t v)
{
	struct submitter *s = &pd->d->sub;

	for (; pd->settle_next < pd->n && pd->base + pd->settle_next <= v; pd->settle_next++) {
		struct profile_rec *rec = &pd->rec[pd->settle_next];
		uint64_t value = atomic_load_explicit(&rec->value, memory_order_acquire);
		const char *failure = "no reason given";

		if (!value)
			continue;	/* drawn untimed */
		if (lost(pd->d))
			return RIG_ELOST;
		/* Without settle the driver wrote the pair itself. */
		if (s->drv->settle && s->drv->settle(s->edge, value, &failure) != RIG_OK) {
			submit_lose(s, "settle failed: %s", failure);
			return RIG_ELOST;
		}
		if (s->drv->pieces && take_pieces(pd, value) < 0)
			return RIG_ELOST;
	}
	return 0;
}

void
profile_device_ending(struct rig_device *d)
{
	pthread_mutex_lock(&profile_lock);
	if (profile_current)
		for (size_t i = 0; i < profile_current->ndev; i++)
			if (profile_current->dev[i]->d == d)
				profile_settle_upto(profile_current->dev[i], timeline_word(&d->tl));
	pthread_mutex_unlock(&profile_lock);
}

int
profile_settle_upto(struct profile_dev *pd, uint64_t v)
{
	struct submitter *s = &pd->d->sub;
	int ret;

	slock_lock(&s->driver_lock);
	ret = lost(pd->d) ? RIG_ELOST : settle_locked(pd, v);
	slock_unlock(&s->driver_lock);
	return ret;
}

static struct profile_dev *
dev_of(struct rig_profile *p, const struct rig_device *d)
{
	for (size_t i = 0; i < p->ndev; i++)
		if (p->dev[i]->d == d)
			return p->dev[i];
	return NULL;
}

/* The record of pt, reached and settled; or a refusal naming func. */
static int
settled_rec(const char *func, struct rig_profile *p, struct rig_point pt,
	    struct profile_dev **pdp, struct profile_rec **out)
{
	struct profile_dev *pd;
	struct profile_rec *rec;
	int ret;

	if (!p)
		return rig_fail_at(func, RIG_EINVAL, "the profile is NULL");
	if (!pt.device)
		return rig_fail_at(func, RIG_EINVAL, "the point names no device");
	pthread_mutex_lock(&profile_lock);
	pd = dev_of(p, pt.device);
	pthread_mutex_unlock(&profile_lock);
	if (!pd)
		return rig_fail_at(func, RIG_EINVAL, "the profile does not time %s",
				   pt.device->name);
	rec = profile_rec_of(pd, pt.value);
	if (!rec || !timeline_reached(&pd->d->tl, pt.value) ||
	    atomic_load_explicit(&rec->value, memory_order_acquire) != pt.value) {
		if (timeline_reached(&pd->d->tl, pt.value) || !rec)
			return rig_fail_at(func, RIG_EINVAL,
					   "the profile timed no value %llu of %s (it times from %llu, %llu values)",
					   (unsigned long long)pt.value, pd->d->name,
					   (unsigned long long)pd->base, (unsigned long long)pd->n);
		if (lost(pd->d))
			return rig_fail_at(func, RIG_ELOST, "value %llu of %s was dropped: %s is lost: %s",
					   (unsigned long long)pt.value, pd->d->name, pd->d->name,
					   atomic_load(&pd->d->tl.lost));
		return rig_fail_at(func, RIG_EAGAIN, "value %llu of %s is not reached yet",
				   (unsigned long long)pt.value, pd->d->name);
	}
	if ((ret = profile_settle_upto(pd, pt.value)) < 0 && !profile_times(pd, rec)->end_ns)
		return rig_fail_at(func, RIG_ELOST,
				   "value %llu of %s has no times: %s was lost before they were settled: %s",
				   (unsigned long long)pt.value, pd->d->name, pd->d->name,
				   atomic_load(&pd->d->tl.lost));
	*pdp = pd;
	*out = rec;
	return 0;
}

int
rig_profile_times(struct rig_profile *p, struct rig_point pt, uint64_t *start_ns,
		  uint64_t *end_ns)
{
	struct profile_dev *pd;
	struct profile_rec *rec;
	int ret;

	if (!start_ns || !end_ns)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !start_ns ? "start_ns" : "end_ns");
	if ((ret = settled_rec(__func__, p, pt, &pd, &rec)) < 0)
		return ret;
	*start_ns = profile_times(pd, rec)->start_ns;
	*end_ns = profile_times(pd, rec)->end_ns;
	return 0;
}

size_t
rig_profile_row_words(const struct rig_device *d)
{
	if (!d) {
		rig_fail(RIG_EINVAL, "the device is NULL");
		return 0;
	}
	return d->sub.drv->measures && d->facts.ncounters ? row_words_of(d) : 0;
}

int
rig_profile_measures(struct rig_profile *p, struct rig_point pt, uint64_t *out,
		     size_t nwords, size_t *rows)
{
	struct profile_dev *pd;
	struct profile_rec *rec;
	const char *failure = "no reason given";
	struct submitter *s;
	size_t need;
	int ret;

	if (!rows)
		return rig_fail(RIG_EINVAL, "rows is NULL");
	if ((ptrdiff_t)nwords < 0)
		return rig_fail(RIG_EINVAL, "%td words is negative", (ptrdiff_t)nwords);
	if ((ret = settled_rec(__func__, p, pt, &pd, &rec)) < 0)
		return ret;
	if (!pd->measured || !rec->nlaunch) {
		*rows = 0;
		return 0;	/* a device that measures nothing, or no launch */
	}
	need = rec->nlaunch * pd->row_words;
	if (!out || nwords < need)
		return rig_fail(RIG_EINVAL, "value %llu of %s has %u launches of %zu words each: %zu words, not %zu",
				(unsigned long long)pt.value, pd->d->name, rec->nlaunch,
				pd->row_words, need, out ? nwords : 0);
	memset(out, 0, need * sizeof(*out));
	s = &pd->d->sub;
	slock_lock(&s->driver_lock);
	ret = lost(pd->d) ? RIG_ELOST :
	      s->drv->measures(s->edge, pt.value, out, &failure) == RIG_OK ? 0 : RIG_EINVAL;
	if (ret == RIG_EINVAL) {
		submit_lose(s, "measures failed: %s", failure);
		ret = RIG_ELOST;
	}
	slock_unlock(&s->driver_lock);
	if (ret < 0) {
		memset(out, 0, need * sizeof(*out));
		return rig_fail(ret, "%s is lost: %s", pd->d->name, atomic_load(&pd->d->tl.lost));
	}
	*rows = rec->nlaunch;
	return 0;
}

/* Detach pd and wait for the values it may have timed (opening comment). */
static void
detach(struct profile_dev *pd)
{
	atomic_store(&pd->d->sub.prof, NULL);
	pd->last = atomic_load(&pd->d->tl.issued);
	if (pd->last >= pd->base)
		timeline_wait_settled(&pd->d->tl, pd->last, UINT64_MAX);
	if (pd->last >= pd->base && !lost(pd->d))
		profile_settle_upto(pd, pd->last);
}

int
rig_profile_stop(struct rig_profile *p)
{
	int ret;

	if (!p)
		return rig_fail(RIG_EINVAL, "the profile is NULL");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	pthread_mutex_lock(&profile_lock);
	if (p->stopped) {
		pthread_mutex_unlock(&profile_lock);
		return rig_fail(RIG_EINVAL, "the profile is stopped already");
	}
	p->stopped = true;
	p->stop_ns = rig_now_ns();
	profile_current = NULL;
	atomic_store(&profile_taken, false);
	pthread_mutex_unlock(&profile_lock);
	/* No new device joins now; the list is ours to read. */
	for (size_t i = 0; i < p->ndev; i++)
		detach(p->dev[i]);
	return 0;
}

/* The end of every value's measures: measures(v, NULL) once, after the
 * last read (rig_edge.h), for each record with a launch. */
static void
end_measures(struct profile_dev *pd)
{
	struct submitter *s = &pd->d->sub;

	if (!pd->measured)
		return;
	slock_lock(&s->driver_lock);
	for (uint64_t i = 0; i < pd->n && !lost(pd->d); i++) {
		struct profile_rec *rec = &pd->rec[i];
		const char *failure = "no reason given";
		uint64_t value = atomic_load(&rec->value);

		if (!value || !rec->nlaunch)
			continue;
		if (s->drv->measures(s->edge, value, NULL, &failure) != RIG_OK)
			submit_lose(s, "measures failed: %s", failure);
	}
	slock_unlock(&s->driver_lock);
}

void
rig_profile_release(struct rig_profile *p)
{
	if (!p)
		return;
	if (!p->stopped && rig_profile_stop(p) < 0)
		return;	/* from a callback: refused, rig_why() says so */
	for (size_t i = 0; i < p->ndev; i++) {
		end_measures(p->dev[i]);
	}
	free_profile(p);
}
