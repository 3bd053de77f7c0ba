/* SPDX-License-Identifier: MIT */
/*
 * tests/io/common.h: what the disk's tests share: cmocka's headers, a disk
 * opened in one call, a word waited for with a deadline, temporary files
 * under the build folder, and the round trips every mode must pass.
 */
#ifndef TESTS_IO_COMMON_H
#define TESTS_IO_COMMON_H

#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/disk.h"

#define SECOND_NS 1000000000ull

/* 1 in an ASan or ThreadSanitizer build (gcc's macros, or clang's feature
 * tests): a test's fixed work is smaller there, where every access costs
 * several times more, so it ends well inside its timeout on a loaded
 * machine. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define IO_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define IO_SANITIZED 1
#endif
#endif
#ifndef IO_SANITIZED
#define IO_SANITIZED 0
#endif

struct tdisk {
	_Atomic uint64_t word;
	void *d;
	uint64_t next;		/* the next value to submit */
};

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

static char tmp_dir_path[512];

static int
tmp_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);		/* best effort */
	return 0;
}

static void
tmp_cleanup(void)
{
	nftw(tmp_dir_path, tmp_remove, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh folder for temporary files under the build folder, made before
 * main (so forked children share it) and removed at the parent's exit. */
__attribute__((constructor)) static void
tmp_make(void)
{
	snprintf(tmp_dir_path, sizeof(tmp_dir_path), "%s/io-XXXXXX", TEST_TMP);
	if (!mkdtemp(tmp_dir_path)) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmp_dir_path, strerror(errno));
		exit(1);
	}
	atexit(tmp_cleanup);
}

static inline const char *
tmp_dir(void)
{
	return tmp_dir_path;
}

static inline const char *
tmp_path(const char *name)
{
	static _Thread_local char path[8][600];
	static _Thread_local int i;
	char *p = path[i++ % 8];

	snprintf(p, 600, "%s/%s", tmp_dir(), name);
	return p;
}

/* Open t as a disk with opt (NULL: defaults), its word starting at start. */
static inline void
tdisk_open(struct tdisk *t, const struct rig_disk_options *opt, uint64_t start)
{
	struct rig_io_opener o;
	char why[256] = "";
	int ret;

	atomic_init(&t->word, start);
	assert_int_equal(rig_disk_opener_init(&o, "TEST-DISK", opt), 0);
	ret = o.make(&o, &t->word, &t->d, why, sizeof(why));
	if (ret < 0)
		fail_msg("make: %d: %s", ret, why);
	t->next = start + 1;
}

static inline void *
tfile_create(struct tdisk *t, const char *name, uint64_t bytes)
{
	char why[256];
	void *f = NULL;
	int ret = disk_file_create(t->d, tmp_path(name), bytes, &f, why, sizeof(why));

	if (ret < 0)
		fail_msg("disk_file_create: %d: %s", ret, why);
	return f;
}

/* Submit one value of ops; assert it is taken. Returns the value. */
static inline uint64_t
tsubmit(struct tdisk *t, const struct rig_io_op *ops, size_t n)
{
	const char *failure = NULL;
	int ret = rig_disk_io.submit(t->d, t->next, ops, n, &failure);

	if (ret != RIG_OK)
		fail_msg("submit of value %llu: %d: %s", (unsigned long long)t->next,
			 ret, failure ? failure : "(no message)");
	return t->next++;
}

static inline uint64_t
tsubmit1(struct tdisk *t, enum rig_io_op_kind kind, void *file, uint64_t offset,
	 void *host, uint64_t bytes)
{
	struct rig_io_op op = { kind, file, offset, host, bytes };

	return tsubmit(t, &op, 1);
}

/*
 * Bounded by progress, not by a deadline: a disk on a loaded machine may
 * take seconds for one value (a 32 MiB write and its fsync), and a wait
 * that gave up then would fail a disk that works. A disk that never gets
 * there is the test's timeout (meson.build); what it saw by then is
 * printed once, after NOTE_NS, so that timeout says why.
 */
#define NOTE_NS (10 * SECOND_NS)

/* Wait until the word shows v. */
static inline void
twait(struct tdisk *t, uint64_t v)
{
	uint64_t t0 = now_ns(), w;
	struct timespec nap = { 0, 20000 };
	bool noted = false;

	/* Pairs with the loop's release store of the word. */
	while ((w = atomic_load_explicit(&t->word, memory_order_acquire)) < v) {
		if (!noted && now_ns() - t0 > NOTE_NS) {
			const char *f = disk_failure(t->d);

			print_message("# still waiting for %llu: the word shows %llu (failure: %s)\n",
				      (unsigned long long)v, (unsigned long long)w, f ? f : "none");
			noted = true;
		}
		nanosleep(&nap, NULL);
	}
}

/* Wait until the disk fails; returns its failure text. */
static inline const char *
twait_failure(struct tdisk *t)
{
	uint64_t t0 = now_ns();
	struct timespec nap = { 0, 100000 };
	bool noted = false;
	const char *f;

	while (!(f = disk_failure(t->d))) {
		if (!noted && now_ns() - t0 > NOTE_NS) {
			print_message("# still waiting for the disk to fail (word %llu)\n",
				      (unsigned long long)atomic_load(&t->word));
			noted = true;
		}
		nanosleep(&nap, NULL);
	}
	return f;
}

static inline void
tdisk_stop(struct tdisk *t)
{
	rig_disk_io.stop(t->d, "test done");
}

#define assert_contains(s, want) do {					\
	const char *s_ = (s), *w_ = (want);				\
	if (!s_ || !strstr(s_, w_))					\
		fail_msg("\"%s\" lacks \"%s\"", s_ ? s_ : "(null)", w_);	\
} while (0)

/* xorshift: the tests' reproducible randomness. */
static inline uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Eight bytes a draw: one a draw, the 3 MiB buffers of the round trips
 * and of the conflicts cost more than their I/O under ThreadSanitizer
 * (test_disk took 218 s of its 120 at load 50). */
static inline void
fill_random(unsigned char *p, size_t n, uint64_t *s)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t r = rnd(s);

		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (unsigned char)(rnd(s) >> 24);
}

/*
 * The round trips: n writes of random sizes (1 byte to 3 MiB) at random
 * offsets of a 16 MiB file, each its own value and submitted without
 * waiting, against a shadow copy; then n reads of random ranges, compared
 * with the shadow once the word shows them; then the whole file read back.
 * Host buffers are fresh per op and live until the word shows their
 * value, so only the file orders the ops.
 */
static inline void
round_trips(struct tdisk *t, const char *name, uint64_t seed, int n)
{
	const uint64_t file_bytes = 16u << 20, max_op = 3u << 20;
	unsigned char *shadow = calloc(1, file_bytes), *whole = malloc(file_bytes);
	unsigned char **bufs = calloc((size_t)n, sizeof(*bufs));
	unsigned char **wbufs = calloc((size_t)n, sizeof(*wbufs));
	uint64_t *offs = calloc((size_t)n, sizeof(*offs)), *lens = calloc((size_t)n, sizeof(*lens));
	void *f = tfile_create(t, name, file_bytes);
	uint64_t s = seed, last = 0;

	assert_non_null(shadow);
	for (int i = 0; i < n; i++) {
		lens[i] = 1 + rnd(&s) % (i % 4 ? 65536 : max_op);
		offs[i] = rnd(&s) % (file_bytes - lens[i] + 1);
		wbufs[i] = malloc(lens[i]);
		fill_random(wbufs[i], lens[i], &s);
		memcpy(shadow + offs[i], wbufs[i], lens[i]);
		last = tsubmit1(t, RIG_IO_WRITE, f, offs[i], wbufs[i], lens[i]);
	}
	for (int i = 0; i < n; i++) {
		lens[i] = 1 + rnd(&s) % (i % 4 ? 65536 : max_op);
		offs[i] = rnd(&s) % (file_bytes - lens[i] + 1);
		bufs[i] = malloc(lens[i]);
		memset(bufs[i], 0xa5, lens[i]);
		last = tsubmit1(t, RIG_IO_READ, f, offs[i], bufs[i], lens[i]);
	}
	twait(t, last);
	for (int i = 0; i < n; i++) {
		if (memcmp(bufs[i], shadow + offs[i], lens[i]))
			fail_msg("read %d (%llu bytes at %llu) differs from what was written",
				 i, (unsigned long long)lens[i], (unsigned long long)offs[i]);
		free(bufs[i]);
		free(wbufs[i]);	/* only now: a write reads it until its value */
	}
	twait(t, tsubmit1(t, RIG_IO_READ, f, 0, whole, file_bytes));
	assert_memory_equal(whole, shadow, file_bytes);
	rig_disk_io.release(t->d, f);
	unlink(tmp_path(name));
	free(bufs);
	free(wbufs);
	free(offs);
	free(lens);
	free(shadow);
	free(whole);
}

#endif
