/* SPDX-License-Identifier: MIT */
/*
 * io/file.c: the disk's files: create, open, size, release, map. A file is
 * an fd, registered with the ring where a slot is free, and the extent it
 * had when made. Its refs: the handle's, one per op of each queued value,
 * one per map; release drops the handle's, and the last ref closes the
 * file, so a release with I/O in flight is deferred until that I/O ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/engine.h"

bool
file_of(struct disk *d, const void *file)
{
	const struct disk_file *f = file;

	return f && f->magic == DISK_FILE_MAGIC && f->disk == d;
}

void
file_get(struct disk_file *f)
{
	atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
}

void
file_put(struct disk_file *f)
{
	struct disk *d = f->disk;

	/* acq_rel: the last put sees every other holder's use of f. */
	if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
		return;
	pthread_mutex_lock(&d->files_lock);
	if (d->be_state)
		d->be->file_drop(d, f);
	pthread_mutex_unlock(&d->files_lock);
	atomic_fetch_sub_explicit(&d->files, 1, memory_order_relaxed);
	close(f->fd);
	f->magic = 0;
	free(f);
	disk_put(d);
}

/* Wrap fd as a file of d; closes fd on failure. */
static int
file_new(struct disk *d, const char *call, const char *path, int fd,
	 bool read_only, uint64_t bytes, void **file, char *why, size_t len)
{
	size_t n = strlen(path) + 1;
	struct disk_file *f = malloc(sizeof(*f) + n);

	if (!f) {
		close(fd);
		snprintf(why, len, "%s: %s: no memory for the file", call, path);
		return -ENOMEM;
	}
	f->magic = DISK_FILE_MAGIC;
	f->disk = d;
	f->fd = fd;
	f->read_only = read_only;
	f->bytes = bytes;
	atomic_init(&f->refs, 1);
	memcpy(f->path, path, n);
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&d->files, 1, memory_order_relaxed);
	pthread_mutex_lock(&d->files_lock);
	if (d->be_state)
		d->be->file_add(d, f);
	else
		f->slot = -1;
	pthread_mutex_unlock(&d->files_lock);
	*file = f;
	return 0;
}

static int
refused(const char *call, const char *path, int err, char *why, size_t len)
{
	snprintf(why, len, "%s: %s: %s", call, path ? path : "(null)", strerror(err));
	disk_refuse(call, -err, "%s: %s", path ? path : "(null)", strerror(err));
	return -err;
}

static int
refused_stopped(const char *call, const char *path, char *why, size_t len)
{
	snprintf(why, len, "%s: %s: the disk stopped", call, path);
	return disk_refuse(call, -EINVAL, "%s: the disk stopped", path);
}

static bool
stopped(struct disk *d)
{
	return atomic_load_explicit(&d->stopping, memory_order_acquire);
}

int
disk_file_create(void *disk, const char *path, uint64_t bytes, void **file,
		 char *why, size_t len)
{
	struct disk *d = disk;
	bool made;
	int fd, ret;

	if (!d || !path || !file)
		return refused(__func__, path, EINVAL, why, len);
	if (stopped(d))
		return refused_stopped(__func__, path, why, len);
	if (bytes > (uint64_t)INT64_MAX)
		return refused(__func__, path, EFBIG, why, len);
	/* A refusal leaves the path as it found it: a file made here is
	 * unlinked again, and one that exists is emptied only once a
	 * truncation to bytes succeeded (the file system's limit on a file's
	 * size, EFBIG, refuses before anything changes). */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	made = fd >= 0;
	if (!made && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return refused(__func__, path, errno, why, len);
	if (ftruncate(fd, (off_t)bytes) < 0 ||
	    (!made && (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)bytes) < 0))) {
		int err = errno;

		if (made)
			unlink(path);
		close(fd);
		return refused(__func__, path, err, why, len);
	}
	ret = file_new(d, __func__, path, fd, false, bytes, file, why, len);
	if (ret < 0 && made)
		unlink(path);
	return ret;
}

int
disk_file_open(void *disk, const char *path, void **file, char *why, size_t len)
{
	struct disk *d = disk;
	bool read_only = false;
	struct stat st;
	int fd;

	if (!d || !path || !file)
		return refused(__func__, path, EINVAL, why, len);
	if (stopped(d))
		return refused_stopped(__func__, path, why, len);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
		read_only = true;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return refused(__func__, path, errno, why, len);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int err = S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? errno : EINVAL;

		close(fd);
		if (err == EINVAL) {
			snprintf(why, len, "%s: %s: not a regular file", __func__, path);
			return disk_refuse(__func__, -EINVAL, "%s: not a regular file", path);
		}
		return refused(__func__, path, err, why, len);
	}
	return file_new(d, __func__, path, fd, read_only, (uint64_t)st.st_size,
			file, why, len);
}

int
disk_file_size(void *t, void *file, uint64_t *bytes)
{
	if (!file_of(t, file) || !bytes)
		return disk_refuse("size", -EINVAL, "%p is no file of this disk", file);
	*bytes = ((struct disk_file *)file)->bytes;
	return 0;
}

void
disk_file_release(void *t, void *file)
{
	if (file_of(t, file))
		file_put(file);
}

bool
disk_file_read_only(void *file)
{
	return ((struct disk_file *)file)->read_only;
}

int
disk_file_map(void *file, uint64_t offset, uint64_t bytes, void **host)
{
	struct disk_file *f = file;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), skew = offset % page;
	void *m;

	if (!f || f->magic != DISK_FILE_MAGIC || !host)
		return disk_refuse(__func__, -EINVAL, "%p is no file of a disk", file);
	if (!bytes || offset > f->bytes || bytes > f->bytes - offset)
		return disk_refuse(__func__, -EINVAL,
				   "%s: %" PRIu64 " bytes at %" PRIu64 " are empty or pass the end of the file (%" PRIu64 " bytes)",
				   f->path, bytes, offset, f->bytes);
	m = mmap(NULL, bytes + skew,
		 f->read_only ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
		 f->fd, (off_t)(offset - skew));
	if (m == MAP_FAILED)
		return disk_refuse(__func__, -errno, "%s: mmap of %" PRIu64 " bytes at %" PRIu64 ": %s",
				   f->path, bytes, offset, strerror(errno));
	file_get(f);		/* put by disk_file_unmap() */
	*host = (char *)m + skew;
	return 0;
}

int
disk_file_unmap(void *file, void *host, uint64_t bytes)
{
	struct disk_file *f = file;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t skew = (uintptr_t)host % page;

	if (!f || f->magic != DISK_FILE_MAGIC || !host || !bytes)
		return disk_refuse(__func__, -EINVAL, "%p is no mapped file of a disk", file);
	if (munmap((char *)host - skew, bytes + skew) < 0)
		return disk_refuse(__func__, -errno, "%s: munmap: %s", f->path, strerror(errno));
	file_put(f);
	return 0;
}

/* ---- The Io table's calls on files (rig_edge.h): their why names the
 * path and the cause, not the call ---- */

/* Drop the "<call>: " that begins the disk_* calls' messages. */
static void
cause_only(char *why, const char *call)
{
	size_t n = strlen(call);

	if (!strncmp(why, call, n) && !strncmp(why + n, ": ", 2))
		memmove(why, why + n + 2, strlen(why + n + 2) + 1);
}

int
disk_io_create(void *t, const char *path, uint64_t bytes, void **file,
	       char *why, size_t len)
{
	int ret = disk_file_create(t, path, bytes, file, why, len);

	if (ret < 0)
		cause_only(why, "disk_file_create");
	return ret;
}

int
disk_io_open(void *t, const char *path, bool write, void **file, char *why,
	     size_t len)
{
	int ret = disk_file_open(t, path, file, why, len);

	if (ret < 0) {
		cause_only(why, "disk_file_open");
		return ret;
	}
	if (write && disk_file_read_only(*file)) {
		disk_file_release(t, *file);
		snprintf(why, len, "%s: opening it for writing was refused", path);
		return -EROFS;
	}
	return 0;
}

int
disk_io_map(void *file, uint64_t offset, uint64_t bytes, void **host,
	    char *why, size_t len)
{
	int ret = disk_file_map(file, offset, bytes, host);

	if (ret < 0) {
		snprintf(why, len, "%s", disk_why());
		cause_only(why, "disk_file_map");
	}
	return ret;
}

void
disk_io_unmap(void *file, void *host, uint64_t bytes)
{
	/* Fails only for arguments disk_io_map() made right. */
	disk_file_unmap(file, host, bytes);
}
