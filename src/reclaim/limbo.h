/* SPDX-License-Identifier: MIT */
/*
 * reclaim/limbo.h: things let go that may go back only once their points
 * are settled, a point being (slot, value) of rig_words. A device has two
 * (reclaim.h): memory whose last buffer went while its device was busy
 * (work that uses it in flight, or other work), and what submissions keep
 * until their last value is done.
 *
 * Memory of one size and kind is reusable (its key): an allocation of that
 * size takes the oldest of it once its points are settled (limbo_take),
 * with no driver call. Everything else goes back once it is idle (every
 * point settled): at once where nothing can reuse it; after LIMBO_AGE_NS
 * idle where an allocation could, or sooner where one needs room
 * (limbo_due). An item keeps its points, not its owner's stamps: whoever
 * puts it notes them first, so nothing here reads another layer's state.
 *
 * Guarantees. put_mp (and its steps: announce, cancel, watch, push) is
 * wait-free (a fetch-add and an exchange: the enqueue of a liburcu
 * wait-free concurrent queue), any thread, any number at once; so is
 * try_hold, which answers false at once when the token is busy. Every
 * other call runs under the limbo's token, an atomic flag: a holder
 * walks the lists and calls nothing outside this file but the queue's
 * dequeue and a take's warm hook (which only prefetches), so holds are
 * short. take (unless told
 * to wait) and the poller's due pass only try the token: they never wait,
 * and answer NULL when it is busy; the rest spin for it, yielding. An item
 * is handed out once, to one caller; what its putter wrote before
 * limbo_put_mp() is visible to whoever it is handed to (the queue's
 * annotated enqueue and dequeue, then the token's release and acquire).
 *
 *                put_mp  put_held  take  due  drain  points   (X: one at a time)
 *   put_mp         -        -       -     -     -      -
 *   put_held       -        X       X     X     X      X
 *   take           -        X       X     X     X      X
 *   due ... points -        X       X     X     X      X
 *
 * The puts land in a liburcu wait-free concurrent queue (cds_wfcq, its
 * lock-free head: the token is its one dequeuer), not a lock-free stack:
 * a queue keeps them oldest first, so a take dequeues the one it looks at
 * next, touching one item, where a stack's pop-all hands over the newest
 * first and the oldest lies at the end of a walk through every item put
 * since (as many as the work in flight, each a line the core had long let
 * go: bench_reclaim spent more on that walk than on the rest of a take).
 * A dequeue needs no RCU. No call_rcu either: nothing reads
 * an item but under the token or after it was handed out, so nothing here
 * waits for a grace period; nor does a device's end: its drain waits for
 * the puts announced (limbo_announce), and a take is ordered against it
 * by the token.
 */
#ifndef RECLAIM_LIMBO_H
#define RECLAIM_LIMBO_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <urcu/wfcqueue.h>

#define LIMBO_SMALL 3			/* points an item holds without the heap */
#define LIMBO_LISTS 8			/* [0]: not reused; [1..]: one key each */
#ifndef LIMBO_AGE_NS			/* a measuring build may set it */
#define LIMBO_AGE_NS 2000000u		/* idle reusable memory waits this long */
#endif
#ifdef RIG_TEST_HOOKS
extern _Atomic uint64_t limbo_age_ns;	/* LIMBO_AGE_NS, which tests may raise */
#endif
#define LIMBO_RETRY_NS 100000u		/* a due pass that found the token busy */

struct limbo_point {
	uint32_t slot;
	uint64_t value;
};

struct limbo_item {
	struct cds_wfcq_node node;	/* in the incoming queue */
	struct limbo_item *next;	/* in a list, or a chain handed out */
	uint64_t key;			/* what may reuse it; 0: nothing */
	uint64_t idle_ns;		/* when a due pass first saw it idle; 0 */
	_Atomic bool in;		/* put, and not yet handed out */
	uint32_t n, cap;
	struct limbo_point *points;	/* small, or cap of them on the heap */
	struct limbo_point small[LIMBO_SMALL];
};

struct limbo_list {
	uint64_t key;
	struct limbo_item *head, *tail;	/* oldest first */
};

/* A zeroed limbo is empty once limbo_init() set up its queue. */
struct limbo {
	struct __cds_wfcq_head head;	/* the incoming queue: puts, oldest first */
	struct cds_wfcq_tail tail;
	_Atomic bool busy;		/* the token: the lists are its holder's */
	/* Items put and not yet handed out: puts + held - outs. Three
	 * words, so that the token's holder counts with plain stores, not
	 * locked ones: puts (announced, less those cancelled) is what
	 * putters without the token add to; held, the puts made under the
	 * token (limbo_put_held), and outs, the hand-outs, only the token's
	 * holder writes; at every moment outs <= puts + held. */
	_Atomic uint32_t puts;
	_Atomic uint32_t held;
	_Atomic uint32_t outs;
	_Atomic bool watched;		/* its owner counts it as pending */
	uint32_t aged_outs;		/* outs at the last LIMBO_AGED pass (the token's) */
	uint64_t took_key;		/* the key of the last take's hand-out (the token's) */
	struct limbo_list list[LIMBO_LISTS];
};

enum limbo_pick {
	LIMBO_AGED,	/* the poller's: idle, and not reusable or idle LIMBO_AGE_NS */
	LIMBO_OTHERS,	/* idle, unless an allocation of key could reuse it */
	LIMBO_IDLE,	/* idle */
};

/* Make a zeroed l an empty limbo (its queue's tail points at its head). */
void limbo_init(struct limbo *l);

int limbo_item_grow(struct limbo_item *it);
void limbo_item_free_points(struct limbo_item *it);

/* Note a point the item waits for (the highest value per slot), before
 * the put, by its putter: 0, or -ENOMEM (more than LIMBO_SMALL slots, and
 * no memory for them). Inline: a release notes one to three. */
static inline int
limbo_item_add(struct limbo_item *it, uint32_t slot, uint64_t value)
{
	if (!value)
		return 0;
	if (!it->points) {
		it->points = it->small;
		it->cap = LIMBO_SMALL;
	}
	for (uint32_t i = 0; i < it->n; i++)
		if (it->points[i].slot == slot) {
			if (value > it->points[i].value)
				it->points[i].value = value;
			return 0;
		}
	if (it->n == it->cap && limbo_item_grow(it) < 0)
		return -ENOMEM;
	it->points[it->n++] = (struct limbo_point){ slot, value };
	return 0;
}

/* Forget its points (before it is noted anew, or freed). */
static inline void
limbo_item_clear(struct limbo_item *it)
{
	if (it->points && it->points != it->small) {
		limbo_item_free_points(it);
		return;
	}
	it->points = NULL;
	it->n = it->cap = 0;
}
/* Every point noted is settled. */
bool limbo_item_idle(const struct limbo_item *it);
/* Put and not yet handed out. */
static inline bool
limbo_item_in(const struct limbo_item *it)
{
	return atomic_load_explicit(&it->in, memory_order_acquire);
}

static inline uint32_t
limbo_count(const struct limbo *l)
{
	/* outs first: it is never past puts + held, which only grow but
	 * for a cancel of a put not yet counted out, so the difference
	 * read is never below 0. */
	uint32_t outs = atomic_load_explicit(&l->outs, memory_order_relaxed);
	uint32_t held = atomic_load_explicit(&l->held, memory_order_relaxed);

	return atomic_load_explicit(&l->puts, memory_order_relaxed) + held - outs;
}

/*
 * Watching. The owner cues the poller per limbo, not per item: a put
 * into a limbo nobody watches answers true, once, and the owner counts the
 * limbo as pending (the poller looks at it from then on); it stays watched
 * while takes empty and puts fill it again, so a stream of releases and
 * reuses cues nobody. Only a pass that finds it empty ends the watch
 * (limbo_unwatch). The invariant, at every moment no call is under way:
 * an item in, the limbo watched. Why a put never lands unwatched: put adds
 * to puts, then reads watched; unwatch clears watched, then reads puts
 * (all sequentially consistent; outs it reads under the token), so one of them sees the other's store, and
 * the one that does sets watched again (exchange: once between them).
 */
/* Put it in; true when the limbo was not watched (the caller counts it). */
bool limbo_put_mp(struct limbo *l, struct limbo_item *it);
/*
 * A put in steps, for an owner that must refuse the put once the limbo's
 * last drain may have begun (a device's end), with no lock or RCU section:
 * limbo_announce() counts it in puts (sequentially consistent); the owner
 * then reads what refuses it (its device's loss, also sequentially
 * consistent) and either takes the count back (limbo_cancel()) or puts:
 * limbo_watch() (limbo_put_mp()'s answer: count the watch now), then
 * limbo_push(), its last touch of l and of the item, since a drain may
 * hand the item on and end the owner at once. Why a drain misses no put:
 * the ender marks the loss, then drains, and limbo_drain() waits until
 * puts - outs falls to 0; an announcer that read no loss announced before
 * the ender's mark (both sequentially consistent), so the drain sees puts
 * count it and waits for its push or its cancel, neither of which waits.
 */
void limbo_announce(struct limbo *l);
void limbo_cancel(struct limbo *l);
bool limbo_watch(struct limbo *l);
void limbo_push(struct limbo *l, struct limbo_item *it);
/*
 * A put under the token, for an owner that found it free: one exchange
 * (the token's) where announce and push cost a fetch-add and an exchange.
 * limbo_try_hold() takes the token if it is free (never waits); the owner
 * then reads what refuses the put, as above, and either lets go or puts
 * the item straight onto its list (limbo_put_held(): true when the limbo
 * was not watched, as limbo_put_mp's answer), then lets go
 * (limbo_let_go(), its last touch of l and of the item). Why a drain
 * misses no such put: the drain holds the token too, so it runs wholly
 * before the hold (and the ender's mark, made before its drain, is seen
 * through the token's release and acquire) or wholly after the put.
 */
bool limbo_try_hold(struct limbo *l);
bool limbo_put_held(struct limbo *l, struct limbo_item *it);
void limbo_let_go(struct limbo *l);
/* The oldest item of key, if idle; NULL when there is none, or (unless
 * wait) when the token is busy. warm (NULL: none) is called, under the
 * token, with the item the next take of key would look at, when there is
 * one: the owner prefetches its lines, so that the next take, a whole
 * call later, finds them in its cache (the items of a list were released
 * as many takes ago as there is work in flight, bench_reclaim's ~500, and
 * their lines have long left the core). Under the token the item is in
 * the list, nobody's: warm may read what its owner wrote before the put,
 * and must write nothing. */
struct limbo_item *limbo_take(struct limbo *l, uint64_t key, bool wait,
			      void (*warm)(const struct limbo_item *next));
/* What pick chooses to go back, chained by next; *next_ns: when a reusable
 * item kept idle falls due (UINT64_MAX: none). The poller's pass (AGED)
 * only tries the token: busy, it answers NULL and *next_ns a moment on. */
struct limbo_item *limbo_due(struct limbo *l, enum limbo_pick pick, uint64_t key,
			     uint64_t now, uint64_t *next_ns);
/* Every item, chained by next, once every announced put landed or was
 * cancelled (it yields meanwhile). */
struct limbo_item *limbo_drain(struct limbo *l);
/* End the watch of an empty limbo: true when it ended (the caller counts
 * it no more); false when it was not watched, or holds items, or one came
 * meanwhile (it stays watched). Under the token. */
bool limbo_unwatch(struct limbo *l);
/* The points every item waits for, the highest per slot, into out: how
 * many (at most max; a full out leaves some slots out). */
size_t limbo_points(struct limbo *l, struct limbo_point *out, size_t max);

#endif
