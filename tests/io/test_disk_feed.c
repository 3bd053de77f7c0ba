/* SPDX-License-Identifier: MIT */
/*
 * test_disk_feed: the disk's feed (io/feed.c over liburcu's wfcqueue,
 * included here and tested alone) keeps each producer's order, loses
 * nothing, and never sleeps over queued work. A validator: producers and nodes per producer come from the
 * command line (test_disk_feed [producers [nodes]]), start at a barrier,
 * and the consumer checks every node against its producer's sequence; the
 * first violation stops the run. Single-threaded edge cases sit beside it.
 */
#include <pthread.h>

#include "../../src/io/feed.c"
#include "common.h"

struct item {
	struct feed_node node;	/* first */
	unsigned producer;
	uint64_t seq;
};

static unsigned producers = 4;
static uint64_t per_producer = 200000;

static void
test_empty_and_one(void **state)
{
	struct feed q;
	struct item a = { .seq = 1 }, b = { .seq = 2 };

	feed_init(&q);
	assert_true(feed_empty_sc(&q));
	assert_null(feed_pop_sc(&q));
	assert_false(feed_push_mp(&q, &a.node));	/* nobody asleep */
	assert_false(feed_empty_sc(&q));
	assert_ptr_equal(feed_pop_sc(&q), &a.node);
	assert_true(feed_empty_sc(&q));
	assert_null(feed_pop_sc(&q));
	/* Again, once the queue emptied: order holds. */
	feed_push_mp(&q, &a.node);
	feed_push_mp(&q, &b.node);
	assert_ptr_equal(feed_pop_sc(&q), &a.node);
	assert_ptr_equal(feed_pop_sc(&q), &b.node);
	assert_null(feed_pop_sc(&q));
	assert_true(feed_empty_sc(&q));
}

static void
test_sleep_handshake(void **state)
{
	struct feed q;
	struct item a = { .seq = 1 }, b = { .seq = 2 };

	feed_init(&q);
	assert_false(feed_sleep_sc(&q));	/* empty: may sleep */
	assert_true(feed_push_mp(&q, &a.node));	/* asleep: the pusher rings */
	assert_false(feed_push_mp(&q, &b.node));	/* one ring per sleep */
	feed_wake_sc(&q);
	assert_true(feed_sleep_sc(&q));		/* work queued: must not sleep */
	feed_wake_sc(&q);
}

struct shared {
	struct feed q;
	pthread_barrier_t start;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool bell;
	struct item *items;
};

static void
ring(struct shared *s)
{
	pthread_mutex_lock(&s->lock);
	s->bell = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->lock);
}

struct producer {
	struct shared *s;
	unsigned id;
};

static void *
producer_main(void *arg)
{
	struct producer *p = arg;
	struct item *mine = p->s->items + (size_t)p->id * per_producer;

	pthread_barrier_wait(&p->s->start);
	for (uint64_t i = 0; i < per_producer; i++) {
		mine[i].producer = p->id;
		mine[i].seq = i;
		if (feed_push_mp(&p->s->q, &mine[i].node))
			ring(p->s);
	}
	return NULL;
}

static void
test_producers_keep_order(void **state)
{
	struct shared s;

	memset(&s, 0, sizeof(s));
	struct producer *p = calloc(producers, sizeof(*p));
	pthread_t *th = calloc(producers, sizeof(*th));
	uint64_t *next = calloc(producers, sizeof(*next)), total = 0, sleeps = 0;

	s.items = calloc((size_t)producers * per_producer, sizeof(*s.items));
	feed_init(&s.q);
	pthread_barrier_init(&s.start, NULL, producers + 1);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cv, NULL);
	for (unsigned i = 0; i < producers; i++) {
		p[i] = (struct producer){ &s, i };
		assert_int_equal(pthread_create(&th[i], NULL, producer_main, &p[i]), 0);
	}
	pthread_barrier_wait(&s.start);
	while (total < (uint64_t)producers * per_producer) {
		struct item *it = (struct item *)feed_pop_sc(&s.q);

		if (!it) {
			if (feed_sleep_sc(&s.q))
				continue;
			/* Asleep: a producer must ring, or we hang here (the
			 * test's timeout then names the lost wake-up). */
			pthread_mutex_lock(&s.lock);
			while (!s.bell)
				pthread_cond_wait(&s.cv, &s.lock);
			s.bell = false;
			pthread_mutex_unlock(&s.lock);
			feed_wake_sc(&s.q);
			sleeps++;
			continue;
		}
		if (it->producer >= producers || it->seq != next[it->producer])
			fail_msg("node %llu of producer %u came when %llu was due",
				 (unsigned long long)it->seq, it->producer,
				 (unsigned long long)next[it->producer < producers ? it->producer : 0]);
		next[it->producer]++;
		total++;
	}
	for (unsigned i = 0; i < producers; i++)
		pthread_join(th[i], NULL);
	assert_null(feed_pop_sc(&s.q));
	assert_true(feed_empty_sc(&s.q));
	print_message("# %u producers x %llu nodes, the consumer slept %llu times\n",
		      producers, (unsigned long long)per_producer, (unsigned long long)sleeps);
	free(s.items);
	free(p);
	free(th);
	free(next);
	pthread_barrier_destroy(&s.start);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_sleep_handshake),
		cmocka_unit_test(test_producers_keep_order),
	};

	if (argc > 1)
		producers = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		per_producer = strtoull(argv[2], NULL, 0);
	if (!producers || !per_producer) {
		fprintf(stderr, "usage: test_disk_feed [producers [nodes]]\n");
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
