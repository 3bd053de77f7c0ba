/* SPDX-License-Identifier: MIT */
/*
 * test_stress_host_access: host access is ordered as a whole against every
 * submit's claim of the same memory (docs/order.md: a host write waits for every
 * use and the uses after it follow it; a host read waits for the last
 * write). A host access marks its allocation busy and lets the claim's lock
 * go while it waits and copies (core/buffer.c), so that is what this
 * checks: on one shared buffer per device (memory and polled), writers fill
 * it whole with one value, copiers copy it into buffers of their own and
 * readers read it, all at once. Every copy's bytes and every read's must be
 * one writer's whole fill: a copy or read that ran during a write's copy
 * would see two values.
 *
 * Usage: test_stress_host_access [threads per device] [seconds] (4, 5).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"
#include "rig_polled.h"

#define SECOND_NS 1000000000ull
#define WORDS (64 * 1024)	/* 256 KiB: a write's copy takes a while */

static struct rig_device *devices[2];
static struct rig_buffer *shared[2];
static pthread_barrier_t start;
static _Atomic bool stop, failed;
static _Atomic uint64_t checks;
static uint64_t deadline_ns;

struct role { int dev, kind, id; };	/* kind: 0 writer, 1 copier, 2 reader */

static void
fail(const struct role *r, const char *what)
{
	fprintf(stderr, "device %d, thread %d (role %d): %s (rig_why: %s)\n", r->dev,
		r->id, r->kind, what, rig_why());
	atomic_store(&failed, true);
	atomic_store(&stop, true);
}

/* Every word of w is w[0]. */
static bool
whole(const uint32_t *w)
{
	for (size_t i = 1; i < WORDS; i++)
		if (w[i] != w[0])
			return false;
	return true;
}

static void *
worker(void *arg)
{
	const struct role *r = arg;
	uint32_t *w = malloc(WORDS * sizeof(*w));
	struct rig_buffer *own = NULL;
	struct rig_point p;

	if (!w || (r->kind == 1 &&
		   rig_buffer_create(devices[r->dev], WORDS * 4, RIG_MEMORY_DEVICE, &own))) {
		fail(r, "setup");
		free(w);
		return NULL;
	}
	pthread_barrier_wait(&start);
	for (uint32_t round = 1; !atomic_load(&stop) && rig_now_ns() < deadline_ns; round++) {
		if (r->kind == 0) {
			for (size_t i = 0; i < WORDS; i++)
				w[i] = (uint32_t)r->id << 24 | (round & 0xffffff);
			if (rig_buffer_write(shared[r->dev], 0, w, WORDS * 4))
				fail(r, "rig_buffer_write");
			continue;
		}
		if (r->kind == 1 && (rig_buffer_copy(shared[r->dev], own, &p) ||
				     rig_buffer_read(own, 0, w, WORDS * 4))) {
			fail(r, "rig_buffer_copy, then rig_buffer_read");
			break;
		}
		if (r->kind == 2 && rig_buffer_read(shared[r->dev], 0, w, WORDS * 4)) {
			fail(r, "rig_buffer_read");
			break;
		}
		if (!whole(w)) {
			fail(r, "the bytes mix two writes");
			break;
		}
		atomic_fetch_add(&checks, 1);
	}
	rig_buffer_release(own);
	free(w);
	return NULL;
}

int
main(int argc, char **argv)
{
	int per = argc > 1 ? atoi(argv[1]) : 4;
	double seconds = argc > 2 ? atof(argv[2]) : 5;
	struct rig_polled_config c = { .size = sizeof(c), .name = "HA_POLLED", .lag = 4 };
	struct rig_polled *pp;
	struct role *roles;
	pthread_t *t;
	int n;

	if (per < 3)
		per = 3;	/* a writer, a copier and a reader at least */
	n = 2 * per;
	roles = calloc((size_t)n, sizeof(*roles));
	t = calloc((size_t)n, sizeof(*t));
	if (!roles || !t || rig_memory_device("HA_MEMORY", &devices[0]) ||
	    rig_polled_create(&c, &pp) || rig_open(rig_polled_opener(pp), &devices[1]) ||
	    rig_buffer_create(devices[0], WORDS * 4, RIG_MEMORY_DEVICE, &shared[0]) ||
	    rig_buffer_create(devices[1], WORDS * 4, RIG_MEMORY_DEVICE, &shared[1])) {
		fprintf(stderr, "setup: %s\n", rig_why());
		return 1;
	}
	for (int d = 0; d < 2; d++)	/* one whole fill before any copy */
		if (rig_buffer_write(shared[d], 0, (uint32_t[WORDS]){ 0 }, WORDS * 4))
			return 1;
	deadline_ns = rig_now_ns() + (uint64_t)(seconds * SECOND_NS);
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++) {
		roles[i] = (struct role){ .dev = i % 2, .kind = (i / 2) % 3, .id = i };
		pthread_create(&t[i], NULL, worker, &roles[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%llu whole reads and copies\n", (unsigned long long)atomic_load(&checks));
	for (int d = 0; d < 2; d++)
		rig_buffer_release(shared[d]);
	rig_close(devices[1]);
	rig_device_release(devices[0]);
	rig_device_release(devices[1]);
	rig_polled_destroy(pp);
	free(roles);
	free(t);
	return atomic_load(&failed) || !atomic_load(&checks) ? 1 : 0;
}
