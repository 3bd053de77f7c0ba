/* SPDX-License-Identifier: MIT */
/*
 * test_disk_faults: every fault is a clear error, never silent corruption.
 * An injected EIO fails the disk with the errno's text and stops the word;
 * a missing file or a directory is refused at open; a read past a file's
 * extent is refused at submit; a file truncated behind the disk's back
 * fails the read at the end of file instead of handing back zeroes; bad
 * ops, values out of order, bad options and bad maps are refused with
 * messages naming the call and the cause; after stop nothing new opens.
 * The I/O faults run in both modes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

static const struct rig_disk_options modes[] = {
	{ .size = sizeof(struct rig_disk_options), .chunk_bytes = 64 << 10 },
	{ .size = sizeof(struct rig_disk_options), .chunk_bytes = 64 << 10,
	  .mode = RIG_DISK_THREADS },
};

static void
test_injected_eio_fails_disk(void **state)
{
	for (size_t m = 0; m < 2; m++) {
		struct tdisk t;
		unsigned char buf[8192] = { 0 };
		const char *f_text, *failure = NULL;
		char want[600];
		uint64_t ok, bad;
		void *f;

		tdisk_open(&t, &modes[m], 0);
		f = tfile_create(&t, "eio.bin", 1 << 20);
		ok = tsubmit1(&t, RIG_IO_WRITE, f, 0, buf, sizeof(buf));
		twait(&t, ok);
		disk_fault_inject(t.d, 1, EIO);
		bad = tsubmit1(&t, RIG_IO_READ, f, 4096, buf, 4096);
		f_text = twait_failure(&t);
		snprintf(want, sizeof(want), "read of %s at 4096: Input/output error",
			 tmp_path("eio.bin"));
		assert_string_equal(f_text, want);
		/* The word stays below the failed value, and stays. */
		usleep(20000);
		assert_true(atomic_load(&t.word) < bad);
		assert_int_equal(rig_disk_io.submit(t.d, t.next, NULL, 0, &failure), RIG_FAILED);
		assert_string_equal(failure, want);
		rig_disk_io.release(t.d, f);
		tdisk_stop(&t);
	}
}

static void
test_missing_file_refused(void **state)
{
	struct tdisk t;
	char why[600], want[600];
	void *f = NULL;

	tdisk_open(&t, NULL, 0);
	assert_int_equal(disk_file_open(t.d, tmp_path("absent.bin"), &f, why, sizeof(why)),
			 -ENOENT);
	snprintf(want, sizeof(want), "disk_file_open: %s: No such file or directory",
		 tmp_path("absent.bin"));
	assert_string_equal(why, want);
	assert_string_equal(disk_why(), want);
	assert_null(f);
	assert_int_equal(disk_file_open(t.d, tmp_dir(), &f, why, sizeof(why)), -EISDIR);
	assert_contains(why, "Is a directory");
	assert_int_equal(disk_file_open(t.d, "/dev/null", &f, why, sizeof(why)), -EINVAL);
	assert_contains(why, "disk_file_open: /dev/null: not a regular file");
	assert_int_equal(disk_file_create(t.d, tmp_path("no/such/dir.bin"), 10, &f, why,
					  sizeof(why)), -ENOENT);
	assert_contains(why, "disk_file_create: ");
	assert_contains(why, "No such file or directory");
	assert_int_equal(disk_file_open(t.d, NULL, &f, why, sizeof(why)), -EINVAL);
	assert_contains(why, "disk_file_open: (null): Invalid argument");
	assert_null(disk_failure(t.d));	/* refusals at open fail nothing */
	tdisk_stop(&t);
}

/* As user nobody (a forked child of root): a file it may not read is
 * refused at open with the errno's text; one it may only read opens
 * read-only, and a write to it is refused at submit. */
static int
as_nobody(const char *secret, const char *readable)
{
	struct rig_disk_options o = { .size = sizeof(o), .mode = RIG_DISK_THREADS };
	struct rig_io_opener op;
	_Atomic uint64_t word = 0;
	char why[600], want[700];
	const char *failure = NULL;
	struct rig_io_op w;
	void *d, *f = NULL;
	int ret;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 3;
	rig_disk_opener_init(&op, NULL, &o);
	if (op.make(&op, &word, &d, why, sizeof(why)) < 0)
		return fprintf(stderr, "make: %s\n", why), 1;
	ret = disk_file_open(d, secret, &f, why, sizeof(why));
	snprintf(want, sizeof(want), "disk_file_open: %s: Permission denied", secret);
	if (ret != -EACCES || strcmp(why, want))
		return fprintf(stderr, "open of %s: %d \"%s\"\n", secret, ret, why), 1;
	if (disk_file_open(d, readable, &f, why, sizeof(why)) < 0)
		return fprintf(stderr, "open of %s: %s\n", readable, why), 1;
	w = (struct rig_io_op){ RIG_IO_WRITE, f, 0, why, 10 };
	snprintf(want, sizeof(want), "write of %s at 0: the file is open read-only", readable);
	if (rig_disk_io.submit(d, 1, &w, 1, &failure) != RIG_FAILED || strcmp(failure, want))
		return fprintf(stderr, "write: \"%s\"\n", failure ? failure : ""), 1;
	rig_disk_io.release(d, f);
	rig_disk_io.stop(d, "done");
	return 0;
}

static void
test_unreadable_file_refused(void **state)
{
	const char *secret = tmp_path("secret.bin"), *readable = tmp_path("readable.bin");
	int fd, status;
	pid_t pid;

	if (geteuid() != 0) {
		print_message("# not root: no other user to be; the check is root's\n");
		return;
	}
	assert_true((fd = open(secret, O_CREAT | O_WRONLY | O_TRUNC, 0600)) >= 0);
	close(fd);
	assert_true((fd = open(readable, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	/* nobody must reach the folder: open the way down to it. */
	assert_int_equal(chmod(tmp_dir(), 0755), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(as_nobody(secret, readable));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		print_message("# cannot become nobody here; the check did not run\n");
		return;
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A file opened again has its size as extent; a read past it is refused. */
static void
test_read_past_extent_refused(void **state)
{
	struct tdisk t;
	unsigned char buf[8192];
	const char *failure = NULL;
	char why[600], want[700];
	struct rig_io_op op;
	void *f, *g;

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "short.bin", 4096);
	assert_int_equal(disk_file_open(t.d, tmp_path("short.bin"), &g, why, sizeof(why)), 0);
	op = (struct rig_io_op){ RIG_IO_READ, g, 0, buf, 8192 };
	assert_int_equal(rig_disk_io.submit(t.d, 1, &op, 1, &failure), RIG_FAILED);
	snprintf(want, sizeof(want),
		 "read of %s at 0: 8192 bytes pass the end of the file (4096 bytes)",
		 tmp_path("short.bin"));
	assert_string_equal(failure, want);
	assert_string_equal(disk_failure(t.d), want);
	assert_int_equal(atomic_load(&t.word), 0);
	rig_disk_io.release(t.d, f);
	rig_disk_io.release(t.d, g);
	tdisk_stop(&t);
}

/* The file shrinks behind the disk's back: the read fails at end of file. */
static void
test_truncated_file_fails_read(void **state)
{
	for (size_t m = 0; m < 2; m++) {
		struct tdisk t;
		unsigned char *buf = malloc(1 << 20);
		char want[700];
		uint64_t v;
		void *f;

		tdisk_open(&t, &modes[m], 0);
		f = tfile_create(&t, "shrunk.bin", 1 << 20);
		memset(buf, 7, 1 << 20);
		twait(&t, tsubmit1(&t, RIG_IO_WRITE, f, 0, buf, 1 << 20));
		assert_int_equal(truncate(tmp_path("shrunk.bin"), 100000), 0);
		v = tsubmit1(&t, RIG_IO_READ, f, 65536, buf, 65536);
		snprintf(want, sizeof(want),
			 "read of %s at 100000: end of file after %d of 65536 bytes",
			 tmp_path("shrunk.bin"), 100000 - 65536);
		assert_string_equal(twait_failure(&t), want);
		usleep(20000);
		assert_true(atomic_load(&t.word) < v);
		rig_disk_io.release(t.d, f);
		tdisk_stop(&t);
		free(buf);
	}
}

/* Each bad submit fails the disk with a message naming op and cause. */
static void
test_bad_ops_refused(void **state)
{
	static const struct {
		const char *what;
		int kind;
		bool foreign, null_host, skip_value;
		const char *want;
	} cases[] = {
		{ "kind", 9, false, false, false, "submit of value 1: op 0 has kind 9, no Io op" },
		{ "file", RIG_IO_READ, true, false, false, "names" },
		{ "host", RIG_IO_WRITE, false, true, false, "the host address is NULL" },
		{ "order", RIG_IO_READ, false, false, true,
		  "submit of value 2 after value 0: values must follow one another" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tdisk t, u;
		unsigned char buf[64];
		const char *failure = NULL;
		struct rig_io_op op;
		void *f, *g;

		tdisk_open(&t, NULL, 0);
		tdisk_open(&u, NULL, 0);
		f = tfile_create(&t, "bad.bin", 4096);
		g = tfile_create(&u, "other.bin", 4096);
		op = (struct rig_io_op){ (enum rig_io_op_kind)cases[i].kind,
					 cases[i].foreign ? g : f, 0,
					 cases[i].null_host ? NULL : buf, sizeof(buf) };
		assert_int_equal(rig_disk_io.submit(t.d, cases[i].skip_value ? 2 : 1, &op, 1,
						    &failure), RIG_FAILED);
		assert_contains(failure, cases[i].want);
		assert_string_equal(disk_failure(t.d), failure);
		assert_null(disk_failure(u.d));
		rig_disk_io.release(t.d, f);
		rig_disk_io.release(u.d, g);
		tdisk_stop(&t);
		tdisk_stop(&u);
	}
}

static void
test_bad_options_refused(void **state)
{
	struct rig_disk_options o = { .size = sizeof(o) };
	struct rig_io_opener op;
	_Atomic uint64_t word = 0;
	char why[256];
	void *d;

	assert_int_equal(rig_disk_opener_init(&op, NULL,
		&(struct rig_disk_options){ .size = 3 }), -EINVAL);
	o.depth = 5000;
	assert_int_equal(rig_disk_opener_init(&op, NULL, &o), 0);
	assert_string_equal(op.name, "DISK");
	assert_int_equal(op.make(&op, &word, &d, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "make: depth 5000 is over 4096");
	o.depth = 0;
	o.chunk_bytes = 1000;
	assert_int_equal(op.make(&op, &word, &d, why, sizeof(why)), -EINVAL);
	assert_contains(why, "make: chunk_bytes 1000 is no multiple of 4096");
	o.chunk_bytes = 0;
	setenv("RIG_DISK_MODE", "bogus", 1);
	assert_int_equal(op.make(&op, &word, &d, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "make: RIG_DISK_MODE=bogus is neither auto nor threads");
	unsetenv("RIG_DISK_MODE");
	assert_int_equal(op.make(&op, NULL, &d, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "make: NULL word");
}

static void
test_bad_maps_and_registrations_refused(void **state)
{
	struct tdisk t;
	void *f, *host;
	uint64_t n;

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "map.bin", 8192);
	assert_int_equal(disk_file_map(f, 4096, 8192, &host), -EINVAL);
	assert_contains(disk_why(), "disk_file_map: ");
	assert_contains(disk_why(), "8192 bytes at 4096 are empty or pass the end of the file (8192 bytes)");
	assert_int_equal(disk_file_map(f, 0, 0, &host), -EINVAL);
	assert_int_equal(disk_file_map(NULL, 0, 1, &host), -EINVAL);
	assert_contains(disk_why(), "disk_file_map: (nil) is no file of a disk");
	assert_int_equal(disk_host_register(t.d, NULL, 10), -EINVAL);
	assert_contains(disk_why(), "disk_host_register: 10 bytes at (nil)");
	assert_int_equal(rig_disk_io.size(t.d, NULL, &n), -EINVAL);
	assert_contains(disk_why(), "size: (nil) is no file of this disk");
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}

/* After stop, files still work for size, map and release; nothing new opens. */
static void
test_after_stop(void **state)
{
	struct tdisk t;
	char why[600];
	uint64_t n = 0;
	void *f, *g = NULL, *host;

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "after.bin", 8192);
	tdisk_stop(&t);
	assert_string_equal(disk_failure(t.d), "stopped: test done");
	assert_int_equal(disk_file_create(t.d, tmp_path("late.bin"), 10, &g, why, sizeof(why)),
			 -EINVAL);
	assert_contains(why, "disk_file_create: ");
	assert_contains(why, "late.bin: the disk stopped");
	assert_null(g);
	assert_int_equal(rig_disk_io.size(t.d, f, &n), 0);
	assert_int_equal(n, 8192);
	assert_int_equal(disk_file_map(f, 100, 200, &host), 0);
	assert_int_equal(disk_file_unmap(f, host, 200), 0);
	rig_disk_io.release(t.d, f);	/* the last file: the handle goes */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_injected_eio_fails_disk),
		cmocka_unit_test(test_missing_file_refused),
		cmocka_unit_test(test_unreadable_file_refused),
		cmocka_unit_test(test_read_past_extent_refused),
		cmocka_unit_test(test_truncated_file_fails_read),
		cmocka_unit_test(test_bad_ops_refused),
		cmocka_unit_test(test_bad_options_refused),
		cmocka_unit_test(test_bad_maps_and_registrations_refused),
		cmocka_unit_test(test_after_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
