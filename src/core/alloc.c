/*
 * core/alloc.c: a device's allocations, the budget they count against, and
 * their return. An allocation's memory goes back to the driver once no
 * buffer refers to it and every use stamped on it is signaled; until then it
 * waits in the device's limbo list, which every allocation on the device
 * first reclaims.
 *
 * A borrowed allocation (borrow.c) maps another allocation, its root, on a
 * second device: it shares the root's stamps and lock, holds a reference to
 * the root, and gives its mapping back like memory of its own.
 */
#include <stddef.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/error.h"
#include "core/image.h"
#include "core/io.h"

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

/* Free a's handle (its memory already went back); then its root's ref.
 * Takes no lock of the device's: call it with none held. */
static void
alloc_free(struct alloc *a)
{
	struct alloc *root = a->root;
	struct rig_device *d = a->d;

	stamps_fini(&a->stamps);
	free(a);
	if (root != a)
		alloc_put(root);
	device_put(d);
}

/* Under mem_lock: the driver gets a's memory back (a counted call: never
 * while the driver stops). */
static void
return_memory_locked(struct rig_device *d, struct alloc *a)
{
	if (a->region) {
		submit_call_hold(&d->sub);
		d->ops->free(d->handle, a->region);
		submit_call_leave(&d->sub);
	}
	a->region = NULL;
	io_unmap(a);		/* after d's mapping of it went */
	d->allocated -= a->bytes;
}

static bool
signaled(struct stamp st)
{
	return !st.value ||
	       atomic_load_explicit(&rig_words[st.slot], memory_order_acquire) >= st.value;
}

bool
alloc_idle(const struct alloc *a)
{
	const struct stamps *s = &a->root->stamps;

	for (size_t i = 0; i < s->n; i++) {
		const struct seg *g = &s->seg[i];

		if (!signaled(g->write))
			return false;
		for (uint32_t k = 0; k < g->nreads; k++)
			if (!signaled(g->reads[k]))
				return false;
	}
	return true;
}

size_t
alloc_reclaim(struct rig_device *d)
{
	struct alloc *a, *next, *done = NULL;
	size_t n = 0;

	device_reap(d);
	pthread_mutex_lock(&d->mem_lock);
	for (a = d->limbo; a; a = next) {
		next = a->next;
		if (!alloc_idle(a))
			continue;
		list_del(&d->limbo, a);
		reap_pending(d, -1);
		return_memory_locked(d, a);
		a->next = done;
		done = a;
	}
	pthread_mutex_unlock(&d->mem_lock);
	for (a = done; a; a = next) {
		next = a->next;
		alloc_free(a);
		n++;
	}
	return n;
}

/* Ask the driver; a region that breaks the facts is the device's fault. */
static int
ask_driver(struct rig_device *d, struct alloc *a, enum rig_memory kind)
{
	const char *fault = "no reason given";
	int r;

	if (!submit_call_enter(&d->sub))
		return device_check_live(NULL, d);
	r = d->ops->alloc(d->handle, a->bytes, kind, &a->region, &fault);
	if (r == RIG_OK)
		d->ops->locate(d->handle, a->region, &a->loc);
	submit_call_leave(&d->sub);
	if (r == RIG_NO_ROOM)
		return rig_cause(RIG_ENOMEM, "%s has no room for %llu bytes",
				 d->name, (unsigned long long)a->bytes);
	if (r != RIG_OK) {
		submit_lose(&d->sub, "alloc faulted: %s", fault);
		return device_check_live(NULL, d);
	}
	if ((a->loc.has_address && a->loc.address % d->facts.alignment) ||
	    (a->loc.host && (uintptr_t)a->loc.host % d->facts.alignment) ||
	    (d->facts.host_addresses && !a->loc.host)) {
		submit_call_hold(&d->sub);
		d->ops->free(d->handle, a->region);
		submit_call_leave(&d->sub);
		a->region = NULL;
		submit_lose(&d->sub, "alloc made a region that breaks its facts (alignment %llu, host_addresses %d)",
			    (unsigned long long)d->facts.alignment,
			    d->facts.host_addresses);
		return device_check_live(NULL, d);
	}
	return 0;
}

struct alloc *
alloc_new(struct rig_device *d, uint64_t bytes, struct alloc *root)
{
	struct alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (!root && stamps_init(&a->stamps, (bytes + 3) / 4) < 0) {
		free(a);
		return NULL;
	}
	a->d = d;
	a->bytes = root ? 0 : bytes;	/* a mapping holds none of d's budget */
	a->root = root ? root : a;
	atomic_init(&a->refs, 1);
	spin_init(&a->lock);
	device_get(d);
	if (root)
		atomic_fetch_add(&root->refs, 1);
	return a;
}

void
alloc_live_locked(struct rig_device *d, struct alloc *a)
{
	list_add(&d->live, a);
	d->allocated += a->bytes;
}

int
alloc_live(struct rig_device *d, struct alloc *a)
{
	int ret;

	/* Under mem_lock: the device's end (alloc_end_all) either finds a
	 * on the live list or we find the device lost. */
	pthread_mutex_lock(&d->mem_lock);
	if ((ret = device_check_live(NULL, d)) == 0)
		alloc_live_locked(d, a);
	pthread_mutex_unlock(&d->mem_lock);
	return ret;
}

void
alloc_discard(struct alloc *a)
{
	a->bytes = 0;
	alloc_free(a);
}

/*
 * Under mem_lock: the points the limbo's memory waits for, into ws; false
 * when the limbo is empty (nothing more can come back).
 */
static bool
limbo_waits_locked(struct rig_device *d, struct waitset *ws)
{
	for (struct alloc *a = d->limbo; a; a = a->next)
		stamps_waits(&a->root->stamps, ws);
	return d->limbo != NULL;
}

/*
 * Return released memory, waiting for its work: true if some could come
 * back (here, or by the poller meanwhile), false when none was released.
 * No lock held.
 */
static bool
reclaim_waiting(struct rig_device *d)
{
	struct waitset ws = { 0 };
	struct stamp dropped;
	bool some;

	pthread_mutex_lock(&d->mem_lock);
	some = limbo_waits_locked(d, &ws);
	pthread_mutex_unlock(&d->mem_lock);
	if (some)
		claim_wait_host(&ws, &dropped);	/* a loss signals too */
	waitset_fini(&ws);
	alloc_reclaim(d);
	return some;
}

/* The submitter's hook: a grow came up short. */
bool
alloc_reclaim_for_grow(struct submitter *sub)
{
	struct rig_device *d = (struct rig_device *)((char *)sub -
						      offsetof(struct rig_device, sub));

	/* No waiting here: the submission thread calls it, and released
	 * memory may wait for values queued behind the one it runs. */
	return alloc_reclaim(d) > 0;
}

/* Under mem_lock: bytes fit d's budget. */
static bool
fits_locked(const struct rig_device *d, uint64_t bytes)
{
	return d->allocated + bytes >= bytes && d->allocated + bytes <= d->budget;
}

int
alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	   struct alloc **out)
{
	struct alloc *a;
	int ret;

	if (io_device(d))
		return rig_cause(RIG_EINVAL, "%s is an Io device: its memory is files "
				 "(rig_disk_create_file, rig_disk_of_file)", d->name);
	/* A device that declares host_addresses is asked for no Pinned
	 * memory (seed 000): its own memory already serves the host. */
	if (kind == RIG_MEMORY_PINNED && d->facts.host_addresses)
		kind = RIG_MEMORY_DEVICE;
	alloc_reclaim(d);
	if (!(a = alloc_new(d, bytes, NULL)))
		return rig_cause(RIG_ENOMEM, "no memory for an allocation's handle");
	for (;;) {
		pthread_mutex_lock(&d->mem_lock);
		if ((ret = device_check_live(NULL, d)) < 0)
			break;
		ret = !fits_locked(d, bytes) ? RIG_ENOMEM : bytes ? ask_driver(d, a, kind) : 0;
		if (ret == 0)
			break;
		pthread_mutex_unlock(&d->mem_lock);
		/* Over the budget, or no room: return released memory,
		 * waiting for its work, and ask again. */
		if (ret != RIG_ENOMEM || !reclaim_waiting(d)) {
			pthread_mutex_lock(&d->mem_lock);
			break;
		}
	}
	if (ret == 0) {
		d->allocated += bytes;
		list_add(&d->live, a);
		pthread_mutex_unlock(&d->mem_lock);
		*out = a;
		return 0;
	}
	if (ret == RIG_ENOMEM)
		ret = rig_cause(RIG_ENOMEM, "%llu bytes asked, %s holds %llu of its budget %llu%s",
				(unsigned long long)bytes, d->name,
				(unsigned long long)d->allocated,
				(unsigned long long)d->budget,
				fits_locked(d, bytes) ? ", and its driver has no room" : "");
	pthread_mutex_unlock(&d->mem_lock);
	a->bytes = 0;
	alloc_free(a);
	return ret;
}

uint64_t
rig_allocated(const struct rig_device *d)
{
	struct rig_device *m = (struct rig_device *)d;
	uint64_t n;

	pthread_mutex_lock(&m->mem_lock);
	n = m->allocated;
	pthread_mutex_unlock(&m->mem_lock);
	return n;
}

uint64_t
rig_budget(const struct rig_device *d)
{
	struct rig_device *m = (struct rig_device *)d;
	uint64_t n;

	pthread_mutex_lock(&m->mem_lock);
	n = m->budget;
	pthread_mutex_unlock(&m->mem_lock);
	return n;
}

int
rig_set_budget(struct rig_device *d, uint64_t bytes)
{
	if (!d)
		return rig_fail(RIG_EINVAL, "the device is NULL");
	if ((int64_t)bytes < 0)
		return rig_fail(RIG_EINVAL, "%lld bytes is negative", (long long)bytes);
	pthread_mutex_lock(&d->mem_lock);
	d->budget = bytes;
	pthread_mutex_unlock(&d->mem_lock);
	return 0;
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
		alloc_free(a);
		return;
	}
	list_del(&d->live, a);
	later = a->region && !alloc_idle(a);
	if (later) {
		list_add(&d->limbo, a);
		reap_pending(d, 1);
	} else
		return_memory_locked(d, a);
	pthread_mutex_unlock(&d->mem_lock);
	if (!later)
		alloc_free(a);
}

/*
 * Wait until every use other devices made of d's memory (through borrowed
 * buffers) is settled: their work may still run. No claim adds a use
 * meanwhile, since d is lost (claim_lock).
 */
static void
await_borrowers(struct rig_device *d)
{
	struct waitset ws = { 0 };
	struct stamp dropped;

	pthread_mutex_lock(&d->mem_lock);
	for (struct alloc *a = d->live; a; a = a->next)
		if (a->root == a) {
			spin_lock(&a->lock);
			stamps_waits(&a->stamps, &ws);
			spin_unlock(&a->lock);
		}
	pthread_mutex_unlock(&d->mem_lock);
	claim_wait_host(&ws, &dropped);
	waitset_fini(&ws);
}

void
alloc_end_all(struct rig_device *d, const char *why)
{
	struct alloc *a, *next, *limbo;

	await_borrowers(d);
	pthread_mutex_lock(&d->mem_lock);
	image_end_all_locked(d);
	limbo = d->limbo;
	for (a = limbo; a; a = a->next) {
		return_memory_locked(d, a);
		reap_pending(d, -1);
	}
	d->limbo = NULL;
	for (a = d->live; a; a = next) {
		next = a->next;
		/* Under a's lock with no host access under way: none reads
		 * it meanwhile, and a new one finds it dead. */
		alloc_lock_quiet(a->root);
		return_memory_locked(d, a);
		a->loc.host = NULL;
		a->dead = why;
		spin_unlock(&a->root->lock);
	}
	d->live = NULL;
	pthread_mutex_unlock(&d->mem_lock);
	for (a = limbo; a; a = next) {
		next = a->next;
		alloc_free(a);
	}
}
