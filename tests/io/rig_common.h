/* SPDX-License-Identifier: MIT */
/*
 * tests/io/rig_common.h: what the tests of the disk through rig's public
 * API share: a disk opened with rig_open_io, rig_why() checks, and the
 * rig-level round trips (file buffers against buffers of other devices,
 * ordered by stamps alone) that every mode must pass.
 */
#ifndef TESTS_IO_RIG_COMMON_H
#define TESTS_IO_RIG_COMMON_H

#include "common.h"
#include "rig.h"
#include "core/io.h"	/* io_handle(): the disk engine's handle, for its test switches */

/* Assert a call failed with code and rig_why() holds each string. */
#define assert_refused(call, code, ...) do {				\
	const char *want_[] = { __VA_ARGS__ };				\
	int ret_ = (call);						\
	if (ret_ != (code))						\
		fail_msg("%s gave %d (%s), not %d", #call, ret_, rig_why(), (code)); \
	for (size_t i_ = 0; i_ < sizeof(want_) / sizeof(*want_); i_++)	\
		if (!strstr(rig_why(), want_[i_]))			\
			fail_msg("rig_why() is \"%s\", lacking \"%s\"",	\
				 rig_why(), want_[i_]);			\
} while (0)

#define TRY(call) do {							\
	int ret_ = (call);						\
	if (ret_ < 0)							\
		fail_msg("%s: %d: %s", #call, ret_, rig_why());		\
} while (0)

/* Open a disk named name through rig with opt (NULL: defaults). */
static inline struct rig_device *
rdisk_open(const char *name, const struct rig_disk_options *opt)
{
	static _Thread_local struct rig_io_opener o;
	struct rig_device *d = NULL;

	assert_int_equal(rig_disk_opener_init(&o, name, opt), 0);
	TRY(rig_open_io(&o, &d));
	return d;
}

/* The disk's mode, as the engine reports it. */
static inline const char *
rdisk_mode(struct rig_device *d)
{
	return disk_mode(io_handle(d));
}

static inline void
rig_read_all(struct rig_buffer *b, void *dst)
{
	TRY(rig_buffer_read(b, 0, dst, rig_buffer_length(b)));
}

/*
 * The rig-level round trips: n rounds, each a random range of a file of
 * file_bytes. A round writes random bytes into a host-addressed buffer of
 * one of the devices hosts[] (rig_buffer_write), copies it into the
 * file's range, copies the range back into a second such buffer of another
 * of those devices, and (every 8th round, or at the end) reads that buffer
 * back with rig_buffer_read and compares it with a shadow of the file.
 * Nothing waits but rig_buffer_read: the stamps alone order the disk's
 * work against the other devices' and the host's.
 */
static inline void
rig_round_trips(struct rig_device *disk, struct rig_device *const *hosts,
		size_t nhosts, const char *name, uint64_t file_bytes,
		uint64_t max_op, uint64_t seed, int n)
{
	unsigned char *shadow = calloc(1, file_bytes), *got = malloc(max_op);
	unsigned char *bytes = malloc(max_op), *whole = malloc(file_bytes);
	struct rig_buffer *f, *whole_b;
	uint64_t s = seed;

	assert_non_null(shadow);
	assert_non_null(whole);
	TRY(rig_disk_create_file(disk, tmp_path(name), file_bytes, &f));
	for (int i = 0; i < n; i++) {
		uint64_t len = 1 + rnd(&s) % (i % 5 ? 4096 : max_op);
		uint64_t off = rnd(&s) % (file_bytes - len + 1);
		struct rig_device *a = hosts[rnd(&s) % nhosts], *b = hosts[rnd(&s) % nhosts];
		struct rig_buffer *src, *dst, *range;

		TRY(rig_buffer_create(a, len, RIG_MEMORY_DEVICE, &src));
		TRY(rig_buffer_create(b, len, RIG_MEMORY_DEVICE, &dst));
		TRY(rig_buffer_view(f, off, len, RIG_READ_WRITE, &range));
		fill_random(bytes, len, &s);
		memcpy(shadow + off, bytes, len);
		TRY(rig_buffer_write(src, 0, bytes, len));
		TRY(rig_buffer_copy(src, range, NULL));
		TRY(rig_buffer_copy(range, dst, NULL));
		if (i % 8 == 7 || i == n - 1) {
			TRY(rig_buffer_read(dst, 0, got, len));
			if (memcmp(got, shadow + off, len))
				fail_msg("round %d: %llu bytes at %llu came back wrong (%s to %s)",
					 i, (unsigned long long)len, (unsigned long long)off,
					 rig_name(a), rig_name(b));
		}
		/* Released at once: their memory waits for the disk's work. */
		rig_buffer_release(src);
		rig_buffer_release(dst);
		rig_buffer_release(range);
	}
	TRY(rig_buffer_create(hosts[0], file_bytes, RIG_MEMORY_DEVICE, &whole_b));
	TRY(rig_buffer_copy(f, whole_b, NULL));
	rig_read_all(whole_b, whole);
	if (memcmp(whole, shadow, file_bytes))
		fail_msg("the whole file differs from what was written");
	rig_buffer_release(whole_b);
	rig_buffer_release(f);
	unlink(tmp_path(name));
	free(shadow);
	free(got);
	free(bytes);
	free(whole);
}

#endif
