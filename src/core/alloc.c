/*
 * core/alloc.c: a device's allocations, the budget they count against, and
 * their return. An allocation's memory goes back to the driver once no
 * buffer refers to it and its last use is signaled; until then it waits in
 * the device's limbo list, which every allocation on the device first
 * reclaims.
 */
#include <stdlib.h>

#include "core/device.h"
#include "core/error.h"

static void
list_add(struct alloc **head, struct alloc *a)
{
	a->prev = NULL;
	a->next = *head;
	if (*head)
		(*head)->prev = a;
	*head = a;
}

static void
list_del(struct alloc **head, struct alloc *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		*head = a->next;
	if (a->next)
		a->next->prev = a->prev;
}

/* Under mem_lock: the driver gets a's memory back, and a goes. */
static void
give_back_locked(struct rig_device *d, struct alloc *a)
{
	if (a->region)
		d->ops->free(d->handle, a->region);
	d->allocated -= a->bytes;
	pthread_mutex_destroy(&a->lock);
	free(a);
}

void
alloc_reclaim_locked(struct rig_device *d)
{
	struct alloc *a = d->limbo, *next;

	for (; a; a = next) {
		next = a->next;
		if (timeline_signaled(&d->tl, a->last_use)) {
			list_del(&d->limbo, a);
			give_back_locked(d, a);
			device_put(d);
		}
	}
}

/* Ask the driver; a region that breaks the facts is the device's fault. */
static int
ask_driver(struct rig_device *d, struct alloc *a, enum rig_memory kind)
{
	const char *fault = "no reason given";
	int r;

	r = d->ops->alloc(d->handle, a->bytes, kind, &a->region, &fault);
	if (r == RIG_NO_ROOM)
		return rig_cause(RIG_ENOMEM, "%s has no room for %llu bytes",
				d->name, (unsigned long long)a->bytes);
	if (r != RIG_OK) {
		submit_lose(&d->sub, "alloc faulted: %s", fault);
		return device_check_live(NULL, d);
	}
	d->ops->locate(d->handle, a->region, &a->loc);
	if ((a->loc.has_address && a->loc.address % d->facts.alignment) ||
	    (a->loc.host && (uintptr_t)a->loc.host % d->facts.alignment) ||
	    (d->facts.host_addresses && !a->loc.host)) {
		d->ops->free(d->handle, a->region);
		a->region = NULL;
		submit_lose(&d->sub, "alloc made a region that breaks its facts (alignment %llu, host_addresses %d)",
			    (unsigned long long)d->facts.alignment,
			    d->facts.host_addresses);
		return device_check_live(NULL, d);
	}
	return 0;
}

int
alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	   struct alloc **out)
{
	struct alloc *a;
	int ret;

	a = calloc(1, sizeof(*a));
	if (!a)
		return rig_cause(RIG_ENOMEM, "no memory for an allocation's handle");
	a->d = d;
	a->bytes = bytes;
	atomic_init(&a->refs, 1);
	pthread_mutex_init(&a->lock, NULL);
	/* A device that declares host_addresses is asked for no Pinned
	 * memory (seed 000): its own memory already serves the host. */
	if (kind == RIG_MEMORY_PINNED && d->facts.host_addresses)
		kind = RIG_MEMORY_DEVICE;

	pthread_mutex_lock(&d->mem_lock);
	alloc_reclaim_locked(d);
	if ((ret = device_check_live(NULL, d)) < 0)
		goto err;
	if (d->allocated + bytes > d->facts.budget || d->allocated + bytes < bytes) {
		ret = rig_cause(RIG_ENOMEM,
			       "%llu bytes asked, %s holds %llu of its budget %llu",
			       (unsigned long long)bytes, d->name,
			       (unsigned long long)d->allocated,
			       (unsigned long long)d->facts.budget);
		goto err;
	}
	if (bytes && (ret = ask_driver(d, a, kind)) < 0)
		goto err;
	a->last_write = a->last_use = d->tl.base;
	d->allocated += bytes;
	list_add(&d->live, a);
	device_get(d);
	pthread_mutex_unlock(&d->mem_lock);
	*out = a;
	return 0;
err:
	pthread_mutex_unlock(&d->mem_lock);
	pthread_mutex_destroy(&a->lock);
	free(a);
	return ret;
}

void
alloc_put(struct alloc *a)
{
	struct rig_device *d = a->d;
	bool later;

	if (atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	pthread_mutex_lock(&d->mem_lock);
	if (a->dead) {
		/* Its memory went at the device's end. */
		pthread_mutex_unlock(&d->mem_lock);
		pthread_mutex_destroy(&a->lock);
		free(a);
		device_put(d);
		return;
	}
	list_del(&d->live, a);
	later = a->region && !timeline_signaled(&d->tl, a->last_use);
	if (later)
		list_add(&d->limbo, a);
	else
		give_back_locked(d, a);
	pthread_mutex_unlock(&d->mem_lock);
	if (!later)
		device_put(d);
}

void
alloc_end_all(struct rig_device *d, const char *why)
{
	struct alloc *a, *next;

	pthread_mutex_lock(&d->mem_lock);
	for (a = d->limbo; a; a = next) {
		next = a->next;
		give_back_locked(d, a);
		device_put(d);
	}
	d->limbo = NULL;
	for (a = d->live; a; a = next) {
		next = a->next;
		/* Under a's lock: no host access is reading it meanwhile. */
		pthread_mutex_lock(&a->lock);
		if (a->region)
			d->ops->free(d->handle, a->region);
		a->region = NULL;
		a->loc.host = NULL;
		a->dead = why;
		pthread_mutex_unlock(&a->lock);
	}
	d->live = NULL;
	d->allocated = 0;
	pthread_mutex_unlock(&d->mem_lock);
}
