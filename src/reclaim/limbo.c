/* SPDX-License-Identifier: MIT */
/*
 * reclaim/limbo.c: the limbo of limbo.h. Puts land in a wait-free queue,
 * oldest first; whoever holds the token moves them, in that order, onto
 * the list of their key, so each list is in the order of release. An
 * allocation looks only at its list's head: the oldest is the likeliest to
 * be done, and one look keeps take short. A take whose list is empty
 * moves items from the queue's head only until one of its key comes
 * (pull), which it hands out if idle (else it heads the list): one
 * dequeue, in the steady state of one size, and no walk; the
 * other calls move the whole queue (gather). Either way every item is
 * moved once, and a list holds only items older than any of its key
 * still queued. A key without a list of its own (all LIMBO_LISTS - 1
 * taken by others) goes to list 0 and is not reused.
 *
 * A worked interleaving: A puts x, B puts y (each an enqueue); C takes
 * key k: it holds the token, finds k's list empty, dequeues x (key k)
 * and stops; x's points are settled, so C clears its in, warms y (the
 * queue's head: the next take looks at it) and lets the token go. The
 * poller's pass, trying the token meanwhile, answered NULL and looks
 * again at its next scan.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rig_edge.h"
#include "reclaim/limbo.h"
#include "util/rcu.h"

int
limbo_item_grow(struct limbo_item *it)
{
	struct limbo_point *p = malloc(2 * it->cap * sizeof(*p));

	if (!p)
		return -ENOMEM;
	memcpy(p, it->points, it->n * sizeof(*p));
	if (it->points != it->small)
		free(it->points);
	it->points = p;
	it->cap *= 2;
	return 0;
}

void
limbo_item_free_points(struct limbo_item *it)
{
	free(it->points);
	it->points = NULL;
	it->n = it->cap = 0;
}

void
limbo_init(struct limbo *l)
{
	__cds_wfcq_init(&l->head, &l->tail);
}

bool
limbo_item_idle(const struct limbo_item *it)
{
	/* Pairs with the driver's release store of the word: the work's
	 * last touch of the memory happened before the value shows. */
	for (uint32_t i = 0; i < it->n; i++)
		if (atomic_load_explicit(&rig_words[it->points[i].slot],
					 memory_order_acquire) < it->points[i].value)
			return false;
	return true;
}

void
limbo_announce(struct limbo *l)
{
	/* seq_cst: the Dekker pairs of limbo_unwatch (its watched) and of
	 * the owner's refusal (its loss), limbo.h. */
	atomic_fetch_add(&l->puts, 1);
}

void
limbo_cancel(struct limbo *l)
{
	atomic_fetch_sub(&l->puts, 1);
}

bool
limbo_watch(struct limbo *l)
{
	/* puts counted it (seq_cst), then watched: limbo_unwatch's pair. */
	return !atomic_load(&l->watched) && !atomic_exchange(&l->watched, true);
}

void
limbo_push(struct limbo *l, struct limbo_item *it)
{
	it->idle_ns = 0;
	it->next = NULL;
	atomic_store_explicit(&it->in, true, memory_order_relaxed);
	p_wfcq_enqueue(&l->head, &l->tail, &it->node);	/* publishes the writes above */
}

bool
limbo_put_mp(struct limbo *l, struct limbo_item *it)
{
	bool first;

	limbo_announce(l);
	first = limbo_watch(l);
	limbo_push(l, it);
	return first;
}

/* ---- The token and the lists (a holder's alone) ---- */

static bool
try_hold(struct limbo *l)
{
	/* Acquire pairs with let_go()'s release: the lists as the last
	 * holder left them. */
	return !atomic_load_explicit(&l->busy, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->busy, true, memory_order_acquire);
}

static void
hold(struct limbo *l)
{
	while (!try_hold(l))
		sched_yield();	/* two cores: let the holder finish its walk */
}

static void
let_go(struct limbo *l)
{
	atomic_store_explicit(&l->busy, false, memory_order_release);
}

static struct limbo_list *
list_of(struct limbo *l, uint64_t key, bool make)
{
	struct limbo_list *spare = NULL;

	if (!key)
		return &l->list[0];
	for (size_t i = 1; i < LIMBO_LISTS; i++) {
		if (l->list[i].key == key)
			return &l->list[i];
		if (!l->list[i].head && !spare)
			spare = &l->list[i];
	}
	if (!make)
		return NULL;
	if (!spare)
		return &l->list[0];
	spare->key = key;
	return spare;
}

static void
append(struct limbo_list *li, struct limbo_item *it)
{
	it->next = NULL;
	if (li->tail)
		li->tail->next = it;
	else
		li->head = it;
	li->tail = it;
}

static void
unlink_after(struct limbo_list *li, struct limbo_item *prev, struct limbo_item *it)
{
	if (prev)
		prev->next = it->next;
	else
		li->head = it->next;
	if (li->tail == it)
		li->tail = prev;
}

/* The queue's oldest item, off the queue; NULL when none is there yet. */
static struct limbo_item *
dequeue(struct limbo *l)
{
	struct cds_wfcq_node *n = p_wfcq_dequeue(&l->head, &l->tail);

	return n ? caa_container_of(n, struct limbo_item, node) : NULL;
}

/* Move what was put onto the lists, oldest first. */
static void
gather(struct limbo *l)
{
	struct limbo_item *it;

	while ((it = dequeue(l)))
		append(list_of(l, it->key, true), it);
}

/* Move items from the queue's head onto their lists until one of key
 * comes, the oldest of key (its list is empty): that one, left off the
 * list (*li: the list it goes on), or NULL (the queue ran dry first). A
 * list found per item: the search for one key may give another an empty
 * list of ours. */
static struct limbo_item *
pull(struct limbo *l, uint64_t key, struct limbo_list **li)
{
	struct limbo_item *it;
	struct limbo_list *to;

	while ((it = dequeue(l))) {
		to = list_of(l, it->key, true);
		if (to != &l->list[0] && it->key == key) {
			*li = to;
			return it;
		}
		append(to, it);
	}
	return NULL;
}

/* What the next take of li's key looks at: li's head, else the queue's
 * (the dequeuer's own end: the token is held). Acquire, as a dequeue's:
 * what its putter wrote before the enqueue is seen (warm may read it). */
static const struct limbo_item *
next_look(struct limbo *l, const struct limbo_list *li)
{
	struct cds_wfcq_node *n;

	if (li && li->head)
		return li->head;
	n = __atomic_load_n(&l->head.node.next, __ATOMIC_ACQUIRE);
	if (!n)
		return NULL;
	RCU_TSAN_ACQUIRE_AT(n);
	return caa_container_of(n, struct limbo_item, node);
}

static void
hand_out(struct limbo_item *it)
{
	atomic_store_explicit(&it->in, false, memory_order_release);
}

/* Under the token: k items were handed out. */
static void
handed(struct limbo *l, uint32_t k)
{
	if (k)
		atomic_store_explicit(&l->outs,
				      atomic_load_explicit(&l->outs, memory_order_relaxed) + k,
				      memory_order_relaxed);
}

bool
limbo_try_hold(struct limbo *l)
{
	return try_hold(l);
}

void
limbo_let_go(struct limbo *l)
{
	let_go(l);
}

bool
limbo_put_held(struct limbo *l, struct limbo_item *it)
{
	/* What was queued before is older: onto the lists first, so each
	 * stays in the order of release (a push not yet linked, which the
	 * dequeue skips, lands behind it: a take then looks at a newer
	 * item first, no error). Usually the queue is empty: a stream of
	 * releases that find the token free never fills it. */
	if (next_look(l, NULL))
		gather(l);
	it->idle_ns = 0;
	atomic_store_explicit(&it->in, true, memory_order_relaxed);
	append(list_of(l, it->key, true), it);
	atomic_store_explicit(&l->held,
			      atomic_load_explicit(&l->held, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	/* held counted it, then watched: limbo_unwatch, under the token
	 * too, sees the one or leaves the other set. */
	return limbo_watch(l);
}

struct limbo_item *
limbo_take(struct limbo *l, uint64_t key, bool wait,
	   void (*warm)(const struct limbo_item *next))
{
	struct limbo_list *li;
	struct limbo_item *it = NULL;

	if (!key || !limbo_count(l))
		return NULL;
	if (wait)
		hold(l);
	else if (!try_hold(l))
		return NULL;
	/* What waits in the queue is newer than the list's head: pull from
	 * it only once the list ran dry. The item pulled goes out at once
	 * if idle, else heads its list. */
	if ((li = list_of(l, key, false)) && li->head) {
		if (limbo_item_idle(li->head)) {
			it = li->head;
			unlink_after(li, NULL, it);
		}
	} else if ((it = pull(l, key, &li)) && !limbo_item_idle(it)) {
		append(li, it);
		it = NULL;
	}
	if (it) {
		hand_out(it);
		it->next = NULL;
		handed(l, 1);
		l->took_key = key;
	}
	if (warm) {
		const struct limbo_item *next = next_look(l, li);

		if (next)
			warm(next);
	}
	let_go(l);
	return it;
}

#ifdef RIG_TEST_HOOKS
/* How long idle reusable memory stays: tests that look at memory kept
 * for reuse make it longer than a loaded machine's pauses. */
_Atomic uint64_t limbo_age_ns = LIMBO_AGE_NS;
#define AGE_NS atomic_load_explicit(&limbo_age_ns, memory_order_relaxed)
#else
#define AGE_NS LIMBO_AGE_NS
#endif

/* Whether pick gives back it (idle), of list i, at now; else *keep_until
 * says till when an aging one stays. */
static bool
picked(struct limbo_item *it, size_t i, enum limbo_pick pick, uint64_t now,
       uint64_t *keep_until)
{
	if (i == 0 || pick != LIMBO_AGED)
		return true;
	if (!it->idle_ns)
		it->idle_ns = now;
	if (now - it->idle_ns >= AGE_NS)
		return true;
	if (it->idle_ns + AGE_NS < *keep_until)
		*keep_until = it->idle_ns + AGE_NS;
	return false;
}

struct limbo_item *
limbo_due(struct limbo *l, enum limbo_pick pick, uint64_t key, uint64_t now,
	  uint64_t *next_ns)
{
	struct limbo_item *due = NULL, *it, *prev, *next;
	uint32_t k = 0;
	bool takes_run;

	*next_ns = UINT64_MAX;
	if (!limbo_count(l))
		return NULL;
	if (pick != LIMBO_AGED)
		hold(l);
	else if (!try_hold(l)) {
		*next_ns = now + LIMBO_RETRY_NS;	/* busy: look again soon */
		return NULL;
	}
	/* The poller's pass leaves the queue, and the list of the key the
	 * last take asked for, to takes while they run (outs moved since
	 * its last pass): a take hands out their oldest items soon, and the
	 * pass's walk would pull each item's line onto the poller's core
	 * (and write its idle_ns) just before a take reads it. Once takes
	 * stop, the next pass gathers and walks, and one comes: they are
	 * looked at again AGE_NS on. Other keys' lists are walked. */
	takes_run = pick == LIMBO_AGED &&
		    atomic_load_explicit(&l->outs, memory_order_relaxed) != l->aged_outs;
	if (!takes_run)
		gather(l);
	else if (next_look(l, NULL))
		*next_ns = now + AGE_NS;
	for (size_t i = 0; i < LIMBO_LISTS; i++) {
		struct limbo_list *li = &l->list[i];

		if (i > 0 && pick == LIMBO_OTHERS && li->key == key)
			continue;
		if (i > 0 && takes_run && li->key == l->took_key) {
			if (li->head && now + AGE_NS < *next_ns)
				*next_ns = now + AGE_NS;
			continue;
		}
		for (prev = NULL, it = li->head; it; it = next) {
			next = it->next;
			if (!limbo_item_idle(it)) {
				/* A reused list is in release order: what
				 * follows is no likelier done. */
				if (i > 0)
					break;
				prev = it;
				continue;
			}
			if (!picked(it, i, pick, now, next_ns)) {
				prev = it;
				continue;
			}
			unlink_after(li, prev, it);
			hand_out(it);
			it->next = due;
			due = it;
			k++;
		}
	}
	handed(l, k);
	if (pick == LIMBO_AGED)	/* what later passes compare: takes' hand-outs alone */
		l->aged_outs = atomic_load_explicit(&l->outs, memory_order_relaxed);
	let_go(l);
	return due;
}

struct limbo_item *
limbo_drain(struct limbo *l)
{
	struct limbo_item *all = NULL, *it, *next;
	uint32_t k = 0;

	for (;;) {
		hold(l);
		gather(l);
		for (size_t i = 0; i < LIMBO_LISTS; i++) {
			for (it = l->list[i].head; it; it = next, k++) {
				next = it->next;
				hand_out(it);
				it->next = all;
				all = it;
			}
			l->list[i].head = l->list[i].tail = NULL;
		}
		handed(l, k);
		k = 0;
		let_go(l);
		/* seq_cst: an announced put not yet landed (limbo.h) is
		 * waited for; neither its push nor its cancel waits. */
		if (atomic_load(&l->puts) + atomic_load_explicit(&l->held, memory_order_relaxed) ==
		    atomic_load_explicit(&l->outs, memory_order_relaxed))
			return all;
		sched_yield();
	}
}

bool
limbo_unwatch(struct limbo *l)
{
	bool ended = false;

	if (limbo_count(l) || !atomic_load(&l->watched))
		return false;
	hold(l);		/* one unwatch at a time: each watch ends once */
	if (!limbo_count(l) && atomic_load(&l->watched)) {
		atomic_store(&l->watched, false);
		/* A put that added to n before our store saw watched still
		 * set: take the watch back, unless a later put already did
		 * (and counted it again, so ours ends). */
		ended = atomic_load(&l->puts) + atomic_load_explicit(&l->held, memory_order_relaxed) ==
				atomic_load_explicit(&l->outs, memory_order_relaxed) ||
			atomic_exchange(&l->watched, true);
	}
	let_go(l);
	return ended;
}

/* Add p to out[0..*n) (the highest value per slot), room permitting. */
static void
merge(struct limbo_point *out, size_t *n, size_t max, struct limbo_point p)
{
	for (size_t i = 0; i < *n; i++)
		if (out[i].slot == p.slot) {
			if (p.value > out[i].value)
				out[i].value = p.value;
			return;
		}
	if (*n < max)
		out[(*n)++] = p;
}

size_t
limbo_points(struct limbo *l, struct limbo_point *out, size_t max)
{
	size_t n = 0;

	if (!limbo_count(l))
		return 0;
	hold(l);
	gather(l);
	for (size_t i = 0; i < LIMBO_LISTS; i++)
		for (struct limbo_item *it = l->list[i].head; it; it = it->next)
			for (uint32_t k = 0; k < it->n; k++)
				merge(out, &n, max, it->points[k]);
	let_go(l);
	return n;
}
