/* SPDX-License-Identifier: MIT */
/*
 * timeline/fd.c: watches, the sets of values a thread or a descriptor waits
 * on together (rig_wait_any(), rig_point_fd()). The polling thread looks at
 * them on each of its passes and fires a watch once its values are
 * signaled: it wakes the thread that sleeps on the watch, or makes the
 * watch's eventfd readable.
 *
 * Guarantees. Adders: any number of threads, each pushes onto a lock-free
 * stack (one compare-and-swap); the only consumer, the polling thread,
 * takes the whole stack with one exchange (so no ABA: nothing is popped
 * one by one) and keeps the watches on a list of its own, which no other
 * thread reads. A watch fires at most once, and only the polling thread
 * fires it. Nothing here runs on a submit: a submit never looks at a
 * watch, and the polling thread pays for them only while one exists.
 *
 *                push    cancel   scan (poller only)    (X: excluded)
 *   push           -       -        -
 *   cancel         -       -        -
 *   scan           -       -        X (one poller)
 *
 * What is visible after a fire: the poller's release store of fired pairs
 * with the sleeper's acquire load; the sleeper then reads the values' state
 * itself (acquire loads of the words), so it never trusts the poller's
 * view alone.
 *
 * Lifetimes. A watch names each value by its timeline, the timeline's slot
 * and its base. The poller never reads a timeline it cannot find at that
 * slot with that base inside its RCU read-side section: a device's end
 * unregisters its timeline and waits for a grace period before it goes
 * (poller.c), and a later device at the same slot starts above every value
 * the earlier one issued, so its base differs. A timeline the poller no
 * longer finds has ended, and every value of it is signaled. Each value
 * counts as a waiter of its timeline (timeline->waiters) from the push
 * until the poller retires the watch: the poller then watches the word and
 * runs the hang clock, as for rig_wait().
 *
 * A watch's eventfd is rig's own duplicate of the program's, so a program
 * that closes its descriptor early never has rig write to a descriptor
 * number that now names another file; rig closes its copy at the fire.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/futex.h"
#include "util/rcu.h"
#include "timeline/timeline.h"

static _Atomic(struct timeline_watch *) incoming;	/* pushed, not yet taken */
static struct timeline_watch *list;			/* the poller's own */

static bool
value_signaled(const struct watch_value *wv)
{
	struct timeline *tl = poller_watched(wv->slot);

	if (tl != wv->tl || tl->base != wv->base)
		return true;		/* the device ended: every value shows */
	return timeline_signaled(tl, wv->value);
}

static bool
value_dropped(const struct watch_value *wv)
{
	struct timeline *tl = poller_watched(wv->slot);

	return tl == wv->tl && tl->base == wv->base &&
	       timeline_signaled(tl, wv->value) && !timeline_reached(tl, wv->value);
}

static bool
due(struct timeline_watch *w)
{
	size_t shown = 0;

	for (size_t i = 0; i < w->n; i++) {
		if (!value_signaled(&w->at[i]))
			continue;
		if (w->any || value_dropped(&w->at[i]))
			return true;
		shown++;
	}
	return shown == w->n;
}

struct timeline_watch *
timeline_watch_new(size_t n, bool any, int efd)
{
	struct timeline_watch *w;

	if (n > (SIZE_MAX - sizeof(*w)) / sizeof(w->at[0]))
		return NULL;
	w = calloc(1, sizeof(*w) + n * sizeof(w->at[0]));
	if (!w)
		return NULL;
	w->n = n;
	w->any = any;
	w->efd = efd;
	atomic_init(&w->refs, efd >= 0 ? 1 : 2);	/* the poller's, the sleeper's */
	return w;
}

void
timeline_watch_set(struct timeline_watch *w, size_t i, struct timeline *tl,
		   uint64_t value)
{
	w->at[i] = (struct watch_value){ tl, (uint32_t)tl->slot, tl->base, value };
}

static void
put(struct timeline_watch *w)
{
	if (atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) == 1)
		free(w);
}

bool
timeline_watch_push(struct timeline_watch *w)
{
	struct timeline_watch *head = atomic_load_explicit(&incoming, memory_order_relaxed);

	for (size_t i = 0; i < w->n; i++)
		atomic_fetch_add(&w->at[i].tl->waiters, 1);
	/* Release: the poller that takes the stack (its acquire exchange in
	 * take_incoming()) sees the watch whole. */
	do
		w->next = head;
	while (!atomic_compare_exchange_weak_explicit(&incoming, &head, w,
			memory_order_release, memory_order_relaxed));
	return poller_kick();
}

void
timeline_watch_cancel(struct timeline_watch *w)
{
	atomic_store_explicit(&w->cancelled, true, memory_order_relaxed);
	put(w);
}

bool
timeline_watch_sleep(struct timeline_watch *w, uint64_t deadline_ns)
{
	for (;;) {
		uint64_t now;

		/* Pairs with the poller's release store in fire(). */
		if (atomic_load_explicit(&w->fired, memory_order_acquire))
			return true;
		now = rig_now_ns();
		if (now >= deadline_ns)
			return false;
		futex_wait(&w->fired, 0, deadline_ns == UINT64_MAX ? UINT64_MAX :
			   deadline_ns - now);
	}
}

/* The poller's: take what was pushed since its last pass. */
static void
take_incoming(void)
{
	struct timeline_watch *w = atomic_exchange_explicit(&incoming, NULL,
							    memory_order_acquire);

	while (w) {
		struct timeline_watch *next = w->next;

		w->next = list;
		list = w;
		w = next;
	}
}

static void
fire(struct timeline_watch *w)
{
	uint64_t one = 1;

	if (w->efd >= 0) {
		/* An eventfd's counter cannot overflow from one write of 1
		 * unless the program wrote near 2^64 itself: then it stays as
		 * it was, and still reads as readable. */
		if (write(w->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			(void)0;
		return;
	}
	atomic_store_explicit(&w->fired, 1, memory_order_release);
	futex_wake_all(&w->fired);
}

/* Under the poller's read-side section: the watch ends. Its values stop
 * counting as waiters of the timelines that are still there. */
static void
retire(struct timeline_watch *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct watch_value *wv = &w->at[i];
		struct timeline *tl = poller_watched(wv->slot);

		if (tl == wv->tl && tl->base == wv->base)
			atomic_fetch_sub(&tl->waiters, 1);
	}
	if (w->efd >= 0)
		close(w->efd);
	put(w);
}

bool
timeline_watches_scan(void)
{
	struct timeline_watch **pp;

	if (atomic_load_explicit(&incoming, memory_order_relaxed))
		take_incoming();
	if (!list)
		return false;
	p_rcu_read_lock();
	for (pp = &list; *pp;) {
		struct timeline_watch *w = *pp;
		bool cancelled = atomic_load_explicit(&w->cancelled, memory_order_relaxed);

		if (!cancelled && !due(w)) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		if (!cancelled)
			fire(w);
		retire(w);
	}
	p_rcu_read_unlock();
	return list != NULL;
}

void
timeline_watches_forget_after_fork(void)
{
	/* The child's copies of the watches' eventfds are the child's to
	 * close; the watches' sleepers are the parent's threads. */
	take_incoming();
	for (struct timeline_watch *w = list; w; w = w->next)
		if (w->efd >= 0)
			close(w->efd);
	list = NULL;
}
