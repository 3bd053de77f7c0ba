/* SPDX-License-Identifier: MIT */
/*
 * test_amd_ih: the AMD device's interrupt ring (src/amd/dev/ih.c and
 * queue.c's EOP interrupts) on the software GPU, with far more values than
 * the ring's 2048 entries. Each value's RELEASE_MEM may raise an
 * end-of-pipe entry; a driver that asks one per value overflows the ring
 * whenever the events call drains it slower than the GPU fills it, and an
 * overflow loses the device. So:
 *  - driven through rig_edge.h's C functions with no events call at all
 *    (the slowest drain there is), 20000 values complete and the one
 *    events call at the end finds no overflow;
 *  - after those, a packet error is still reported as itself, naming its
 *    value: EOP entries never take the room a fault's entry needs;
 *  - through rig (its polling thread drains the ring), 20000 one-launch
 *    values and one wait leave the device live.
 * The driver-level tests call the opener's make themselves, owning the
 * handle (rig_edge.h's opener), so no polling thread reads the ring.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rig_edge.h"
#include "sim_dev.h"

#define VALUES		20000	/* ten times the IH ring's entries */
#define NOP_FILLER	0x80000000u	/* PM4's type-2 filler (amd-facts §4.1) */
/* A type-3 packet of opcode 0xFF, outside the PM4 subset: a CP error. */
#define BAD_PACKET	(3u << 30 | 0u << 16 | 0xFFu << 8)

struct edge_dev {
	char root[256];
	struct amd_sim *sim;
	struct rig_opener *o;
	void *handle;
	void *edge;			/* facts.edge: what the C functions take */
	const struct rig_driver *drv;
	alignas(8) _Atomic uint64_t word;
	const char *fw[2];
	bool open;
};

/* The fixtures, closed by teardown even where a test failed midway. */
static struct edge_dev edge_fix;
static struct sim_dev sim_fix;
static bool sim_fix_open;

static void
edge_open(struct edge_dev *f)
{
	struct amd_sim_opts so = { .gc = "11.0.0", .mark = SIM_MARK_CLEAN };
	struct rig_facts facts;
	const char *fault = NULL;
	char why[256];

	memset(f, 0, sizeof(*f));
	fake_root(f->root);
	so.root = f->root;
	if (amd_sim_create(&so, &f->sim) < 0)
		fail_msg("sim: %s", rig_why());
	f->fw[0] = getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(f->sim), f->fw, 0, &f->o), 0);
	if (f->o->make(f->o, &f->word, &f->handle, why, sizeof(why)) != 0)
		fail_msg("make: %s", why);
	assert_int_equal(f->o->ops->facts(f->handle, &facts, &fault), RIG_OK);
	f->drv = *(const struct rig_driver *const *)facts.edge;
	f->edge = facts.edge;
	f->open = true;
}

static void
edge_close(struct edge_dev *f)
{
	f->open = false;
	f->o->ops->stop(f->handle, "closed");
	f->o->ops->release(f->handle);
	rig_amd_pci_opener_free(f->o);
	amd_sim_destroy(f->sim);
	fake_remove(f->root);
}

/* Value v of words (one part on COMPUTE:0), once room has it fit. */
static void
edge_submit(struct edge_dev *f, uint64_t v, const uint32_t *words, size_t n)
{
	struct rig_part part = { .kind = RIG_WORDS_PART, .queue = 0 };
	const char *failure = NULL;
	int room;

	part.u.words = (struct rig_words_part){ words, n };
	while ((room = f->drv->room(f->edge, &part, 1, 0)) == RIG_LATER)
		sched_yield();
	assert_int_equal(room, RIG_FITS);
	assert_true(f->drv->submit(f->edge, v, &part, 1, NULL, 0, NULL, &failure) >= 0);
}

/* Waits (60 s at most) for the device's word to show v. */
static void
edge_reach(struct edge_dev *f, uint64_t v)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (f->o->ops->signaled(f->handle) < v) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 60)
			fail_msg("the word shows %llu of %llu after 60 s",
				 (unsigned long long)f->o->ops->signaled(f->handle),
				 (unsigned long long)v);
		sched_yield();
	}
}

static void
test_values_past_the_ring_undrained(void **state)
{
	static const uint32_t nop = NOP_FILLER;
	struct rig_fault_site site = { 0, -1, -1 };
	const char *fault = NULL, *failure = NULL;
	struct edge_dev *f = &edge_fix;

	(void)state;
	edge_open(f);
	for (uint64_t v = 1; v <= VALUES; v++)
		edge_submit(f, v, &nop, 1);
	assert_int_equal(f->drv->commit(f->edge, VALUES, &failure), RIG_OK);
	edge_reach(f, VALUES);
	/* The first and only drain: nothing overflowed, nothing is lost. */
	if (f->o->ops->events(f->handle, &site, &fault) != RIG_OK)
		fail_msg("events after %d undrained values: %s", VALUES, fault);
	edge_close(f);
}

static void
test_fault_after_values_past_the_ring(void **state)
{
	static const uint32_t nop = NOP_FILLER, bad[2] = { BAD_PACKET, 0 };
	struct rig_fault_site site = { 0, -1, -1 };
	const char *fault = NULL, *failure = NULL;
	struct edge_dev *f = &edge_fix;
	char why[160];

	(void)state;
	edge_open(f);
	for (uint64_t v = 1; v <= VALUES; v++)
		edge_submit(f, v, &nop, 1);
	edge_submit(f, VALUES + 1, bad, 2);
	assert_int_equal(f->drv->commit(f->edge, VALUES + 1, &failure), RIG_OK);
	edge_reach(f, VALUES);
	/* The CP halts at the bad packet; its error entry is in the ring. */
	for (int i = 0; i < 6000 && !amd_sim_halted(f->sim, AMD_SIM_CP, 0, why, sizeof(why)); i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	assert_true(amd_sim_halted(f->sim, AMD_SIM_CP, 0, why, sizeof(why)));
	assert_int_equal(f->o->ops->events(f->handle, &site, &fault), RIG_FAULT);
	if (!strstr(fault, "CP packet error"))
		fail_msg("the fault is not the packet error: %s", fault);
	assert_int_equal(site.value, VALUES + 1);
	assert_int_equal(site.part, 0);
	assert_int_equal(site.queue, 0);
	edge_close(f);
}

static void
test_values_past_the_ring_through_rig(void **state)
{
	struct sim_copy_ctx ctx = { 0 };
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	struct rig_buffer *a, *b;
	struct rig_point p;
	struct sim_dev *f = &sim_fix;

	(void)state;
	sim_dev_open(f, "11.0.0");
	sim_fix_open = true;
	sim_copy_load(f, &ctx, &img, &fn);
	s = sim_copy_submission(f->d, fn);
	assert_int_equal(rig_buffer_create(f->d, 4096, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f->d, 4096, RIG_MEMORY_DEVICE, &b), 0);
	for (uint64_t i = 0; i < VALUES; i++)
		if (sim_copy_run(s, a, b, 0, i, &p) < 0)
			fail_msg("submit %llu: %s", (unsigned long long)i, rig_why());
	if (rig_wait(p, 60 * SIM_SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	if (rig_lost(f->d))
		fail_msg("lost: %s", rig_lost(f->d));
	assert_int_equal(atomic_load(&ctx.runs), VALUES);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_image_release(img);
	sim_fix_open = false;
	sim_dev_close(f);
}

static int
teardown(void **state)
{
	(void)state;
	if (edge_fix.open)
		edge_close(&edge_fix);
	if (sim_fix_open) {
		sim_fix_open = false;
		sim_dev_close(&sim_fix);
	}
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_values_past_the_ring_undrained, teardown),
		cmocka_unit_test_teardown(test_fault_after_values_past_the_ring, teardown),
		cmocka_unit_test_teardown(test_values_past_the_ring_through_rig, teardown),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the open needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
