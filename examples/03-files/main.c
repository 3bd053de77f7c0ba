/* SPDX-License-Identifier: MIT */
/*
 * 03-files: files as a device's memory. A disk is an Io device: its
 * buffers are files, and copies between a file and memory the host
 * addresses are the disk's work, run by its io_uring loop (or a pool of
 * threads where io_uring is denied). The disk's work is ordered by the
 * memory it touches like any device's, so this program waits once, at the
 * end of each step it reports:
 *
 *   1. two input files are copied into the host device's buffers;
 *   2. a host kernel adds them (01-add's add.o): it follows the copies;
 *   3. the sum is copied into a new file, and a barrier makes it durable;
 *   4. the new file is borrowed by the host device (a map of the file) and
 *      a kernel reads it directly: c + a, written to a host buffer.
 *
 * Usage: 03-files [OBJECT] (default: the add.o the build compiled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "rig_disk.h"

/* The kernel's object: the path the build gives (meson, or this folder's
 * Makefile), else add.o in the working directory. */
#ifndef ADD_OBJECT
#define ADD_OBJECT "add.o"
#endif

#define N (4 << 20)
#define PER_GROUP 4096
#define BYTES (N * sizeof(float))

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "03-files: %s\n", rig_why()); return 1; } } while (0)

static char dir[] = "/tmp/rig-03-files-XXXXXX";

static const char *
in_dir(const char *name)
{
	static char path[4][128];
	static int i;
	char *p = path[i++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

/* Write a file of floats with stdio: the program's input. */
static int
write_floats(const char *path, float scale)
{
	FILE *f = fopen(path, "wb");
	float *x = malloc(BYTES);
	int ok = f && x;

	for (int i = 0; ok && i < N; i++)
		x[i] = scale * (float)i;
	ok = ok && fwrite(x, 1, BYTES, f) == BYTES;
	if (f)
		ok = fclose(f) == 0 && ok;
	free(x);
	return ok ? 0 : -1;
}

static void *
read_object(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	static char bytes[1 << 16];

	*len = f ? fread(bytes, 1, sizeof(bytes), f) : 0;
	if (f)
		fclose(f);
	return *len ? bytes : NULL;
}

/* Submit add(x, y) -> z on the host device, ordered by the buffers. */
static int
add(struct rig_submission *s, struct rig_buffer *x, struct rig_buffer *y,
    struct rig_buffer *z)
{
	int64_t params[4] = { 0, 0, 0, N };
	uint32_t grid[3] = { N / PER_GROUP, 1, 1 }, group[3] = { 1, 1, 1 };
	struct rig_run *run;

	if (rig_run_take(s, &run) < 0 ||
	    rig_run_store(run, 0, grid, group, params, sizeof(params)) < 0)
		return -1;
	return rig_submit(run, (struct rig_buffer *[]){ x, y, z }, 3, NULL, 0, NULL);
}

/* Elements of b that are not want(i). */
static size_t
wrong(struct rig_buffer *b, float ka, float kb)
{
	float *x = malloc(BYTES);
	size_t n = 0;

	if (!x || rig_buffer_read(b, 0, x, BYTES) < 0) {
		free(x);
		return N;
	}
	for (int i = 0; i < N; i++)
		n += x[i] != ka * (float)i + kb * (float)i;
	free(x);
	return n;
}

int
main(int argc, char **argv)
{
	size_t len;
	void *object = read_object(argc > 1 ? argv[1] : ADD_OBJECT, &len);
	struct rig_device *disk, *host;
	struct rig_buffer *fa, *fb, *fc, *a, *b, *c, *lent, *d;
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec part;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_point p;
	uint64_t t0;
	size_t bad;

	if (!object || !mkdtemp(dir) || write_floats(in_dir("a.bin"), 1.0f) < 0 ||
	    write_floats(in_dir("b.bin"), 0.5f) < 0) {
		fprintf(stderr, "03-files: cannot set up (object or %s)\n", dir);
		return 1;
	}
	TRY(rig_open_io(&rig_disk_opener, &disk));
	TRY(rig_host_device(&host));
	TRY(rig_image_load(host, object, len, &img));
	TRY(rig_image_function(img, "add", &fn));
	part = rig_part_launch(fn, 4 * sizeof(int64_t), refs, 3);
	TRY(rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));

	/* 1 and 2: files into host buffers, then the kernel; one wait. */
	t0 = rig_now_ns();
	TRY(rig_disk_of_file(disk, in_dir("a.bin"), RIG_READ_ONLY, &fa));
	TRY(rig_disk_of_file(disk, in_dir("b.bin"), RIG_READ_ONLY, &fb));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &a));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &b));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &c));
	TRY(rig_buffer_copy(fa, a, NULL));		/* the disk's work */
	TRY(rig_buffer_copy(fb, b, NULL));
	TRY(add(s, a, b, c));				/* HOST's, after both */
	bad = wrong(c, 1.0f, 0.5f);			/* the host's read, after it */
	printf("read 2 files of %zu MiB on %s (%s) and added them on %s in %.1f ms: %s\n",
	       BYTES >> 20, rig_name(disk), rig_arch(disk), rig_name(host),
	       (double)(rig_now_ns() - t0) / 1e6, bad ? "WRONG" : "every sum is right");

	/* 3: the sum into a new file, made durable. */
	t0 = rig_now_ns();
	TRY(rig_disk_create_file(disk, in_dir("c.bin"), BYTES, &fc));
	TRY(rig_buffer_copy(c, fc, NULL));
	TRY(rig_disk_barrier(fc, &p));			/* after the write */
	TRY(rig_wait(p, 60ull * 1000000000));
	printf("wrote c.bin and made it durable in %.1f ms\n",
	       (double)(rig_now_ns() - t0) / 1e6);

	/* 4: the host device's kernel reads the file itself, through a map. */
	TRY(rig_buffer_borrow(fc, host, &lent));
	TRY(rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &d));
	TRY(add(s, lent, a, d));
	bad += wrong(d, 2.0f, 0.5f);
	printf("a kernel read the borrowed c.bin directly: %s\n",
	       bad ? "WRONG" : "c + a is right");

	rig_buffer_release(lent);
	rig_buffer_release(d);
	rig_buffer_release(fa);
	rig_buffer_release(fb);
	rig_buffer_release(fc);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_submission_release(s);
	rig_image_release(img);
	rig_device_release(host);
	rig_device_release(disk);
	unlink(in_dir("a.bin"));
	unlink(in_dir("b.bin"));
	unlink(in_dir("c.bin"));
	rmdir(dir);
	return bad != 0;
}
