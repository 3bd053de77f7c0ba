/* SPDX-License-Identifier: MIT */
/*
 * 10-profile: a profile of a chain of work across three devices, written
 * as a trace that Perfetto (ui.perfetto.dev) or chrome://tracing opens.
 * Each step launches a kernel on the host device's cores, the disk writes
 * its output to a file and reads it back into host memory (the memory
 * device), where a copy takes it; the program waits for the last copy.
 * Nothing names a fence: rig orders each step by the memory it uses, and
 * the trace shows why each piece of work started when it did, as arrows
 * from the value that wrote a buffer to the value that waited for it
 * (with the buffer's address range), and from the last copy to the
 * program's wait, and from a last launch to the host read that waits for
 * it. Spans mark the program's own phases. The host device's lanes show
 * each launch, each copy, and each of its threads' ranges of a launch
 * ("COMPUTE:0 worker 1").
 *
 * Usage: 10-profile [TRACE.json [KERNEL.o]]  (default 10-profile.trace.json)
 * Under `rig trace -- ./10-profile` rig takes the profile itself (the
 * program's own start then answers RIG_EAGAIN) and writes the trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rig.h"
#include "rig_disk.h"

#ifndef SCALE_OBJECT
#define SCALE_OBJECT "scale.o"
#endif

#define GROUPS 256
#define STEPS 4
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "10-profile: %s\n", rig_why()); return 1; } } while (0)

struct params { int64_t out, k, work; };

static int
load(struct rig_device *host, const char *path, struct rig_function **fn,
     struct rig_image **img)
{
	static char object[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t len = f ? fread(object, 1, sizeof(object), f) : 0;

	if (f)
		fclose(f);
	if (!len) {
		fprintf(stderr, "10-profile: cannot read %s\n", path);
		return -1;
	}
	TRY(rig_image_load(host, object, len, img));
	TRY(rig_image_function(*img, "scale", fn));
	return 0;
}

int
main(int argc, char **argv)
{
	const char *trace = argc > 1 ? argv[1] : "10-profile.trace.json";
	const char *kernel = argc > 2 ? argv[2] : SCALE_OBJECT;
	char file_path[] = "/tmp/10-profile-XXXXXX";
	struct rig_device *host, *disk, *mem;
	struct rig_io_opener dio;
	struct rig_buffer *out, *file, *back, *last, *kept;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	struct rig_profile *prof = NULL;
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part;
	struct rig_point p;
	static int64_t got[GROUPS];
	uint32_t grid[3] = { GROUPS, 1, 1 }, group[3] = { 1, 1, 1 };
	size_t bytes = sizeof(got), wrong = 0;
	int ret, fd;

	/* Our own profile, unless one is taken (RIG_PROFILE, rig trace). */
	ret = rig_profile_start(NULL, 0, 4096, &prof);
	if (ret < 0 && ret != RIG_EAGAIN)
		TRY(ret);
	TRY(rig_span_begin("setup"));
	TRY(rig_host_device(&host));
	TRY(rig_memory_device("M", &mem));
	TRY(rig_disk_opener_init(&dio, NULL, NULL));
	TRY(rig_open_io(&dio, &disk));
	if ((fd = mkstemp(file_path)) < 0)
		return perror("10-profile: mkstemp"), 1;
	close(fd);
	TRY(rig_disk_create_file(disk, file_path, bytes, &file));
	TRY(rig_buffer_create(host, bytes, RIG_MEMORY_DEVICE, &out));
	TRY(rig_buffer_create(host, bytes, RIG_MEMORY_DEVICE, &kept));
	TRY(rig_buffer_create(mem, bytes, RIG_MEMORY_DEVICE, &back));
	TRY(rig_buffer_create(mem, bytes, RIG_MEMORY_DEVICE, &last));
	if (load(host, kernel, &fn, &img) < 0)
		return 1;
	part = rig_part_launch(fn, sizeof(struct params), &ref, 1);
	TRY(rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));
	TRY(rig_span_end());

	TRY(rig_span_begin("steps"));
	for (int64_t k = 1; k <= STEPS; k++) {
		struct params params = { 0, k, 4000 };
		struct rig_run *run;
		char name[32];

		snprintf(name, sizeof(name), "step %lld", (long long)k);
		TRY(rig_span_begin(name));
		TRY(rig_run_take(s, &run));
		TRY(rig_run_store(run, 0, grid, group, &params, sizeof(params)));
		TRY(rig_submit(run, &out, 1, NULL, 0, NULL));	/* HOST writes out */
		TRY(rig_buffer_copy(out, file, NULL));		/* the disk waits for it */
		TRY(rig_buffer_copy(file, back, NULL));		/* and reads it back */
		TRY(rig_buffer_copy(back, last, &p));		/* M waits for the disk */
		TRY(rig_span_end());
	}
	TRY(rig_wait(p, 60ull * 1000000000));			/* a host wait, with its arrow */
	TRY(rig_span_end());

	TRY(rig_buffer_read(last, 0, got, bytes));
	for (int64_t g = 0; g < GROUPS; g++)
		wrong += got[g] != g * STEPS;
	/* One more launch, a copy on the host's copy queue, and a host read
	 * that waits for it: a span too. */
	{
		struct params params = { 0, STEPS + 1, 4000 };
		struct rig_run *run;

		TRY(rig_run_take(s, &run));
		TRY(rig_run_store(run, 0, grid, group, &params, sizeof(params)));
		TRY(rig_submit(run, &out, 1, NULL, 0, NULL));
		TRY(rig_buffer_copy(out, kept, NULL));		/* HOST's COPY:0 */
		TRY(rig_buffer_read(kept, 0, got, bytes));	/* waits for HOST */
		for (int64_t g = 0; g < GROUPS; g++)
			wrong += got[g] != g * (STEPS + 1);
	}
	if (prof) {
		TRY(rig_profile_stop(prof));
		TRY(rig_profile_write(prof, trace));
		rig_profile_release(prof);
		printf("wrote %s: open it in ui.perfetto.dev or chrome://tracing\n", trace);
	}
	printf("%d steps across %s, %s and %s: %s\n", STEPS, rig_name(host), rig_name(disk),
	       rig_name(mem), wrong ? "WRONG VALUES" : "every value right");
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(out);
	rig_buffer_release(kept);
	rig_buffer_release(file);
	rig_buffer_release(back);
	rig_buffer_release(last);
	unlink(file_path);
	rig_close(disk);
	rig_device_release(disk);
	rig_device_release(mem);
	rig_device_release(host);
	return wrong != 0;
}
