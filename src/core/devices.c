/* SPDX-License-Identifier: MIT */
/*
 * core/devices.c: opening, closing and releasing devices, and what a
 * program reads of them.
 *
 * The table of open devices by name is a list read under RCU. Readers: an
 * open of a name that is open (rig_open, rig_host_device, rig_memory_device
 * and rig_open_io of it), from any thread at any time: one read-side
 * section, a string compare per open device and two atomic adds, no lock.
 * So finding an open device never waits behind the mutex, which is held
 * for as long as a driver's make (an AMD GPU's boot: seconds) or a
 * device's end (its stop waits for the work in flight) takes.
 *
 * Writers hold devices_lock: make (a device goes in at the head, whole:
 * the release store that links it pairs with the readers' acquire loads),
 * a device's end (it comes out first, and a grace period passes before
 * the end returns, so no reader still holds it when its last reference
 * frees it), fork and exit. A reader that finds nothing, or finds the
 * device lost, takes the mutex and looks again: two threads opening one
 * name that is not open meet there, and one makes it. A reader takes an
 * open only of a device that has one: the last release decides under the
 * mutex whether the device ends, so an open it returns is never ended by
 * a release that raced with it.
 *
 *              lookup (RCU)  make/end (devices_lock)   (X: needs exclusion)
 *   lookup         -               -
 *   make/end       -               X
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "util/log.h"
#include "util/rcu.h"

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
/* The head; it and each device's next are stored with p_rcu_assign_pointer
 * under devices_lock and loaded with p_rcu_dereference. */
static struct rig_device *devices;

static struct rig_device *
of_timeline(struct timeline *tl)
{
	return (struct rig_device *)((char *)tl - offsetof(struct rig_device, tl));
}

void
device_get(struct rig_device *d)
{
	atomic_fetch_add(&d->refs, 1);
}

static void
device_free(struct rig_device *d)
{
	if (d->sub.tl)
		submit_free(&d->sub);
	timeline_forget(&d->tl);
	pthread_mutex_destroy(&d->mem_lock);
	free(d->arch);
	free(d->name);
	free(d);
}

void
device_put(struct rig_device *d)
{
	/* A forked child keeps what it inherited: it stops nothing. */
	if (atomic_fetch_sub(&d->refs, 1) == 1 && !process_forked())
		device_free(d);
}

/* The timeline's hold hook: its device lives while someone holds it. */
static void
hold(struct timeline *tl, bool take)
{
	struct rig_device *d = of_timeline(tl);

	if (take)
		device_get(d);
	else
		device_put(d);
}

int
device_check_live(const char *func, struct rig_device *d)
{
	char chain[512];

	if (!atomic_load_explicit(&d->tl.lost, memory_order_acquire))
		return 0;
	loss_chain_text(d->tl.loss, chain, sizeof(chain));
	return rig_fail_at(func, RIG_ELOST, "%s is lost: %s", d->name, chain);
}

/* The poller's call when the driver's events_fd is readable. */
static void
on_events(struct timeline *tl)
{
	struct rig_device *d = of_timeline(tl);
	struct rig_fault_site site = { 0, -1, -1 };
	const char *fault = "no reason given";
	char why[320];
	int r;

	if (!submit_call_enter(&d->sub))
		return;
	r = d->ops->events(d->handle, &site, &fault);
	submit_call_leave(&d->sub);
	if (r == RIG_OK) {
		timeline_wake(tl);
		return;
	}
	snprintf(why, sizeof(why), "fault: %s", fault);
	timeline_lose_at(tl, why, &site, NULL, NULL);
}

/* The submission whose work value is, for a loss's record. */
static const void *
owner_of(struct timeline *tl, uint64_t value)
{
	return submit_owner_of(&of_timeline(tl)->sub, value);
}

/* The poller's call when the word moved and returns are pending. */
static void
on_reap(struct timeline *tl)
{
	alloc_reclaim(of_timeline(tl));
}

/* Under devices_lock: unlink d from the table. Readers walking it may still
 * hold d (and reach on through d->next, left as it is) until the next
 * grace period. */
static void
table_remove(struct rig_device *d)
{
	struct rig_device **pp;

	for (pp = &devices; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			p_rcu_assign_pointer(*pp, d->next);
			return;
		}
}

/* Under devices_lock: stop the driver and return everything (docs/drivers.md,
 * the life of a device, step 4). In a forked child nothing is stopped:
 * the threads and the hardware are the parent's. */
static void
device_end(struct rig_device *d, const char *reason)
{
	if (d->ended || process_forked())
		return;
	timeline_lose(&d->tl, reason);
	table_remove(d);	/* its name opens anew once this returns */
	/* The device's thread stops the driver and shows every issued value
	 * in the word; then no driver call of the poller's is left. */
	submit_stop(&d->sub);
	poller_unregister(&d->tl);
	/* The word shows every value now: no read of it calls the driver's
	 * own word again (timeline_word reads the hook in a read-side
	 * section), and the grace period below lets the last caller leave
	 * before release frees the handle it reads. */
	p_rcu_assign_pointer(d->tl.signaled, NULL);
	keeps_end(d);
	alloc_end_all(d, atomic_load(&d->tl.lost));
	/* Every reader that found d in the table, or was calling its word's
	 * hook, has left: whoever drops d's last reference may free it.
	 * Pairs with p_rcu_read_unlock() in find_open() and timeline_word(). */
	p_synchronize_rcu();
	if (d->ops->release)
		d->ops->release(d->handle);
	timeline_slot_give(&d->tl);
	d->ended = true;
}

/* The device named name in the table, or NULL. Under devices_lock, or in
 * a read-side section. */
static struct rig_device *
lookup(const char *name)
{
	struct rig_device *d;

	for (d = p_rcu_dereference(devices); d; d = p_rcu_dereference(d->next))
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

/* Add one to *n unless it is 0. */
static bool
add_unless_zero(_Atomic uint32_t *n)
{
	uint32_t v = atomic_load_explicit(n, memory_order_relaxed);

	do {
		if (!v)
			return false;
	} while (!atomic_compare_exchange_weak(n, &v, v + 1));
	return true;
}

/*
 * The open device named name, with an open taken; NULL where none is, or
 * the one found is lost (ending it, and the next make, need the lock), or
 * has no open left. No lock: a reader of the table. The reference comes
 * first, so d stays while the open is tried. A device of no opens is not
 * taken here: its last release is about to end it, and decides so under
 * devices_lock, where find_live() alone may take it back.
 */
static struct rig_device *
find_open(const char *name)
{
	struct rig_device *d;
	bool opened = false;

	p_rcu_read_lock();
	d = lookup(name);
	if (d && (atomic_load_explicit(&d->tl.lost, memory_order_acquire) ||
		  !add_unless_zero(&d->refs)))
		d = NULL;
	if (d)
		opened = add_unless_zero(&d->opens);
	p_rcu_read_unlock();
	if (d && !opened) {
		device_put(d);
		d = NULL;
	}
	return d;
}

/* Under devices_lock: the same, ending a lost one (its name opens anew). */
static struct rig_device *
find_live(const char *name)
{
	struct rig_device *d = lookup(name);
	const char *lost = d ? atomic_load(&d->tl.lost) : NULL;

	if (lost) {
		device_end(d, lost);
		return NULL;
	}
	/* A device whose last reference went is on its way out. */
	if (!d || !add_unless_zero(&d->refs))
		return NULL;
	atomic_fetch_add(&d->opens, 1);
	return d;
}

static int
read_facts(struct rig_device *d)
{
	const char *fault = "no reason given";
	int ret;

	if (d->ops->facts(d->handle, &d->facts, &fault) != RIG_OK)
		return rig_cause(-EIO, "%s: facts faulted: %s", d->name, fault);
	ret = facts_check(&d->facts);
	if (ret < 0)
		return rig_fail_keep(d->name, ret);
	if (d->facts.events_fd.some && !d->ops->events)
		return rig_cause(RIG_EINVAL, "%s: facts give events_fd %lld but ops has no events",
				 d->name, (long long)d->facts.events_fd.value);
	d->arch = strdup(d->facts.arch);
	if (!d->arch)
		return rig_cause(RIG_ENOMEM, "%s: no memory for the arch", d->name);
	return 0;
}

/* Make the device under devices_lock; on failure nothing is left. */
static int
make_device(const struct rig_opener *o, bool inline_run, struct rig_device **out)
{
	char why[512] = "no reason given";
	struct rig_device *d;
	int ret;

	process_watch();
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(o->name))) {
		free(d);
		return rig_cause(RIG_ENOMEM, "no memory for device %s", o->name);
	}
	d->ops = o->ops;
	pthread_mutex_init(&d->mem_lock, NULL);
	limbo_init(&d->rc.memory);
	limbo_init(&d->rc.keeps);
	if (timeline_slot_take(&d->tl) < 0) {
		ret = rig_cause(RIG_EAGAIN, "%s: all %d timeline words are taken",
			       o->name, RIG_WORD_SLOTS);
		goto err_free;
	}
	callback_enter();
	ret = o->make(o, d->tl.word, &d->handle, why, sizeof(why));
	callback_leave();
	if (ret < 0) {
		/* A driver's message may name the device already (docs/amd.md). */
		size_t n = strlen(o->name);
		bool named = !strncmp(why, o->name, n) && why[n] == ':';

		ret = named ? rig_cause(ret, "%s", why) : rig_cause(ret, "%s: %s", o->name, why);
		goto err_slot;
	}
	timeline_start(&d->tl);
	if ((ret = read_facts(d)) < 0)
		goto err_stop;
	d->sub.inline_run = inline_run;
	d->sub.may_block = d->facts.may_block;
	d->sub.drv = *(const struct rig_driver *const *)d->facts.edge;
	d->sub.edge = d->facts.edge;
	d->sub.ops = d->ops;
	d->sub.handle = d->handle;
	d->sub.reclaim = alloc_reclaim_for_grow;
	d->budget = d->facts.budget;
	d->tl.completion = d->facts.completion;
	/* A driver with a word of its own (ops.signaled) is read through it
	 * by every wait and by the poller (timeline_word). */
	d->tl.signaled = d->ops->signaled;
	d->tl.signaled_arg = d->handle;
	/* A driver that lends its work to waiters (ops.assist): wait.c. */
	d->tl.assist = d->ops->assist;
	d->tl.assist_arg = d->handle;
	d->tl.name = d->name;
	d->tl.hold = hold;
	d->tl.owner = owner_of;
	d->tl.reap = on_reap;
	d->tl.events = on_events;
	d->tl.events_fd = d->facts.events_fd.some ? (int)d->facts.events_fd.value : -1;
	d->tl.hang_ns = d->facts.hang_ms.some ? (uint64_t)d->facts.hang_ms.value * 1000000u : 0;
	atomic_init(&d->refs, 1);
	atomic_init(&d->opens, 1);
	if (submit_start(&d->sub, &d->tl) < 0) {
		ret = rig_cause(RIG_EAGAIN, "%s: no thread for its submissions", o->name);
		goto err_stop;
	}
	if (poller_register(&d->tl) < 0) {
		ret = rig_cause(RIG_EAGAIN, "%s: the polling thread cannot watch its events_fd",
				o->name);
		timeline_lose(&d->tl, "refused at open");
		submit_stop(&d->sub);	/* stops the driver */
		goto err_release;
	}
	d->next = devices;	/* d is not yet in the table: a plain store */
	/* Pairs with the readers' p_rcu_dereference() in lookup(): whoever
	 * finds d sees it whole. */
	p_rcu_assign_pointer(devices, d);
	*out = d;
	return 0;
err_stop:
	d->ops->stop(d->handle, "refused at open");
err_release:
	if (d->ops->release)
		d->ops->release(d->handle);
err_slot:
	timeline_slot_give(&d->tl);
err_free:
	device_free(d);
	return ret;
}

static int
check_opener(const struct rig_opener *o)
{
	if (!o)
		return rig_cause(RIG_EINVAL, "the opener is NULL");
	if (!o->name || !o->name[0])
		return rig_cause(RIG_EINVAL, "the opener has no name");
	if (!o->ops || !o->make)
		return rig_cause(RIG_EINVAL, "opener %s has no %s", o->name,
				!o->ops ? "ops" : "make");
	if (!o->ops->facts || !o->ops->alloc || !o->ops->free ||
	    !o->ops->locate || !o->ops->stop)
		return rig_cause(RIG_EINVAL,
				"opener %s: its ops lack facts, alloc, free, locate or stop",
				o->name);
	return 0;
}

static int
open_locked_or_found(const struct rig_opener *o, bool inline_run,
		     struct rig_device **out)
{
	struct rig_device *d;
	int ret;

	if (!out)
		return rig_cause(RIG_EINVAL, "out is NULL");
	if (callback_depth())
		return rig_cause(RIG_EINVAL, "called from inside a callback of rig's");
	if ((ret = check_opener(o)) < 0)
		return ret;
	if ((d = find_open(o->name))) {
		util_log(UTIL_LOG_DEBUG, "open of %s found it open", o->name);
		*out = d;
		return 0;
	}
	pthread_mutex_lock(&devices_lock);
	if ((d = find_live(o->name))) {
		*out = d;
		ret = 0;
	} else {
		ret = make_device(o, inline_run, out);
		if (ret == 0)
			util_log(UTIL_LOG_INFO, "opened %s (%s), word slot %d",
				 (*out)->name, (*out)->arch, (*out)->tl.slot);
	}
	pthread_mutex_unlock(&devices_lock);
	return ret;
}

/* Profiles (src/profile/store.c): the open devices, each with a reference
 * the caller puts, cap at most. */
size_t
devices_open_list(struct rig_device **out, size_t cap)
{
	size_t n = 0;

	pthread_mutex_lock(&devices_lock);
	for (struct rig_device *d = devices; d && n < cap; d = d->next)
		if (!atomic_load(&d->tl.lost)) {
			device_get(d);
			out[n++] = d;
		}
	pthread_mutex_unlock(&devices_lock);
	return n;
}

int
device_open(const struct rig_opener *o, bool inline_run, struct rig_device **out)
{
	int ret = open_locked_or_found(o, inline_run, out);

	/* Profiles: a profile of every device times this one too. */
	if (ret == 0)
		profile_device_opened(*out);

	/* The refusal's cause is in rig_why() already (rig_cause). */
	if (ret < 0)
		util_log(UTIL_LOG_WARN, "open of %s refused: %s",
			 o && o->name ? o->name : "(an opener with no name)", rig_why());
	return ret;
}

int
rig_open(const struct rig_opener *o, struct rig_device **out)
{
	int ret = device_open(o, false, out);

	return ret < 0 ? rig_fail_keep(__func__, ret) : 0;
}

int
rig_memory_device(const char *name, struct rig_device **out)
{
	struct rig_opener o;
	int ret;

	if (!name || !name[0])
		return rig_fail(RIG_EINVAL, "the name is %s", !name ? "NULL" : "empty");
	rig_memory_opener(name, &o);
	ret = device_open(&o, true, out);
	return ret < 0 ? rig_fail_keep(__func__, ret) : 0;
}

int
rig_host_device(struct rig_device **out)
{
	int ret = device_open(&rig_host_opener, false, out);

	return ret < 0 ? rig_fail_keep(__func__, ret) : 0;
}

int
rig_close(struct rig_device *d)
{
	int ret;

	if (!d)
		return rig_fail(RIG_EINVAL, "the device is NULL");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	profile_device_ending(d);	/* before devices_lock: profile_lock comes first */
	pthread_mutex_lock(&devices_lock);
	device_end(d, "closed");
	pthread_mutex_unlock(&devices_lock);
	return 0;
}

void
rig_device_release(struct rig_device *d)
{
	if (!d)
		return;
	if (atomic_fetch_sub(&d->opens, 1) == 1 && !callback_depth()) {
		profile_device_ending(d);	/* before devices_lock, as rig_close */
		pthread_mutex_lock(&devices_lock);
		/* An open under the lock may have taken it back meanwhile
		 * (find_open() never takes a device of no opens). */
		if (!atomic_load(&d->opens))
			device_end(d, "released");
		pthread_mutex_unlock(&devices_lock);
	}
	device_put(d);
}

/* What a program reads of a device answers a NULL one with its empty
 * value, and says so in rig_why() (rig.h, NULL handles). */
#define NULL_DEVICE(empty) (rig_fail(0, "the device is NULL"), (empty))

const char *
rig_name(const struct rig_device *d)
{
	return d ? d->name : NULL_DEVICE(NULL);
}

const char *
rig_arch(const struct rig_device *d)
{
	return d ? d->arch : NULL_DEVICE(NULL);
}

int64_t
rig_cache_bytes(const struct rig_device *d)
{
	if (!d)
		return NULL_DEVICE(-1);
	return d->facts.cache_bytes.some ? d->facts.cache_bytes.value : -1;
}

const char *
rig_lost(const struct rig_device *d)
{
	return d ? atomic_load_explicit(&d->tl.lost, memory_order_acquire) : NULL_DEVICE(NULL);
}

const struct rig_loss *
rig_loss(const struct rig_device *d)
{
	if (!d)
		return NULL_DEVICE(NULL);
	return atomic_load_explicit(&d->tl.lost, memory_order_acquire) ? d->tl.loss : NULL;
}

/* ---- The process's fork and exit (process.c) ---- */

void
devices_fork_prepare(void)
{
	pthread_mutex_lock(&devices_lock);
}

void
devices_fork_parent(void)
{
	pthread_mutex_unlock(&devices_lock);
}

void
devices_fork_child(void)
{
	pthread_mutex_unlock(&devices_lock);
	for (struct rig_device *d = devices; d; d = d->next)
		timeline_lose(&d->tl, "forked");
}

void
devices_end_all(const char *reason)
{
	struct rig_device *d;

	pthread_mutex_lock(&devices_lock);
	/* All lost first: their threads stop their drivers meanwhile. */
	for (d = devices; d; d = d->next)
		timeline_lose(&d->tl, reason);
	while ((d = devices)) {
		/* Bounded (SPEC §12): a device whose driver call does not
		 * return is left lost, not waited for. */
		if (!submit_settle(&d->sub)) {
			fprintf(stderr, "rig: %s: a driver call did not return; the device is left lost, not stopped\n",
				d->name);
			table_remove(d);
			continue;
		}
		device_end(d, reason);
	}
	pthread_mutex_unlock(&devices_lock);
}
