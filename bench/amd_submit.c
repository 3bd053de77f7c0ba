/* SPDX-License-Identifier: MIT */
/*
 * bench/amd_submit.c: what a submit costs the submitting thread on the
 * AMD device (src/amd/dev) on rig's software GPU, beside the polled device
 * in the same run (issue 17: no more than the polled device's plus the
 * encoding, which bench_amd_encode measures).
 *
 *   submit_1launch  ns per rig_run_take + rig_run_store + rig_submit of a
 *                   prepared one-launch, three-ref, 32-byte submission:
 *                   01-add's kernel, with n = 0 so the sim's add does
 *                   nothing. Each sample the mean of 8 submits in a row
 *                   (bench_per_op_pair's PAIR_GROUP: a per-submit sample
 *                   is a whole number of this VM's 10 ns clock ticks);
 *                   every 256th op also waits for the last submit, which
 *                   keeps the AMD device's 1024 values of history from
 *                   filling (that op's group is a slow sample; the median
 *                   is the submit's). rig-polled (lag 16, the AMD
 *                   device's k) and rig-amd-sim.
 *   batched_submit  rig-amd-sim: n of those one-launch submits, then one
 *                   rig_wait() on the last (ns per submit), beside
 *                   bench/rig_copy.c's rig-polled figure of the same name
 *                   (n 4-byte copies, one wait). Past 1024 values the AMD
 *                   device's room waits for the sim's CP thread, so the
 *                   figure is the slower of the submit and the sim.
 *   batched_copy    rig-amd-sim: n 4-byte copies, then one wait: SDMA
 *                   work, each value handed from the compute queue to SDMA
 *                   and back (docs/amd.md "Device order"), which the sim's
 *                   engines poll for every 50 us: the sim's throughput,
 *                   not the submitting thread's cost.
 *
 * The sim is the one RIG_AMD_SIM selects (GC 11.0.0 unless the variable
 * names another); its open needs the pinned images, found through
 * RIG_TEST_FIRMWARE or rig's firmware directory. Without them the program
 * prints rig-polled's submit_1launch alone and exits 77 (skipped). Both
 * devices are open at once, and submit_1launch's runs alternate between
 * them (bench_per_op_pair: polled, sim, sim, polled, ...), so a change in
 * the machine's load between runs meets both figures alike; one device
 * works at a time, the other's threads asleep. The sim's engines are
 * threads of this process: on a machine of few cores they share them with
 * the submitting thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "rig.h"
#include "rig_amd_pci.h"
#include "rig_polled.h"

#define WAIT_NS		30000000000ull
#define WAIT_EVERY	256

struct launcher {
	struct rig_device *d;
	struct rig_submission *s;
	struct rig_buffer *a, *b, *c;
	struct rig_point last;
	uint64_t done;
	const char *why;
};

static const struct bench *prog;

static int
check(int ret, const char *what)
{
	if (ret < 0)
		bench_note(prog, "%s: %s", what, rig_why());
	return ret;
}

static int
submit_launch(struct launcher *l)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	int64_t params[4] = { 0, 0, 0, 0 };		/* n = 0: no element */
	struct rig_run *r;
	int ret;

	if ((ret = check(rig_run_take(l->s, &r), "rig_run_take")) < 0 ||
	    (ret = check(rig_run_store(r, 0, one, one, params, sizeof(params)),
			 "rig_run_store")) < 0)
		return ret;
	return check(rig_submit(r, (struct rig_buffer *[]){ l->a, l->b, l->c }, 3,
				NULL, 0, &l->last), "rig_submit");
}

static int
launch_one(void *arg)
{
	struct launcher *l = arg;
	int ret = submit_launch(l);

	if (ret == 0 && ++l->done % WAIT_EVERY == 0)
		ret = check(rig_wait(l->last, WAIT_NS), "rig_wait");
	return ret;
}

static int
launch_batch(void *arg, uint64_t n)
{
	struct launcher *l = arg;

	for (uint64_t i = 0; i < n; i++)
		if (submit_launch(l) < 0)
			return -1;
	return check(rig_wait(l->last, WAIT_NS), "rig_wait");
}

static int
copy_batch(void *arg, uint64_t n)
{
	struct launcher *l = arg;
	struct rig_point p;

	for (uint64_t i = 0; i < n; i++)
		if (check(rig_buffer_copy(l->a, l->b, &p), "rig_buffer_copy") < 0)
			return -1;
	return check(rig_wait(p, WAIT_NS), "rig_wait");
}

/* Buffers and the one-launch submission of fn (3 refs, 32 bytes). */
static int
prepare(struct launcher *l, struct rig_function *fn)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec part = rig_part_launch(fn, 32, refs, 3);

	if (check(rig_buffer_create(l->d, 4096, RIG_MEMORY_DEVICE, &l->a), "create") < 0 ||
	    check(rig_buffer_create(l->d, 4096, RIG_MEMORY_DEVICE, &l->b), "create") < 0 ||
	    check(rig_buffer_create(l->d, 4096, RIG_MEMORY_DEVICE, &l->c), "create") < 0)
		return -1;
	return check(rig_submission_make(l->d, &part, 1, NULL, 0, (struct rig_keep){ 0 },
					 &l->s), "rig_submission_make");
}

static void
finish(struct launcher *l)
{
	rig_submission_release(l->s);
	rig_buffer_release(l->a);
	rig_buffer_release(l->b);
	rig_buffer_release(l->c);
}

/* The sim's figures past submit_1launch: batched submits, then copies. */
static int
sim_rest(const struct bench *b, struct launcher *l)
{
	int ret = bench_per_run(b, "batched_submit", "rig-amd-sim", BENCH_RIG, launch_batch, l,
				bench_count(b, 200000, 20000), 0);

	rig_buffer_release(l->a);
	rig_buffer_release(l->b);
	l->a = l->b = NULL;
	/* 4-byte buffers for the copies, as rig_copy.c's. */
	if (ret == 0 &&
	    (check(rig_buffer_create(l->d, 4, RIG_MEMORY_DEVICE, &l->a), "create") < 0 ||
	     check(rig_buffer_create(l->d, 4, RIG_MEMORY_DEVICE, &l->b), "create") < 0))
		ret = -1;
	if (ret == 0)
		ret = bench_per_run(b, "batched_copy", "rig-amd-sim", BENCH_RIG, copy_batch, l,
				    bench_count(b, 2000, 200), 0);
	return ret;
}

/* The polled device (lag 16, the AMD device's k) and its submission. */
static int
polled_open(struct launcher *l, struct rig_polled **p, struct rig_image **img)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "BENCH_POLLED", .lag = 16 };
	struct rig_function *fn;

	if (rig_polled_create(&c, p) < 0)
		return check(-1, "rig_polled_create");
	if (check(rig_open(rig_polled_opener(*p), &l->d), "rig_open") < 0 ||
	    check(rig_image_load(l->d, "k", 1, img), "rig_image_load") < 0 ||
	    check(rig_image_function(*img, "k/32/1024", &fn), "rig_image_function") < 0)
		return -1;
	return prepare(l, fn);
}

/* The AMD device on the software GPU and its submission; BENCH_SKIP
 * where the sim does not open. */
static int
sim_open(const struct bench *b, struct launcher *l, struct rig_image **img)
{
	const char *fw = getenv("RIG_TEST_FIRMWARE");
	const char *dirs[2] = { fw, NULL };
	struct rig_opener *o;
	struct rig_function *fn;
	char object[4096];
	size_t len;

	if (!getenv("RIG_AMD_SIM"))
		setenv("RIG_AMD_SIM", "11.0.0", 1);
	if (!(len = bench_read_file(ADD_SIM_OBJECT, object, sizeof(object)))) {
		bench_note(b, "cannot read %s", ADD_SIM_OBJECT);
		return -1;
	}
	if (check(rig_amd_pci_gpu(rig_pci_machine_this(), fw ? dirs : NULL, 0, &o),
		  "rig_amd_pci_gpu") < 0)
		return -1;
	if (rig_open(o, &l->d) < 0) {
		bench_note(b, "skipped: the software GPU does not open (%s); "
			   "RIG_TEST_FIRMWARE names the images' folder", rig_why());
		rig_amd_pci_opener_free(o);
		return BENCH_SKIP;
	}
	rig_amd_pci_opener_free(o);
	if (check(rig_image_load(l->d, object, len, img), "rig_image_load") < 0 ||
	    check(rig_image_function(*img, "add", &fn), "rig_image_function") < 0)
		return -1;
	return prepare(l, fn);
}

static void
close_device(struct launcher *l, struct rig_image *img)
{
	if (l->s)
		(void)rig_wait(l->last, WAIT_NS);
	finish(l);
	if (img)
		rig_image_release(img);
	if (l->d) {
		rig_close(l->d);
		rig_device_release(l->d);
	}
}

int
main(int argc, char **argv)
{
	struct launcher lp = { 0 }, ls = { 0 };
	struct rig_image *img_p = NULL, *img_s = NULL;
	struct rig_polled *p = NULL;
	uint64_t n;
	struct bench b;
	int ret, sim;

	bench_init(&b, "amd_submit", argc, argv);
	prog = &b;
	n = bench_count(&b, 100000, 10000);
	ret = polled_open(&lp, &p, &img_p);
	sim = ret == 0 ? sim_open(&b, &ls, &img_s) : -1;
	if (ret == 0 && sim == 0) {
		static const char *const impl[2] = { "rig-polled", "rig-amd-sim" };
		bench_one_fn const fn[2] = { launch_one, launch_one };
		void *const arg[2] = { &lp, &ls };

		ret = bench_per_op_pair(&b, "submit_1launch", BENCH_RIG, impl, fn, arg,
					n / PAIR_GROUP);
		if (ret == 0)
			ret = check(rig_wait(ls.last, WAIT_NS), "rig_wait");
		if (ret == 0)
			ret = sim_rest(&b, &ls);
	} else if (ret == 0 && sim == BENCH_SKIP) {
		ret = bench_per_op(&b, "submit_1launch", "rig-polled", BENCH_RIG, launch_one,
				   &lp, n, 0);
	} else {
		ret = -1;
	}
	if (ls.d && rig_lost(ls.d)) {
		bench_note(&b, "AMD-PCI was lost: %s", rig_lost(ls.d));
		ret = -1;
	}
	close_device(&ls, img_s);
	close_device(&lp, img_p);
	if (p)
		rig_polled_destroy(p);
	if (ret == 0 && sim == BENCH_SKIP)
		return BENCH_SKIP;
	return ret ? 1 : 0;
}
