/* SPDX-License-Identifier: MIT */
/*
 * core/files.c: buffers over files of a disk, an Io device whose library
 * makes files by path (rig_disk_create_file, rig_disk_of_file), and
 * rig_disk_barrier() on any Io device's file. A file buffer's allocation is
 * like any other (stamps, refs, limbo, the device's end), but its region is
 * the library's file handle and its location has no address and no host
 * address: only the device's own work (copies) and maps of the file
 * (borrow.c) reach its bytes. Its bytes count in rig_allocated(disk).
 */
#include <stddef.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "core/io.h"

/* The checks every call here makes first, before any state changes. */
static int
check_disk(const char *func, struct rig_device *d, const char *path,
	   struct rig_buffer **out)
{
	if (!d || !out)
		return rig_fail_at(func, RIG_EINVAL, "the %s is NULL", !d ? "device" : "out");
	if (!path || !path[0])
		return rig_fail_at(func, RIG_EINVAL, "the path is %s", !path ? "NULL" : "empty");
	if (!io_device(d))
		return rig_fail_at(func, RIG_EINVAL, "%s is not a disk (open one with rig_open_io)",
				   d->name);
	if (!io_makes_files(d))
		return rig_fail_at(func, RIG_EINVAL, "%s's Io library makes no files by path",
				   d->name);
	return device_check_live(func, d);
}

/*
 * The file at path (created with *a's bytes, or opened) becomes the region
 * of an allocation put on d's live list: *a, made before a file is
 * created (a file once made cannot be unmade), or one made here for the
 * size of the file opened. All under d's mem_lock: the disk's end
 * (alloc_end_all, then its handle's release) waits, and finds the
 * allocation live or finds nothing. On failure there is no file handle
 * and no allocation.
 */
static int
make_live(struct rig_device *d, const char *path, bool create,
	  enum rig_access access, struct alloc **a)
{
	uint64_t bytes = create ? (*a)->bytes : 0;
	void *file;
	int ret;

	pthread_mutex_lock(&d->mem_lock);
	if ((ret = device_check_live(NULL, d)) < 0 ||
	    (ret = io_file_make(d, path, create, access, &file, &bytes)) < 0)
		goto out;
	if (!create && !(*a = alloc_new(d, bytes, NULL))) {
		d->ops->free(d->handle, file);
		ret = rig_cause(RIG_ENOMEM, "no memory for an allocation's handle");
		goto out;
	}
	(*a)->region = file;
	d->ops->locate(d->handle, file, &(*a)->loc);
	alloc_live_locked(d, *a);
out:
	pthread_mutex_unlock(&d->mem_lock);
	return ret;
}

/* The buffer over a new allocation of the file at path. */
static int
make_buffer(const char *func, struct rig_device *d, const char *path, bool create,
	    uint64_t bytes, enum rig_access access, struct rig_buffer **out)
{
	struct alloc *a = NULL;
	int ret;

	if (create && !(a = alloc_new(d, bytes, NULL)))
		return rig_fail_at(func, RIG_ENOMEM, "no memory for an allocation's handle");
	if ((ret = make_live(d, path, create, access, &a)) < 0) {
		if (a)
			alloc_discard(a);
		return rig_fail_keep(func, ret);
	}
	if (!(*out = buffer_over(a, 0, a->bytes, access))) {
		alloc_put(a);	/* live: its file goes back with it */
		return rig_fail_at(func, RIG_ENOMEM, "no memory for the buffer's handle");
	}
	return 0;
}

int
rig_disk_create_file(struct rig_device *d, const char *path, size_t bytes,
		     struct rig_buffer **out)
{
	int ret;

	if ((ret = check_disk(__func__, d, path, out)) < 0)
		return ret;
	if ((ptrdiff_t)bytes < 0)
		return rig_fail(RIG_EINVAL, "%td bytes is negative", (ptrdiff_t)bytes);
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	return make_buffer(__func__, d, path, true, bytes, RIG_READ_WRITE, out);
}

int
rig_disk_of_file(struct rig_device *d, const char *path, enum rig_access access,
		 struct rig_buffer **out)
{
	int ret;

	if ((ret = check_disk(__func__, d, path, out)) < 0)
		return ret;
	if (access != RIG_READ_WRITE && access != RIG_READ_ONLY)
		return rig_fail(RIG_EINVAL, "%d is no access", (int)access);
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	return make_buffer(__func__, d, path, false, 0, access, out);
}

/*
 * The barrier claims the whole file as a read: it waits for the last write
 * of every byte, the disk's own (ordered anyway: the disk runs its values
 * in order and its loop holds a barrier behind its file's writes) and any
 * other device's through a borrowed map of the file, whose stores reach
 * the file's pages only once that work is done. A read, not a write: it
 * changes no byte, so later reads need not wait for it, and later writes
 * wait for it as for any read.
 */
int
rig_disk_barrier(struct rig_buffer *file, struct rig_point *out)
{
	struct use u;
	int ret;

	if ((ret = buffer_check(__func__, file)) < 0 ||
	    (ret = callback_refuse(__func__)) < 0)
		return ret;
	if (!io_device(file->a->d))
		return rig_fail(RIG_EINVAL, "the buffer lies on %s, which is not a disk",
				file->a->d->name);
	if ((ret = device_check_live(__func__, file->a->d)) < 0)
		return ret;
	u = (struct use){ .a = file->a->root, .kind = USE_READ };
	words_of(0, file->a->root->bytes, &u.lo, &u.hi);
	return copy_post(__func__, file->a->d, file, file, 0, &u, 1, out);
}
