/*
 * core/files.c: buffers over files of a disk (rig_disk_create_file,
 * rig_disk_of_file) and rig_disk_barrier(). A file buffer's allocation is
 * like any other (stamps, refs, limbo, the device's end), but its region is
 * the disk's file handle and its location has no address and no host
 * address: only the disk's own work (copies, io.c) and maps of the file
 * (borrow.c) reach its bytes. Its bytes count in rig_allocated(disk).
 */
#include <stddef.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "core/io.h"
#include "io/disk.h"

/* The checks every call here makes first; *disk gets the engine's handle. */
static int
check_disk(const char *func, struct rig_device *d, const char *path,
	   struct rig_buffer **out, void **disk)
{
	if (!d || !out)
		return rig_fail_at(func, RIG_EINVAL, "the %s is NULL", !d ? "device" : "out");
	if (!path || !path[0])
		return rig_fail_at(func, RIG_EINVAL, "the path is %s", !path ? "NULL" : "empty");
	if (!(*disk = io_disk(d)))
		return rig_fail_at(func, RIG_EINVAL, "%s is not a disk (open one with rig_open_io)",
				   d->name);
	return device_check_live(func, d);
}

/* An engine's errno as rig's status: a file that cannot be had is an
 * invalid argument (the message says why), unless memory ran out. */
static int
status_of(int err)
{
	return err == -ENOMEM ? RIG_ENOMEM : RIG_EINVAL;
}

/* The engine's message without its call's name ("disk_file_open: "). */
static const char *
cause_of(const char *why)
{
	const char *colon = strchr(why, ':');

	return colon && colon[1] == ' ' ? colon + 2 : why;
}

/*
 * Make the buffer over the file that open() makes into a's region: a was
 * made by alloc_new() for bytes; on failure it is gone, and so is the
 * file's handle.
 */
static int
adopt(const char *func, struct rig_device *d, struct alloc *a, void *file,
      enum rig_access access, struct rig_buffer **out)
{
	int ret;

	a->region = file;
	d->ops->locate(d->handle, file, &a->loc);
	if ((ret = alloc_live(d, a)) < 0) {
		d->ops->free(d->handle, file);
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
	char why[512];
	void *disk, *file;
	struct alloc *a;
	int ret;

	if ((ret = check_disk(__func__, d, path, out, &disk)) < 0)
		return ret;
	if ((ptrdiff_t)bytes < 0)
		return rig_fail(RIG_EINVAL, "%td bytes is negative", (ptrdiff_t)bytes);
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	/* The handle first: a file, once made, cannot be unmade. */
	if (!(a = alloc_new(d, bytes, NULL)))
		return rig_fail(RIG_ENOMEM, "no memory for an allocation's handle");
	if ((ret = disk_file_create(disk, path, bytes, &file, why, sizeof(why))) < 0) {
		alloc_discard(a);
		return rig_fail(status_of(ret), "%s", cause_of(why));
	}
	return adopt(__func__, d, a, file, RIG_READ_WRITE, out);
}

int
rig_disk_of_file(struct rig_device *d, const char *path, enum rig_access access,
		 struct rig_buffer **out)
{
	char why[512];
	void *disk, *file;
	uint64_t bytes;
	struct alloc *a;
	int ret;

	if ((ret = check_disk(__func__, d, path, out, &disk)) < 0)
		return ret;
	if (access != RIG_READ_WRITE && access != RIG_READ_ONLY)
		return rig_fail(RIG_EINVAL, "%d is no access", (int)access);
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	if ((ret = disk_file_open(disk, path, &file, why, sizeof(why))) < 0)
		return rig_fail(status_of(ret), "%s", cause_of(why));
	ret = RIG_EINVAL;
	if (access == RIG_READ_WRITE && disk_file_read_only(file))
		rig_fail(ret, "%s: opening it for writing was refused (ask for RIG_READ_ONLY)",
			 path);
	else if (rig_disk_io.size(disk, file, &bytes) < 0)
		rig_fail(ret, "%s", disk_why());
	else if (!(a = alloc_new(d, bytes, NULL)))
		rig_fail(ret = RIG_ENOMEM, "no memory for an allocation's handle");
	else
		return adopt(__func__, d, a, file, access, out);
	rig_disk_io.release(disk, file);
	return ret;
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
	if (!io_disk(file->a->d))
		return rig_fail(RIG_EINVAL, "the buffer lies on %s, which is not a disk",
				file->a->d->name);
	if ((ret = device_check_live(__func__, file->a->d)) < 0)
		return ret;
	u = (struct use){ .a = file->a->root, .kind = USE_READ };
	words_of(0, file->a->root->bytes, &u.lo, &u.hi);
	return copy_post(__func__, file->a->d, file, file, 0, &u, 1, out);
}
