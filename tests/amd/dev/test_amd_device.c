/* SPDX-License-Identifier: MIT */
/*
 * test_amd_device: the AMD device (src/amd/dev/) on the software GPU,
 * opened as a program opens it: rig_open of rig_amd_pci_gpu's opener on
 * the sim's machine, with the real images at RIG_TEST_FIRMWARE. The open
 * boots a GPU a clean session left in part (test_amd_boot boots one none
 * did in full); copies run on SDMA:0 and launches of a real code object on
 * COMPUTE:0, ordered into one timeline; a kernel that touches unmapped
 * memory loses the device naming the value, the part and the address; a
 * queue that stops consuming loses it after hang_ms; a close leaves the
 * GPU marked clean, so it opens again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/dev/dev.h"
#include "amd/sim/sim.h"
#include "../code_object.h"
#include "../fake.h"


#define SECOND 1000000000ull

struct fix {
	char root[256];
	struct amd_sim *sim;
	struct rig_opener *o;
	struct rig_device *d;
	const char *fw[2];
};

static void
sim_up(struct fix *f, const char *gc, uint32_t mark)
{
	struct amd_sim_opts o = { .gc = gc, .mark = mark };

	memset(f, 0, sizeof(*f));
	fake_root(f->root);
	o.root = f->root;
	assert_int_equal(amd_sim_create(&o, &f->sim), 0);
	f->fw[0] = getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(f->sim), f->fw, 0, &f->o), 0);
}

static void
sim_open(struct fix *f, const char *gc)
{
	sim_up(f, gc, 0xA0000008);
	if (rig_open(f->o, &f->d) < 0)
		fail_msg("open: %s", rig_why());
}

static void
sim_down(struct fix *f)
{
	if (f->d) {
		rig_close(f->d);
		rig_device_release(f->d);
	}
	rig_amd_pci_opener_free(f->o);
	amd_sim_destroy(f->sim);
	fake_remove(f->root);
}

/* ---- a real code object (amd-facts §7.1) whose code is the sim's marker -- */

/* The device's code object: the sim's marker and callback, rsrc2's
 * USER_SGPR_COUNT 2 (the kernarg pointer). */
static void
device_object(struct obj *o, uint32_t callback)
{
	build_object(o, AMD_SIM_KERNEL_MAGIC, callback, 2u << 1);
}

struct kargs { uint64_t in, out; uint32_t n; } __attribute__((packed));

/* out[i] = x * in[i] + y over the grid's threads, through the sim's page
 * walk, counting the call in l->ctx. */
static int
affine_kernel(const struct amd_sim_launch *l, uint32_t x, uint32_t y)
{
	struct kargs *k = amd_sim_translate(l, l->kernarg, sizeof(*k), false);
	int *calls = l->ctx;

	(*calls)++;
	if (!k)
		return AMD_SIM_SQ_OK;
	for (uint32_t i = 0; i < l->grid[0] * l->group[0] && i < k->n; i++) {
		uint32_t *in = amd_sim_translate(l, k->in + 4ull * i, 4, false);
		uint32_t *out = amd_sim_translate(l, k->out + 4ull * i, 4, true);

		if (!in || !out)
			return AMD_SIM_SQ_OK;	/* the fault halts the queue */
		*out = x * *in + y;
	}
	return AMD_SIM_SQ_OK;
}

/* out[i] = in[i] + 1. */
static int
add_kernel(const struct amd_sim_launch *l)
{
	return affine_kernel(l, 1, 1);
}

/* out[i] = in[i] * 2: a second function, to tell which one ran. */
static int
double_kernel(const struct amd_sim_launch *l)
{
	return affine_kernel(l, 2, 0);
}

/* ---- tests ---------------------------------------------------------------- */

static void
test_open_boots_and_closes_clean(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "11.0.2", "12.0.0", "12.0.1" };
	static const char *const arch[] = { "gfx942", "gfx1100", "gfx1102", "gfx1200",
					    "gfx1201" };

	(void)state;
	for (size_t k = 0; k < 5; k++) {
		struct fix f;

		sim_open(&f, gcs[k]);
		assert_string_equal(rig_name(f.d), "AMD-PCI");
		assert_string_equal(rig_arch(f.d), arch[k]);
		assert_null(rig_lost(f.d));
		/* The close leaves it marked clean: it opens again in part. */
		assert_int_equal(rig_close(f.d), 0);
		rig_device_release(f.d);
		f.d = NULL;
		if (rig_open(f.o, &f.d) < 0)
			fail_msg("reopen of GC %s: %s", gcs[k], rig_why());
		sim_down(&f);
	}
}

/*
 * A point of a device that has ended is still read: its word's own hook
 * (the GPU's word, read through the driver) must not be called on the
 * driver the end released. ASan reports a use after free here without
 * device_end's clear of the hook (core/devices.c).
 */
static void
test_points_read_after_the_end(void **state)
{
	struct rig_buffer *a, *b;
	struct rig_point p;
	struct fix f;

	(void)state;
	sim_open(&f, "11.0.0");
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 60 * SECOND), 0);
	assert_int_equal(rig_close(f.d), 0);
	assert_true(rig_reached(p));
	assert_int_equal(rig_wait(p, 0), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(f.d);
	f.d = NULL;
	sim_down(&f);
}

static void
test_copies_in_order(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		/* 4200 values: both rings wrap (some 17-23 dwords a value on each of
		 * 64 Ki), 4 KiB each so that TSan's sim keeps up. */
		enum { BYTES = 4096 + 44 };
		struct rig_buffer *a, *b, *c;
		uint8_t *x = malloc(BYTES), *y = malloc(BYTES);
		struct rig_point p;
		struct fix f;

		sim_open(&f, gcs[k]);
		for (size_t i = 0; i < BYTES; i++)
			x[i] = (uint8_t)(i * 7 + k);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &a), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
		assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &c), 0);
		assert_int_equal(rig_buffer_write(a, 0, x, BYTES), 0);
		/* Each copy reads what the one before wrote: device order. */
		for (int round = 0; round < 1400; round++) {
			assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
			assert_int_equal(rig_buffer_copy(b, c, NULL), 0);
			assert_int_equal(rig_buffer_copy(c, a, &p), 0);
		}
		if (rig_wait(p, 30 * SECOND) < 0)
			fail_msg("wait: %s", rig_why());
		assert_int_equal(rig_buffer_read(c, 0, y, BYTES), 0);
		assert_memory_equal(x, y, BYTES);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(c);
		free(x);
		free(y);
		sim_down(&f);
	}
}

struct launched {
	struct rig_buffer *in, *out;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
};

/* A code object whose code is the sim's kernel `callback` (fn), its
 * buffers, its function and a submission of one launch of it. */
static void
launch_setup_kernel(struct fix *f, struct launched *l, uint32_t callback,
		    amd_sim_kernel_fn fn, int *calls, size_t nrefs)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_part_spec part;
	struct obj o;

	device_object(&o, callback);
	assert_int_equal(amd_sim_kernel(f->sim, callback, fn, calls), 0);
	assert_int_equal(rig_buffer_create(f->d, 4096, RIG_MEMORY_DEVICE, &l->in), 0);
	assert_int_equal(rig_buffer_create(f->d, 4096, RIG_MEMORY_DEVICE, &l->out), 0);
	if (rig_image_load(f->d, o.b, sizeof(o.b), &l->img) < 0)
		fail_msg("load: %s", rig_why());
	if (rig_image_function(l->img, "add", &l->fn) < 0)
		fail_msg("function: %s", rig_why());
	part = rig_part_launch(l->fn, 24, refs, nrefs);
	if (rig_submission_make(f->d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &l->s) < 0)
		fail_msg("submission: %s", rig_why());
}

static void
launch_setup_refs(struct fix *f, struct launched *l, int *calls, size_t nrefs)
{
	launch_setup_kernel(f, l, 9, add_kernel, calls, nrefs);
}

static void
launch_setup(struct fix *f, struct launched *l, int *calls)
{
	launch_setup_refs(f, l, calls, 2);
}

static void
launch_down(struct launched *l)
{
	rig_submission_release(l->s);
	rig_image_release(l->img);
	rig_buffer_release(l->in);
	rig_buffer_release(l->out);
}

static int
launch(struct launched *l, struct rig_buffer *in, struct rig_buffer *out, uint32_t n,
       struct rig_point *p)
{
	uint32_t grid[3] = { (n + 63) / 64, 1, 1 }, group[3] = { 64, 1, 1 };
	uint64_t params[3] = { 0, 0, n };
	struct rig_run *run;

	if (rig_run_take(l->s, &run) < 0 ||
	    rig_run_store(run, 0, grid, group, params, sizeof(params)) < 0)
		return -1;
	return rig_submit(run, (struct rig_buffer *[]){ in, out }, 2, NULL, 0, p);
}

static void
test_launch_runs_the_code_object(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		uint32_t x[1024], y[1024];
		struct launched l;
		struct rig_point p;
		struct fix f;
		int calls = 0;

		sim_open(&f, gcs[k]);
		launch_setup(&f, &l, &calls);
		for (int i = 0; i < 1024; i++)
			x[i] = (uint32_t)i * 5;
		assert_int_equal(rig_buffer_write(l.in, 0, x, sizeof(x)), 0);
		/* in -> out -> in ...: each launch reads what the last wrote. */
		for (int r = 0; r < 50; r++)
			if (launch(&l, r & 1 ? l.out : l.in, r & 1 ? l.in : l.out, 1000, &p) < 0)
				fail_msg("launch %d: %s", r, rig_why());
		if (rig_wait(p, 30 * SECOND) < 0)
			fail_msg("wait: %s", rig_why());
		assert_int_equal(calls, 50);
		assert_int_equal(rig_buffer_read(l.in, 0, y, sizeof(y)), 0);
		for (int i = 0; i < 1000; i++)
			assert_int_equal(y[i], (uint32_t)i * 5 + 50);
		launch_down(&l);
		sim_down(&f);
	}
}

static int submit_one(struct fix *f, struct rig_part_spec part, struct rig_point *p);

/*
 * A launch of the function the queue launched last sets only the
 * registers a launch changes (amd/dev/queue.c); any other launch sets them
 * all, as does one after a words part. Two functions (add 1, double) in a
 * pattern of runs and switches, each reading what the one before wrote,
 * and words that point COMPUTE_PGM_LO at nothing between launches of one
 * function: a launch that kept the other function's registers computes
 * the wrong numbers (or calls the wrong kernel), and one that kept the
 * words' PGM_LO faults and loses the device.
 */
static void
test_launches_switch_functions(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };
	/* a: add, d: double, w: words setting PGM_LO to 0 */
	static const char pattern[] = "aaddadaddaaawaadwdaadddwwa";

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		uint32_t x[256], y[256], pkt[4];
		struct launched add, dbl;
		struct rig_buffer *w, *b[2];
		struct rig_point p;
		struct fix f;
		int add_calls = 0, dbl_calls = 0, adds = 0, dbls = 0, at = 0;

		sim_open(&f, gcs[k]);
		launch_setup_kernel(&f, &add, 9, add_kernel, &add_calls, 2);
		launch_setup_kernel(&f, &dbl, 10, double_kernel, &dbl_calls, 2);
		b[0] = add.in;
		b[1] = add.out;
		for (int i = 0; i < 256; i++)
			x[i] = (uint32_t)i * 3 + 1;
		assert_int_equal(rig_buffer_write(b[0], 0, x, sizeof(x)), 0);
		/* SET_SH_REG COMPUTE_PGM_LO/HI = 0 (amd-facts §4.2, §4.5). */
		pkt[0] = 3u << 30 | 2u << 16 | 0x76u << 8;
		pkt[1] = 0x20C;
		pkt[2] = pkt[3] = 0;
		assert_int_equal(rig_buffer_create(f.d, sizeof(pkt), RIG_MEMORY_DEVICE, &w), 0);
		assert_int_equal(rig_buffer_write(w, 0, pkt, sizeof(pkt)), 0);
		for (const char *c = pattern; *c; c++) {
			if (*c == 'w') {
				if (submit_one(&f, rig_part_words(w), NULL) < 0)
					fail_msg("words: %s", rig_why());
				continue;
			}
			if (launch(*c == 'a' ? &add : &dbl, b[at], b[!at], 256, &p) < 0)
				fail_msg("launch %zd: %s", c - pattern, rig_why());
			for (int i = 0; i < 256; i++)
				x[i] = *c == 'a' ? x[i] + 1 : x[i] * 2;
			*c == 'a' ? adds++ : dbls++;
			at = !at;
		}
		if (rig_wait(p, 30 * SECOND) < 0)
			fail_msg("GC %s: wait: %s (lost: %s)", gcs[k], rig_why(),
				 rig_lost(f.d) ? rig_lost(f.d) : "no");
		assert_int_equal(add_calls, adds);
		assert_int_equal(dbl_calls, dbls);
		assert_int_equal(rig_buffer_read(b[at], 0, y, sizeof(y)), 0);
		assert_memory_equal(x, y, sizeof(x));
		rig_buffer_release(w);
		launch_down(&add);
		launch_down(&dbl);
		sim_down(&f);
	}
}

/*
 * Kernargs near the arena's end. A launch whose kernargs do not fit
 * before the end goes whole to the arena's start (amd/dev/queue.c,
 * put_params), skipping up to its own size less 256 bytes, and room must
 * count that skip: a count of 256 admitted a launch that then wrote over
 * the kernargs of the oldest value not yet run. With the compute queue
 * stalled, 12 KiB launches fill the arena from offset 10240, where the
 * 682nd reaches the end with 8192 bytes free and skips 10240 of them; each
 * kernel finds its kernargs as its submit wrote them (every word its
 * index) or counts a bad one.
 */
#define TAG_BYTES	12288u
#define TAG_LAUNCHES	690

struct tagged {
	uint32_t calls, bad;
	uint64_t first_kernarg;
};

static int
tag_kernel(const struct amd_sim_launch *l)
{
	struct tagged *t = l->ctx;

	/* 256 bytes at a time: kernargs are 256-aligned, so no piece
	 * straddles a page. */
	for (uint32_t at = 0; at < TAG_BYTES; at += 256) {
		const uint32_t *w = amd_sim_translate(l, l->kernarg + at, 256, false);

		if (!w)
			return AMD_SIM_SQ_OK;	/* the fault halts the queue */
		for (int i = 0; i < 64; i++)
			if (w[i] != t->calls) {
				t->bad++;
				at = TAG_BYTES;
				break;
			}
	}
	if (!t->calls++)
		t->first_kernarg = l->kernarg;
	return AMD_SIM_SQ_OK;
}

/* Unstalls the compute queue once the test's submits reach the one room
 * must hold back (at), 100 ms after: however slow the build, the queue
 * is stalled for that submit, and unstalled well inside hang_ms (2 s),
 * which the submit blocked on room waits under. */
struct unstaller {
	pthread_t thread;
	struct fix *f;
	_Atomic uint32_t submits;	/* the test's submits begun */
	uint32_t at;
};

static void *
unstall_later(void *arg)
{
	struct unstaller *u = arg;

	while (atomic_load(&u->submits) < u->at)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	assert_int_equal(amd_sim_stall(u->f->sim, AMD_SIM_CP, 0, false), 0);
	return NULL;
}

static void
unstall_start(struct unstaller *u, struct fix *f, uint32_t at)
{
	u->f = f;
	u->at = at;
	atomic_store(&u->submits, 0);
	assert_int_equal(amd_sim_stall(f->sim, AMD_SIM_CP, 0, true), 0);
	assert_int_equal(pthread_create(&u->thread, NULL, unstall_later, u), 0);
}

static void
test_kernargs_wrap_keep_the_oldest(void **state)
{
	static uint32_t params[TAG_BYTES / 4];
	struct launched small, big;
	struct tagged t = { 0 };
	struct rig_part_spec part;
	struct rig_submission *s;
	struct unstaller u;
	struct rig_point p;
	struct fix f;
	struct obj o;
	int calls = 0;

	(void)state;
	sim_open(&f, "11.0.0");
	/* 40 launches of 24 bytes, 256 of the arena each: it is at 10240. */
	launch_setup(&f, &small, &calls);
	for (int i = 0; i < 40; i++)
		if (launch(&small, small.in, small.out, 1, &p) < 0)
			fail_msg("small launch %d: %s", i, rig_why());
	if (rig_wait(p, 30 * SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	device_object(&o, 11);
	assert_int_equal(amd_sim_kernel(f.sim, 11, tag_kernel, &t), 0);
	if (rig_image_load(f.d, o.b, sizeof(o.b), &big.img) < 0 ||
	    rig_image_function(big.img, "add", &big.fn) < 0)
		fail_msg("tag kernel: %s", rig_why());
	part = rig_part_launch(big.fn, TAG_BYTES, NULL, 0);
	if (rig_submission_make(f.d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
		fail_msg("submission: %s", rig_why());
	/* The 682nd (index 681) is the one room must hold back. */
	unstall_start(&u, &f, 681);
	for (uint32_t i = 0; i < TAG_LAUNCHES; i++) {
		static const uint32_t one[3] = { 1, 1, 1 };
		struct rig_run *run;

		for (size_t k = 0; k < TAG_BYTES / 4; k++)
			params[k] = i;
		atomic_store(&u.submits, i);
		if (rig_run_take(s, &run) < 0 ||
		    rig_run_store(run, 0, one, one, params, TAG_BYTES) < 0 ||
		    rig_submit(run, NULL, 0, NULL, 0, &p) < 0)
			fail_msg("tag launch %u: %s", i, rig_why());
	}
	pthread_join(u.thread, NULL);
	if (rig_wait(p, 30 * SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	/* The premise: the first lay at 10240 (40 launches of 256 each). */
	assert_int_equal(t.first_kernarg, AMD_VA_VRAM + AMD_ARENA_AT + 10240);
	assert_int_equal(t.calls, TAG_LAUNCHES);
	assert_int_equal(t.bad, 0);
	rig_submission_release(s);
	rig_image_release(big.img);
	launch_down(&small);
	sim_down(&f);
}

/*
 * A words part near the compute ring's end. A packet that does not fit
 * before the end goes whole to the ring's start, the dwords before the
 * end filled with NOPs (amd/pm4/ring.h); room must count that filler,
 * which is less than the packet: a count of 80 (the largest packet
 * besides words) admitted 10000 dwords of words whose filler and packet
 * then wrote over packets the engine had not read. Words values of 1000
 * dwords take the ring to 8000 and run; with the queue stalled, 53536
 * dwords more leave 4000 before the end and 12000 free, and a value of
 * 10000 dwords of NOPs follows (their payload 0xFFFFFFFF: a packet the
 * engine refuses, should it ever read one as a header). Every value runs,
 * and the device is not lost.
 */
static struct rig_buffer *
nops(struct fix *f, uint32_t dwords, uint32_t payload)
{
	uint32_t *w = malloc(dwords * 4);
	struct rig_buffer *b;

	assert_non_null(w);
	for (uint32_t at = 0; at < dwords; at += PM4_NOP_MAX / 2) {
		uint32_t n = dwords - at < PM4_NOP_MAX / 2 ? dwords - at : PM4_NOP_MAX / 2;

		assert_true(n >= 2);
		w[at] = PACKET3(PM4_NOP, n - 2);
		for (uint32_t i = 1; i < n; i++)
			w[at + i] = payload;
	}
	assert_int_equal(rig_buffer_create(f->d, dwords * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_write(b, 0, w, dwords * 4), 0);
	free(w);
	return b;
}

static void
test_words_wrap_keep_unread_packets(void **state)
{
	struct rig_buffer *k992, *k528, *big;
	_Atomic uint32_t *rptr;
	struct unstaller u;
	struct rig_point p;
	struct fix f;

	(void)state;
	sim_open(&f, "11.0.0");
	k992 = nops(&f, 992, 0);	/* a value of 1000 dwords with its end */
	k528 = nops(&f, 528, 0);
	big = nops(&f, 10000, 0xFFFFFFFFu);
	for (int i = 0; i < 8; i++)
		if (submit_one(&f, rig_part_words(k992), &p) < 0)
			fail_msg("words: %s", rig_why());
	if (rig_wait(p, 30 * SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	/* The premise: the engine read up to dword 8000 (its read pointer's
	 * write-back, which follows the value's end by up to a pass). */
	rptr = (_Atomic uint32_t *)((uint8_t *)amd_sim_vram(f.sim) + AMD_CP_RPTR_AT);
	for (int i = 0; i < 10000 && atomic_load(rptr) != 8000; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	assert_int_equal(atomic_load(rptr), 8000);
	unstall_start(&u, &f, 54);	/* the big one, after 54 */
	for (int i = 0; i < 54; i++)
		if (submit_one(&f, rig_part_words(i < 53 ? k992 : k528), &p) < 0)
			fail_msg("words: %s", rig_why());
	atomic_store(&u.submits, 54);
	if (submit_one(&f, rig_part_words(big), &p) < 0)
		fail_msg("big words: %s", rig_why());
	pthread_join(u.thread, NULL);
	if (rig_wait(p, 30 * SECOND) < 0)
		fail_msg("wait: %s (lost: %s)", rig_why(), rig_lost(f.d) ? rig_lost(f.d) : "no");
	assert_null(rig_lost(f.d));
	rig_buffer_release(k992);
	rig_buffer_release(k528);
	rig_buffer_release(big);
	sim_down(&f);
}

static void
test_vm_fault_names_the_culprit(void **state)
{
	struct launched l;
	struct rig_point p;
	struct fix f;
	int calls = 0;
	uint32_t grid[3] = { 1, 1, 1 }, group[3] = { 64, 1, 1 };
	uint64_t params[3] = { 0, 0x100000000000ull, 16 };	/* out: no page maps it */
	char culprit[160];
	struct rig_run *run;

	(void)state;
	sim_open(&f, "11.0.0");
	launch_setup_refs(&f, &l, &calls, 1);
	params[1] = 0x100000000000ull;
	assert_int_equal(rig_run_take(l.s, &run), 0);
	assert_int_equal(rig_run_store(run, 0, grid, group, params, sizeof(params)), 0);
	assert_int_equal(rig_submit(run, (struct rig_buffer *[]){ l.in }, 1, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SECOND), RIG_ELOST);
	assert_non_null(rig_lost(f.d));
	snprintf(culprit, sizeof(culprit), "by the COMPUTE:0 queue of value %llu part 0: "
		 "no region of the device", (unsigned long long)p.value);
	if (!strstr(rig_lost(f.d), "VM fault at 0x100000000000 (write, status 0x") ||
	    !strstr(rig_lost(f.d), culprit))
		fail_msg("the loss: %s", rig_lost(f.d));
	printf("# the loss: %s\n", rig_lost(f.d));
	launch_down(&l);
	sim_down(&f);
}

static void
test_hang_loses_the_device(void **state)
{
	struct launched l;
	struct rig_point p;
	struct fix f;
	int calls = 0;

	(void)state;
	sim_open(&f, "12.0.1");
	launch_setup(&f, &l, &calls);
	assert_int_equal(amd_sim_stall(f.sim, AMD_SIM_CP, 0, true), 0);
	assert_int_equal(launch(&l, l.in, l.out, 100, &p), 0);
	assert_int_equal(rig_wait(p, 60 * SECOND), RIG_ELOST);
	if (!strstr(rig_lost(f.d), "no progress for 2000 ms"))
		fail_msg("the loss: %s", rig_lost(f.d));
	launch_down(&l);
	sim_down(&f);
}

static int
submit_one(struct fix *f, struct rig_part_spec part, struct rig_point *p)
{
	struct rig_submission *s;
	struct rig_run *run;
	int ret;

	if (rig_submission_make(f->d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
		return -1;
	ret = rig_run_take(s, &run);
	if (ret == 0)
		ret = rig_submit(run, NULL, 0, NULL, 0, p);
	rig_submission_release(s);
	return ret;
}

/* Words on COMPUTE:0 between copies on SDMA:0: a WRITE_DATA into c that the
 * copy after it reads, and the copy before it is done when it runs. */
static void
test_words_between_copies(void **state)
{
	static const char *const gcs[] = { "9.4.3", "12.0.0" };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct rig_buffer *a, *c, *d, *w;
		uint32_t x[64], y[64], pkt[5];
		struct rig_point p;
		struct fix f;

		sim_open(&f, gcs[k]);
		assert_int_equal(rig_buffer_create(f.d, sizeof(x), RIG_MEMORY_DEVICE, &a), 0);
		assert_int_equal(rig_buffer_create(f.d, sizeof(x), RIG_MEMORY_DEVICE, &c), 0);
		assert_int_equal(rig_buffer_create(f.d, sizeof(x), RIG_MEMORY_DEVICE, &d), 0);
		assert_int_equal(rig_buffer_create(f.d, sizeof(pkt), RIG_MEMORY_DEVICE, &w), 0);
		for (int i = 0; i < 64; i++)
			x[i] = 0x1000u + (uint32_t)i;
		assert_int_equal(rig_buffer_write(a, 0, x, sizeof(x)), 0);
		/* WRITE_DATA (amd-facts §4.3): one dword to memory at c + 8. */
		pkt[0] = 3u << 30 | 3u << 16 | 0x37u << 8;
		pkt[1] = 5u << 8 | 1u << 20;
		pkt[2] = (uint32_t)(rig_buffer_address(c) + 8);
		pkt[3] = (uint32_t)((rig_buffer_address(c) + 8) >> 32);
		pkt[4] = 0xC0FFEEu;
		assert_int_equal(rig_buffer_write(w, 0, pkt, sizeof(pkt)), 0);
		assert_int_equal(rig_buffer_copy(a, c, NULL), 0);
		if (submit_one(&f, rig_part_words(w), NULL) < 0)
			fail_msg("words: %s", rig_why());
		assert_int_equal(rig_buffer_copy(c, d, &p), 0);
		if (rig_wait(p, 30 * SECOND) < 0)
			fail_msg("wait: %s", rig_why());
		assert_int_equal(rig_buffer_read(d, 0, y, sizeof(y)), 0);
		x[2] = 0xC0FFEEu;
		assert_memory_equal(x, y, sizeof(x));
		rig_buffer_release(a);
		rig_buffer_release(c);
		rig_buffer_release(d);
		rig_buffer_release(w);
		sim_down(&f);
	}
}

/* Order across devices: an AMD copy's result, borrowed by a memory device
 * and by the host device, is what their copies read, with no wait between:
 * rig orders their work after the AMD value: the memory device's on the
 * host, the host device's queue itself (it waits for Store producers), both
 * ended by the AMD device's own word, which rig reads through signaled. */
static void
test_order_across_devices(void **state)
{
	enum { BYTES = 1 << 20 };
	struct rig_device *mem, *host, *other[2];
	uint8_t *x = malloc(BYTES), *y = malloc(BYTES);
	struct fix f;

	(void)state;
	sim_open(&f, "11.0.0");
	assert_int_equal(rig_memory_device("amd-order-mem", &mem), 0);
	assert_int_equal(rig_host_device(&host), 0);
	other[0] = mem;
	other[1] = host;
	for (int round = 0; round < 20; round++)
		for (int k = 0; k < 2; k++) {
			struct rig_buffer *a, *b, *bo, *h;
			struct rig_point p;

			for (size_t i = 0; i < BYTES; i++)
				x[i] = (uint8_t)(i * 13 + (size_t)round * 7 + (size_t)k);
			assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &a), 0);
			assert_int_equal(rig_buffer_create(f.d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
			assert_int_equal(rig_buffer_create(other[k], BYTES, RIG_MEMORY_DEVICE, &h), 0);
			assert_int_equal(rig_buffer_write(a, 0, x, BYTES), 0);
			assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
			if (rig_buffer_borrow(b, other[k], &bo) < 0)
				fail_msg("borrow: %s", rig_why());
			assert_int_equal(rig_buffer_copy(bo, h, &p), 0);
			if (rig_wait(p, 30 * SECOND) < 0)
				fail_msg("wait: %s", rig_why());
			assert_int_equal(rig_buffer_read(h, 0, y, BYTES), 0);
			assert_memory_equal(x, y, BYTES);
			rig_buffer_release(bo);
			rig_buffer_release(h);
			rig_buffer_release(a);
			rig_buffer_release(b);
		}
	rig_close(mem);
	rig_device_release(mem);
	rig_device_release(host);
	free(x);
	free(y);
	sim_down(&f);
}

struct stresser {
	struct rig_device *d;
	int bad;
};

/* One thread's rounds: its own buffers made, filled, copied and freed, while
 * the others do the same and the events thread reads the IH ring. */
static void *
stress_thread(void *arg)
{
	struct stresser *st = arg;
	uint8_t x[8192], y[8192];

	for (int round = 0; round < 40; round++) {
		size_t bytes = 256 + (size_t)(round * 997 % 7936);
		struct rig_buffer *a, *b;
		struct rig_point p;

		for (size_t i = 0; i < bytes; i++)
			x[i] = (uint8_t)(i + (size_t)round + (uintptr_t)st);
		if (rig_buffer_create(st->d, bytes, RIG_MEMORY_DEVICE, &a) < 0 ||
		    rig_buffer_create(st->d, bytes, RIG_MEMORY_DEVICE, &b) < 0) {
			st->bad++;
			return NULL;
		}
		if (rig_buffer_write(a, 0, x, bytes) < 0 || rig_buffer_copy(a, b, &p) < 0 ||
		    rig_wait(p, 60 * SECOND) < 0 || rig_buffer_read(b, 0, y, bytes) < 0 ||
		    memcmp(x, y, bytes))
			st->bad++;
		rig_buffer_release(a);
		rig_buffer_release(b);
	}
	return NULL;
}

/* Four threads allocate, copy and free on one device at once: VRAM's free
 * list, the submit path and the events thread share the device. */
static void
test_stress_threads(void **state)
{
	struct stresser st[4];
	pthread_t t[4];
	struct fix f;

	(void)state;
	sim_open(&f, "12.0.1");
	for (int k = 0; k < 4; k++) {
		st[k] = (struct stresser){ f.d, 0 };
		assert_int_equal(pthread_create(&t[k], NULL, stress_thread, &st[k]), 0);
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(t[k], NULL);
		assert_int_equal(st[k].bad, 0);
	}
	assert_null(rig_lost(f.d));
	sim_down(&f);
}

/* Refusals: objects that are no AMDGPU code object, or that carry
 * relocations, and a function the object does not have. */
static void
test_load_refusals(void **state)
{
	static const uint8_t junk[64] = { 0x7f, 'E', 'L', 'F' };
	struct rig_function *fn;
	struct rig_image *img;
	struct obj o;
	struct fix f;

	(void)state;
	sim_open(&f, "11.0.0");
	assert_true(rig_image_load(f.d, junk, sizeof(junk), &img) < 0);
	if (!strstr(rig_why(), "not an ELF64 AMDGPU code object"))
		fail_msg("junk: %s", rig_why());
	device_object(&o, 1);
	((Elf64_Shdr *)(o.b + SHDRS))[3].sh_type = SHT_RELA;
	assert_true(rig_image_load(f.d, o.b, sizeof(o.b), &img) < 0);
	if (!strstr(rig_why(), "it has relocations"))
		fail_msg("relocations: %s", rig_why());
	device_object(&o, 1);
	assert_int_equal(rig_image_load(f.d, o.b, sizeof(o.b), &img), 0);
	assert_true(rig_image_function(img, "sub", &fn) < 0);
	assert_true(rig_image_function(img, "add", &fn) == 0);
	assert_null(rig_lost(f.d));
	rig_image_release(img);
	sim_down(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_boots_and_closes_clean),
		cmocka_unit_test(test_points_read_after_the_end),
		cmocka_unit_test(test_copies_in_order),
		cmocka_unit_test(test_launch_runs_the_code_object),
		cmocka_unit_test(test_launches_switch_functions),
		cmocka_unit_test(test_kernargs_wrap_keep_the_oldest),
		cmocka_unit_test(test_words_wrap_keep_unread_packets),
		cmocka_unit_test(test_vm_fault_names_the_culprit),
		cmocka_unit_test(test_hang_loses_the_device),
		cmocka_unit_test(test_load_refusals),
		cmocka_unit_test(test_words_between_copies),
		cmocka_unit_test(test_order_across_devices),
		cmocka_unit_test(test_stress_threads),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the open needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
