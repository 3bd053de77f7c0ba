/* SPDX-License-Identifier: MIT */
/*
 * test_stress_polled: the polled driver's ring under threads, the test in
 * rig's place. Submitters take rig's driver lock in turn and submit values
 * of random size (some too large for a slot: the heap fallback), with
 * waits on a producer word that a producer thread advances, and commit at
 * random; a chaos thread stalls the device and injects faults; each round
 * ends with a drain (the word must reach exactly the committed value) or
 * a stop mid-stream, some values stuck in their waits (the worker must be
 * gone, the slots' heap blocks freed, the word no further than committed).
 *
 * Every value copies a pattern from its slot's sources to its slot's
 * cells; the worker's ran callback checks, for each value, that it comes
 * next in order, that it was committed, that its waits are shown, and at
 * its end that its copies ran. A monitor checks that the word never moves
 * back nor passes committed. The test mirrors the driver's own commit
 * every lag values, and checks its mirror against rig_polled_committed().
 *
 * Usage: test_stress_polled [submitters] [seconds] (defaults 4, 5).
 * Threads start at a barrier; the first violation stops the run with a
 * message.
 */
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#define MAX_PARTS (POLLED_STEPS * 3)
#define MAX_WAITS (POLLED_WAITS + 3)
#define MAX_SUBMITTERS 60

/* What the test knows of value v, in slot v % POLLED_SLOTS: written by
 * its submitter (under the lock, once room said the slot is free), read
 * by the worker's callback. The driver's orders make that race-free. */
struct vmodel {
	uint64_t value;
	size_t nparts;
	uint64_t wait_max;		/* the highest producer value it waits for */
	uint64_t src[MAX_PARTS], cell[MAX_PARTS];
};

static struct hdev hd;
static unsigned lag;
static struct vmodel model[POLLED_SLOTS];
static pthread_barrier_t start;
static _Atomic bool failed, round_over, ran_stopped;
static _Atomic uint64_t committed;	/* the highest value committed, as the test knows it */
static _Atomic uint64_t next_start;	/* the value the worker starts next */
static _Atomic uint64_t producer;	/* the word values wait on */
static _Atomic uint64_t values, rounds, stops, drains, faults, heaps;

#define FAIL(...) do {							\
	if (!atomic_exchange(&failed, true)) {				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
	atomic_store(&round_over, true);				\
} while (0)

#define U(x) ((unsigned long long)(x))

static uint32_t
next_rand(unsigned *seed)
{
	return (uint32_t)rand_r(seed);
}

static void
ran(void *arg, uint64_t v, int end)
{
	struct vmodel *m = &model[v % POLLED_SLOTS];

	if (atomic_load(&ran_stopped))
		FAIL("value %llu ran after stop returned", U(v));
	if (m->value != v)
		FAIL("value %llu ran slot %llu's model", U(v), U(m->value));
	if (!end) {
		if (v != atomic_load(&next_start))
			FAIL("value %llu started, %llu expected", U(v),
			     U(atomic_load(&next_start)));
		if (v > atomic_load(&committed))
			FAIL("value %llu started above committed %llu", U(v),
			     U(atomic_load(&committed)));
		if (atomic_load(&producer) < m->wait_max)
			FAIL("value %llu started before its wait for %llu", U(v),
			     U(m->wait_max));
		return;
	}
	for (size_t i = 0; i < m->nparts; i += 2)
		if (m->cell[i] != m->src[i])
			FAIL("value %llu part %zu: cell %llx, expected %llx", U(v), i,
			     U(m->cell[i]), U(m->src[i]));
	atomic_store(&next_start, v + 1);
}

/* Under the lock: commit up to v, the test's mirror first. */
static void
commit_to(uint64_t v)
{
	if (v > atomic_load(&committed))
		atomic_store(&committed, v);
	if (h_commit(&hd, v) != RIG_OK)
		FAIL("commit of %llu failed", U(v));
	if (rig_polled_committed(hd.p) != atomic_load(&committed))
		FAIL("the driver committed %llu, the test %llu",
		     U(rig_polled_committed(hd.p)), U(atomic_load(&committed)));
}

/* A value of random size: mostly inline, one in eight past a slot. */
static size_t
random_parts(unsigned *seed, size_t *nwaits)
{
	*nwaits = next_rand(seed) % 4 ? 0 : 1 + next_rand(seed) % MAX_WAITS;
	if (next_rand(seed) % 8)
		return next_rand(seed) % (POLLED_STEPS + 1);
	return POLLED_STEPS + 1 + next_rand(seed) % (MAX_PARTS - POLLED_STEPS);
}

/* Under the lock: room, then the next value; room's answer. */
static int
submit_one(unsigned *seed)
{
	struct rig_part parts[MAX_PARTS];
	struct rig_wait waits[MAX_WAITS];
	size_t nw, n = random_parts(seed, &nw);
	uint64_t v = hd.submitted + 1;
	struct vmodel *m = &model[v % POLLED_SLOTS];
	const char *failure = NULL;
	int r;

	for (size_t i = 0; i < n; i++)
		parts[i] = i % 2 ? h_launch() : h_copy(&m->src[i], &m->cell[i]);
	if ((r = hd.drv->room(hd.f.edge, parts, n, nw)) != RIG_FITS)
		return r;
	/* The slot is free (room said so), and so is its model. */
	*m = (struct vmodel){ .value = v, .nparts = n };
	for (size_t i = 0; i < n; i++)
		m->src[i] = v << 8 | i;
	for (size_t i = 0; i < nw; i++) {
		uint64_t want = atomic_load(&producer) + next_rand(seed) % 3;

		waits[i] = (struct rig_wait){ &producer, want, RIG_BY_HOST };
		if (want > m->wait_max)
			m->wait_max = want;
	}
	/* The driver commits on its own every lag values. */
	if (v - atomic_load(&committed) >= lag)
		atomic_store(&committed, v);
	if (hd.drv->submit(hd.f.edge, v, parts, n, waits, nw, NULL, &failure) != RIG_OK)
		FAIL("submit of %llu failed: %s", U(v), failure);
	hd.submitted = v;
	if (rig_polled_committed(hd.p) != atomic_load(&committed))
		FAIL("after submit %llu: the driver committed %llu, the test %llu", U(v),
		     U(rig_polled_committed(hd.p)), U(atomic_load(&committed)));
	atomic_fetch_add(&values, 1);
	if (n > POLLED_STEPS || nw > POLLED_WAITS)
		atomic_fetch_add(&heaps, 1);
	return RIG_FITS;
}

static void *
submitter(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	pthread_barrier_wait(&start);
	while (!atomic_load(&round_over)) {
		uint64_t w = atomic_load(&hd.word), c;
		int r;

		pthread_mutex_lock(&hd.lock);
		r = submit_one(&seed);
		c = atomic_load(&committed);
		if (r == RIG_LATER)		/* as rig: commit what it holds */
			commit_to(hd.submitted);
		else if (hd.submitted > c && next_rand(&seed) % 5 == 0)
			commit_to(c + 1 + next_rand(&seed) % (hd.submitted - c));
		pthread_mutex_unlock(&hd.lock);
		if (next_rand(&seed) % 256 == 0)	/* the worker may sleep */
			usleep(next_rand(&seed) % 500);
		if (r == RIG_LATER)		/* and wait for the word to move */
			while (atomic_load(&hd.word) == w && !atomic_load(&round_over))
				sched_yield();
		else if (r != RIG_FITS)
			FAIL("room answered %d", r);
	}
	return NULL;
}

static void *
producer_thread(void *arg)
{
	pthread_barrier_wait(&start);
	while (!atomic_load(&round_over)) {
		atomic_fetch_add(&producer, 1);
		usleep(20);
	}
	return NULL;
}

/* The word never moves back, nor past what the test committed. */
static void *
monitor(void *arg)
{
	uint64_t last = 0;

	pthread_barrier_wait(&start);
	while (!atomic_load(&round_over)) {
		uint64_t w = atomic_load(&hd.word), c = atomic_load(&committed);

		if (w < last || w > c)
			FAIL("word %llu after %llu, committed %llu", U(w), U(last), U(c));
		last = w;
		sched_yield();
	}
	return NULL;
}

/* Stalls (in half the rounds: a stall's end wakes the worker, which
 * would hide a commit's lost wake-up), and maybe a fault ahead; for ms
 * milliseconds. */
static void
chaos(unsigned *seed, unsigned ms, bool fault)
{
	uint64_t end = rig_now_ns() + ms * 1000000ull;
	bool stalls = next_rand(seed) % 2;

	if (fault)
		rig_polled_fault(hd.p, atomic_load(&committed) + 1 + next_rand(seed) % 64,
				 (int)(next_rand(seed) % 4));
	if (!stalls) {
		usleep(ms * 1000);
		return;
	}
	while (rig_now_ns() < end && !atomic_load(&failed)) {
		bool stall = next_rand(seed) % 3 == 0;

		rig_polled_stall(hd.p, stall);
		usleep(stall ? 200 : 1000 + next_rand(seed) % 2000);
	}
	rig_polled_stall(hd.p, false);
}

/* Whether the word reaches c, or the worker met the fault, in 5 s. */
static bool
drained(uint64_t c)
{
	uint64_t until = rig_now_ns() + 5 * SECOND_NS;

	while (atomic_load(&hd.word) < c && !atomic_load(&hd.d->faulted))
		if (rig_now_ns() > until)
			return false;
		else
			sched_yield();
	return true;
}

/* The round's end: drain (the word shows every committed value, or the
 * one before the fault), or stop mid-stream. */
static void
finish(bool drain, unsigned *seed)
{
	uint64_t c, w;

	/* Long enough, at times, for the worker to sleep: the commit
	 * must wake it. */
	usleep(next_rand(seed) % 3000);
	pthread_mutex_lock(&hd.lock);
	if (drain)
		commit_to(hd.submitted);
	c = atomic_load(&committed);
	pthread_mutex_unlock(&hd.lock);
	if (drain && !drained(c))
		FAIL("drain: the word stays at %llu, committed %llu",
		     U(atomic_load(&hd.word)), U(c));
	h_stop(&hd);
	atomic_store(&ran_stopped, true);
	w = atomic_load(&hd.word);
	if (atomic_load(&hd.d->faulted)) {
		atomic_fetch_add(&faults, 1);
		if (w + 1 != hd.d->site.value)
			FAIL("fault at %llu, the word at %llu", U(hd.d->site.value), U(w));
	}
	if (w > c)
		FAIL("stop: the word %llu passed committed %llu", U(w), U(c));
	/* The worker stores the word after each value's end, before it
	 * looks at stop. */
	if (atomic_load(&next_start) != w + 1)
		FAIL("stop: the word %llu, the last value that ended %llu", U(w),
		     U(atomic_load(&next_start) - 1));
	for (size_t i = 0; i < POLLED_SLOTS; i++)
		if (hd.d->slot[i].heap)
			FAIL("stop left slot %zu's heap block", i);
	atomic_fetch_add(drain ? &drains : &stops, 1);
}

static void
round_run(unsigned nsub, unsigned *seed)
{
	pthread_t t[MAX_SUBMITTERS + 2];
	uint64_t base = next_rand(seed) % 2 ? 0 : next_rand(seed) % 100000;
	bool drain = next_rand(seed) % 2, fault = next_rand(seed) % 4 == 0;

	lag = 1 + next_rand(seed) % 64;
	if (h_open(&hd, (struct rig_polled_config){ .lag = lag, .ran = ran }, base)) {
		FAIL("the device did not open");
		return;
	}
	atomic_store(&committed, base);
	atomic_store(&next_start, base + 1);
	atomic_store(&ran_stopped, false);
	atomic_store(&round_over, false);
	pthread_barrier_init(&start, NULL, nsub + 3);
	for (unsigned i = 0; i < nsub; i++)
		pthread_create(&t[i], NULL, submitter, (void *)(uintptr_t)next_rand(seed));
	pthread_create(&t[nsub], NULL, producer_thread, NULL);
	pthread_create(&t[nsub + 1], NULL, monitor, NULL);
	pthread_barrier_wait(&start);
	chaos(seed, 5 + next_rand(seed) % 50, fault);
	atomic_store(&round_over, true);
	for (unsigned i = 0; i < nsub + 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	/* The producer stopped. A drain lets every wait through; a stop
	 * finds values that wait for it forever, and must still end. */
	if (drain)
		atomic_fetch_add(&producer, 3);
	finish(drain, seed);
	h_release(&hd);
	atomic_fetch_add(&rounds, 1);
}

int
main(int argc, char **argv)
{
	unsigned nsub = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
	unsigned seed = argc > 3 ? (unsigned)atoi(argv[3]) : (unsigned)rig_now_ns();
	uint64_t deadline;

	if (nsub < 1 || nsub > MAX_SUBMITTERS) {
		fprintf(stderr, "usage: test_stress_polled [submitters 1-%d] [seconds] [seed]\n",
			MAX_SUBMITTERS);
		return 1;
	}
	printf("seed %u\n", seed);
	deadline = rig_now_ns() + seconds * SECOND_NS;
	while (rig_now_ns() < deadline && !atomic_load(&failed))
		round_run(nsub, &seed);
	printf("%llu rounds (%llu drains, %llu stops, %llu faults), %llu values, %llu past a slot\n",
	       U(rounds), U(drains), U(stops), U(faults), U(values), U(heaps));
	return atomic_load(&failed) ? 1 : 0;
}
