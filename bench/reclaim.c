/* SPDX-License-Identifier: MIT */
/*
 * bench/reclaim.c: memory that returns without a free (issue 5). Per op: a
 * 4 KiB buffer is made, a copy into it submitted, and the buffer released
 * at once, its memory coming back once the copy ran: rig's alloc + release
 * with work in flight, on the polled device. The floor beside it is
 * malloc + memcpy + free of the same 4 KiB. rig-polled-copy-only is the
 * same copy into one buffer kept for the whole run, no create and no
 * release: the share of rig-polled's figure that is the polled device's
 * submit (batched_submit's path), so a run shows how much of
 * alloc_release is the allocation and the release themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rig.h"
#include "rig_polled.h"

#define BYTES 4096

static struct rig_device *d;
static struct rig_buffer *src;
static char host_src[BYTES];

static int
rig_one(void *arg)
{
	struct rig_buffer *b;

	if (rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b) ||
	    rig_buffer_copy(src, b, NULL))
		return -1;
	rig_buffer_release(b);
	return 0;
}

static struct rig_buffer *kept;

static int
copy_only_one(void *arg)
{
	return rig_buffer_copy(src, kept, NULL) ? -1 : 0;
}

static int
malloc_one(void *arg)
{
	char *volatile p = malloc(BYTES);

	if (!p)
		return -1;
	memcpy(p, host_src, BYTES);
	free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "POLLED", .lag = 64 };
	struct rig_polled *p;
	struct bench b;
	uint64_t n;
	int ret;

	bench_init(&b, "reclaim", argc, argv);
	if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
	    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &src) ||
	    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &kept)) {
		fprintf(stderr, "reclaim: %s\n", rig_why());
		return 1;
	}
	n = bench_count(&b, 100000, 10000);
	ret = bench_per_op(&b, "alloc_release", "malloc-free", BENCH_FLOOR, malloc_one, NULL, n, 0);
	ret = ret ? ret : bench_per_op(&b, "alloc_release", "rig-polled", BENCH_RIG, rig_one,
				       NULL, n, 0);
	ret = ret ? ret : bench_per_op(&b, "alloc_release", "rig-polled-copy-only", BENCH_RIG,
				       copy_only_one, NULL, n, 0);
	if (ret)
		fprintf(stderr, "reclaim: %s\n", rig_why());
	rig_buffer_release(kept);
	rig_buffer_release(src);
	rig_close(d);
	rig_device_release(d);
	rig_polled_destroy(p);
	return ret ? 1 : 0;
}
