/* SPDX-License-Identifier: MIT */
/*
 * 12-host-programs: C compiled to an ELF object, loaded on host devices
 * and launched like a kernel over many groups, which the host's cores run
 * in parallel: each worker gets ranges of whole groups.
 *
 * Two host devices, "HOST:1" and "HOST:2" (rig_host_open), each with its
 * own timeline and threads, run the kernel side by side; the program
 * checks every group ran exactly once on each. Then a kernel with a bug
 * (a store through NULL) runs on HOST:2: the fault is contained, HOST:2
 * is lost with the kernel's name and the culprit (rig_loss), HOST:1 goes
 * on, and HOST:2 opens again.
 *
 * Usage: 12-host-programs [OBJECT]
 */
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"
#include "rig_host.h"

/* The kernels' object: the path the build gives (meson, or this folder's
 * Makefile), else groups.o in the working directory. */
#ifndef GROUPS_OBJECT
#define GROUPS_OBJECT "groups.o"
#endif

#define GROUPS 100000
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "12-host-programs: %s\n", rig_why()); exit(1); } } while (0)

static char object[1 << 16];
static size_t object_len;

struct launch {
	struct rig_device *d;
	struct rig_image *img;
	struct rig_submission *s;
	struct rig_buffer *b;
	struct rig_point p;
};

/* Launch kernel over GROUPS groups on d; bad: mark_bad's faulting group. */
static void
start(struct rig_device *d, const char *kernel, int64_t bad, struct launch *l)
{
	struct rig_function *fn;
	struct rig_run *run;
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part;
	int64_t params[3] = { 0, 2000, bad };
	uint32_t grid[3] = { GROUPS, 1, 1 }, group[3] = { 1, 1, 1 };

	l->d = d;
	TRY(rig_buffer_create(d, GROUPS * sizeof(int64_t), RIG_MEMORY_DEVICE, &l->b));
	TRY(rig_image_load(d, object, object_len, &l->img));
	TRY(rig_image_function(l->img, kernel, &fn));
	part = rig_part_launch(fn, sizeof(params), &ref, 1);
	TRY(rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &l->s));
	TRY(rig_run_take(l->s, &run));
	TRY(rig_run_store(run, 0, grid, group, params, sizeof(params)));
	TRY(rig_submit(run, &l->b, 1, NULL, 0, &l->p));
}

/* Wait for l; check every group ran once. Returns the groups that did not. */
static size_t
finish(struct launch *l)
{
	static int64_t out[GROUPS];
	size_t wrong = 0;

	TRY(rig_wait(l->p, 60ull * 1000000000));
	TRY(rig_buffer_read(l->b, 0, out, sizeof(out)));
	for (int64_t g = 0; g < GROUPS; g++)
		wrong += out[g] != g;
	return wrong;
}

static void
end(struct launch *l)
{
	rig_submission_release(l->s);
	rig_image_release(l->img);
	rig_buffer_release(l->b);
}

static struct rig_device *
open_host(const char *name)
{
	struct rig_host_config c = { .name = name, .cores = 0 };
	struct rig_device *d;

	TRY(rig_host_open(&c, &d));
	return d;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : GROUPS_OBJECT;
	struct rig_device *h1, *h2;
	struct launch l1, l2;
	const struct rig_loss *loss;
	size_t wrong;
	FILE *f = fopen(path, "rb");
	uint64_t t0, t1;

	object_len = f ? fread(object, 1, sizeof(object), f) : 0;
	if (f)
		fclose(f);
	if (!object_len) {
		fprintf(stderr, "12-host-programs: cannot read %s\n", path);
		return 1;
	}
	h1 = open_host("HOST:1");
	h2 = open_host("HOST:2");

	/* Side by side: two devices, two timelines, no wait between them. */
	t0 = rig_now_ns();
	start(h1, "mark", -1, &l1);
	start(h2, "mark", -1, &l2);
	wrong = finish(&l1) + finish(&l2);
	t1 = rig_now_ns();
	printf("%d groups on each of %s and %s in %.2f ms: %s\n", GROUPS, rig_name(h1),
	       rig_name(h2), (double)(t1 - t0) / 1e6,
	       wrong ? "SOME GROUP DID NOT RUN ONCE" : "every group ran exactly once");
	end(&l1);
	end(&l2);

	/* A kernel's fault, contained: only HOST:2 is lost. */
	start(h2, "mark_bad", 4321, &l2);
	if (rig_wait(l2.p, 60ull * 1000000000) != RIG_ELOST)
		return fprintf(stderr, "12-host-programs: the fault was not reported\n"), 1;
	loss = rig_loss(h2);
	printf("%s lost: %s (value %llu, part %d of submission %p)\n", loss->device,
	       loss->reason, (unsigned long long)loss->value, loss->part, loss->submission);
	end(&l2);
	rig_device_release(h2);
	start(h1, "mark", -1, &l1);
	wrong += finish(&l1);
	end(&l1);
	h2 = open_host("HOST:2");
	start(h2, "mark", -1, &l2);
	wrong += finish(&l2);
	end(&l2);
	printf("%s went on, and %s opened again: %s\n", rig_name(h1), rig_name(h2),
	       wrong ? "SOME GROUP DID NOT RUN ONCE" : "every group ran exactly once");
	rig_device_release(h1);
	rig_device_release(h2);
	return wrong != 0;
}
