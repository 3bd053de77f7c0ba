/* SPDX-License-Identifier: MIT */
/*
 * test_amd_core: the core's promises with the AMD device on the software
 * GPU among the devices (sim_dev.h opens it as a program does):
 *   - order: chains AMD SDMA copy -> AMD launch -> HOST copy -> memory
 *     device copy -> AMD copy over borrowed views, with no wait between,
 *     whose last buffer holds every byte the first held;
 *   - loss: a launch that touches unmapped memory loses the AMD device, its
 *     record naming the value, the submission, the part and its queue,
 *     while the host and memory devices go on;
 *   - hang_ms: an SDMA queue that stops consuming loses the device with
 *     "no progress for 2000 ms" naming the value that made none;
 *   - reclamation: memory released while the sim is busy stays held until
 *     its points pass, then comes back;
 *   - budgets: an allocation past the budget waits for released work and
 *     succeeds; with nothing to return it is refused, saying how much was
 *     asked, held and budgeted, and changes nothing.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "sim_dev.h"

/* ---- order -------------------------------------------------------------- */

static void
test_order_chains_across_devices(void **state)
{
	enum { WORDS = 1024, BYTES = WORDS * 4 };
	struct rig_device *mem, *host;
	struct sim_copy_ctx ctx = { 0 };
	struct rig_submission *s;
	struct rig_function *fn;
	struct rig_image *img;
	uint32_t x[WORDS], y[WORDS];
	struct sim_dev f;

	(void)state;
	sim_dev_open(&f, "11.0.0");
	sim_copy_load(&f, &ctx, &img, &fn);
	s = sim_copy_submission(f.d, fn);
	assert_int_equal(rig_memory_device("amd-core-mem", &mem), 0);
	assert_int_equal(rig_host_device(&host), 0);
	for (int round = 0; round < 30; round++) {
		struct rig_buffer *a, *b, *c, *d, *e, *g, *c_host, *d_host, *d_mem, *e_mem;
		struct rig_point p;

		for (int i = 0; i < WORDS; i++)
			x[i] = (uint32_t)i * 2654435761u + (uint32_t)round;
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &a), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &c), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &d), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &e), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &g), 0);
		assert_int_equal(rig_buffer_borrow(c, host, &c_host), 0);
		assert_int_equal(rig_buffer_borrow(d, host, &d_host), 0);
		assert_int_equal(rig_buffer_borrow(d, mem, &d_mem), 0);
		assert_int_equal(rig_buffer_borrow(e, mem, &e_mem), 0);
		assert_int_equal(rig_buffer_write(a, 0, x, BYTES), 0);
		/* SDMA:0, COMPUTE:0, HOST, memory, SDMA:0: each reads what the
		 * one before wrote, on another device or engine. */
		assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
		if (sim_copy_run(s, b, c, WORDS, 0, NULL) < 0)
			fail_msg("launch: %s", rig_why());
		assert_int_equal(rig_buffer_copy(c_host, d_host, NULL), 0);
		assert_int_equal(rig_buffer_copy(d_mem, e_mem, NULL), 0);
		assert_int_equal(rig_buffer_copy(e, g, &p), 0);
		if (rig_wait(p, 30 * SIM_SECOND) < 0)
			fail_msg("wait: %s", rig_why());
		assert_int_equal(rig_buffer_read(g, 0, y, BYTES), 0);
		assert_memory_equal(x, y, BYTES);
		rig_buffer_release(c_host);
		rig_buffer_release(d_host);
		rig_buffer_release(d_mem);
		rig_buffer_release(e_mem);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(c);
		rig_buffer_release(d);
		rig_buffer_release(e);
		rig_buffer_release(g);
	}
	assert_int_equal(atomic_load(&ctx.runs), 30);
	assert_null(rig_lost(f.d));
	rig_submission_release(s);
	rig_image_release(img);
	rig_close(mem);
	rig_device_release(mem);
	rig_device_release(host);
	sim_dev_close(&f);
}

/* A prepared copy of slot 0 into slot 1 runs on SDMA:0 with each submit's
 * buffers (its make asked room before they were known). */
static void
test_prepared_copy_of_slots(void **state)
{
	enum { WORDS = 256, BYTES = WORDS * 4, ROUNDS = 8 };
	struct rig_buffer *src[ROUNDS], *dst[ROUNDS];
	struct rig_part_spec part;
	struct rig_submission *s;
	struct rig_point p = { 0 };
	uint32_t x[WORDS], y[WORDS];
	struct sim_dev f;

	(void)state;
	sim_dev_open(&f, "11.0.0");
	part = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	if (rig_submission_make(f.d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
		fail_msg("make: %s", rig_why());
	for (int r = 0; r < ROUNDS; r++) {
		struct rig_run *run;

		for (int i = 0; i < WORDS; i++)
			x[i] = (uint32_t)(i * 7 + r * 1000003);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &src[r]), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &dst[r]), 0);
		assert_int_equal(rig_buffer_write(src[r], 0, x, BYTES), 0);
		assert_int_equal(rig_run_take(s, &run), 0);
		if (rig_submit(run, (struct rig_buffer *[]){ src[r], dst[r] }, 2, NULL, 0, &p) < 0)
			fail_msg("submit: %s", rig_why());
	}
	if (rig_wait(p, 30 * SIM_SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < WORDS; i++)
			x[i] = (uint32_t)(i * 7 + r * 1000003);
		assert_int_equal(rig_buffer_read(dst[r], 0, y, BYTES), 0);
		assert_memory_equal(x, y, BYTES);
		rig_buffer_release(src[r]);
		rig_buffer_release(dst[r]);
	}
	assert_null(rig_lost(f.d));
	rig_submission_release(s);
	sim_dev_close(&f);
}

/* ---- loss and culprits ------------------------------------------------- */

/* A launch whose destination no page maps (its ref is a view of a live
 * buffer; the kernel's own dst is past every region). */
static int
faulting_kernel(const struct amd_sim_launch *l)
{
	uint32_t *out = amd_sim_translate(l, 0x100000000000ull, 4, true);

	if (out)
		*out = 1;
	return AMD_SIM_SQ_OK;
}

static void
test_fault_loses_it_naming_the_culprit(void **state)
{
	struct rig_device *mem, *host;
	struct rig_buffer *a, *b, *ma, *mb, *ha, *hb;
	struct rig_submission *s;
	struct rig_function *fn;
	struct rig_image *img;
	struct rig_point p, q;
	const struct rig_loss *l;
	struct sim_copy_ctx ctx = { 0 };
	uint32_t x[16], y[16];
	struct sim_dev f;
	struct obj o;

	(void)state;
	sim_dev_open(&f, "12.0.1");
	sim_copy_load(&f, &ctx, &img, &fn);
	rig_image_release(img);
	/* Callback 8: the faulting kernel, in its own object. */
	build_object(&o, AMD_SIM_KERNEL_MAGIC, 8, 2u << 1);
	assert_int_equal(amd_sim_kernel(f.sim, 8, faulting_kernel, NULL), 0);
	if (rig_image_load(f.d, o.b, sizeof(o.b), &img) < 0)
		fail_msg("load: %s", rig_why());
	assert_int_equal(rig_image_function(img, "add", &fn), 0);
	{
		struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
		/* Part 0 a copy of slot 0 into slot 1, part 1 the faulting
		 * launch. */
		struct rig_part_spec parts[2];

		a = NULL;
		assert_int_equal(rig_buffer_create(f.d, 64, RIG_MEMORY_DEVICE, &a), 0);
		assert_int_equal(rig_buffer_create(f.d, 64, RIG_MEMORY_DEVICE, &b), 0);
		parts[0] = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
		parts[1] = rig_part_launch(fn, 20, refs, 2);
		if (rig_submission_make(f.d, parts, 2, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
			fail_msg("submission: %s", rig_why());
	}
	assert_int_equal(rig_memory_device("amd-loss-mem", &mem), 0);
	assert_int_equal(rig_host_device(&host), 0);
	{
		static const uint32_t one[3] = { 1, 1, 1 };
		uint64_t params[3] = { 0, 0, 16 };
		struct rig_run *run;

		assert_int_equal(rig_run_take(s, &run), 0);
		assert_int_equal(rig_run_store(run, 1, one, one, params, 20), 0);
		assert_int_equal(rig_submit(run, (struct rig_buffer *[]){ a, b }, 2, NULL, 0, &p), 0);
	}
	assert_int_equal(rig_wait(p, 30 * SIM_SECOND), RIG_ELOST);
	l = rig_loss(f.d);
	assert_non_null(l);
	assert_string_equal(l->device, "AMD-PCI");
	assert_int_equal(l->value, p.value);
	assert_ptr_equal(l->submission, s);
	assert_int_equal(l->part, 1);
	assert_int_equal(l->queue, 0);		/* COMPUTE:0 */
	if (!strstr(l->reason, "VM fault at 0x100000000000 (write"))
		fail_msg("the reason: %s", l->reason);
	printf("# the loss: %s\n", l->reason);
	/* The others go on, their work checked bytewise. */
	for (int i = 0; i < 16; i++)
		x[i] = 0x51u * (uint32_t)i + 3;
	assert_int_equal(rig_buffer_create(mem, sizeof(x), RIG_MEMORY_DEVICE, &ma), 0);
	assert_int_equal(rig_buffer_create(mem, sizeof(x), RIG_MEMORY_DEVICE, &mb), 0);
	assert_int_equal(rig_buffer_create(host, sizeof(x), RIG_MEMORY_DEVICE, &ha), 0);
	assert_int_equal(rig_buffer_create(host, sizeof(x), RIG_MEMORY_DEVICE, &hb), 0);
	assert_int_equal(rig_buffer_write(ma, 0, x, sizeof(x)), 0);
	assert_int_equal(rig_buffer_copy(ma, mb, &q), 0);
	assert_int_equal(rig_wait(q, 30 * SIM_SECOND), 0);
	assert_int_equal(rig_buffer_read(mb, 0, y, sizeof(y)), 0);
	assert_memory_equal(x, y, sizeof(x));
	assert_int_equal(rig_buffer_write(ha, 0, x, sizeof(x)), 0);
	assert_int_equal(rig_buffer_copy(ha, hb, &q), 0);
	assert_int_equal(rig_wait(q, 30 * SIM_SECOND), 0);
	assert_int_equal(rig_buffer_read(hb, 0, y, sizeof(y)), 0);
	assert_memory_equal(x, y, sizeof(x));
	assert_null(rig_lost(mem));
	assert_null(rig_lost(host));
	/* The lost device refuses new work. */
	assert_int_equal(rig_buffer_copy(a, b, NULL), RIG_ELOST);
	rig_buffer_release(ma);
	rig_buffer_release(mb);
	rig_buffer_release(ha);
	rig_buffer_release(hb);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_submission_release(s);
	rig_image_release(img);
	rig_close(mem);
	rig_device_release(mem);
	rig_device_release(host);
	sim_dev_close(&f);
}

/* ---- hang_ms ----------------------------------------------------------- */

static void
test_stalled_sdma_is_a_hang(void **state)
{
	struct rig_buffer *a, *b, *c;
	struct rig_point p, q;
	const struct rig_loss *l;
	struct sim_dev f;
	uint64_t t0;

	(void)state;
	sim_dev_open(&f, "9.4.3");
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &c), 0);
	/* One copy runs; the queue then stops consuming. */
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SIM_SECOND), 0);
	assert_int_equal(amd_sim_stall(f.sim, AMD_SIM_SDMA, 0, true), 0);
	t0 = rig_now_ns();
	assert_int_equal(rig_buffer_copy(b, c, &q), 0);
	assert_int_equal(rig_wait(q, 60 * SIM_SECOND), RIG_ELOST);
	/* Not before hang_ms: the clock starts at the wait. */
	assert_true(rig_now_ns() - t0 >= 2000ull * 1000000);
	l = rig_loss(f.d);
	assert_non_null(l);
	if (!strstr(l->reason, "no progress for 2000 ms"))
		fail_msg("the loss: %s", l->reason);
	assert_int_equal(l->value, q.value);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	sim_dev_close(&f);
}

/* ---- reclamation and budgets ------------------------------------------- */

static void
test_released_memory_returns_after_its_points(void **state)
{
	struct rig_buffer *a, *b, *va, *vb;
	struct rig_point p;
	struct sim_dev f;
	uint64_t base;

	(void)state;
	sim_dev_open(&f, "11.0.2");
	base = rig_allocated(f.d);
	assert_int_equal(rig_buffer_create(f.d, 1 << 20, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f.d, 1 << 20, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_view(a, 4096, 4096, RIG_READ_WRITE, &va), 0);
	assert_int_equal(rig_buffer_view(b, 8192, 4096, RIG_READ_WRITE, &vb), 0);
	assert_int_equal(amd_sim_stall(f.sim, AMD_SIM_SDMA, 0, true), 0);
	assert_int_equal(rig_buffer_copy(va, vb, &p), 0);
	rig_buffer_release(va);
	rig_buffer_release(vb);
	rig_buffer_release(a);
	rig_buffer_release(b);
	/* The sim has not run the copy: its memory stays held. */
	assert_int_equal(rig_allocated(f.d), base + (2u << 20));
	{
		struct rig_buffer *z;

		assert_int_equal(rig_buffer_create(f.d, 0, RIG_MEMORY_DEVICE, &z), 0);
		rig_buffer_release(z);
	}
	assert_int_equal(rig_allocated(f.d), base + (2u << 20));
	assert_int_equal(amd_sim_stall(f.sim, AMD_SIM_SDMA, 0, false), 0);
	assert_int_equal(rig_wait(p, 30 * SIM_SECOND), 0);
	{
		struct rig_buffer *z;

		/* An allocation reclaims what passed its point. */
		assert_int_equal(rig_buffer_create(f.d, 0, RIG_MEMORY_DEVICE, &z), 0);
		rig_buffer_release(z);
	}
	assert_int_equal(rig_allocated(f.d), base);
	assert_null(rig_lost(f.d));
	sim_dev_close(&f);
}

static void *
unstall_later(void *arg)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	amd_sim_stall(arg, AMD_SIM_SDMA, 0, false);
	return NULL;
}

static void
test_budget_waits_then_refuses(void **state)
{
	enum { MIB = 1 << 20 };
	struct rig_buffer *a, *b, *va, *vb, *c, *big;
	struct rig_point p;
	struct sim_dev f;
	pthread_t t;
	uint64_t held;

	(void)state;
	sim_dev_open(&f, "12.0.0");
	assert_int_equal(rig_set_budget(f.d, rig_allocated(f.d) + 8 * MIB), 0);
	assert_int_equal(rig_buffer_create(f.d, 4 * MIB, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f.d, 4 * MIB, RIG_MEMORY_DEVICE, &b), 0);
	/* With nothing to return: refused, saying so, nothing changed. */
	held = rig_allocated(f.d);
	assert_int_equal(rig_buffer_create(f.d, MIB, RIG_MEMORY_DEVICE, &big), RIG_ENOMEM);
	if (!strstr(rig_why(), "1048576") || !strstr(rig_why(), "budget"))
		fail_msg("the refusal: %s", rig_why());
	printf("# the refusal: %s\n", rig_why());
	assert_int_equal(rig_allocated(f.d), held);
	/* Released while the sim is busy: the allocation waits for the copy. */
	assert_int_equal(rig_buffer_view(a, 0, 4096, RIG_READ_WRITE, &va), 0);
	assert_int_equal(rig_buffer_view(b, 0, 4096, RIG_READ_WRITE, &vb), 0);
	assert_int_equal(amd_sim_stall(f.sim, AMD_SIM_SDMA, 0, true), 0);
	assert_int_equal(rig_buffer_copy(va, vb, &p), 0);
	rig_buffer_release(va);
	rig_buffer_release(vb);
	rig_buffer_release(a);
	assert_int_equal(pthread_create(&t, NULL, unstall_later, f.sim), 0);
	if (rig_buffer_create(f.d, 4 * MIB, RIG_MEMORY_DEVICE, &c) < 0)
		fail_msg("the allocation that waits: %s", rig_why());
	pthread_join(t, NULL);
	assert_true(rig_reached(p));
	assert_int_equal(rig_allocated(f.d), held);
	rig_buffer_release(b);
	rig_buffer_release(c);
	assert_null(rig_lost(f.d));
	sim_dev_close(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_chains_across_devices),
		cmocka_unit_test(test_prepared_copy_of_slots),
		cmocka_unit_test(test_fault_loses_it_naming_the_culprit),
		cmocka_unit_test(test_stalled_sdma_is_a_hang),
		cmocka_unit_test(test_released_memory_returns_after_its_points),
		cmocka_unit_test(test_budget_waits_then_refuses),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the open needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
