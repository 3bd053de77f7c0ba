/* SPDX-License-Identifier: MIT */
/*
 * floor.c: the least each workload can cost on this machine, one thread,
 * no runtime: what rig and the peers are measured against.
 *
 *   batched_submit  one atomic fetch-add on a counter plus the publish of a
 *                   ring slot at the index it returned, as a submit does
 *   round_trip      the same, then the same thread takes the slot, runs
 *                   the (empty) job, stores the completion word, and the
 *                   "waiter" finds it reached: no thread hand-off at all
 *   copy_1MiB/64MiB memcpy (GB/s of bytes copied)
 *   vector_add      c[i] = a[i] + b[i] on 16 Mi floats, a plain loop on
 *                   every core (GB/s of bytes read and written: 12 per
 *                   element)
 *   line_round_trip two threads pass a value back and forth through two
 *                   cache lines, each spinning on the other's: the least a
 *                   hand-off between two cores costs here, there and back
 *                   (a submit whose device thread reads what it wrote
 *                   pays part of one per value)
 */
#include "bench.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/*
 * The ring: slots indexed by value & RING_MASK. A producer takes value v by
 * fetch-add, writes the slot's job, then stores seq = v + 1 with release;
 * a consumer that reads seq == v + 1 with acquire sees the job. In the
 * batched figure nobody consumes, so producers overwrite slots: the floor
 * measures the producer's side only.
 */
#define RING_SLOTS	4096
#define RING_MASK	(RING_SLOTS - 1)
_Static_assert((RING_SLOTS & RING_MASK) == 0, "ring slots: a power of two");

struct slot {
	_Atomic uint64_t seq;
	void *job;
};

struct ring {
	alignas(64) _Atomic uint64_t head;	/* next value to give */
	alignas(64) uint64_t tail;		/* next value to take */
	alignas(64) _Atomic uint64_t done;	/* completion word */
	alignas(64) struct slot slots[RING_SLOTS];
};

/* One ring per figure: the batched figure leaves its ring unconsumed. */
static struct ring batched_ring, round_trip_ring;

/* Returns the value published. Wait-free. */
static inline uint64_t
publish(struct ring *r, void *job)
{
	uint64_t v = atomic_fetch_add_explicit(&r->head, 1, memory_order_relaxed);
	struct slot *s = &r->slots[v & RING_MASK];

	s->job = job;
	/* Pairs with the acquire in take(): the job is visible with seq. */
	atomic_store_explicit(&s->seq, v + 1, memory_order_release);
	return v;
}

/* Takes and runs the next slot if it is published; single consumer. */
static inline void
take(struct ring *r)
{
	struct slot *s = &r->slots[r->tail & RING_MASK];

	/* Pairs with the release in publish(). */
	if (atomic_load_explicit(&s->seq, memory_order_acquire) != r->tail + 1)
		return;
	r->tail++;
	/* Pairs with the acquire in reached(): the job's effects are visible. */
	atomic_store_explicit(&r->done, r->tail, memory_order_release);
}

static inline int
reached(struct ring *r, uint64_t v)
{
	return atomic_load_explicit(&r->done, memory_order_acquire) > v;
}

static int
batched_submit(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		publish(&batched_ring, arg);
	return 0;
}

static int
round_trip(void *arg, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = publish(&round_trip_ring, arg);

		take(&round_trip_ring);
		if (!reached(&round_trip_ring, v))
			return -EPROTO;
	}
	return 0;
}

/* The ping-pong's two lines: each thread writes one, spins on the other. */
struct pingpong {
	alignas(128) _Atomic uint64_t ping;
	alignas(128) _Atomic uint64_t pong;
	uint64_t n;
};

static void *
pong(void *arg)
{
	struct pingpong *p = arg;

	for (uint64_t v = 1; v <= p->n; v++) {
		while (atomic_load_explicit(&p->ping, memory_order_acquire) != v)
			;
		atomic_store_explicit(&p->pong, v, memory_order_release);
	}
	return NULL;
}

static int
line_round_trip(void *arg, uint64_t n)
{
	struct pingpong *p = arg;
	pthread_t t;

	atomic_store(&p->ping, 0);
	atomic_store(&p->pong, 0);
	p->n = n;
	if (pthread_create(&t, NULL, pong, p) != 0)
		return -EAGAIN;
	for (uint64_t v = 1; v <= n; v++) {
		atomic_store_explicit(&p->ping, v, memory_order_release);
		while (atomic_load_explicit(&p->pong, memory_order_acquire) != v)
			;
	}
	pthread_join(t, NULL);
	return 0;
}

struct copy {
	char *src, *dst;
	size_t bytes;
};

static int
copy_one(void *arg)
{
	struct copy *c = arg;

	memcpy(c->dst, c->src, c->bytes);
	/* Keeps the compiler from dropping a copy whose result is unread. */
	__asm__ volatile("" : : "r"(c->dst) : "memory");
	return 0;
}

static int
copy_figure(const struct bench *b, const char *name, size_t bytes, uint64_t n)
{
	struct copy c = { malloc(bytes), malloc(bytes), bytes };
	int ret = -ENOMEM;

	if (c.src && c.dst) {
		memset(c.src, 0x5a, bytes);
		memset(c.dst, 0, bytes);
		ret = bench_per_op(b, name, "memcpy", BENCH_FLOOR, copy_one, &c,
				   n, (double)bytes);
		if (ret == 0 && memcmp(c.src, c.dst, bytes) != 0) {
			bench_note(b, "%s: the copy differs from its source", name);
			ret = -EPROTO;
		}
	}
	free(c.src);
	free(c.dst);
	return ret;
}

#define VADD_ELEMS	(16u << 20)
#define VADD_THREADS	64

/*
 * The vector add runs on every core, as a runtime's would: the main thread
 * and one helper per other core each add their own slice between two
 * barrier waits. The barriers sleep; nothing spins.
 */
struct vadd {
	float *a, *b, *c;
	size_t n;
	unsigned threads;
	bool stop;
	pthread_barrier_t start, end;
};

struct slice {
	struct vadd *v;
	unsigned index;
};

static void
vadd_slice(struct vadd *v, unsigned index)
{
	size_t from = v->n / v->threads * index;
	size_t to = index + 1 == v->threads ? v->n : from + v->n / v->threads;

	for (size_t i = from; i < to; i++)
		v->c[i] = v->a[i] + v->b[i];
}

static void *
vadd_helper(void *arg)
{
	struct slice *s = arg;

	for (;;) {
		pthread_barrier_wait(&s->v->start);
		if (s->v->stop)	/* written before the start barrier */
			return NULL;
		vadd_slice(s->v, s->index);
		pthread_barrier_wait(&s->v->end);
	}
}

static int
vadd_one(void *arg)
{
	struct vadd *v = arg;

	pthread_barrier_wait(&v->start);
	vadd_slice(v, 0);
	pthread_barrier_wait(&v->end);
	return 0;
}

static int
vadd_run(const struct bench *b, struct vadd *v, uint64_t n)
{
	pthread_t t[VADD_THREADS];
	struct slice s[VADD_THREADS];
	unsigned started = 1;
	int ret;

	pthread_barrier_init(&v->start, NULL, v->threads);
	pthread_barrier_init(&v->end, NULL, v->threads);
	for (; started < v->threads; started++) {
		s[started] = (struct slice){ v, started };
		if (pthread_create(&t[started], NULL, vadd_helper, &s[started]) != 0)
			break;
	}
	if (started == v->threads)
		ret = bench_per_op(b, "vector_add", "c-loop", BENCH_FLOOR, vadd_one,
				   v, n, 3.0 * (double)(v->n * sizeof(float)));
	else
		ret = -EAGAIN;
	/* Helpers that never started would leave the barrier short. */
	if (started == v->threads) {
		v->stop = true;
		pthread_barrier_wait(&v->start);
	}
	for (unsigned i = 1; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&v->start);
	pthread_barrier_destroy(&v->end);
	return ret;
}

static int
vadd_figure(const struct bench *b, uint64_t n)
{
	size_t bytes = VADD_ELEMS * sizeof(float);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct vadd v = {
		.a = malloc(bytes), .b = malloc(bytes), .c = malloc(bytes),
		.n = VADD_ELEMS,
		.threads = cores < 1 ? 1 : cores > VADD_THREADS ? VADD_THREADS : (unsigned)cores,
	};
	int ret = -ENOMEM;

	if (v.a && v.b && v.c) {
		for (size_t i = 0; i < v.n; i++) {
			v.a[i] = (float)(i % 1000);
			v.b[i] = 1.0f;
			v.c[i] = 0.0f;
		}
		ret = vadd_run(b, &v, n);
		if (ret == 0 && v.c[12345] != (float)(12345 % 1000) + 1.0f) {
			bench_note(b, "vector_add: c[12345] is %g, not %g", v.c[12345],
				   (float)(12345 % 1000) + 1.0f);
			ret = -EPROTO;
		}
	}
	free(v.a);
	free(v.b);
	free(v.c);
	return ret;
}

int
main(int argc, char **argv)
{
	struct bench b;
	int job;
	int ret;

	bench_init(&b, "floor", argc, argv);
	ret = bench_per_run(&b, "batched_submit", "floor", BENCH_FLOOR,
			    batched_submit, &job, bench_count(&b, 20000000, 1000000), 0);
	if (ret == 0)
		ret = bench_per_run(&b, "round_trip", "floor", BENCH_FLOOR,
				    round_trip, &job, bench_count(&b, 20000000, 1000000), 0);
	if (ret == 0)
		ret = copy_figure(&b, "copy_1MiB", 1u << 20, bench_count(&b, 2000, 200));
	if (ret == 0)
		ret = copy_figure(&b, "copy_64MiB", 64u << 20, bench_count(&b, 30, 4));
	if (ret == 0)
		ret = vadd_figure(&b, bench_count(&b, 20, 4));
	/* Two spinning threads: meaningful where there are two cores. */
	if (ret == 0 && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		static struct pingpong p;

		ret = bench_per_run(&b, "line_round_trip", "floor", BENCH_FLOOR,
				    line_round_trip, &p, bench_count(&b, 200000, 20000), 0);
	}
	return ret ? 1 : 0;
}
