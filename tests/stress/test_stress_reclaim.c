/* SPDX-License-Identifier: MIT */
/*
 * test_stress_reclaim: threads allocate, submit, release and consume under
 * a small budget on three devices at once (the memory device and two
 * polled devices). After every allocation the device holds no more than
 * its budget; every copy's bytes arrive; at the end every polled region
 * has gone back (no leak), and nothing deadlocked.
 *
 * Usage: test_stress_reclaim [threads] [seconds] (default 8, 5).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_polled.h"

#define BUDGET (2u << 20)
#define NDEV 3

static struct rig_device *dev[NDEV];
static struct rig_polled *polled[NDEV];
static uint64_t deadline_ns;
static _Atomic bool failed;
static _Atomic uint64_t ops, refused;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (rig_why: %s)\n", rig_why());		\
		atomic_store(&failed, true);				\
		return NULL;						\
	}								\
} while (0)

static void *
worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint32_t x[64], y[64];

	while (rig_now_ns() < deadline_ns && !atomic_load(&failed)) {
		struct rig_device *d = dev[rand_r(&seed) % NDEV];
		size_t bytes = 4096u << (rand_r(&seed) % 7);	/* 4 KiB .. 256 KiB */
		struct rig_buffer *a, *b, *c;
		int ret;

		ret = rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &a);
		CHECK(rig_allocated(d) <= BUDGET, "%s holds %llu, over its budget", rig_name(d),
		      (unsigned long long)rig_allocated(d));
		if (ret == RIG_ENOMEM) {	/* others hold the budget: allowed */
			atomic_fetch_add(&refused, 1);
			continue;
		}
		CHECK(ret == 0, "create on %s: %d", rig_name(d), ret);
		ret = rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &b);
		CHECK(rig_allocated(d) <= BUDGET, "%s over its budget", rig_name(d));
		if (ret == RIG_ENOMEM) {
			rig_buffer_release(a);
			atomic_fetch_add(&refused, 1);
			continue;
		}
		for (int i = 0; i < 64; i++)
			x[i] = seed ^ (uint32_t)i;
		CHECK(rig_buffer_write(a, 0, x, sizeof(x)) == 0, "write");
		CHECK(rig_buffer_copy(a, b, NULL) == 0, "copy");
		if (rand_r(&seed) % 2) {
			CHECK(rig_buffer_consume(b, &c) == 0, "consume");
			rig_buffer_release(b);
			b = c;
		}
		rig_buffer_release(a);		/* goes back once the copy ran */
		CHECK(rig_buffer_read(b, 0, y, sizeof(y)) == 0, "read");
		CHECK(!memcmp(x, y, sizeof(x)), "the copy's bytes differ");
		rig_buffer_release(b);
		atomic_fetch_add(&ops, 1);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 8, seconds = argc > 2 ? atoi(argv[2]) : 5;
	pthread_t t[64];

	if (nthreads > 64)
		nthreads = 64;
	if (rig_memory_device("M-reclaim", &dev[0]))
		return 1;
	for (int i = 1; i < NDEV; i++) {
		struct rig_polled_config c = { .size = sizeof(c), .lag = 4u * (unsigned)i,
					       .name = i == 1 ? "R-A" : "R-B" };

		if (rig_polled_create(&c, &polled[i]) ||
		    rig_open(rig_polled_opener(polled[i]), &dev[i]))
			return 1;
	}
	for (int i = 0; i < NDEV; i++)
		rig_set_budget(dev[i], BUDGET);
	deadline_ns = rig_now_ns() + (uint64_t)seconds * 1000000000u;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NDEV; i++) {
		rig_close(dev[i]);
		rig_device_release(dev[i]);
		if (polled[i] && rig_polled_live_regions(polled[i])) {
			fprintf(stderr, "%d regions left\n", (int)rig_polled_live_regions(polled[i]));
			failed = true;
		}
		if (polled[i])
			rig_polled_destroy(polled[i]);
	}
	printf("%llu rounds, %llu allocations refused for a full budget, %s\n",
	       (unsigned long long)ops, (unsigned long long)refused, failed ? "FAILED" : "ok");
	return failed || !ops;
}
