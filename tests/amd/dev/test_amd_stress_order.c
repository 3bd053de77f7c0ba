/* SPDX-License-Identifier: MIT */
/*
 * test_amd_stress_order: tests/stress/test_stress_order.c's oracle with the
 * AMD device on the software GPU among its devices. Threads submit random
 * copies over random overlapping views of allocations of the AMD device,
 * borrowed by two polled devices (one completing by store, one by host):
 * on a polled device a rig_buffer_copy(), on the AMD device a launch of
 * the sim's copy-words kernel (sim_dev.h) with the views as its refs. Every
 * claim is logged in the order it landed (claim_trace), and when each
 * value's work started and ended: the polled worker's callback, and the
 * AMD kernel's own start and end on the sim's CP thread, numbered by one
 * global counter. Afterwards every pair of conflicting claims of one
 * allocation (either writes, a word shared) must have run in claim order.
 *
 * Usage: test_amd_stress_order [threads] [copies per thread] (default 6, 300).
 */
#include <pthread.h>
#include <stdio.h>

#include "sim_dev.h"
#include "../../stress/order_oracle.h"
#include "rig_polled.h"
#include "core/device.h"

#define NDEV 3		/* 0: AMD-PCI on the sim; 1, 2: polled */
#define NALLOC 4
#define WORDS 64

static struct run_rec *runs[NDEV];	/* by value - base */
static struct run_rec *amd_runs;	/* by tag */
static uint64_t *amd_value_of;		/* by tag */
static _Atomic uint64_t next_tag;
static uint64_t base[NDEV];
static uint32_t slot_of[NDEV];
static struct rig_device *dev[NDEV];
static struct rig_polled *polled[NDEV];
static struct rig_function *copy_fn;
static struct rig_buffer *root[NALLOC], *on[NALLOC][NDEV];
static int nthreads = 6, per_thread = 300;
static _Atomic bool failed;

static void
on_polled_run(void *arg, uint64_t value, int end)
{
	int d = (int)(intptr_t)arg;

	order_stamp(&runs[d][value - base[d]], end);
}

static void
on_amd_run(void *arg, uint64_t tag, int end)
{
	(void)arg;
	order_stamp(&amd_runs[tag], end);
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
	struct rig_submission *s = NULL;

	{
		struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
		struct rig_part_spec part = rig_part_launch(copy_fn, sizeof(struct sim_copy_params),
							    refs, 2);

		if (rig_submission_make(dev[0], &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0) {
			fprintf(stderr, "submission: %s\n", rig_why());
			atomic_store(&failed, true);
			return NULL;
		}
	}
	for (int i = 0; i < per_thread && !atomic_load(&failed); i++) {
		int d = rand_r(&seed) % NDEV, n = 1 + rand_r(&seed) % 16;
		int a = rand_r(&seed) % NALLOC, b = rand_r(&seed) % NALLOC;
		int lo = rand_r(&seed) % (WORDS - n + 1), lo2 = rand_r(&seed) % (WORDS - n + 1);
		struct rig_buffer *src = NULL, *dst = NULL;
		int ret;

		if (a == b && lo < lo2 + n && lo2 < lo + n)
			continue;
		ret = rig_buffer_view(on[a][d], (size_t)lo * 4, (size_t)n * 4, RIG_READ_WRITE, &src);
		if (ret == 0)
			ret = rig_buffer_view(on[b][d], (size_t)lo2 * 4, (size_t)n * 4,
					      RIG_READ_WRITE, &dst);
		if (ret == 0 && d == 0) {
			uint64_t tag = atomic_fetch_add(&next_tag, 1);
			struct rig_point p;

			ret = sim_copy_run(s, src, dst, (uint64_t)n, tag, &p);
			if (ret == 0)
				__atomic_store_n(&amd_value_of[tag], p.value, __ATOMIC_RELEASE);
		} else if (ret == 0) {
			ret = rig_buffer_copy(src, dst, NULL);
		}
		if (ret < 0) {
			fprintf(stderr, "submitter: %s\n", rig_why());
			atomic_store(&failed, true);
		}
		rig_buffer_release(src);
		rig_buffer_release(dst);
	}
	rig_submission_release(s);
	return NULL;
}

int
main(int argc, char **argv)
{
	static const char *names[NDEV] = { NULL, "AS1", "AS2" };
	struct sim_copy_ctx ctx = { .ran = on_amd_run };
	struct rig_image *img;
	struct rig_point last[NDEV];
	struct sim_dev f;
	pthread_t t[64];
	size_t most;
	uint64_t amd_ran = 0;

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("skipped: RIG_TEST_FIRMWARE is not set: the open needs the images\n");
		return 77;
	}
	if (argc > 1)
		nthreads = atoi(argv[1]) > 64 ? 64 : atoi(argv[1]);
	if (argc > 2)
		per_thread = atoi(argv[2]);
	most = (size_t)nthreads * (size_t)per_thread + 16;
	amd_runs = calloc(most, sizeof(*amd_runs));
	amd_value_of = calloc(most, sizeof(*amd_value_of));
	sim_dev_open(&f, "11.0.0");
	dev[0] = f.d;
	sim_copy_load(&f, &ctx, &img, &copy_fn);
	for (int d = 0; d < NDEV; d++) {
		runs[d] = calloc(most, sizeof(*runs[d]));
		if (d) {
			struct rig_polled_config c = { .size = sizeof(c), .name = names[d],
				.lag = 1 + 5 * (unsigned)d,
				.completion = d == 1 ? RIG_BY_STORE : RIG_BY_HOST,
				.waits = { d == 1, false },
				.ran = on_polled_run, .ran_arg = (void *)(intptr_t)d };

			if (rig_polled_create(&c, &polled[d]) ||
			    rig_open(rig_polled_opener(polled[d]), &dev[d]))
				return 1;
		}
		slot_of[d] = (uint32_t)dev[d]->tl.slot;
		base[d] = dev[d]->tl.base + 1;
	}
	/* Every allocation is the AMD device's: it maps no other's memory. */
	for (int a = 0; a < NALLOC; a++) {
		uint32_t init[WORDS];

		for (int w = 0; w < WORDS; w++)
			init[w] = (uint32_t)(a * WORDS + w);
		if (rig_buffer_create(dev[0], WORDS * 4, RIG_MEMORY_DEVICE, &root[a]) ||
		    rig_buffer_write(root[a], 0, init, sizeof(init)))
			return 1;
		for (int d = 0; d < NDEV; d++)
			if (rig_buffer_borrow(root[a], dev[d], &on[a][d])) {
				fprintf(stderr, "borrow: %s\n", rig_why());
				return 1;
			}
	}
	claim_trace = order_on_claim;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, submitter, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	claim_trace = NULL;
	for (int d = 0; d < NDEV; d++)
		if (rig_buffer_copy(on[0][d], on[1][d], &last[d]) ||
		    rig_wait(last[d], 120 * SIM_SECOND)) {
			fprintf(stderr, "last copy: %s\n", rig_why());
			return 1;
		}
	/* The AMD kernel's runs, by the value each was submitted as. */
	for (uint64_t tag = 0; tag < atomic_load(&next_tag); tag++) {
		uint64_t v = __atomic_load_n(&amd_value_of[tag], __ATOMIC_ACQUIRE);

		if (!v)
			continue;
		runs[0][v - base[0]].start = __atomic_load_n(&amd_runs[tag].start, __ATOMIC_ACQUIRE);
		runs[0][v - base[0]].end = __atomic_load_n(&amd_runs[tag].end, __ATOMIC_ACQUIRE);
		amd_ran++;
	}
	if (rig_lost(dev[0]) || atomic_load(&ctx.runs) != amd_ran) {
		fprintf(stderr, "the AMD device: %s; %llu kernels ran of %llu submitted\n",
			rig_lost(dev[0]) ? rig_lost(dev[0]) : "live",
			(unsigned long long)atomic_load(&ctx.runs), (unsigned long long)amd_ran);
		return 1;
	}
	printf("%llu claims (%llu AMD launches), %llu conflicting pairs ran in claim order\n",
	       (unsigned long long)atomic_load(&order_nclaims), (unsigned long long)amd_ran,
	       (unsigned long long)order_check(run_of));
	for (int a = 0; a < NALLOC; a++) {
		for (int d = 0; d < NDEV; d++)
			rig_buffer_release(on[a][d]);
		rig_buffer_release(root[a]);
	}
	rig_image_release(img);
	for (int d = 1; d < NDEV; d++) {
		rig_close(dev[d]);
		rig_device_release(dev[d]);
		rig_polled_destroy(polled[d]);
	}
	f.d = dev[0];
	sim_dev_close(&f);
	for (int d = 0; d < NDEV; d++)
		free(runs[d]);
	free(amd_runs);
	free(amd_value_of);
	return atomic_load(&failed);
}
