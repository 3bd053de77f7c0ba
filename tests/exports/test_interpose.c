/* SPDX-License-Identifier: MIT */
/*
 * test_interpose: a program that defines every name librig used to export
 * without declaring it (internal_names.txt: feed_init, loop_main, ...) still
 * runs rig: a submit on the memory device and on the polled device, a copy
 * on the host device, and copies to and from a file of a disk (where a
 * program's own feed_init once replaced rig's and crashed). Each of those
 * definitions exits 1 naming itself if rig calls it (interpose_names.c,
 * linked with --export-dynamic). Exit 0 on pass, 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "rig_disk.h"
#include "rig_polled.h"

extern unsigned interpose_names;

#define CHECK(call)                                                        \
	do {                                                               \
		int ret_ = (call);                                         \
		if (ret_ < 0) {                                            \
			fprintf(stderr, "FAIL: %s returned %d: %s\n", #call, \
				ret_, rig_why());                          \
			exit(1);                                           \
		}                                                          \
	} while (0)

/* Bytes a..a+n through a copy submission on d: a's into b, read back. */
static void
submit_copy(struct rig_device *d, const char *what)
{
	struct rig_part_spec part = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	char text[] = "interposed", back[sizeof(text)] = "";
	struct rig_submission *s;
	struct rig_buffer *a, *b;
	struct rig_run *run;
	struct rig_point p;

	CHECK(rig_buffer_create(d, sizeof(text), RIG_MEMORY_DEVICE, &a));
	CHECK(rig_buffer_create(d, sizeof(text), RIG_MEMORY_DEVICE, &b));
	CHECK(rig_buffer_write(a, 0, text, sizeof(text)));
	CHECK(rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));
	CHECK(rig_run_take(s, &run));
	CHECK(rig_submit(run, (struct rig_buffer *[]){ a, b }, 2, NULL, 0, &p));
	CHECK(rig_wait(p, 5000000000u));
	CHECK(rig_buffer_read(b, 0, back, sizeof(back)));
	if (strcmp(back, text)) {
		fprintf(stderr, "FAIL: %s: copied \"%s\", read back \"%s\"\n", what,
			text, back);
		exit(1);
	}
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	printf("ok: %s: a submit's copy read back\n", what);
}

/* Host bytes to a file of a disk and back, through two copies. */
static void
disk_copies(const char *dir)
{
	char path[512], text[4096], back[4096];
	struct rig_buffer *file, *from, *to;
	struct rig_device *disk, *m;

	snprintf(path, sizeof(path), "%s/test_interpose.bin", dir);
	memset(text, 'r', sizeof(text));
	memset(back, 0, sizeof(back));
	CHECK(rig_memory_device("INTERPOSE-M", &m));
	CHECK(rig_open_io(&rig_disk_opener, &disk));
	CHECK(rig_disk_create_file(disk, path, sizeof(text), &file));
	CHECK(rig_buffer_create(m, sizeof(text), RIG_MEMORY_DEVICE, &from));
	CHECK(rig_buffer_create(m, sizeof(text), RIG_MEMORY_DEVICE, &to));
	CHECK(rig_buffer_write(from, 0, text, sizeof(text)));
	CHECK(rig_buffer_copy(from, file, NULL));
	CHECK(rig_buffer_copy(file, to, NULL));
	CHECK(rig_buffer_read(to, 0, back, sizeof(back)));
	if (memcmp(text, back, sizeof(text))) {
		fprintf(stderr, "FAIL: disk: the file's bytes came back changed\n");
		exit(1);
	}
	rig_buffer_release(file);
	rig_buffer_release(from);
	rig_buffer_release(to);
	CHECK(rig_close(disk));
	rig_device_release(disk);
	rig_device_release(m);
	unlink(path);
	printf("ok: disk: copies to a file and back\n");
}

int
main(int argc, char **argv)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "INTERPOSE-P" };
	struct rig_device *d;
	struct rig_polled *p;

	printf("%u internal names defined by the program\n", interpose_names);
	CHECK(rig_memory_device("INTERPOSE", &d));
	submit_copy(d, "memory device");
	rig_device_release(d);

	CHECK(rig_polled_create(&c, &p));
	CHECK(rig_open(rig_polled_opener(p), &d));
	submit_copy(d, "polled device");
	CHECK(rig_close(d));
	rig_device_release(d);
	rig_polled_destroy(p);

	CHECK(rig_host_device(&d));
	submit_copy(d, "host device");
	rig_device_release(d);

	disk_copies(argc > 1 ? argv[1] : ".");
	return 0;
}
