/* SPDX-License-Identifier: MIT */
/*
 * tests/core/common.h: what the core tests share: cmocka's headers in the
 * order it needs, a polled device opened in one call, and a check of
 * rig_why().
 */
#ifndef TESTS_COMMON_H
#define TESTS_COMMON_H

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rig.h"
#include "rig_polled.h"

#define SECOND_NS 1000000000ull

#include "under_tsan.h"

/* Assert that the last failure's message contains each of the strings. */
#define assert_why(...) do {						\
	const char *want_[] = { __VA_ARGS__ };				\
	for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(*want_); i_++)	\
		if (!strstr(rig_why(), want_[i_]))			\
			fail_msg("rig_why() is \"%s\", lacking \"%s\"",	\
				 rig_why(), want_[i_]);			\
} while (0)

/* A fake driver's regions in host memory (rig_ops alloc, free and locate),
 * lines whole. */
static inline int
fake_host_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
		const char **fault)
{
	*region = aligned_alloc(64, bytes > 64 ? (bytes + 63) & ~(uint64_t)63 : 64);
	return *region ? RIG_OK : RIG_NO_ROOM;
}

static inline void
fake_host_free(void *t, void *region)
{
	free(region);
}

static inline void
fake_host_locate(void *t, void *region, struct rig_location *out)
{
	*out = (struct rig_location){ .has_address = true, .address = (uintptr_t)region,
				      .host = region };
}

struct polled_dev {
	struct rig_polled *p;
	struct rig_device *d;
};

/* Open a polled device configured by c (its size is set here). */
static inline struct polled_dev
polled_open(struct rig_polled_config c)
{
	struct polled_dev pd;

	c.size = sizeof(c);
	assert_int_equal(rig_polled_create(&c, &pd.p), 0);
	assert_int_equal(rig_open(rig_polled_opener(pd.p), &pd.d), 0);
	return pd;
}

/* Close and release it, and check the driver holds no memory or code. */
static inline void
polled_close(struct polled_dev pd)
{
	assert_int_equal(rig_close(pd.d), 0);
	assert_false(rig_polled_open(pd.p));
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
	assert_int_equal(rig_polled_live_images(pd.p), 0);
	rig_device_release(pd.d);
	rig_polled_destroy(pd.p);
}

/* A buffer, asserted made. */
static inline struct rig_buffer *
buffer_new(struct rig_device *d, size_t bytes)
{
	struct rig_buffer *b = NULL;

	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &b), 0);
	return b;
}

/* Entries of a folder, not counting dot names: a /proc/self folder's open
 * fds or threads, or the files a test left in its own folder. */
static inline int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

#endif
