/* SPDX-License-Identifier: MIT */
/*
 * test_order: docs/order.md, rule 3 against a reference model. Random programs of copies
 * and fills over overlapping views of allocations shared by three devices
 * (borrowed), with different waits facts:
 *   D0: completes by host, its queues wait for stores and hosts
 *   D1: completes by store, its queues wait for nothing
 *   D2: completes by store, its queues wait for stores only
 * The model below keeps, per word, the last write and the reads since, as
 * plainly as it can be written, and computes each submit's waits; those the
 * driver receives plus those the host makes (seen through submit_trace)
 * must be exactly the model's. The devices are stalled while a program is
 * submitted, so no wait is dropped as already signaled.
 *
 * Usage: test_order [programs] (default 10000).
 */
#include <pthread.h>

#include "../core/common.h"
#include "submit/submit.h"

#define NDEV 3
#define NALLOC 3
#define WORDS 16
#define STEPS 12

static struct polled_dev dev[NDEV];
static int slot_of[NDEV];
static const bool waits_stores[NDEV] = { true, false, true };
static const bool waits_hosts[NDEV] = { true, false, false };
static const bool by_host[NDEV] = { true, false, false };

/* ---- The model ---- */

struct mpoint { int dev; uint64_t value; };	/* value 0: none */
struct mword { struct mpoint write; uint64_t reads[NDEV]; };
static struct mword model[NALLOC][WORDS];

/* Per device, the highest value waited for (0: none). */
static void
model_waits(int alloc, int lo, int hi, bool write, uint64_t need[NDEV])
{
	for (int w = lo; w < hi; w++) {
		struct mword *m = &model[alloc][w];

		if (m->write.value && m->write.value > need[m->write.dev])
			need[m->write.dev] = m->write.value;
		for (int d = 0; write && d < NDEV; d++)
			if (m->reads[d] > need[d])
				need[d] = m->reads[d];
	}
}

static void
model_use(int alloc, int lo, int hi, bool write, int d, uint64_t v)
{
	for (int w = lo; w < hi; w++) {
		struct mword *m = &model[alloc][w];

		if (write) {
			m->write = (struct mpoint){ d, v };
			memset(m->reads, 0, sizeof(m->reads));
		} else {
			m->reads[d] = v;
		}
	}
}

/* ---- What rig did ---- */

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seen_driver[NDEV], seen_host[NDEV];
static int seen_slot;
static uint64_t seen_value;

static int
dev_of_slot(int slot)
{
	for (int d = 0; d < NDEV; d++)
		if (slot_of[d] == slot)
			return d;
	return -1;
}

static void
trace(int slot, uint64_t value, const struct job *job)
{
	pthread_mutex_lock(&seen_lock);
	seen_slot = slot;
	seen_value = value;
	memset(seen_driver, 0, sizeof(seen_driver));
	memset(seen_host, 0, sizeof(seen_host));
	for (size_t i = 0; i < job->nwaits; i++)
		seen_driver[dev_of_slot((int)(job->waits[i].word - rig_words))] = job->waits[i].value;
	for (size_t i = 0; i < job->nhost_waits; i++)
		seen_host[dev_of_slot((int)job->host_waits[i].slot)] = job->host_waits[i].value;
	pthread_mutex_unlock(&seen_lock);
}

/* Compare one submit of device d at value v against the model's need. */
static void
check(int d, uint64_t v, const uint64_t need[NDEV], int program, int step)
{
	assert_int_equal(seen_slot, slot_of[d]);
	assert_int_equal(seen_value, v);
	for (int p = 0; p < NDEV; p++) {
		bool to_driver = by_host[p] ? waits_hosts[d] : waits_stores[d];
		uint64_t want = p == d ? 0 : need[p];

		if (seen_driver[p] != (to_driver ? want : 0) ||
		    seen_host[p] != (to_driver ? 0 : want))
			fail_msg("program %d step %d: D%d value %llu, producer D%d: model %llu (%s), "
				 "driver got %llu, host waited %llu", program, step, d,
				 (unsigned long long)v, p, (unsigned long long)want,
				 to_driver ? "to the driver" : "on the host",
				 (unsigned long long)seen_driver[p], (unsigned long long)seen_host[p]);
	}
}

/* ---- Programs ---- */

static struct rig_buffer *root[NALLOC], *on[NALLOC][NDEV];

static int
fill_nothing(void *ctx, void *arg, uint64_t value)
{
	return 0;
}

static struct rig_buffer *
view(int alloc, int d, int lo, int n)
{
	struct rig_buffer *v;

	assert_int_equal(rig_buffer_view(on[alloc][d], (size_t)lo * 4, (size_t)n * 4,
					 RIG_READ_WRITE, &v), 0);
	return v;
}

/* A copy of n words from (a, lo) to (b, lo2) on device d. */
static void
step_copy(unsigned *seed, int d, int program, int step)
{
	int n = 1 + rand_r(seed) % 6, a = rand_r(seed) % NALLOC, b = rand_r(seed) % NALLOC;
	int lo = rand_r(seed) % (WORDS - n + 1), lo2 = rand_r(seed) % (WORDS - n + 1);
	uint64_t need[NDEV] = { 0 };
	struct rig_buffer *src, *dst;
	struct rig_point p;

	if (a == b && lo < lo2 + n && lo2 < lo + n)
		return;		/* overlapping ends: refused, tested elsewhere */
	src = view(a, d, lo, n);
	dst = view(b, d, lo2, n);
	model_waits(a, lo, lo + n, false, need);
	model_waits(b, lo2, lo2 + n, true, need);
	assert_int_equal(rig_buffer_copy(src, dst, &p), 0);
	check(d, p.value, need, program, step);
	model_use(a, lo, lo + n, false, d, p.value);
	model_use(b, lo2, lo2 + n, true, d, p.value);
	rig_buffer_release(src);
	rig_buffer_release(dst);
}

/* A fill with up to three refs (read, write, unordered) on views. */
static void
step_fill(unsigned *seed, int d, int program, int step)
{
	static const enum rig_ref_kind kinds[] = { RIG_REF_READ, RIG_REF_WRITE, RIG_REF_UNORDERED };
	int nrefs = 1 + rand_r(seed) % 3, al[3], lo[3], n[3];
	struct rig_ref refs[3];
	struct rig_buffer *bufs[3];
	uint64_t need[NDEV] = { 0 };
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;
	struct rig_part_spec part;

	for (int k = 0; k < nrefs; k++) {
		n[k] = 1 + rand_r(seed) % 8;
		al[k] = rand_r(seed) % NALLOC;
		lo[k] = rand_r(seed) % (WORDS - n[k] + 1);
		refs[k] = (struct rig_ref){ kinds[rand_r(seed) % 3], k, 8 * k, NULL };
		bufs[k] = view(al[k], d, lo[k], n[k]);
	}
	part = rig_part_fill(fill_nothing, 24, refs, (size_t)nrefs);
	assert_int_equal(rig_submission_make(dev[d].d, &part, 1, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	for (int k = 0; k < nrefs; k++)
		if (refs[k].kind != RIG_REF_UNORDERED)
			model_waits(al[k], lo[k], lo[k] + n[k], refs[k].kind == RIG_REF_WRITE, need);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, bufs, (size_t)nrefs, NULL, 0, &p), 0);
	check(d, p.value, need, program, step);
	/* A slot read and written by two refs is written (its use is the
	 * widest); the model applies the reads first, then the writes. */
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < nrefs; k++)
			if (refs[k].kind != RIG_REF_UNORDERED &&
			    (refs[k].kind == RIG_REF_WRITE) == pass)
				model_use(al[k], lo[k], lo[k] + n[k], pass, d, p.value);
	for (int k = 0; k < nrefs; k++)
		rig_buffer_release(bufs[k]);
	rig_submission_release(s);
}

static void
program(unsigned seed, int number)
{
	struct rig_point last[NDEV];

	memset(model, 0, sizeof(model));
	for (int a = 0; a < NALLOC; a++) {
		int owner = rand_r(&seed) % NDEV;

		root[a] = buffer_new(dev[owner].d, WORDS * 4);
		for (int d = 0; d < NDEV; d++)
			assert_int_equal(rig_buffer_borrow(root[a], dev[d].d, &on[a][d]), 0);
	}
	for (int d = 0; d < NDEV; d++)
		rig_polled_stall(dev[d].p, true);
	for (int step = 0; step < STEPS; step++) {
		int d = rand_r(&seed) % NDEV;

		if (rand_r(&seed) % 2)
			step_copy(&seed, d, number, step);
		else
			step_fill(&seed, d, number, step);
	}
	for (int d = 0; d < NDEV; d++) {
		rig_polled_stall(dev[d].p, false);
		assert_int_equal(rig_buffer_copy(on[0][d], on[1][d], &last[d]), 0);
	}
	for (int d = 0; d < NDEV; d++)
		assert_int_equal(rig_wait(last[d], 30 * SECOND_NS), 0);
	for (int a = 0; a < NALLOC; a++) {
		for (int d = 0; d < NDEV; d++)
			rig_buffer_release(on[a][d]);
		rig_buffer_release(root[a]);
	}
}

static int programs = 10000;

static void
test_waits_match_the_model(void **state)
{
	for (int i = 0; i < programs; i++)
		program((unsigned)i * 2654435761u + 1, i);
}

static int
setup(void **state)
{
	static const char *names[NDEV] = { "D0", "D1", "D2" };

	submit_trace = trace;
	for (int d = 0; d < NDEV; d++) {
		struct rig_buffer *a, *b;
		struct rig_point p;

		dev[d] = polled_open((struct rig_polled_config){
			.name = names[d], .lag = 4,
			.completion = by_host[d] ? RIG_BY_HOST : RIG_BY_STORE,
			.waits = { waits_stores[d], waits_hosts[d] } });
		/* The device's slot, as the trace shows it. */
		a = buffer_new(dev[d].d, 4);
		b = buffer_new(dev[d].d, 4);
		assert_int_equal(rig_buffer_copy(a, b, &p), 0);
		slot_of[d] = seen_slot;
		assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
		rig_buffer_release(a);
		rig_buffer_release(b);
	}
	return 0;
}

static int
teardown(void **state)
{
	submit_trace = NULL;
	for (int d = 0; d < NDEV; d++)
		polled_close(dev[d]);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_match_the_model),
	};

	if (argc > 1)
		programs = atoi(argv[1]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
