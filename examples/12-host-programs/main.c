/* SPDX-License-Identifier: MIT */
/*
 * 12-host-programs: C compiled to an ELF object, loaded on the host device
 * and launched like a kernel over many groups, which the host's cores run
 * in parallel: each worker gets ranges of whole groups. The program checks
 * that every group ran exactly once.
 *
 * Usage: 12-host-programs [OBJECT]
 */
#include <stdio.h>
#include <stdlib.h>

#include "rig.h"

/* The kernel's object: the path the build gives (meson, or this folder's
 * Makefile), else groups.o in the working directory. */
#ifndef GROUPS_OBJECT
#define GROUPS_OBJECT "groups.o"
#endif

#define GROUPS 100000
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "12-host-programs: %s\n", rig_why()); return 1; } } while (0)

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : GROUPS_OBJECT;
	static int64_t out[GROUPS];
	struct rig_device *host;
	struct rig_buffer *b;
	struct rig_image *img;
	struct rig_function *mark;
	struct rig_submission *s;
	struct rig_run *run;
	struct rig_point p;
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part;
	int64_t params[2] = { 0, 2000 };
	uint32_t grid[3] = { GROUPS, 1, 1 }, group[3] = { 1, 1, 1 };
	FILE *f = fopen(path, "rb");
	static char object[1 << 16];
	size_t len = f ? fread(object, 1, sizeof(object), f) : 0;
	size_t wrong = 0;
	uint64_t t0, t1;

	if (f)
		fclose(f);
	if (!len) {
		fprintf(stderr, "12-host-programs: cannot read %s\n", path);
		return 1;
	}
	TRY(rig_host_device(&host));
	TRY(rig_buffer_create(host, sizeof(out), RIG_MEMORY_DEVICE, &b));
	TRY(rig_image_load(host, object, len, &img));
	TRY(rig_image_function(img, "mark", &mark));
	part = rig_part_launch(mark, sizeof(params), &ref, 1);
	TRY(rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));
	TRY(rig_run_take(s, &run));
	TRY(rig_run_store(run, 0, grid, group, params, sizeof(params)));
	t0 = rig_now_ns();
	TRY(rig_submit(run, &b, 1, NULL, 0, &p));
	TRY(rig_wait(p, 60ull * 1000000000));
	t1 = rig_now_ns();
	TRY(rig_buffer_read(b, 0, out, sizeof(out)));
	for (int64_t g = 0; g < GROUPS; g++)
		wrong += out[g] != g;
	printf("%d groups on %s's cores in %.2f ms: %s\n", GROUPS, rig_name(host),
	       (double)(t1 - t0) / 1e6, wrong ? "SOME GROUP DID NOT RUN ONCE" :
	       "every group ran exactly once");
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(b);
	rig_device_release(host);
	return wrong != 0;
}
