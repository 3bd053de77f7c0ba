/* SPDX-License-Identifier: MIT */
/*
 * test_rig_disk_faults: a disk that fails is lost, with the failure's
 * text, and never shows bytes it did not read; other devices go on.
 *  - An injected EIO on a read loses the disk: rig_lost() holds "read of
 *    <path> at <offset>: Input/output error", waits on the dropped points
 *    return RIG_ELOST, a host read of the memory the read was to fill
 *    returns RIG_ELOST instead of stale bytes, and M and HOST go on.
 *  - The same for a write.
 *  - rig learns of the failure from the disk's eventfd (the polling thread
 *    calls ops.events): a wait on the failed value returns RIG_ELOST with
 *    no further work submitted.
 *  - A file that shrank behind the disk's back fails the read that finds
 *    its end (no zeroes stand in), and the disk is lost.
 *  - A missing file is refused at rig_disk_of_file; a copy past a file's
 *    extent cannot be asked for (views and lengths are checked).
 *  - A close with thousands of copies in flight returns, every point
 *    signaled, nothing left on the disk, other devices whole.
 */
#include <fcntl.h>

#include "rig_common.h"

struct env {
	struct rig_device *disk, *mem, *host;
	void *engine;		/* the disk's engine handle, for its switches */
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->disk = rdisk_open("DISK-F", &(struct rig_disk_options){
		.size = sizeof(struct rig_disk_options), .chunk_bytes = 64 << 10 });
	e->engine = io_handle(e->disk);
	TRY(rig_memory_device("M", &e->mem));
	TRY(rig_host_device(&e->host));
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	TRY(rig_close(e->disk));
	rig_device_release(e->disk);
	rig_device_release(e->mem);
	rig_device_release(e->host);
	free(e);
	return 0;
}

/* Wait (bounded, for a failure message) until the engine has failed. A
 * file of the disk must be live: it keeps the engine's handle. */
static const char *
await_failure(void *engine)
{
	uint64_t t0 = now_ns();
	const char *why;

	while (!(why = disk_failure(engine))) {
		if (now_ns() - t0 > 60 * SECOND_NS)
			fail_msg("the disk did not fail within 60 s");
		usleep(200);
	}
	return why;
}

/*
 * The disk failed: it is lost once rig learns it, from the disk's eventfd
 * (the polling thread) or at the next submit, which this makes. Either
 * way, every later call reports the loss with the failure's text.
 */
static void
assert_lost_with(struct env *e, struct rig_buffer *file, const char *text)
{
	struct rig_buffer *h, *one;
	struct rig_point p;
	int ret;

	await_failure(e->engine);
	TRY(rig_buffer_create(e->mem, 1, RIG_MEMORY_DEVICE, &h));
	TRY(rig_buffer_view(file, 0, 1, RIG_READ_ONLY, &one));
	ret = rig_buffer_copy(one, h, &p);	/* refused, or dropped */
	rig_buffer_release(one);
	if (ret == 0)
		assert_int_equal(rig_wait(p, 60 * SECOND_NS), RIG_ELOST);
	else
		assert_int_equal(ret, RIG_ELOST);
	rig_buffer_release(h);
	assert_contains(rig_lost(e->disk), text);
	assert_refused(rig_disk_barrier(file, NULL), RIG_ELOST, "rig_disk_barrier: DISK-F is lost: ",
		       text);
}

/* M and HOST go on: copies, and host reads and writes. */
static void
assert_others_go_on(struct env *e)
{
	struct rig_buffer *a, *b, *c;
	char got[6];

	TRY(rig_buffer_create(e->mem, 6, RIG_MEMORY_DEVICE, &a));
	TRY(rig_buffer_create(e->host, 6, RIG_MEMORY_DEVICE, &b));
	TRY(rig_buffer_create(e->host, 6, RIG_MEMORY_DEVICE, &c));
	TRY(rig_buffer_write(b, 0, "alive", 6));
	TRY(rig_buffer_copy(b, c, NULL));
	TRY(rig_buffer_read(c, 0, got, 6));
	assert_string_equal(got, "alive");
	TRY(rig_buffer_write(a, 0, got, 6));
	assert_null(rig_lost(e->mem));
	assert_null(rig_lost(e->host));
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
test_eio_on_read_loses_the_disk(void **state)
{
	struct env *e = *state;
	enum { BYTES = 1 << 20 };
	const char *path = tmp_path("eio.bin");
	unsigned char *bytes = malloc(BYTES), *got = malloc(BYTES);
	struct rig_buffer *f, *m, *m2;
	struct rig_point pw, pr;
	uint64_t s = 3;
	char want[600];

	TRY(rig_disk_create_file(e->disk, path, BYTES, &f));
	TRY(rig_buffer_create(e->mem, BYTES, RIG_MEMORY_DEVICE, &m));
	TRY(rig_buffer_create(e->host, BYTES, RIG_MEMORY_DEVICE, &m2));
	fill_random(bytes, BYTES, &s);
	TRY(rig_buffer_write(m, 0, bytes, BYTES));
	TRY(rig_buffer_copy(m, f, &pw));
	TRY(rig_wait(pw, 60 * SECOND_NS));
	TRY(rig_buffer_write(m2, 0, "stale", 5));
	/* The first piece of the read (64 KiB at 0) fails. */
	disk_fault_inject(e->engine, 1, EIO);
	TRY(rig_buffer_copy(f, m2, &pr));
	snprintf(want, sizeof(want), "read of %s at 0: Input/output error", path);
	assert_string_equal(await_failure(e->engine), want);
	assert_lost_with(e, f, want);
	assert_int_equal(rig_wait(pr, 60 * SECOND_NS), RIG_ELOST);
	assert_false(rig_reached(pr));
	/* What the read was to fill is refused, not shown half-read. */
	assert_refused(rig_buffer_read(m2, 0, got, BYTES), RIG_ELOST, "rig_buffer_read: ",
		       "on DISK-F was dropped", "Input/output error");
	assert_others_go_on(e);
	rig_buffer_release(f);
	rig_buffer_release(m);
	rig_buffer_release(m2);
	free(bytes);
	free(got);
}

static void
test_eio_on_write_loses_the_disk(void **state)
{
	struct env *e = *state;
	const char *path = tmp_path("weio.bin");
	struct rig_buffer *f, *h;
	struct rig_point p;
	char want[600];

	TRY(rig_disk_create_file(e->disk, path, 8192, &f));
	TRY(rig_buffer_create(e->host, 8192, RIG_MEMORY_DEVICE, &h));
	disk_fault_inject(e->engine, 1, EIO);
	TRY(rig_buffer_copy(h, f, &p));
	snprintf(want, sizeof(want), "write of %s at 0: Input/output error", path);
	assert_lost_with(e, f, want);
	assert_int_equal(rig_wait(p, 60 * SECOND_NS), RIG_ELOST);
	/* A host write of what the dropped write read follows it: it
	 * reports the drop. */
	assert_refused(rig_buffer_write(h, 0, "x", 1), RIG_ELOST, "rig_buffer_write: ",
		       "on DISK-F was dropped", want);
	assert_others_go_on(e);
	rig_buffer_release(f);
	rig_buffer_release(h);
}

/* No submit after the failure: the eventfd alone makes rig lose the disk
 * (without it the wait would run into its deadline: RIG_ETIMEDOUT). */
static void
test_failure_is_seen_without_more_work(void **state)
{
	struct env *e = *state;
	const char *path = tmp_path("quiet.bin");
	struct rig_buffer *f, *h;
	struct rig_point p;
	char want[600];

	TRY(rig_disk_create_file(e->disk, path, 8192, &f));
	TRY(rig_buffer_create(e->host, 8192, RIG_MEMORY_DEVICE, &h));
	disk_fault_inject(e->engine, 1, EIO);
	TRY(rig_buffer_copy(f, h, &p));
	assert_int_equal(rig_wait(p, 60 * SECOND_NS), RIG_ELOST);
	snprintf(want, sizeof(want), "fault: read of %s at 0: Input/output error", path);
	assert_contains(rig_lost(e->disk), want);
	assert_refused(rig_buffer_read(h, 0, (char[8]){ 0 }, 8), RIG_ELOST, "rig_buffer_read: ",
		       "Input/output error");
	assert_others_go_on(e);
	rig_buffer_release(f);
	rig_buffer_release(h);
}

/* The file shrinks behind the disk's back: the read that finds its end
 * fails the disk; no zeroes stand in for what was not read. */
static void
test_shrunk_file_loses_the_disk(void **state)
{
	struct env *e = *state;
	enum { BYTES = 256 << 10 };
	const char *path = tmp_path("shrunk.bin");
	struct rig_buffer *f, *h;
	struct rig_point p;
	char *zeros = calloc(1, BYTES);
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, zeros, BYTES), BYTES);
	close(fd);
	TRY(rig_disk_of_file(e->disk, path, RIG_READ_ONLY, &f));
	assert_int_equal(rig_buffer_length(f), BYTES);
	assert_int_equal(truncate(path, 4096), 0);
	TRY(rig_buffer_create(e->mem, BYTES, RIG_MEMORY_DEVICE, &h));
	TRY(rig_buffer_copy(f, h, &p));
	assert_lost_with(e, f, path);
	assert_contains(rig_lost(e->disk), "read of");
	assert_int_equal(rig_wait(p, 60 * SECOND_NS), RIG_ELOST);
	assert_others_go_on(e);
	rig_buffer_release(f);
	rig_buffer_release(h);
	free(zeros);
}

static void
test_missing_file_and_extent_refused(void **state)
{
	struct env *e = *state;
	struct rig_buffer *f, *h, *out = NULL;

	assert_refused(rig_disk_of_file(e->disk, tmp_path("missing.bin"), RIG_READ_ONLY, &out),
		       RIG_EINVAL, "rig_disk_of_file: ", "missing.bin: No such file or directory");
	assert_null(out);
	TRY(rig_disk_create_file(e->disk, tmp_path("short.bin"), 4096, &f));
	TRY(rig_buffer_create(e->mem, 8192, RIG_MEMORY_DEVICE, &h));
	assert_refused(rig_buffer_copy(f, h, NULL), RIG_EINVAL,
		       "rig_buffer_copy: src has 4096 bytes and dst 8192");
	assert_refused(rig_buffer_view(f, 4000, 200, RIG_READ_ONLY, &out), RIG_EINVAL,
		       "rig_buffer_view: bytes 4000..4200 lie outside the buffer's 4096");
	assert_null(rig_lost(e->disk));
	rig_buffer_release(f);
	rig_buffer_release(h);
}

/* A close with thousands of copies queued and in flight returns, with
 * every point signaled (reached, or dropped by the close), nothing left
 * on the disk, and the other devices' memory whole. */
static void
test_close_with_io_in_flight(void **state)
{
	struct env *e = *state;
	enum { COPIES = 4000, BYTES = 1 << 20 };
	struct rig_buffer *f, *m;
	struct rig_point *p = calloc(COPIES, sizeof(*p));
	size_t reached = 0;

	assert_non_null(p);
	TRY(rig_disk_create_file(e->disk, tmp_path("inflight.bin"), BYTES, &f));
	TRY(rig_buffer_create(e->mem, BYTES, RIG_MEMORY_DEVICE, &m));
	for (size_t i = 0; i < COPIES; i++)
		TRY(rig_buffer_copy(i % 2 ? f : m, i % 2 ? m : f, &p[i]));
	TRY(rig_close(e->disk));
	assert_string_equal(rig_lost(e->disk), "closed");
	for (size_t i = 0; i < COPIES; i++) {
		int ret = rig_wait(p[i], 0);

		assert_true(ret == 0 || ret == RIG_ELOST);
		assert_true(rig_signaled(p[i]));
		reached += ret == 0;
	}
	print_message("# %zu of %d copies ran before the close\n", reached, COPIES);
	assert_int_equal(rig_allocated(e->disk), 0);
	/* The memory device goes on, its buffer whole. */
	TRY(rig_buffer_write(m, 0, "still here", 10));
	rig_buffer_release(f);
	rig_buffer_release(m);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_eio_on_read_loses_the_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eio_on_write_loses_the_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_is_seen_without_more_work, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shrunk_file_loses_the_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file_and_extent_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_with_io_in_flight, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
