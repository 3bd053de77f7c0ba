/* SPDX-License-Identifier: MIT */
/*
 * test_stress_submit: submitters and waiters on the memory and polled
 * devices at once. Each submitter owns a pair of buffers on one device and,
 * round after round, writes a pattern into its source, copies it to its
 * destination, and reads it back; every round's bytes must be the round's.
 * Waiters pick random published points of any device and wait on them:
 * every one must be reached.
 *
 * Usage: test_stress_submit [submitters] [waiters] [seconds]
 * (defaults 8, 4, 5). Threads start at a barrier; the first violation
 * stops the run with a message.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_polled.h"

#define SECOND_NS 1000000000ull
#define WORDS 256
#define RECENT 64

static struct rig_device *devices[3];
static struct rig_polled *polled[2];
static pthread_barrier_t start;
static _Atomic bool stop, failed;
static _Atomic uint64_t recent[3][RECENT];	/* published values per device */
static _Atomic uint64_t rounds, waits;
static uint64_t deadline_ns;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (rig_why: %s)\n", rig_why());		\
		atomic_store(&failed, true);				\
		atomic_store(&stop, true);				\
		return NULL;						\
	}								\
} while (0)

static void *
submitter(void *arg)
{
	int id = (int)(intptr_t)arg, dev = id % 3;
	struct rig_device *d = devices[dev];
	struct rig_buffer *src, *dst;
	uint32_t x[WORDS], y[WORDS];

	if (rig_buffer_create(d, sizeof(x), RIG_MEMORY_DEVICE, &src) ||
	    rig_buffer_create(d, sizeof(x), RIG_MEMORY_DEVICE, &dst)) {
		fprintf(stderr, "submitter %d: %s\n", id, rig_why());
		atomic_store(&failed, true);
		return NULL;
	}
	pthread_barrier_wait(&start);
	for (uint32_t round = 0; !atomic_load(&stop); round++) {
		struct rig_point p;

		for (int i = 0; i < WORDS; i++)
			x[i] = (uint32_t)id << 24 ^ round * 2654435761u ^ (uint32_t)i;
		CHECK(rig_buffer_write(src, 0, x, sizeof(x)) == 0, "submitter %d: write", id);
		CHECK(rig_buffer_copy(src, dst, &p) == 0, "submitter %d: copy", id);
		atomic_store(&recent[dev][p.value % RECENT], p.value);
		CHECK(rig_buffer_read(dst, 0, y, sizeof(y)) == 0, "submitter %d: read", id);
		CHECK(!memcmp(x, y, sizeof(x)), "submitter %d: round %u read other bytes", id, round);
		atomic_fetch_add(&rounds, 1);
		if (rig_now_ns() > deadline_ns)
			atomic_store(&stop, true);
	}
	rig_buffer_release(src);
	rig_buffer_release(dst);
	return NULL;
}

static void *
waiter(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	pthread_barrier_wait(&start);
	while (!atomic_load(&stop)) {
		int dev = rand_r(&seed) % 3;
		uint64_t v = atomic_load(&recent[dev][rand_r(&seed) % RECENT]);
		struct rig_point p = { devices[dev], v };
		int ret;

		if (!v)
			continue;
		/* No deadline: a value behind eight submitters' queue on a
		 * loaded machine under a sanitizer may take seconds; a wait that
		 * never ends is the test's timeout. */
		ret = rig_wait(p, UINT64_MAX);
		CHECK(ret == 0, "waiter: value %llu of %s: %d",
		      (unsigned long long)v, rig_name(devices[dev]), ret);
		CHECK(rig_reached(p), "waiter: %llu returned but is not reached",
		      (unsigned long long)v);
		atomic_fetch_add(&waits, 1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nsub = argc > 1 ? atoi(argv[1]) : 8;
	int nwait = argc > 2 ? atoi(argv[2]) : 4;
	int seconds = argc > 3 ? atoi(argv[3]) : 5;
	pthread_t t[nsub + nwait];

	for (int i = 0; i < 2; i++) {
		struct rig_polled_config c = { .size = sizeof(c), .lag = i ? 3 : 16,
					       .name = i ? "POLLED-B" : "POLLED-A" };

		if (rig_polled_create(&c, &polled[i]) ||
		    rig_open(rig_polled_opener(polled[i]), &devices[i + 1])) {
			fprintf(stderr, "open: %s\n", rig_why());
			return 1;
		}
	}
	if (rig_memory_device("M", &devices[0])) {
		fprintf(stderr, "open: %s\n", rig_why());
		return 1;
	}
	deadline_ns = rig_now_ns() + (uint64_t)seconds * SECOND_NS;
	pthread_barrier_init(&start, NULL, (unsigned)(nsub + nwait));
	for (int i = 0; i < nsub; i++)
		pthread_create(&t[i], NULL, submitter, (void *)(intptr_t)i);
	for (int i = 0; i < nwait; i++)
		pthread_create(&t[nsub + i], NULL, waiter, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nsub + nwait; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3; i++) {
		rig_close(devices[i]);
		rig_device_release(devices[i]);
	}
	for (int i = 0; i < 2; i++) {
		if (rig_polled_live_regions(polled[i])) {
			fprintf(stderr, "polled %d holds %lld regions after close\n", i,
				(long long)rig_polled_live_regions(polled[i]));
			atomic_store(&failed, true);
		}
		rig_polled_destroy(polled[i]);
	}
	printf("%llu rounds, %llu waits, %s\n", (unsigned long long)rounds,
	       (unsigned long long)waits, failed ? "FAILED" : "ok");
	return failed || !rounds || !waits;
}
