/* SPDX-License-Identifier: MIT */
/*
 * test_stress_limbo: reclaim/limbo.h under many threads, alone (no device:
 * the test plays the driver and raises a few words of rig_words itself).
 * Producers put items noted with points on those slots, some settled,
 * some ahead of the word, under keys that overflow the limbo's lists,
 * half of them under the token where it is free (limbo_put_held);
 * takers take by key, with and without waiting, with and without a warm
 * hook that reads the item a next take would look at (still in the
 * limbo: TSan sees a race if it were anyone's); a pass thread runs every
 * pick of limbo_due, and limbo_points. Every item handed out
 * must be idle (its points settled), of the key asked for (take), and
 * handed out once: each item's state
 * moves IN -> OUT by compare-and-swap, so a second hand-out fails the run.
 * At the end a drain hands out the rest: every item put came out once,
 * and every watch put_mp began (its true answers) ended once (limbo_unwatch's
 * true answers, from the pass thread and at the end), while a limbo that
 * holds items is watched whenever no call is under way.
 *
 * Usage: test_stress_limbo [threads] [seconds] (default 6, 3).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "rig_edge.h"
#include "reclaim/limbo.h"

#define SLOTS 3
#define FIRST_SLOT (RIG_WORD_SLOTS - SLOTS)	/* no device holds them here */
#define KEYS 11				/* more than the limbo's lists */
#define ITEMS 64			/* per producer */
#define MAX_THREADS 32

enum { FREE, IN, OUT };

struct thing {
	struct limbo_item it;		/* first: an item is its thing */
	_Atomic int state;
};

static struct limbo l;
static struct thing *things[MAX_THREADS];
static pthread_barrier_t start;
static uint64_t deadline_ns;
static _Atomic bool failed;
static _Atomic uint64_t nput, nheld, outs, firsts, unwatches, hits;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		atomic_store(&failed, true);				\
	}								\
} while (0)

/*
 * Until the deadline, and past it until some take by key got an item: a
 * loaded machine (ASan, a load of 30 on 2 cores) can run the whole
 * deadline without one, and a run that never took by key proves nothing
 * of take. A take that can never succeed hangs the run until meson's
 * timeout, which fails it.
 */
static bool
running(void)
{
	return !atomic_load(&failed) &&
	       (rig_now_ns() < deadline_ns || !atomic_load(&hits));
}

static uint64_t
word(uint32_t slot)
{
	return atomic_load_explicit(&rig_words[slot], memory_order_acquire);
}

/* An item handed out: idle, and out for the first time since its put. */
static void
came_out(struct limbo_item *it, const char *how)
{
	struct thing *t = (struct thing *)it;
	int in = IN;

	for (uint32_t i = 0; i < it->n; i++)
		CHECK(word(it->points[i].slot) >= it->points[i].value,
		      "%s handed out an item waiting for %llu on slot %u (word %llu)", how,
		      (unsigned long long)it->points[i].value, it->points[i].slot,
		      (unsigned long long)word(it->points[i].slot));
	CHECK(!limbo_item_in(it), "%s handed out an item still marked in", how);
	CHECK(atomic_compare_exchange_strong(&t->state, &in, OUT),
	      "%s handed out an item twice (state %d)", how, in);
	atomic_fetch_add(&outs, 1);
}

static void
unwatch(void)
{
	if (limbo_unwatch(&l))
		atomic_fetch_add(&unwatches, 1);
}

static void *
producer(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = (unsigned)me * 7919u + 1;

	pthread_barrier_wait(&start);
	while (running()) {
		struct thing *t = &things[me][rand_r(&seed) % ITEMS];
		int out = OUT, free_ = FREE;

		/* Only an item out of the limbo goes in again. */
		if (!atomic_compare_exchange_strong(&t->state, &out, IN) &&
		    !atomic_compare_exchange_strong(&t->state, &free_, IN))
			continue;
		limbo_item_clear(&t->it);
		for (int k = rand_r(&seed) % (SLOTS + 1); k > 0; k--) {
			uint32_t slot = FIRST_SLOT + (uint32_t)(rand_r(&seed) % SLOTS);

			CHECK(limbo_item_add(&t->it, slot, word(slot) + (uint64_t)(rand_r(&seed) % 8)) == 0,
			      "limbo_item_add failed");
		}
		t->it.key = (uint64_t)(rand_r(&seed) % KEYS);
		/* Half the puts under the token where it is free (put_held),
		 * the rest, and those that find it busy, through the queue. */
		if (rand_r(&seed) % 2 && limbo_try_hold(&l)) {
			bool first = limbo_put_held(&l, &t->it);

			limbo_let_go(&l);
			if (first)
				atomic_fetch_add(&firsts, 1);
			atomic_fetch_add(&nheld, 1);
		} else if (limbo_put_mp(&l, &t->it)) {
			atomic_fetch_add(&firsts, 1);
		}
		atomic_fetch_add(&nput, 1);
	}
	return NULL;
}

/* limbo_take()'s warm hook, as an owner's would run, reading what the
 * item's putter wrote before its put (limbo.h: the item is nobody's under
 * the token), so TSan sees a read that races with a taker's or a
 * producer's writes; an item still in the limbo. */
static _Atomic uint64_t warmed;

static void
warm(const struct limbo_item *next)
{
	const struct thing *t = (const struct thing *)next;

	__builtin_prefetch(t, 1);
	CHECK(atomic_load(&t->state) == IN, "warm was handed an item not in the limbo");
	if (next->key && next->n <= next->cap)
		atomic_fetch_add_explicit(&warmed, 1, memory_order_relaxed);
}

static void *
taker(void *arg)
{
	unsigned seed = (unsigned)(intptr_t)arg * 31u + 7;

	pthread_barrier_wait(&start);
	while (running()) {
		uint64_t key = 1 + (uint64_t)(rand_r(&seed) % (KEYS - 1));
		struct limbo_item *it = limbo_take(&l, key, rand_r(&seed) % 4 == 0,
						   rand_r(&seed) % 2 ? warm : NULL);

		if (!it)
			continue;
		CHECK(it->key == key, "take of key %llu handed out key %llu",
		      (unsigned long long)key, (unsigned long long)it->key);
		came_out(it, "take");
		atomic_fetch_add(&hits, 1);
	}
	return NULL;
}

static void *
passer(void *arg)
{
	unsigned seed = 99;
	struct limbo_point p[8];

	(void)arg;
	pthread_barrier_wait(&start);
	while (running()) {
		enum limbo_pick pick = (enum limbo_pick)(rand_r(&seed) % 3);
		uint64_t key = (uint64_t)(rand_r(&seed) % KEYS), next;
		struct limbo_item *due = limbo_due(&l, pick, key, rig_now_ns(), &next);

		for (struct limbo_item *it = due, *after; it; it = after) {
			after = it->next;
			came_out(it, "due");
		}
		for (size_t i = 0, n = limbo_points(&l, p, 8); i < n; i++)
			CHECK(p[i].slot >= FIRST_SLOT && p[i].slot < RIG_WORD_SLOTS,
			      "points: slot %u was never noted", p[i].slot);
		unwatch();
	}
	return NULL;
}

/* The driver: words move up, now and then. */
static void *
advancer(void *arg)
{
	unsigned seed = 5;

	(void)arg;
	pthread_barrier_wait(&start);
	while (running()) {
		uint32_t slot = FIRST_SLOT + (uint32_t)(rand_r(&seed) % SLOTS);

		atomic_store_explicit(&rig_words[slot], word(slot) + 1, memory_order_release);
		sched_yield();
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 6, seconds = argc > 2 ? atoi(argv[2]) : 3;
	int producers, total;
	pthread_t t[MAX_THREADS + 2];
	struct limbo_item *rest;

	nthreads = nthreads < 2 ? 2 : nthreads > MAX_THREADS ? MAX_THREADS : nthreads;
	producers = nthreads / 2;
	total = nthreads + 2;
	limbo_init(&l);
	for (int i = 0; i < producers; i++)
		things[i] = calloc(ITEMS, sizeof(*things[i]));
	pthread_barrier_init(&start, NULL, (unsigned)total);
	deadline_ns = rig_now_ns() + (uint64_t)seconds * 1000000000u;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, i < producers ? producer : taker, (void *)(intptr_t)i);
	pthread_create(&t[nthreads], NULL, passer, NULL);
	pthread_create(&t[nthreads + 1], NULL, advancer, NULL);
	for (int i = 0; i < total; i++)
		pthread_join(t[i], NULL);
	/* Settle every word, then everything left comes out once. */
	for (uint32_t s = FIRST_SLOT; s < RIG_WORD_SLOTS; s++)
		atomic_store(&rig_words[s], word(s) + 8);
	/* Quiet now: what is in is watched (else no pass would look). */
	CHECK(!limbo_count(&l) || atomic_load(&l.watched),
	      "%u items in an unwatched limbo", limbo_count(&l));
	rest = limbo_drain(&l);
	unwatch();
	CHECK(!atomic_load(&l.watched), "an empty limbo still watched after the drain");
	for (struct limbo_item *it = rest, *after; it; it = after) {
		after = it->next;
		came_out(it, "drain");
	}
	CHECK(limbo_count(&l) == 0, "%u items left after the drain", limbo_count(&l));
	CHECK(nput == outs, "%llu put, %llu came out", (unsigned long long)nput,
	      (unsigned long long)outs);
	CHECK(firsts == unwatches, "%llu watches began, %llu ended",
	      (unsigned long long)firsts, (unsigned long long)unwatches);
	for (int i = 0; i < producers; i++) {
		for (int k = 0; k < ITEMS; k++) {
			CHECK(atomic_load(&things[i][k].state) != IN, "an item never came out");
			limbo_item_clear(&things[i][k].it);
		}
		free(things[i]);
	}
	printf("%llu puts (%llu under the token), %llu taken by key, %llu warmed, %s\n",
	       (unsigned long long)nput, (unsigned long long)nheld, (unsigned long long)hits,
	       (unsigned long long)warmed, failed ? "FAILED" : "ok");
	return failed || !hits || !nheld;
}
