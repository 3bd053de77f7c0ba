/* SPDX-License-Identifier: MIT */
/*
 * rig_copy.c: rig's figures through the API of include/rig.h as it stands:
 * buffers and rig_buffer_copy() with rig_wait(). The memory device runs a
 * copy before rig_buffer_copy() returns.
 *
 *   copy_1MiB/64MiB  rig_buffer_copy() then rig_wait() on its point (GB/s
 *                    of bytes copied), against memcpy in floor.c
 *   round_trip       a copy of 4 bytes, then rig_wait() on its point
 *   batched_submit   n copies of 4 bytes, then one rig_wait() on the last
 *
 * The figures run on the memory device and, with BENCH_RIG_POLLED (meson defines it where
 * include/rig_polled.h declares the polled driver), on the polled device,
 * whose worker thread runs committed work off the submitting thread. One
 * device at a time: the two are never open together, so their threads
 * never compete for this machine's cores.
 */
#include <rig.h>
#ifdef BENCH_RIG_POLLED
#include <rig_polled.h>
#endif

#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_NS		10000000000ull	/* a wait longer than this is a hang */
#define SMALL_BYTES	4		/* one word: the least a copy moves */

struct copy {
	struct rig_buffer *src, *dst;
};

static const struct bench *prog;

/* Passes ret on, with rig_why() in a note when it is a failure. */
static int
check(int ret, const char *what)
{
	if (ret < 0)
		bench_note(prog, "%s: %s", what, rig_why());
	return ret;
}

static int
copy_wait(void *arg)
{
	struct copy *c = arg;
	struct rig_point p;
	int ret = check(rig_buffer_copy(c->src, c->dst, &p), "rig_buffer_copy");

	return ret < 0 ? ret : check(rig_wait(p, WAIT_NS), "rig_wait");
}

static int
copy_batch(void *arg, uint64_t n)
{
	struct copy *c = arg;
	struct rig_point p = { 0 };
	int ret = 0;

	for (uint64_t i = 0; i < n && ret == 0; i++)
		ret = check(rig_buffer_copy(c->src, c->dst, &p), "rig_buffer_copy");
	return ret < 0 ? ret : check(rig_wait(p, WAIT_NS), "rig_wait");
}

static void
copy_release(struct copy *c)
{
	rig_buffer_release(c->src);
	rig_buffer_release(c->dst);
}

/* Two buffers of bytes on d, src filled with a pattern. */
static int
copy_make(struct rig_device *d, size_t bytes, struct copy *c)
{
	unsigned char *pattern = malloc(bytes);
	int ret = -ENOMEM;

	*c = (struct copy){ 0 };
	if (!pattern)
		return ret;
	for (size_t i = 0; i < bytes; i++)
		pattern[i] = (unsigned char)(i * 7 + 1);
	ret = check(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &c->src),
		    "rig_buffer_create");
	if (ret == 0)
		ret = check(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &c->dst),
			    "rig_buffer_create");
	if (ret == 0)
		ret = check(rig_buffer_write(c->src, 0, pattern, bytes), "rig_buffer_write");
	if (ret < 0)
		copy_release(c);
	free(pattern);
	return ret;
}

/* dst must hold src's pattern after the copies. */
static int
copy_verify(struct copy *c, size_t bytes)
{
	unsigned char *got = malloc(bytes);
	int ret = got ? 0 : -ENOMEM;

	if (ret == 0)
		ret = check(rig_buffer_read(c->dst, 0, got, bytes), "rig_buffer_read");
	for (size_t i = 0; i < bytes && ret == 0; i++) {
		if (got[i] != (unsigned char)(i * 7 + 1)) {
			bench_note(prog, "byte %zu of the copy is %u, not %u", i,
				   got[i], (unsigned char)(i * 7 + 1));
			ret = -EPROTO;
		}
	}
	free(got);
	return ret;
}

/* The copy figures of one device. */
static int
copies(const struct bench *b, struct rig_device *d, const char *impl)
{
	static const struct {
		const char *name;
		size_t bytes;
		uint64_t n, quick_n;
	} sizes[] = {
		{ "copy_1MiB", 1u << 20, 2000, 200 },
		{ "copy_64MiB", 64u << 20, 30, 4 },
	};
	struct copy c;
	int ret = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && ret == 0; i++) {
		ret = copy_make(d, sizes[i].bytes, &c);
		if (ret < 0)
			break;
		ret = bench_per_op(b, sizes[i].name, impl, BENCH_RIG, copy_wait, &c,
				   bench_count(b, sizes[i].n, sizes[i].quick_n),
				   (double)sizes[i].bytes);
		if (ret == 0)
			ret = copy_verify(&c, sizes[i].bytes);
		copy_release(&c);
	}
	return ret;
}

/* Round trips and batched submits of one device, with 4-byte copies. */
static int
submits(const struct bench *b, struct rig_device *d, const char *impl)
{
	struct copy c;
	int ret = copy_make(d, SMALL_BYTES, &c);

	if (ret < 0)
		return ret;
	ret = bench_per_op(b, "round_trip", impl, BENCH_RIG, copy_wait, &c,
			   bench_count(b, 20000, 2000), 0);
	if (ret == 0)
		ret = bench_per_run(b, "batched_submit", impl, BENCH_RIG, copy_batch,
				    &c, bench_count(b, 200000, 20000), 0);
	if (ret == 0)
		ret = copy_verify(&c, SMALL_BYTES);
	copy_release(&c);
	return ret;
}

static int
open_memory(struct rig_device **out)
{
	return check(rig_memory_device("bench-memory", out), "rig_memory_device");
}

static void
close_memory(struct rig_device *d)
{
	rig_device_release(d);
}

#ifdef BENCH_RIG_POLLED
static struct rig_polled *polled;

/* A polled device with the default facts: one queue, lag 8. */
static int
open_polled(struct rig_device **out)
{
	struct rig_polled_config c = {
		.size = sizeof(c),
		.name = "BENCH_POLLED",
	};
	int ret = rig_polled_create(&c, &polled);

	if (ret < 0) {
		bench_note(prog, "rig_polled_create: status %d", ret);
		return ret;
	}
	ret = check(rig_open(rig_polled_opener(polled), out), "rig_open");
	if (ret < 0)
		rig_polled_destroy(polled);
	return ret;
}

static void
close_polled(struct rig_device *d)
{
	if (rig_close(d) < 0)
		bench_note(prog, "rig_close: %s", rig_why());
	rig_device_release(d);
	rig_polled_destroy(polled);
}
#endif

static const struct {
	const char *impl;
	int (*open)(struct rig_device **out);
	void (*close)(struct rig_device *d);
	bool copies;		/* run the bandwidth figures too */
} devices[] = {
	{ "rig-memory", open_memory, close_memory, true },
#ifdef BENCH_RIG_POLLED
	{ "rig-polled", open_polled, close_polled, false },
#endif
};

int
main(int argc, char **argv)
{
	struct bench b;
	int ret = 0;

	bench_init(&b, "rig_copy", argc, argv);
	prog = &b;
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]) && ret == 0; i++) {
		struct rig_device *d;

		ret = devices[i].open(&d);
		if (ret < 0)
			break;
		ret = submits(&b, d, devices[i].impl);
		if (ret == 0 && devices[i].copies)
			ret = copies(&b, d, devices[i].impl);
		devices[i].close(d);
	}
	return ret ? 1 : 0;
}
