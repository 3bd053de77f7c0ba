/* SPDX-License-Identifier: MIT */
/*
 * timeline/loss.c: the loss that ends a timeline, the record that says why,
 * and its spread to the devices whose queues wait for it (docs/loss.md).
 *
 * A loss happens once: the first reason wins, and its record (struct
 * rig_loss) lives until the device's end. The record is published before
 * the reason (lost), so whoever sees the loss sees its record and lost_at.
 *
 * Spread. A device whose queues were told to wait for a value of another
 * device that the other's loss dropped would wait forever, or run on
 * memory that work never wrote: it is lost too, "lost with <other>", and
 * its record names the other's as its cause. (A device whose own thread
 * waited on the host for such a value is lost the same way, by that wait:
 * timeline_wait_producer().) Each device notes, per producer slot, the
 * highest value its queues wait for (waits_on) when a submit routes the
 * wait, holding the producer, then checks the producer; the producer's
 * loss marks it losing, then reads every device's note. Both sides are
 * seq_cst, so one of them sees the other: no wait slips through. The
 * note is made while the producer still holds its slot (a device is lost,
 * and its loss spread, before its slot passes to another).
 *
 * Order. A dependent's value must never be reached while the producer's
 * value it waited for is dropped, though the producer's word may go on
 * moving while it is lost (its driver is not stopped yet) and the
 * dependent's queue reads that word itself. So one loss, under lose_lock:
 *   1. marks the producer losing, and finds (breadth first, over the
 *      devices marked so far) every device whose note passes the word of
 *      a device marked before it: each is marked losing, with its record;
 *   2. publishes the marked devices' losses in reverse: each reads its
 *      lost_at (its word) only after every device that waits on it has
 *      published its own.
 * Why it holds: say dependent C's value c waited for producer P's value
 * p, and C is lost with P. C's lost_at was read before P's; if c <=
 * C.lost_at, c completed before that read, so P's word showed p before
 * it too, and P's later read of its word gives lost_at >= p: p is reached.
 * And before C's loss is published, any c seen reached likewise has p <=
 * P.lost_at. A device found with a note at or below the marking word
 * waits for nothing that is dropped and is not marked. One interleaving:
 * P's word is 4, C's note 5; P's loss marks P, reads 4, marks C; P's
 * worker stores 5; C's queue runs c; C publishes lost_at = c; P reads 5:
 * P.lost_at = 5, and p = 5 and c are both reached (C still lost with P,
 * since it waited on P when P was lost).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/rcu.h"
#include "timeline/timeline.h"

static pthread_mutex_t lose_lock = PTHREAD_MUTEX_INITIALIZER;

/* When no memory is left for a record, a device still loses with this. */
static struct rig_loss no_memory = {
	.device = "", .reason = "lost (no memory to keep the reason)",
	.part = -1, .queue = -1,
};

static void
loss_free(struct rig_loss *l)
{
	while (l && l != &no_memory) {
		struct rig_loss *cause = (struct rig_loss *)l->cause;

		free((char *)l->device);
		free((char *)l->reason);
		free(l);
		l = cause;
	}
}

/* A copy of the record l and of its chain, or NULL. */
static struct rig_loss *
loss_copy(const struct rig_loss *l, const char *device, const char *reason)
{
	struct rig_loss *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	*c = *l;
	c->cause = NULL;
	c->device = strdup(device);
	c->reason = strdup(reason);
	if (!c->device || !c->reason)
		goto fail;
	if (l->cause && l->cause != &no_memory &&
	    !(c->cause = loss_copy(l->cause, l->cause->device, l->cause->reason)))
		goto fail;
	return c;
fail:
	loss_free(c);
	return NULL;
}

static struct rig_loss *
loss_make(struct timeline *tl, const char *reason,
	  const struct rig_fault_site *site, const void *owner,
	  const struct rig_loss *cause)
{
	struct rig_loss l = { .part = -1, .queue = -1, .cause = cause,
			      .submission = owner };

	if (site) {
		l.value = site->value;
		l.part = site->part;
		l.queue = site->queue;
	}
	if (l.value && !owner && tl->owner)
		l.submission = tl->owner(tl, l.value);
	return loss_copy(&l, tl->name ? tl->name : "", reason);
}

/* Under lose_lock: mark tl losing with its record (l, or the no-memory
 * one), appended to the list ending at *tail. */
static void
mark(struct timeline *tl, struct rig_loss *l, struct timeline ***tail)
{
	tl->loss = l ? l : &no_memory;
	tl->lose_next = NULL;
	**tail = tl;
	*tail = &tl->lose_next;
	/* seq_cst: pairs with timeline_note_wait(): losing, then the notes. */
	atomic_store(&tl->losing, true);
	atomic_thread_fence(memory_order_seq_cst);
}

/* Under lose_lock: mark every live watched device whose queues wait for a
 * value of a marked device above that device's word (step 1). */
static void
mark_dependents(struct timeline *first, struct timeline ***tail)
{
	char why[160];

	p_rcu_read_lock();
	for (struct timeline *tl = first; tl; tl = tl->lose_next) {
		uint64_t word = timeline_word(tl);

		snprintf(why, sizeof(why), "lost with %s", tl->name ? tl->name : "?");
		for (uint32_t i = 0; i < RIG_WORD_SLOTS; i++) {
			struct timeline *other = poller_watched(i);
			_Atomic uint64_t *w;

			if (!other || other == tl || atomic_load(&other->losing) ||
			    atomic_load(&other->lost))
				continue;
			w = atomic_load(&other->waits_on);
			if (w && tl->slot >= 0 && atomic_load(&w[tl->slot]) > word)
				mark(other, loss_make(other, why, NULL, NULL, tl->loss),
				     tail);
		}
	}
	p_rcu_read_unlock();
}

/* One line for the log: the device, its chain, the culprit where known. A
 * close, a release, a fork, an exit or a refused open is deliberate (info);
 * the rest, error. */
static void
log_loss(struct timeline *tl)
{
	const struct rig_loss *l = tl->loss;
	const char *r = l->reason;
	bool deliberate = !strcmp(r, "closed") || !strcmp(r, "released") ||
			  !strcmp(r, "forked") || !strcmp(r, "refused at open") ||
			  !strcmp(r, "the process exits");
	int level = deliberate ? UTIL_LOG_INFO : UTIL_LOG_ERROR;
	char chain[512], site[96] = "";

	if (!util_log_on(level))
		return;
	loss_chain_text(l, chain, sizeof(chain));
	if (l->value)
		snprintf(site, sizeof(site), " (at value %llu, part %d, queue %d)",
			 (unsigned long long)l->value, l->part, l->queue);
	util_log_write(level, "%s is lost: %s%s", tl->name ? tl->name : "a device",
		       chain, site);
}

/* Under lose_lock: publish tl's loss and those after it in the list, the
 * last first (step 2). */
static void
publish(struct timeline *tl)
{
	if (!tl)
		return;
	publish(tl->lose_next);
	atomic_store(&tl->lost_at, timeline_word(tl));
	/* seq_cst; release: whoever sees lost sees the record and lost_at. */
	atomic_store(&tl->lost, tl->loss->reason);
	/* Then issued (seq_cst): a reserve that drew a value before it saw
	 * no loss drew it below this end (submit_reserve()). */
	atomic_store(&tl->issued_end, atomic_load(&tl->issued) + 1);
}

bool
timeline_lose_at(struct timeline *tl, const char *reason,
		 const struct rig_fault_site *site, const void *owner,
		 const struct rig_loss *cause)
{
	struct timeline *list = NULL, **tail = &list, *next;
	struct rig_loss *l;

	if (atomic_load(&tl->lost))
		return false;
	/* Made outside the lock: owner() takes the device's locks. */
	l = loss_make(tl, reason, site, owner, cause);
	pthread_mutex_lock(&lose_lock);
	if (atomic_load(&tl->losing)) {	/* lost (published) by another loss */
		pthread_mutex_unlock(&lose_lock);
		loss_free(l);
		return false;
	}
	mark(tl, l, &tail);
	/* The dependents first: once the driver stops, rig raises the word,
	 * and a dependent's queue would run on what this device never wrote. */
	mark_dependents(tl, &tail);
	publish(list);
	pthread_mutex_unlock(&lose_lock);
	/* Inside a read-side section: a dependent's end waits for a grace
	 * period after its stop, which spread_done lets go. */
	p_rcu_read_lock();
	for (struct timeline *t = list; t; t = next) {
		next = t->lose_next;
		timeline_wake(t);
		log_loss(t);	/* the cause first, then the losses it spread to */
		atomic_store(&t->spread_done, true);
		if (t->on_lose)
			t->on_lose(t);
	}
	p_rcu_read_unlock();
	return true;
}

bool
timeline_lose(struct timeline *tl, const char *reason)
{
	return timeline_lose_at(tl, reason, NULL, NULL, NULL);
}

int
timeline_note_wait(struct timeline *tl, struct timeline *producer, uint64_t value)
{
	_Atomic uint64_t *w = atomic_load(&tl->waits_on);
	char why[160];
	uint32_t cur;

	if (!w) {
		_Atomic uint64_t *none = NULL;

		if (!(w = calloc(RIG_WORD_SLOTS, sizeof(*w))))
			return -ENOMEM;
		if (!atomic_compare_exchange_strong(&tl->waits_on, &none, w)) {
			free(w);
			w = none;
		}
	}
	timeline_raise(&w[producer->slot], value);
	while ((cur = atomic_load(&tl->waits_hi)) <= (uint32_t)producer->slot &&
	       !atomic_compare_exchange_weak(&tl->waits_hi, &cur, (uint32_t)producer->slot + 1))
		;
	atomic_thread_fence(memory_order_seq_cst);	/* the note, then the check */
	if (timeline_dropped(producer, value)) {
		snprintf(why, sizeof(why), "lost with %s", producer->name);
		timeline_lose_at(tl, why, NULL, NULL, producer->loss);
		return RIG_ELOST;
	}
	return 0;
}

bool
timeline_dropped(struct timeline *producer, uint64_t value)
{
	if (!atomic_load(&producer->losing))
		return false;
	if (!atomic_load(&producer->lost)) {
		/* Its loss is being published: lost_at comes with it. */
		pthread_mutex_lock(&lose_lock);
		pthread_mutex_unlock(&lose_lock);
	}
	return value > atomic_load(&producer->lost_at);
}

void
loss_chain_text(const struct rig_loss *l, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; l && n < len; l = l->cause) {
		int k = n ? snprintf(buf + n, len - n, "; %s is lost: %s",
				     l->device, l->reason) :
			    snprintf(buf, len, "%s", l->reason);

		if (k < 0)
			break;
		n += (size_t)k;
	}
}

void
timeline_forget(struct timeline *tl)
{
	atomic_store(&tl->lost, NULL);
	atomic_store(&tl->issued_end, 0);
	atomic_store(&tl->losing, false);
	loss_free(tl->loss);
	tl->loss = NULL;
	free((void *)atomic_load(&tl->waits_on));
	atomic_store(&tl->waits_on, NULL);
}

void
timeline_fork_prepare(void)
{
	pthread_mutex_lock(&lose_lock);
	words_fork_prepare();
}

void
timeline_fork_after(void)
{
	words_fork_after();
	pthread_mutex_unlock(&lose_lock);
}
