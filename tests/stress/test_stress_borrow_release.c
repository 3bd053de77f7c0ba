/* SPDX-License-Identifier: MIT */
/*
 * test_stress_borrow_release: issue 13's race. Releasing a borrowed buffer
 * asks whether every use of the root's memory is signaled; it once read
 * the root's stamps without the root's lock while a claim on the root
 * split (reallocated) them. Here borrower threads borrow views of a root
 * on A onto B, write them by copies on B and release them (half of them
 * with the copy in flight), while claimer threads claim the root on A over
 * ranges that vary every time, so its segments split, gain reads and join
 * again. Each round starts on a fresh root (its segment array grows anew)
 * with every thread at a barrier. Run under TSan, which reports the
 * unlocked read.
 *
 * Every thread owns a slice of the root and checks its bytes: a claimer's
 * copy lands in its slice; a borrower's bytes written through B read back
 * the same through the borrowed buffer. At the end both devices hold no
 * region (every borrowed mapping and the root went back).
 *
 * Usage: test_stress_borrow_release [threads] [seconds] (default 8, 5).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_polled.h"

#define ROOT_BYTES (64u << 10)
#define ROUND_ITERS 64
#define MAX_THREADS 32

static struct rig_polled *pa, *pb;
static struct rig_device *A, *B;
static struct rig_buffer *root;
static pthread_barrier_t start;
static int nthreads;
static uint64_t deadline_ns;
static _Atomic bool failed;
static _Atomic uint64_t claims, borrows;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (rig_why: %s)\n", rig_why());		\
		atomic_store(&failed, true);				\
		return false;						\
	}								\
} while (0)

/* A slice of the root: claimers own the first half, borrowers the second. */
static size_t
slice_bytes(void)
{
	return ROOT_BYTES / 2 / (size_t)((nthreads + 1) / 2) & ~(size_t)3;
}

/* A random word-aligned range of len bytes inside [0, span). */
static size_t
pick(unsigned *seed, size_t span, size_t len)
{
	return (size_t)rand_r(seed) % ((span - len) / 4 + 1) * 4;
}

static void
fill(uint32_t *x, size_t bytes, uint32_t tag)
{
	for (size_t i = 0; i < bytes / 4; i++)
		x[i] = tag * 2654435761u + (uint32_t)i;
}

/* Write a range of the slice at base, copy it to another, read that back;
 * now and then copy it out to a on-A scratch buffer (reads that keep
 * segments apart). */
static bool
claim_once(unsigned *seed, size_t base, struct rig_buffer *scratch)
{
	size_t half = slice_bytes() / 2, len = 4 + (size_t)rand_r(seed) % (half / 4) * 4;
	uint32_t x[ROOT_BYTES / 16], y[ROOT_BYTES / 16];
	struct rig_buffer *v1, *v2, *s;
	uint32_t tag = (uint32_t)rand_r(seed);

	if (len > sizeof(x))
		len = sizeof(x);
	CHECK(!rig_buffer_view(root, base + pick(seed, half, len), len, RIG_READ_WRITE, &v1) &&
	      !rig_buffer_view(root, base + half + pick(seed, half, len), len, RIG_READ_WRITE, &v2),
	      "claimer: views");
	fill(x, len, tag);
	CHECK(!rig_buffer_write(v1, 0, x, len), "claimer: write");
	CHECK(!rig_buffer_copy(v1, v2, NULL), "claimer: copy");
	if (rand_r(seed) % 2) {
		CHECK(!rig_buffer_view(scratch, 0, len, RIG_READ_WRITE, &s), "claimer: scratch view");
		CHECK(!rig_buffer_copy(v2, s, NULL), "claimer: copy out");
		rig_buffer_release(s);
	}
	CHECK(!rig_buffer_read(v2, 0, y, len), "claimer: read");
	CHECK(!memcmp(x, y, len), "claimer: the copy's %zu bytes differ", len);
	rig_buffer_release(v1);
	rig_buffer_release(v2);
	atomic_fetch_add(&claims, 1);
	return true;
}

/* Borrow a range of the slice at base onto B, write it by a copy on B from
 * src, and release it: at once, or after reading it back. */
static bool
borrow_once(unsigned *seed, size_t base, struct rig_buffer *src)
{
	size_t span = slice_bytes(), len = 4 + (size_t)rand_r(seed) % (span / 4) * 4;
	uint32_t x[ROOT_BYTES / 8], y[ROOT_BYTES / 8];
	struct rig_buffer *v, *w, *s;
	uint32_t tag = (uint32_t)rand_r(seed);

	CHECK(!rig_buffer_view(root, base + pick(seed, span, len), len, RIG_READ_WRITE, &v),
	      "borrower: view");
	CHECK(!rig_buffer_borrow(v, B, &w), "borrower: borrow");
	rig_buffer_release(v);		/* w keeps the root */
	fill(x, len, tag);
	CHECK(!rig_buffer_view(src, 0, len, RIG_READ_WRITE, &s), "borrower: src view");
	CHECK(!rig_buffer_write(s, 0, x, len), "borrower: write");
	CHECK(!rig_buffer_copy(s, w, NULL), "borrower: copy on B");
	rig_buffer_release(s);
	if (rand_r(seed) % 2) {
		CHECK(!rig_buffer_read(w, 0, y, len), "borrower: read");
		CHECK(!memcmp(x, y, len), "borrower: the %zu bytes written on B differ", len);
	}
	rig_buffer_release(w);		/* the race: while claimers split the stamps */
	atomic_fetch_add(&borrows, 1);
	return true;
}

static void *
worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	bool claimer = i % 2 == 0;
	size_t base = (claimer ? 0 : ROOT_BYTES / 2) + (size_t)(i / 2) * slice_bytes();
	unsigned seed = (unsigned)i * 7919u + (unsigned)rig_now_ns();
	struct rig_buffer *own = NULL;

	if (rig_buffer_create(claimer ? A : B, slice_bytes(), RIG_MEMORY_DEVICE, &own)) {
		fprintf(stderr, "worker %d: no buffer: %s\n", i, rig_why());
		atomic_store(&failed, true);
	}
	pthread_barrier_wait(&start);
	for (int k = 0; own && k < ROUND_ITERS && !atomic_load(&failed); k++)
		if (!(claimer ? claim_once(&seed, base, own) : borrow_once(&seed, base, own)))
			break;
	rig_buffer_release(own);
	return NULL;
}

static struct rig_device *
open_polled(const char *name, unsigned lag, struct rig_polled **p)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = name, .lag = lag };
	struct rig_device *d = NULL;

	if (rig_polled_create(&c, p) || rig_open(rig_polled_opener(*p), &d)) {
		fprintf(stderr, "open %s: %s\n", name, rig_why());
		exit(1);
	}
	return d;
}

static void
close_polled(struct rig_device *d, struct rig_polled *p)
{
	rig_close(d);
	rig_device_release(d);
	if (rig_polled_live_regions(p)) {
		fprintf(stderr, "%lld regions left\n", (long long)rig_polled_live_regions(p));
		failed = true;
	}
	rig_polled_destroy(p);
}

int
main(int argc, char **argv)
{
	int seconds = argc > 2 ? atoi(argv[2]) : 5, rounds = 0;
	pthread_t t[MAX_THREADS];

	nthreads = argc > 1 ? atoi(argv[1]) : 8;
	nthreads = nthreads < 2 ? 2 : nthreads > MAX_THREADS ? MAX_THREADS : nthreads;
	A = open_polled("BR-A", 4, &pa);
	B = open_polled("BR-B", 2, &pb);
	deadline_ns = rig_now_ns() + (uint64_t)seconds * 1000000000u;
	while ((rounds == 0 || rig_now_ns() < deadline_ns) && !atomic_load(&failed)) {
		if (rig_buffer_create(A, ROOT_BYTES, RIG_MEMORY_DEVICE, &root)) {
			fprintf(stderr, "root: %s\n", rig_why());
			return 1;
		}
		pthread_barrier_init(&start, NULL, (unsigned)nthreads);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		rig_buffer_release(root);
		rounds++;
	}
	close_polled(A, pa);
	close_polled(B, pb);
	printf("%d rounds, %llu claims, %llu borrows released, %s\n", rounds,
	       (unsigned long long)claims, (unsigned long long)borrows,
	       failed ? "FAILED" : "ok");
	return failed || !borrows;
}
