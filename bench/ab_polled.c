/* SPDX-License-Identifier: MIT */
/*
 * ab_polled.c: two builds of librig side by side in one process, for a
 * change to the submit path whose effect is smaller than this machine's
 * swings (issue 13). Not a figure of bench/run (it takes two libraries):
 *
 *   ab_polled A.so B.so [rounds [alloc_release]]
 *
 * Each library is loaded in a namespace of its own (dlmopen), opens a
 * polled device with the default facts, and makes 4-byte copies then one
 * wait on the last (rig_copy.c's batched_submit); with alloc_release,
 * each op makes a 4 KiB buffer, copies 4 KiB into it and releases it, on
 * a device of lag 64 (reclaim.c's alloc_release). Their rounds alternate,
 * A then B, then B then A, with a sleep before each so the other device's
 * threads are asleep; the machine's phases (this VM's batched_submit moves
 * between some 70, 85 and 100-170 ns for a second or more at a time) then
 * fall on both alike, and the median of the per-pair ratios B / A resolves
 * a few per cent where separate runs of each do not. Not always: an A / A
 * run (one library twice) gave 0.994 to 1.005 in eight runs of ten here,
 * but in two one device stayed slower than the other for the whole run
 * (0.56 and 0.77, every pair the same way: where each device's threads
 * ran, not the code). So run A / A beside each A / B, swap A and B, and
 * trust a ratio only where both orders agree.
 *
 * librig's TLS does not fit the space glibc keeps for a second namespace:
 * run it with GLIBC_TUNABLES=glibc.rtld.optional_static_tls=1048576.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rig.h>
#include <rig_polled.h>

#define COPIES		100000	/* a round */
#define WAIT_NS		10000000000ull
#define MAX_ROUNDS	1000

/* One library's calls, and its device and buffers. */
struct lib {
	const char *path;
	__typeof__(&rig_polled_create) polled_create;
	__typeof__(&rig_polled_opener) polled_opener;
	__typeof__(&rig_open) open;
	__typeof__(&rig_buffer_create) buffer_create;
	__typeof__(&rig_buffer_copy) buffer_copy;
	__typeof__(&rig_buffer_release) buffer_release;
	__typeof__(&rig_wait) wait;
	__typeof__(&rig_why) why;
	struct rig_device *d;
	struct rig_buffer *src, *dst;
};

static void
die(const struct lib *l, const char *what)
{
	fprintf(stderr, "ab_polled: %s: %s: %s\n", l->path, what, l->why ? l->why() : dlerror());
	exit(1);
}

static void *
sym(struct lib *l, void *h, const char *name)
{
	void *f = dlsym(h, name);

	if (!f)
		die(l, name);
	return f;
}

static bool alloc_release;	/* the op: a copy, or reclaim.c's alloc_release */
static uint64_t bytes = 4;

static void
load(struct lib *l, const char *path)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "AB_POLLED",
				       .lag = alloc_release ? 64 : 0 };
	struct rig_polled *p;
	void *h;

	*l = (struct lib){ .path = path };
	if (!(h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL)))
		die(l, "dlmopen");
	*(void **)&l->polled_create = sym(l, h, "rig_polled_create");
	*(void **)&l->polled_opener = sym(l, h, "rig_polled_opener");
	*(void **)&l->open = sym(l, h, "rig_open");
	*(void **)&l->buffer_create = sym(l, h, "rig_buffer_create");
	*(void **)&l->buffer_copy = sym(l, h, "rig_buffer_copy");
	*(void **)&l->buffer_release = sym(l, h, "rig_buffer_release");
	*(void **)&l->wait = sym(l, h, "rig_wait");
	*(void **)&l->why = sym(l, h, "rig_why");
	if (l->polled_create(&c, &p) < 0 || l->open(l->polled_opener(p), &l->d) < 0)
		die(l, "the polled device");
	if (l->buffer_create(l->d, bytes, RIG_MEMORY_DEVICE, &l->src) < 0 ||
	    l->buffer_create(l->d, bytes, RIG_MEMORY_DEVICE, &l->dst) < 0)
		die(l, "rig_buffer_create");
}

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* A buffer made, a copy into it, the buffer released at once. */
static void
alloc_copy_release(struct lib *l, struct rig_point *p)
{
	struct rig_buffer *b;

	if (l->buffer_create(l->d, bytes, RIG_MEMORY_DEVICE, &b) < 0)
		die(l, "rig_buffer_create");
	if (l->buffer_copy(l->src, b, p) < 0)
		die(l, "rig_buffer_copy");
	l->buffer_release(b);
}

/* ns per op of one round. */
static double
round_of(struct lib *l)
{
	struct timespec settle = { 0, 5000000 };	/* the other device's threads sleep */
	struct rig_point p;
	double t0;

	nanosleep(&settle, NULL);
	t0 = now_ns();
	for (int i = 0; i < COPIES; i++)
		if (alloc_release)
			alloc_copy_release(l, &p);
		else if (l->buffer_copy(l->src, l->dst, &p) < 0)
			die(l, "rig_buffer_copy");
	if (l->wait(p, WAIT_NS) < 0)
		die(l, "rig_wait");
	return (now_ns() - t0) / COPIES;
}

static int
by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

int
main(int argc, char **argv)
{
	static double a[MAX_ROUNDS], b[MAX_ROUNDS], ratio[MAX_ROUNDS];
	struct lib la, lb;
	int rounds = argc > 3 ? atoi(argv[3]) : 40, b_faster = 0;

	alloc_release = argc > 4 && strcmp(argv[4], "alloc_release") == 0;
	if (argc < 3 || rounds < 1 || rounds > MAX_ROUNDS ||
	    (argc > 4 && !alloc_release)) {
		fprintf(stderr, "usage: ab_polled A.so B.so [rounds, 1 to %d [alloc_release]]\n",
			MAX_ROUNDS);
		return 2;
	}
	if (alloc_release)
		bytes = 4096;
	load(&la, argv[1]);
	load(&lb, argv[2]);
	for (int i = 0; i < rounds; i++) {
		if (i & 1) {
			b[i] = round_of(&lb);
			a[i] = round_of(&la);
		} else {
			a[i] = round_of(&la);
			b[i] = round_of(&lb);
		}
		ratio[i] = b[i] / a[i];
		b_faster += b[i] < a[i];
	}
	qsort(a, (size_t)rounds, sizeof(a[0]), by_value);
	qsort(b, (size_t)rounds, sizeof(b[0]), by_value);
	qsort(ratio, (size_t)rounds, sizeof(ratio[0]), by_value);
	printf("%s, polled, ns per op, %d rounds of %d\n",
	       alloc_release ? "alloc_release" : "batched_submit", rounds, COPIES);
	printf("A %s: median %.1f, least %.1f\n", la.path, a[rounds / 2], a[0]);
	printf("B %s: median %.1f, least %.1f\n", lb.path, b[rounds / 2], b[0]);
	printf("B / A per pair: median %.3f (B faster in %d of %d)\n", ratio[rounds / 2],
	       b_faster, rounds);
	return 0;
}
