/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_wake.c: rig_word_wake(), which the host device's
 * thread calls after each store of its word, wakes the waits that sleep on
 * that word at once. Here no polling thread looks at the word (this test's
 * poller_kick() says one runs, so a wait sleeps with no nap of its own):
 * only the call can end a sleeping wait before its deadline. Waits fall
 * asleep on the word, a thread stores it and calls rig_word_wake(), and
 * every wait returns 0 long before its deadline, also when the store comes
 * while the wait is still on its way to sleep. A word outside rig_words is
 * left alone.
 *
 * Linked with timeline/wait.c, state.c and words.c alone (meson.build).
 *
 * Usage: test_host_wake [waiters [rounds]] (defaults 3 and 60).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "util/ec.h"
#include "timeline/timeline.h"

#define SECOND_NS	1000000000ull
#define WAIT_NS		(20 * SECOND_NS)	/* the waits' deadline */
#define PROMPT_NS	(5 * SECOND_NS)	/* what "at once" must beat */

/* The neighbour wait.c calls: a poller runs (it never looks, here). */
bool
poller_kick(void)
{
	return true;
}

static int
no_commit(struct timeline *tl, uint64_t v)
{
	return 0;
}

static unsigned nwaiters = 3, rounds = 60;

struct round {
	struct timeline *tl;
	uint64_t value;
	pthread_barrier_t start;
	_Atomic int bad;
	char first_bad[160];
};

static void
note_bad(struct round *r, const char *what, int ret, uint64_t ns)
{
	if (!atomic_fetch_add(&r->bad, 1))
		snprintf(r->first_bad, sizeof(r->first_bad),
			 "value %llu: %s (returned %d after %llu ms)",
			 (unsigned long long)r->value, what, ret,
			 (unsigned long long)(ns / 1000000));
}

static void *
waiter(void *arg)
{
	struct round *r = arg;
	uint64_t t0;
	int ret;

	pthread_barrier_wait(&r->start);
	t0 = rig_now_ns();
	ret = timeline_wait(r->tl, r->value, WAIT_NS);
	if (ret != 0)
		note_bad(r, "the wait failed", ret, rig_now_ns() - t0);
	else if (rig_now_ns() - t0 > PROMPT_NS)
		note_bad(r, "the wait slept past the store", ret, rig_now_ns() - t0);
	return NULL;
}

/* Until a wait flagged the count to sleep, or about a second passed. */
static void
until_asleep(struct timeline *tl)
{
	struct timespec ts = { .tv_nsec = 100000 };

	for (int i = 0; i < 10000 && !ck_ec32_has_waiters(tl->futex); i++)
		nanosleep(&ts, NULL);
}

static void
test_wake_ends_sleeping_waits(void **state)
{
	struct timeline tl = { .commit = no_commit, .events_fd = -1 };
	pthread_t *t = calloc(nwaiters, sizeof(*t));

	assert_non_null(t);
	assert_true(timeline_slot_take(&tl) >= 0);
	timeline_start(&tl);
	for (unsigned k = 0; k < rounds; k++) {
		struct round r = { .tl = &tl, .value = atomic_load(tl.word) + 1 };

		pthread_barrier_init(&r.start, NULL, nwaiters + 1);
		for (unsigned i = 0; i < nwaiters; i++)
			assert_int_equal(pthread_create(&t[i], NULL, waiter, &r), 0);
		pthread_barrier_wait(&r.start);
		/* Most rounds store once a wait sleeps; every fourth while
		 * the waits still spin, yield or flag the count. */
		if (k % 4 != 3)
			until_asleep(&tl);
		atomic_store_explicit(tl.word, r.value, memory_order_release);
		rig_word_wake(tl.word);
		for (unsigned i = 0; i < nwaiters; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&r.start);
		if (atomic_load(&r.bad))
			fail_msg("round %u: %d bad waits; first: %s", k,
				 atomic_load(&r.bad), r.first_bad);
	}
	timeline_slot_give(&tl);
	free(t);
}

static void
test_other_words_left_alone(void **state)
{
	_Atomic uint64_t own = 7;

	rig_word_wake(&own);
	rig_word_wake((const _Atomic uint64_t *)((const char *)&rig_words[3] + 4));
	rig_word_wake(&rig_words[RIG_WORD_SLOTS - 1] + 1);
	assert_int_equal(atomic_load(&own), 7);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_ends_sleeping_waits),
		cmocka_unit_test(test_other_words_left_alone),
	};

	if (argc > 1)
		nwaiters = (unsigned)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		rounds = (unsigned)strtoul(argv[2], NULL, 0);
	if (nwaiters < 1)
		nwaiters = 1;
	return cmocka_run_group_tests_name("test_host_wake", tests, NULL, NULL);
}
