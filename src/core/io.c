/* SPDX-License-Identifier: MIT */
/*
 * core/io.c: the core's side of Io devices. rig_open_io() opens one through
 * the opener the Io engine makes of an Io library (rig_io_device_opener,
 * src/io/device.c); afterwards the core knows it by its facts, which name
 * the library's table and handle (facts.io), and calls the library only
 * through that table: files by path, and host maps of files for borrowed
 * buffers. Any Io library works the same; rig's disk is one. Not here:
 * buffers over files and barriers (files.c), copies (copy.c), borrowing
 * (borrow.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/io.h"

/* What the table must hold: the four calls every library has, and the
 * optional ones in pairs (rig_edge.h); NULL, or what is wrong. */
static const char *
table_lacks(const struct rig_io *io)
{
	if (!io->submit || !io->size || !io->release || !io->stop)
		return "an Io table with submit, size, release and stop";
	if (!io->create != !io->open)
		return "create and open together (or neither)";
	if (!io->map != !io->unmap)
		return "map and unmap together (or neither)";
	if (!io->fault_fd != !io->failure)
		return "fault_fd and failure together (or neither)";
	return NULL;
}

int
rig_open_io(const struct rig_io_opener *o, struct rig_device **out)
{
	struct rig_opener device;
	const char *lacks;
	int ret;

	if (!o || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !o ? "opener" : "out");
	if (!o->name || !o->name[0])
		return rig_fail(RIG_EINVAL, "the opener has no name");
	lacks = !o->make ? "make" : !o->io ? "an Io table" : table_lacks(o->io);
	if (lacks)
		return rig_fail(RIG_EINVAL, "opener %s lacks %s", o->name, lacks);
	rig_io_device_opener(o, &device);
	ret = device_open(&device, false, out);
	return ret < 0 ? rig_fail_keep(__func__, ret) : 0;
}

bool
io_makes_files(const struct rig_device *d)
{
	return io_device(d) && d->facts.io->create;
}

void *
io_handle(const struct rig_device *d)
{
	return io_device(d) && !rig_lost(d) ? d->facts.io_handle : NULL;
}

/* The library's calls for one file: create it, or open it and learn its
 * size. */
static int
make_file(struct rig_device *d, const char *path, bool create,
	  enum rig_access access, void **file, uint64_t *bytes, char *why,
	  size_t len)
{
	const struct rig_io *io = d->facts.io;
	void *t = d->facts.io_handle;
	int ret;

	if (create)
		return io->create(t, path, *bytes, file, why, len);
	if ((ret = io->open(t, path, access == RIG_READ_WRITE, file, why, len)) < 0)
		return ret;
	if ((ret = io->size(t, *file, bytes)) < 0) {
		snprintf(why, len, "%s: its size: %s", path, strerror(-ret));
		io->release(t, *file);
	}
	return ret;
}

int
io_file_make(struct rig_device *d, const char *path, bool create,
	     enum rig_access access, void **file, uint64_t *bytes)
{
	char why[512] = "no reason given";
	int ret;

	/* A counted call: the library's stop waits for it, and once the
	 * device is lost (stop follows) the library is asked nothing. */
	if (!submit_call_enter(&d->sub))
		return device_check_live(NULL, d);
	ret = make_file(d, path, create, access, file, bytes, why, sizeof(why));
	submit_call_leave(&d->sub);
	if (ret == -EROFS && access == RIG_READ_WRITE)
		return rig_cause(RIG_EINVAL, "%s (ask for RIG_READ_ONLY)", why);
	if (ret < 0)
		/* A file that cannot be had is an invalid argument (the
		 * message says why), unless memory ran out. */
		return rig_cause(ret == -ENOMEM ? RIG_ENOMEM : RIG_EINVAL, "%s", why);
	return 0;
}

int
io_map(struct alloc *root, struct alloc *a)
{
	const struct rig_io *io = root->d->facts.io;
	char why[512] = "no reason given";
	void *host;
	int ret;

	if (!io->map)
		return rig_cause(RIG_EINVAL, "%s maps no file into host memory", root->d->name);
	if (!root->bytes)
		return 0;	/* nothing to map */
	/* Under root's lock: the device's end returns the file (and marks it
	 * dead) under it; a map once made keeps the file open itself. */
	spin_lock(&root->lock);
	ret = alloc_dead(root) ? -1 :
	      io->map(root->region, 0, root->bytes, &host, why, sizeof(why));
	spin_unlock(&root->lock);
	if (ret < 0)
		return rig_cause(RIG_EINVAL, "%s", alloc_dead(root) ?
				 "the file's device is lost" : why);
	a->io_file = root->region;
	a->io_host = host;
	a->io_bytes = root->bytes;
	return 0;
}

void
io_unmap(struct alloc *a)
{
	if (!a->io_host)
		return;
	/* The table outlives the library's handle, and so does the map's
	 * file: this may run after the Io device ended. */
	a->root->d->facts.io->unmap(a->io_file, a->io_host, a->io_bytes);
	a->io_host = NULL;
}
