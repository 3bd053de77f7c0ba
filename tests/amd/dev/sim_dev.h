/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/dev/sim_dev.h: the AMD device on a software GPU, opened as a
 * program opens it (rig_open of rig_amd_pci_gpu's opener on the sim's
 * machine, the real images at RIG_TEST_FIRMWARE), for the tests that run
 * the core's promises on it beside other devices. Also the sim's "copy
 * words" kernel: a real code object (tests/amd/code_object.h) whose
 * callback copies n 32-bit words from its first ref to its second through
 * the sim's page walk. A helper that fails aborts the test (cmocka).
 */
#ifndef TESTS_AMD_DEV_SIM_DEV_H
#define TESTS_AMD_DEV_SIM_DEV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/sim/sim.h"
#include "../code_object.h"
#include "../fake.h"

#define SIM_MARK_CLEAN	0xA0000008u	/* what a clean session of rig leaves */
#define SIM_SECOND	1000000000ull

struct sim_dev {
	char root[256];
	struct amd_sim *sim;
	struct rig_opener *o;
	struct rig_device *d;
	const char *fw[2];
};

/* A sim of GC gc a clean session left, and its device opened. */
static inline void
sim_dev_open(struct sim_dev *f, const char *gc)
{
	struct amd_sim_opts o = { .gc = gc, .mark = SIM_MARK_CLEAN };

	memset(f, 0, sizeof(*f));
	fake_root(f->root);
	o.root = f->root;
	if (amd_sim_create(&o, &f->sim) < 0)
		fail_msg("sim: %s", rig_why());
	f->fw[0] = getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(f->sim), f->fw, 0, &f->o), 0);
	if (rig_open(f->o, &f->d) < 0)
		fail_msg("open: %s", rig_why());
}

/* Closes the device (lost or not) and removes the sim and its tree. */
static inline void
sim_dev_close(struct sim_dev *f)
{
	if (f->d) {
		rig_close(f->d);
		rig_device_release(f->d);
	}
	rig_amd_pci_opener_free(f->o);
	amd_sim_destroy(f->sim);
	fake_remove(f->root);
}

/* ---- the copy-words kernel --------------------------------------------- */

#define SIM_COPY_CALLBACK 7

/* Its parameters: rig places the refs' addresses at 0 and 8. */
struct sim_copy_params {
	uint64_t src, dst;
	uint64_t words;
	uint64_t tag;		/* the test's own: passed to ran */
};

/* What a test learns of each run of the kernel: called as it starts (end
 * 0) and once it has written (end 1), on the sim's CP thread. */
struct sim_copy_ctx {
	void (*ran)(void *arg, uint64_t tag, int end);
	void *arg;
	_Atomic uint64_t runs;
};

static inline int
sim_copy_kernel(const struct amd_sim_launch *l)
{
	struct sim_copy_ctx *c = l->ctx;
	const struct sim_copy_params *p = amd_sim_translate(l, l->kernarg, sizeof(*p), false);
	uint32_t w[1024];

	if (!p)
		return AMD_SIM_SQ_OK;		/* the fault halts the queue */
	if (c->ran)
		c->ran(c->arg, p->tag, 0);
	for (uint64_t i = 0; i < p->words && i < 1024; i++) {
		const uint32_t *in = amd_sim_translate(l, p->src + 4 * i, 4, false);

		if (!in)
			return AMD_SIM_SQ_OK;
		w[i] = *in;
	}
	for (uint64_t i = 0; i < p->words && i < 1024; i++) {
		uint32_t *out = amd_sim_translate(l, p->dst + 4 * i, 4, true);

		if (!out)
			return AMD_SIM_SQ_OK;
		*out = w[i];
	}
	if (c->ran)
		c->ran(c->arg, p->tag, 1);
	atomic_fetch_add(&c->runs, 1);
	return AMD_SIM_SQ_OK;
}

/* The kernel registered on f's sim, its image loaded and its function in
 * *fn; the image in *img (release it before the device closes). */
static inline void
sim_copy_load(struct sim_dev *f, struct sim_copy_ctx *ctx, struct rig_image **img,
	      struct rig_function **fn)
{
	struct obj o;

	/* USER_SGPR_COUNT 2 (rsrc2 bits 5:1): the kernarg pointer. */
	build_object(&o, AMD_SIM_KERNEL_MAGIC, SIM_COPY_CALLBACK, 2u << 1);
	/* kernarg_size: the whole of struct sim_copy_params. */
	{
		uint32_t kernarg = sizeof(struct sim_copy_params);

		memcpy(o.b + RODATA + 8, &kernarg, 4);
	}
	assert_int_equal(amd_sim_kernel(f->sim, SIM_COPY_CALLBACK, sim_copy_kernel, ctx), 0);
	if (rig_image_load(f->d, o.b, sizeof(o.b), img) < 0)
		fail_msg("load: %s", rig_why());
	if (rig_image_function(*img, "add", fn) < 0)
		fail_msg("function: %s", rig_why());
}

/* A one-launch submission of fn: ref 0 read, ref 1 written. */
static inline struct rig_submission *
sim_copy_submission(struct rig_device *d, struct rig_function *fn)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_part_spec part = rig_part_launch(fn, sizeof(struct sim_copy_params),
						    refs, 2);
	struct rig_submission *s;

	if (rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
		fail_msg("submission: %s", rig_why());
	return s;
}

/* One run of s: words words from src to dst, tagged; its point in *p. */
static inline int
sim_copy_run(struct rig_submission *s, struct rig_buffer *src, struct rig_buffer *dst,
	     uint64_t words, uint64_t tag, struct rig_point *p)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	struct sim_copy_params params = { 0, 0, words, tag };
	struct rig_run *run;

	if (rig_run_take(s, &run) < 0 ||
	    rig_run_store(run, 0, one, one, &params, sizeof(params)) < 0)
		return -1;
	return rig_submit(run, (struct rig_buffer *[]){ src, dst }, 2, NULL, 0, p);
}

/* A launch of the copy kernel and an SDMA copy on f's device, checked
 * bytewise; salt tells one process's bytes from another's. */
static inline void
sim_copy_work(struct sim_dev *f, uint32_t salt)
{
	enum { WORDS = 1024 };
	struct sim_copy_ctx ctx = { 0 };
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_function *fn;
	struct rig_image *img;
	uint32_t x[WORDS], y[WORDS], z[WORDS];
	struct rig_point p;

	for (size_t i = 0; i < WORDS; i++)
		x[i] = (uint32_t)(i * 2654435761u) ^ salt;
	sim_copy_load(f, &ctx, &img, &fn);
	s = sim_copy_submission(f->d, fn);
	assert_int_equal(rig_buffer_create(f->d, sizeof(x), RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f->d, sizeof(x), RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(f->d, sizeof(x), RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_write(a, 0, x, sizeof(x)), 0);
	if (sim_copy_run(s, a, b, WORDS, 1, &p) < 0 || rig_wait(p, 60 * SIM_SECOND) < 0)
		fail_msg("launch: %s", rig_why());
	assert_int_equal(atomic_load(&ctx.runs), 1);
	if (rig_buffer_copy(b, c, &p) < 0 || rig_wait(p, 60 * SIM_SECOND) < 0)
		fail_msg("copy: %s", rig_why());
	assert_int_equal(rig_buffer_read(b, 0, y, sizeof(y)), 0);
	assert_int_equal(rig_buffer_read(c, 0, z, sizeof(z)), 0);
	assert_memory_equal(x, y, sizeof(x));
	assert_memory_equal(x, z, sizeof(x));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

#endif
