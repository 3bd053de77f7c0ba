/* SPDX-License-Identifier: MIT */
/*
 * core/alloc.c: a device's allocations as objects: asked of the driver,
 * kept on the device's list, released by their last buffer, their memory
 * given back to the driver. When memory goes back is reclaim/'s: a release
 * on a busy device notes the points of the work that used the memory and
 * puts its allocation in the device's limbo, where the next allocation of
 * its size and kind takes it back once they are settled (handle, stamps
 * and region reused, no driver call), or reclaim/ hands it here to give
 * back. Neither path takes mem_lock or allocates; the
 * driver's alloc and free, and the list, are under mem_lock.
 *
 * A borrowed allocation (borrow.c) maps another allocation, its root, on a
 * second device: it shares the root's stamps and lock, holds a reference to
 * the root, and gives its mapping back like memory of its own (never
 * reused).
 */
#include <stddef.h>
#include <stdlib.h>

#include "core/device.h"
#include "core/error.h"
#include "core/image.h"
#include "core/io.h"
#include "reclaim/owner.h"

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

static struct alloc *
of_item(struct limbo_item *it)
{
	return (struct alloc *)((char *)it - offsetof(struct alloc, item));
}

/* Free a's handle (its memory already went back); then its root's ref.
 * Takes no lock of the device's: call it with none held. */
static void
alloc_free(struct alloc *a)
{
	struct alloc *root = a->root;
	struct rig_device *d = a->d;

	stamps_fini(&a->stamps);
	limbo_item_clear(&a->item);
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
	budget_unreserve(&d->rc, a->bytes);
}

size_t
alloc_return(struct rig_device *d, enum limbo_pick pick, uint64_t key,
	     uint64_t now, uint64_t *next_ns)
{
	struct limbo_item *due, *it, *next;
	size_t n = 0;

	*next_ns = UINT64_MAX;
	if (!limbo_count(&d->rc.memory))
		return 0;
	/* Under mem_lock: a device's end drains the limbo under it too, so
	 * what is handed out here goes back here. */
	pthread_mutex_lock(&d->mem_lock);
	due = limbo_due(&d->rc.memory, pick, key, now, next_ns);
	for (it = due; it; it = it->next) {
		return_memory_locked(d, of_item(it));
		list_del(&d->allocs, of_item(it));
	}
	pthread_mutex_unlock(&d->mem_lock);
	for (it = due; it; it = next, n++) {
		next = it->next;
		alloc_free(of_item(it));
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
	list_add(&d->allocs, a);
	/* Files and mappings: counted whatever the budget says (a file once
	 * made cannot be unmade; a mapping counts 0). */
	atomic_fetch_add_explicit(&d->rc.allocated, a->bytes, memory_order_relaxed);
}

int
alloc_live(struct rig_device *d, struct alloc *a)
{
	int ret;

	/* Under mem_lock: the device's end (alloc_end_all) either finds a
	 * on the list or we find the device lost. */
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

/* What may reuse memory of bytes and kind: one key per pair (0: nothing;
 * sizes past 2^60 bytes pass every budget anyway). */
static uint64_t
key_of(uint64_t bytes, enum rig_memory kind)
{
	return bytes && bytes < (1ull << 60) ? bytes << 2 | (uint64_t)kind : 0;
}

/*
 * An allocation of key from d's limbo whose uses are settled, live again;
 * NULL when there is none (or, unless wait, the limbo is busy). No RCU
 * section: the limbo's token orders a take against the device's end's
 * drain, so what a taker got is an allocation the end finds on the list
 * as a live one (its memory goes back, the allocation turns dead, under
 * its lock, as any live one's), and the taker touches none of what the
 * end changes: not its memory (its bytes are not zeroed), only its item
 * and its count.
 */
/*
 * limbo_take()'s warm hook: the lines of the allocation the next reuse of
 * its size takes, for writing (a reuse writes its item, its count and its
 * handle, the copy's claim its lock and stamps). Prefetches only: a hint,
 * nothing read but the item's address.
 */
static void
warm(const struct limbo_item *next)
{
	const char *a = (const char *)of_item((struct limbo_item *)next);

	for (size_t off = 0; off < sizeof(struct alloc); off += 64)
		__builtin_prefetch(a + off, 1);
	__builtin_prefetch(a + sizeof(struct alloc) - 1, 1);
}

static inline __attribute__((always_inline)) struct alloc *
reuse(struct rig_device *d, uint64_t key, bool wait)
{
	struct limbo_item *it;
	struct alloc *a;

	/* A lost device's limbo waits for its end. */
	if (!key || atomic_load_explicit(&d->tl.lost, memory_order_acquire) ||
	    !(it = limbo_take(&d->rc.memory, key, wait, warm)))
		return NULL;
	/* Its bytes stay as its last use left them (rig.h): zeroing 4 KiB
	 * another core's work last wrote cost more than the rest of a
	 * release and a reuse together (bench_reclaim). */
	limbo_item_clear(it);
	a = of_item(it);
	/* Its stamps' segments: the copy's claim reads them a few calls on
	 * (their pointer is in a line warm() fetched a take ago). */
	__builtin_prefetch(a->stamps.seg, 1);
	atomic_store_explicit(&a->refs, 1, memory_order_relaxed);
	return a;
}

struct make {
	struct rig_device *d;
	struct alloc *a;
	enum rig_memory kind;
	uint64_t key;
};

/* One try of the driver within the budget: 0, RIG_ENOMEM (over the budget
 * or no room: reclaim_retry() returns memory and tries again), RIG_ELOST. */
static int
try_make(void *arg)
{
	struct make *m = arg;
	struct rig_device *d = m->d;
	uint64_t bytes = m->a->bytes;
	int ret;

	pthread_mutex_lock(&d->mem_lock);
	if ((ret = device_check_live(NULL, d)) < 0)
		goto out;
	if (!budget_reserve(&d->rc, atomic_load(&d->budget), bytes)) {
		ret = RIG_ENOMEM;
		goto out;
	}
	if (bytes && (ret = ask_driver(d, m->a, m->kind)) < 0) {
		budget_unreserve(&d->rc, bytes);
		goto out;
	}
	m->a->item.key = m->key;
	list_add(&d->allocs, m->a);
out:
	pthread_mutex_unlock(&d->mem_lock);
	return ret;
}

/* A new allocation from the driver, memory released first coming back.
 * Out of line and cold: inlined, its registers made alloc_make()'s reuse,
 * the common case, save and restore them on every call. */
static __attribute__((noinline, cold)) int
make_new(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	 struct alloc **out)
{
	uint64_t key = key_of(bytes, kind), held, budget;
	struct make m = { d, NULL, kind, key };
	int ret;

	/* What no allocation of this size reuses goes back first; then
	 * memory of this size, waiting for a taker or just settled. */
	reclaim_room(d, key);
	if ((*out = reuse(d, key, true)))
		return 0;
	if (!(m.a = alloc_new(d, bytes, NULL)))
		return rig_cause(RIG_ENOMEM, "no memory for an allocation's handle");
	if ((ret = reclaim_retry(d, try_make, &m)) == 0) {
		*out = m.a;
		return 0;
	}
	if (ret == RIG_ENOMEM) {
		held = rig_allocated(d);
		budget = rig_budget(d);
		ret = rig_cause(RIG_ENOMEM, "%llu bytes asked, %s holds %llu of its budget %llu%s",
				(unsigned long long)bytes, d->name,
				(unsigned long long)held, (unsigned long long)budget,
				held + bytes >= bytes && held + bytes <= budget ?
				", and its driver has no room" : "");
	}
	alloc_discard(m.a);
	return ret;
}

int
alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	   struct alloc **out)
{
	if (io_device(d))
		return rig_cause(RIG_EINVAL, "%s is an Io device: its memory is files "
				 "(rig_disk_create_file, rig_disk_of_file)", d->name);
	/* A device that declares host_addresses is asked for no Pinned
	 * memory (docs/drivers.md): its own memory already serves the host. */
	if (kind == RIG_MEMORY_PINNED && d->facts.host_addresses)
		kind = RIG_MEMORY_DEVICE;
	if ((*out = reuse(d, key_of(bytes, kind), false)))
		return 0;
	return make_new(d, bytes, kind, out);
}

static bool
settled(struct stamp st)
{
	return !st.value ||
	       atomic_load_explicit(&rig_words[st.slot], memory_order_acquire) >= st.value;
}

/* Wait on the host until every use stamped on a's root is settled, one
 * stamp at a time under the root's lock: what a release does when it has
 * no memory to note the uses down. */
static void
wait_uses_now(struct alloc *a)
{
	struct alloc *root = a->root;

	for (;;) {
		struct stamp st = { 0 }, dropped;
		struct waitset ws;
		const struct stamps *s;

		spin_lock(&root->lock);
		s = &root->stamps;
		for (size_t i = 0; i < s->n && !st.value; i++) {
			if (!settled(s->seg[i].write))
				st = s->seg[i].write;
			for (uint32_t k = 0; k < s->seg[i].nreads && !st.value; k++)
				if (!settled(s->seg[i].reads[k]))
					st = s->seg[i].reads[k];
		}
		spin_unlock(&root->lock);
		if (!st.value)
			return;
		waitset_init(&ws, -1);
		waitset_add(&ws, st);	/* its own array: no memory needed */
		claim_wait_host(&ws, &dropped);
	}
}

/*
 * Once no buffer refers to a: note on a->item the points of every use of
 * its memory, which its return waits for. A borrowed allocation reads its
 * root's stamps under the root's lock: claims through the root's other
 * buffers change them meanwhile (issue 13: a split reallocates them). A
 * root no buffer refers to is claimed by nobody.
 */
static void
note_uses(struct alloc *a)
{
	struct alloc *root = a->root;
	const struct stamps *s = &root->stamps;
	int ret = 0;

	limbo_item_clear(&a->item);
	if (root != a)
		spin_lock(&root->lock);
	for (size_t i = 0; i < s->n && ret == 0; i++) {
		ret = limbo_item_add(&a->item, s->seg[i].write.slot, s->seg[i].write.value);
		for (uint32_t k = 0; k < s->seg[i].nreads && ret == 0; k++)
			ret = limbo_item_add(&a->item, s->seg[i].reads[k].slot,
					     s->seg[i].reads[k].value);
	}
	if (root != a)
		spin_unlock(&root->lock);
	if (ret < 0) {
		limbo_item_clear(&a->item);
		wait_uses_now(a);
	}
}

/* Into d's limbo: its uses noted, its stamps forgotten if it is reused
 * (the limbo's points stand for them). */
static void
to_limbo(struct rig_device *d, struct alloc *a)
{
	if (a->item.key)
		stamps_clear(&a->stamps);
	if (limbo_put_mp(&d->rc.memory, &a->item))
		reclaim_pending(&d->tl, 1);
}

/*
 * Whether a's memory waits in d's limbo rather than go back at once: its
 * work is in flight; or it is reusable and d is busy (values issued and not
 * done), where the next allocation of its size likely comes soon: one that
 * takes it back spares the driver an alloc and a free. Memory released on
 * an idle device goes back at once.
 */
static bool
stays(struct rig_device *d, struct alloc *a)
{
	if (!a->region)
		return false;
	/* The busy device first: two loads, where the idle test walks the
	 * points and reads their words (the common release, bench_reclaim). */
	if (a->item.key &&
	    atomic_load_explicit(&d->tl.issued, memory_order_relaxed) > timeline_word(&d->tl))
		return true;
	return !limbo_item_idle(&a->item);
}

#ifdef RIG_TEST_HOOKS
void (*park_window)(void);
_Atomic uint64_t parks_held, parks_announced;	/* which way each park went */
#define PARKED(way) atomic_fetch_add_explicit(&(way), 1, memory_order_relaxed)
#else
#define PARKED(way) ((void)0)
#endif

/*
 * park() where the limbo's token is free: the put made under it, one
 * exchange in all. The end's drains hold the token too: a drain before
 * our hold let the loss be seen through the token (the ender marks it
 * first), a drain after it finds a on its list; stays() reads region,
 * which the end writes only after its first drain.
 */
static bool
park_held(struct rig_device *d, struct alloc *a)
{
	struct limbo *l = &d->rc.memory;

	if (atomic_load_explicit(&d->tl.lost, memory_order_relaxed) || !stays(d, a)) {
		limbo_let_go(l);
		return false;
	}
#ifdef RIG_TEST_HOOKS
	if (park_window)	/* an end waits for the token meanwhile */
		park_window();
#endif
	if (a->item.key)
		stamps_clear(&a->stamps);
	PARKED(parks_held);
	if (limbo_put_held(l, &a->item))
		reclaim_pending(&d->tl, 1);
	limbo_let_go(l);	/* the last touch of a and d */
	return true;
}

/*
 * The release of memory that stays() on a live device: into the limbo, so
 * that a device's end finds it there (and clears region only then). Where
 * the limbo's token is free, the put is made under it (park_held). Else the
 * put is announced, then the loss read again (limbo.h, limbo_announce): a
 * put that saw no loss is one the end's drain waits for; one that saw it
 * takes its count back. Only then is a's memory looked at (stays() reads
 * region): from the announcement on, the end, which writes region under
 * the lock, waits for us. No RCU section, no lock. False where it did not
 * park a; the slow path, under mem_lock, then.
 */
static bool
park(struct rig_device *d, struct alloc *a)
{
	if (atomic_load_explicit(&d->tl.lost, memory_order_acquire))
		return false;
	if (limbo_try_hold(&d->rc.memory))
		return park_held(d, a);
	limbo_announce(&d->rc.memory);
#ifdef RIG_TEST_HOOKS
	if (park_window)
		park_window();
#endif
	/* seq_cst: limbo.h's pair. */
	if (atomic_load(&d->tl.lost) || !stays(d, a)) {
		limbo_cancel(&d->rc.memory);
		return false;
	}
	if (limbo_watch(&d->rc.memory))
		reclaim_pending(&d->tl, 1);
#ifdef RIG_TEST_HOOKS
	if (park_window)	/* again, live: an end may start meanwhile */
		park_window();
#endif
	/* No lock: nobody else holds a, and a device's end reads no stamps
	 * before its first drain, which waits for this announced put
	 * (alloc_end_all); the push publishes the clear to it. */
	if (a->item.key)
		stamps_clear(&a->stamps);
	PARKED(parks_announced);
	limbo_push(&d->rc.memory, &a->item);	/* the last touch of a and d */
	return true;
}

static void put_locked(struct rig_device *d, struct alloc *a);

void
alloc_put(struct alloc *a)
{
	struct rig_device *d = a->d;

	/* The last reference needs no locked decrement: every new reference
	 * is taken through one already held (a view, a borrow, a hold), so
	 * while ours is the only one nobody adds another. Acquire: pairs
	 * with the earlier holders' decrements, their uses seen before ours
	 * ends. */
	if (atomic_load_explicit(&a->refs, memory_order_acquire) != 1 &&
	    atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	note_uses(a);
	if (!park(d, a))
		put_locked(d, a);
}

/* alloc_put()'s slow path, under mem_lock: a lost device, or memory that
 * goes back at once. Out of line and cold, so the park, the common
 * release, saves no registers for it. */
static __attribute__((noinline, cold)) void
put_locked(struct rig_device *d, struct alloc *a)
{
	pthread_mutex_lock(&d->mem_lock);
	if (a->dead) {
		/* Its memory went at the device's end. */
		pthread_mutex_unlock(&d->mem_lock);
		alloc_free(a);
		return;
	}
	if (a->region && !limbo_item_idle(&a->item)) {
		to_limbo(d, a);		/* the device's end takes it back */
		pthread_mutex_unlock(&d->mem_lock);
		return;
	}
	return_memory_locked(d, a);
	list_del(&d->allocs, a);
	pthread_mutex_unlock(&d->mem_lock);
	alloc_free(a);
}

/* The chain of items first, then rest. */
static struct limbo_item *
chain_after(struct limbo_item *first, struct limbo_item *rest)
{
	struct limbo_item *it = first;

	if (!first)
		return rest;
	while (it->next)
		it = it->next;
	it->next = rest;
	return first;
}

/*
 * Wait until every use other devices made of d's memory (through borrowed
 * buffers) is settled: their work may still run. No claim adds a use
 * meanwhile, since d is lost (claim_lock).
 */
static void
await_borrowers(struct rig_device *d)
{
	struct waitset ws;
	struct stamp dropped;

	waitset_init(&ws, -1);
	pthread_mutex_lock(&d->mem_lock);
	for (struct alloc *a = d->allocs; a; a = a->next)
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
	struct limbo_item *gone, *it, *after;
	struct alloc *a, *next;

	/* d is lost: later releases take mem_lock, later allocations find
	 * it lost; the first drain waits for every park() that saw it live
	 * (limbo_drain), so no park writes stamps once await_borrowers reads
	 * them (park() clears them with no lock), and a reuse() that took
	 * memory before it left a live allocation on the list. The second
	 * drain takes what releases on mem_lock's slow path put meanwhile. */
	pthread_mutex_lock(&d->mem_lock);
	gone = limbo_drain(&d->rc.memory);
	pthread_mutex_unlock(&d->mem_lock);
	await_borrowers(d);
	pthread_mutex_lock(&d->mem_lock);
	image_end_all_locked(d);
	gone = chain_after(limbo_drain(&d->rc.memory), gone);
	if (limbo_unwatch(&d->rc.memory))
		reclaim_pending(&d->tl, -1);
	for (it = gone; it; it = it->next) {
		return_memory_locked(d, of_item(it));
		list_del(&d->allocs, of_item(it));
	}
	for (a = d->allocs; a; a = next) {
		next = a->next;
		/* Under a's lock with no host access under way: none reads
		 * it meanwhile, and a new one finds it dead. */
		alloc_lock_quiet(a->root);
		return_memory_locked(d, a);
		a->loc.host = NULL;
		a->dead = why;
		spin_unlock(&a->root->lock);
	}
	d->allocs = NULL;
	pthread_mutex_unlock(&d->mem_lock);
	for (it = gone; it; it = after) {
		after = it->next;
		alloc_free(of_item(it));
	}
}
