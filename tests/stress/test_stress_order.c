/* SPDX-License-Identifier: MIT */
/*
 * test_stress_order: docs/order.md, rule 3 under load. Threads submit random copies over
 * random overlapping views of allocations shared (borrowed) by three polled
 * devices. Two logs are kept: every claim, per allocation in the order the
 * claims landed (claim_trace, under the allocation's lock); and when each
 * value's work started and ended (the polled worker's callback, numbered
 * by one global counter). Afterwards a checker proves, for every pair of
 * claims of one allocation that conflict (either writes, and they share a
 * word), that the later one's work started after the earlier one's ended.
 *
 * Usage: test_stress_order [threads] [copies per thread] (default 8, 3000; the suite runs 1500).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_polled.h"
#include "core/device.h"
#include "order_oracle.h"

#define NDEV 3
#define NALLOC 4
#define WORDS 64

static struct run_rec *runs[NDEV];	/* by value - base */
static uint64_t base[NDEV];
static uint32_t slot_of[NDEV];
static struct polled_dev { struct rig_polled *p; struct rig_device *d; } dev[NDEV];
static struct rig_buffer *root[NALLOC], *on[NALLOC][NDEV];
static int nthreads = 8, per_thread = 3000;
static _Atomic bool failed;

static void
on_run(void *arg, uint64_t value, int end)
{
	int d = (int)(intptr_t)arg;

	order_stamp(&runs[d][value - base[d]], end);
}

static struct run_rec *
run_of(uint32_t slot, uint64_t value)
{
	for (int d = 0; d < NDEV; d++)
		if (slot_of[d] == slot)
			return &runs[d][value - base[d]];
	return NULL;
}

static void *
submitter(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < per_thread && !atomic_load(&failed); i++) {
		int d = rand_r(&seed) % NDEV, n = 1 + rand_r(&seed) % 16;
		int a = rand_r(&seed) % NALLOC, b = rand_r(&seed) % NALLOC;
		int lo = rand_r(&seed) % (WORDS - n + 1), lo2 = rand_r(&seed) % (WORDS - n + 1);
		struct rig_buffer *src = NULL, *dst = NULL;

		if (a == b && lo < lo2 + n && lo2 < lo + n)
			continue;
		if (rig_buffer_view(on[a][d], (size_t)lo * 4, (size_t)n * 4, RIG_READ_WRITE, &src) ||
		    rig_buffer_view(on[b][d], (size_t)lo2 * 4, (size_t)n * 4, RIG_READ_WRITE, &dst) ||
		    rig_buffer_copy(src, dst, NULL)) {
			fprintf(stderr, "submitter: %s\n", rig_why());
			atomic_store(&failed, true);
		}
		rig_buffer_release(src);
		rig_buffer_release(dst);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	static const char *names[NDEV] = { "S0", "S1", "S2" };
	pthread_t t[64];
	struct rig_point last[NDEV];

	if (argc > 1)
		nthreads = atoi(argv[1]) > 64 ? 64 : atoi(argv[1]);
	if (argc > 2)
		per_thread = atoi(argv[2]);
	for (int d = 0; d < NDEV; d++) {
		struct rig_polled_config c = { .size = sizeof(c), .name = names[d], .lag = 1 + 5 * d,
			.completion = d ? RIG_BY_STORE : RIG_BY_HOST, .waits = { d != 1, d == 0 },
			.ran = on_run, .ran_arg = (void *)(intptr_t)d };

		runs[d] = calloc((size_t)nthreads * (size_t)per_thread + 16, sizeof(*runs[d]));
		if (rig_polled_create(&c, &dev[d].p) || rig_open(rig_polled_opener(dev[d].p), &dev[d].d))
			return 1;
		slot_of[d] = (uint32_t)dev[d].d->tl.slot;
		base[d] = dev[d].d->tl.base + 1;
	}
	for (int a = 0; a < NALLOC; a++) {
		if (rig_buffer_create(dev[a % NDEV].d, WORDS * 4, RIG_MEMORY_DEVICE, &root[a]))
			return 1;
		for (int d = 0; d < NDEV; d++)
			if (rig_buffer_borrow(root[a], dev[d].d, &on[a][d]))
				return 1;
	}
	claim_trace = order_on_claim;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, submitter, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	claim_trace = NULL;
	for (int d = 0; d < NDEV; d++)
		if (rig_buffer_copy(on[0][d], on[1][d], &last[d]) || rig_wait(last[d], 60ull * 1000000000))
			return 1;
	printf("%llu claims, %llu conflicting pairs ran in claim order\n",
	       (unsigned long long)atomic_load(&order_nclaims), (unsigned long long)order_check(run_of));
	for (int a = 0; a < NALLOC; a++) {
		for (int d = 0; d < NDEV; d++)
			rig_buffer_release(on[a][d]);
		rig_buffer_release(root[a]);
	}
	for (int d = 0; d < NDEV; d++) {
		rig_close(dev[d].d);
		rig_device_release(dev[d].d);
		rig_polled_destroy(dev[d].p);
		free(runs[d]);
	}
	return atomic_load(&failed);
}
