/* SPDX-License-Identifier: MIT */
/*
 * test_io_library: any Io library runs as a device through rig_edge.h's
 * table alone; rig's disk is only one. The library here keeps its files in
 * host memory, runs each value's ops inside submit and stores the value,
 * and knows nothing of rig's core (nor does rig know it).
 *  - Files by path: created, written and read back through copies with
 *    memory devices, opened again by path; a barrier reaches the library;
 *    a read-write open of a file that opens read-only is refused with the
 *    library's cause and rig's hint; every file goes back at the end.
 *  - What the table lacks, rig refuses: a library that makes no files by
 *    path gets no buffers over paths; one that maps no file lends none
 *    (rig_buffer_borrow); a table with half of a pair does not open.
 *  - A failed submit loses the device with the library's text; stop is
 *    called once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rig.h"
#include "rig_edge.h"

#define SECOND_NS 1000000000ull
#define FILES 8
#define FILE_ROOM 4096

/* ---- The library ---- */

struct mfile {
	char path[64];
	unsigned char *bytes;
	uint64_t size;
	bool read_only;
	int handles;		/* handles given out and not released */
};

struct mlib {
	_Atomic uint64_t *word;
	struct mfile files[FILES];
	int barriers, stops, live;	/* live: handles not released */
	bool fail;			/* the next submit fails */
};

static struct mlib lib;

static struct mfile *
find(const char *path)
{
	for (int i = 0; i < FILES; i++)
		if (lib.files[i].bytes && !strcmp(lib.files[i].path, path))
			return &lib.files[i];
	return NULL;
}

static int
ml_submit(void *t, uint64_t value, const struct rig_io_op *ops, size_t n,
	  const char **failure)
{
	if (lib.fail) {
		*failure = "the library was told to fail";
		return RIG_FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		struct mfile *f = ops[i].file;

		if (ops[i].kind == RIG_IO_READ)
			memcpy(ops[i].host, f->bytes + ops[i].offset, ops[i].bytes);
		else if (ops[i].kind == RIG_IO_WRITE)
			memcpy(f->bytes + ops[i].offset, ops[i].host, ops[i].bytes);
		else
			lib.barriers++;
	}
	atomic_store_explicit(lib.word, value, memory_order_release);
	return RIG_OK;
}

static int
ml_size(void *t, void *file, uint64_t *bytes)
{
	*bytes = ((struct mfile *)file)->size;
	return 0;
}

static void
ml_release(void *t, void *file)
{
	((struct mfile *)file)->handles--;
	lib.live--;
}

static void
ml_stop(void *t, const char *reason)
{
	lib.stops++;
}

static int
ml_create(void *t, const char *path, uint64_t bytes, void **file, char *why,
	  size_t len)
{
	struct mfile *f = find(path);

	if (bytes > FILE_ROOM)
		return snprintf(why, len, "%s: over %d bytes", path, FILE_ROOM), -EFBIG;
	for (int i = 0; !f && i < FILES; i++)
		if (!lib.files[i].bytes && (lib.files[i].bytes = malloc(FILE_ROOM)))
			f = &lib.files[i];
	if (!f)
		return snprintf(why, len, "%s: no room", path), -ENOSPC;
	snprintf(f->path, sizeof(f->path), "%s", path);
	memset(f->bytes, 0, FILE_ROOM);
	f->size = bytes;
	f->handles++;
	lib.live++;
	*file = f;
	return 0;
}

static int
ml_open(void *t, const char *path, bool write, void **file, char *why,
	size_t len)
{
	struct mfile *f = find(path);

	if (!f)
		return snprintf(why, len, "%s: no such file", path), -ENOENT;
	if (write && f->read_only)
		return snprintf(why, len, "%s: it opens for reading only", path), -EROFS;
	f->handles++;
	lib.live++;
	*file = f;
	return 0;
}

/* Never called: they fill the halves of pairs rig refuses. */
static void ml_unmap(void *file, void *host, uint64_t bytes) { }
static const char *ml_failure(void *t) { return NULL; }

static int
ml_make(const struct rig_io_opener *o, _Atomic uint64_t *word, void **handle,
	char *why, size_t len)
{
	lib.word = word;
	*handle = &lib;
	return 0;
}

static const struct rig_io full_io = {
	.submit = ml_submit, .size = ml_size, .release = ml_release, .stop = ml_stop,
	.create = ml_create, .open = ml_open,
};
/* The same library without files by path. */
static const struct rig_io pathless_io = {
	.submit = ml_submit, .size = ml_size, .release = ml_release, .stop = ml_stop,
};

/* ---- Checks ---- */

#define TRY(call) do {							\
	int ret_ = (call);						\
	if (ret_ < 0)							\
		fail_msg("%s: %d: %s", #call, ret_, rig_why());		\
} while (0)

/* The call failed with code and rig_why() holds want. */
#define REFUSED(call, code, want) do {					\
	int ret_ = (call);						\
	if (ret_ != (code) || !strstr(rig_why(), (want)))		\
		fail_msg("%s gave %d (%s), not %d with \"%s\"", #call, ret_, \
			 rig_why(), (code), (want));			\
} while (0)

static struct rig_device *
open_lib(const struct rig_io *io, const char *name)
{
	static struct rig_io_opener o;
	struct rig_device *d;

	memset(&lib, 0, sizeof(lib));
	o = (struct rig_io_opener){ .name = name, .io = io, .make = ml_make };
	TRY(rig_open_io(&o, &d));
	return d;
}

static void
test_files_by_path(void **state)
{
	struct rig_device *d = open_lib(&full_io, "MEMFILES"), *m;
	struct rig_buffer *f, *again, *src, *dst, *lent;
	char got[100] = { 0 };
	struct rig_point p;

	TRY(rig_memory_device("M", &m));
	TRY(rig_disk_create_file(d, "a", 100, &f));
	assert_int_equal(rig_allocated(d), 100);
	TRY(rig_buffer_create(m, 100, RIG_MEMORY_DEVICE, &src));
	TRY(rig_buffer_create(m, 100, RIG_MEMORY_DEVICE, &dst));
	TRY(rig_buffer_write(src, 0, "written through the table", 26));
	TRY(rig_buffer_copy(src, f, NULL));
	TRY(rig_disk_barrier(f, NULL));
	TRY(rig_disk_of_file(d, "a", RIG_READ_ONLY, &again));
	TRY(rig_buffer_copy(again, dst, &p));
	TRY(rig_wait(p, 10 * SECOND_NS));
	TRY(rig_buffer_read(dst, 0, got, 100));
	assert_string_equal(got, "written through the table");
	assert_int_equal(lib.barriers, 1);
	assert_int_equal(lib.live, 2);

	/* The library's cause, and rig's hint for a read-write open. */
	find("a")->read_only = true;
	REFUSED(rig_disk_of_file(d, "a", RIG_READ_WRITE, &lent), RIG_EINVAL,
		"rig_disk_of_file: a: it opens for reading only (ask for RIG_READ_ONLY)");
	REFUSED(rig_disk_of_file(d, "b", RIG_READ_ONLY, &lent), RIG_EINVAL,
		"rig_disk_of_file: b: no such file");
	/* No map in the table: nothing to lend. */
	REFUSED(rig_buffer_borrow(f, m, &lent), RIG_EINVAL,
		"rig_buffer_borrow: MEMFILES maps no file into host memory");
	assert_int_equal(lib.live, 2);

	rig_buffer_release(f);
	rig_buffer_release(again);
	rig_buffer_release(src);
	rig_buffer_release(dst);
	TRY(rig_close(d));
	assert_int_equal(lib.stops, 1);
	assert_int_equal(lib.live, 0);		/* every file went back */
	rig_device_release(d);
	rig_device_release(m);
	free(find("a")->bytes);
}

static void
test_what_the_table_lacks(void **state)
{
	struct rig_device *d = open_lib(&pathless_io, "PATHLESS"), *blind;
	struct rig_buffer *f;
	struct rig_io half = full_io;
	struct rig_io_opener o = { .name = "HALF", .io = &half, .make = ml_make };

	REFUSED(rig_disk_create_file(d, "a", 10, &f), RIG_EINVAL,
		"rig_disk_create_file: PATHLESS's Io library makes no files by path");
	REFUSED(rig_disk_of_file(d, "a", RIG_READ_ONLY, &f), RIG_EINVAL,
		"rig_disk_of_file: PATHLESS's Io library makes no files by path");
	TRY(rig_close(d));
	rig_device_release(d);

	half.open = NULL;
	REFUSED(rig_open_io(&o, &blind), RIG_EINVAL,
		"rig_open_io: opener HALF lacks create and open together");
	half = full_io;
	half.failure = ml_failure;
	REFUSED(rig_open_io(&o, &blind), RIG_EINVAL,
		"rig_open_io: opener HALF lacks fault_fd and failure together");
	half = full_io;
	half.unmap = ml_unmap;
	REFUSED(rig_open_io(&o, &blind), RIG_EINVAL,
		"rig_open_io: opener HALF lacks map and unmap together");
}

static void
test_failed_submit_loses_the_device(void **state)
{
	struct rig_device *d = open_lib(&full_io, "FAILING"), *m;
	struct rig_buffer *f, *src;
	struct rig_point p;

	TRY(rig_memory_device("M", &m));
	TRY(rig_disk_create_file(d, "c", 10, &f));
	TRY(rig_buffer_create(m, 10, RIG_MEMORY_DEVICE, &src));
	lib.fail = true;
	TRY(rig_buffer_copy(src, f, &p));
	REFUSED(rig_wait(p, 10 * SECOND_NS), RIG_ELOST, "the library was told to fail");
	assert_non_null(rig_lost(d));
	assert_non_null(strstr(rig_lost(d), "the library was told to fail"));
	rig_buffer_release(f);
	rig_buffer_release(src);
	TRY(rig_close(d));
	assert_int_equal(lib.stops, 1);
	assert_int_equal(lib.live, 0);
	rig_device_release(d);
	rig_device_release(m);
	free(find("c")->bytes);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_by_path),
		cmocka_unit_test(test_what_the_table_lacks),
		cmocka_unit_test(test_failed_submit_loses_the_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
