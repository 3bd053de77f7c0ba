/* SPDX-License-Identifier: MIT */
/*
 * remote/root.c: root_open() (root.h). openat2(2) with RESOLVE_BENEATH
 * does the check in the kernel, during the lookup itself, so no rename
 * or symlink swapped in between a check and the open can move the file
 * out from under the root; where the kernel lacks openat2 (ENOSYS), a
 * walk opens one name at a time with O_NOFOLLOW beneath the directory
 * before, which is as safe and stricter (no symlink at all). glibc 2.36
 * has no openat2 wrapper: the system call is made directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "remote/root.h"

static int
refuse(char *why, size_t why_len, const char *path, int err, const char *cause)
{
	snprintf(why, why_len, "%s: %s", path, cause ? cause : strerror(err));
	return -err;
}

static int
cause_of(int err, char *why, size_t why_len, const char *path)
{
	switch (err) {
	case EXDEV:
		return refuse(why, why_len, path, EXDEV, "leaves the disk root");
	case ELOOP:
		return refuse(why, why_len, path, ELOOP, "a symlink the disk root refuses");
	default:
		return refuse(why, why_len, path, err, NULL);
	}
}

static int
check_path(const char *path, char *why, size_t why_len)
{
	if (!path || !*path)
		return refuse(why, why_len, path ? path : "(null)", EINVAL, "an empty path");
	if (strlen(path) >= PATH_MAX)
		return refuse(why, why_len, "(path)", ENAMETOOLONG, NULL);
	if (path[0] == '/')
		return refuse(why, why_len, path, EXDEV, "an absolute path leaves the disk root");
	return 0;
}

/* fd, opened O_NONBLOCK so that a FIFO cannot block, is kept only for a
 * regular file: then O_NONBLOCK goes unless the caller asked for it. */
static int
regular_only(int fd, int flags, const char *path, char *why, size_t why_len)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return refuse(why, why_len, path, err, NULL);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? refuse(why, why_len, path, EISDIR, "a directory, not a file") :
			refuse(why, why_len, path, EPERM, "not a regular file");
	}
	if (!(flags & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int
root_open_walk(int rootfd, const char *path, int flags, mode_t mode, char *why,
	       size_t why_len)
{
	char name[NAME_MAX + 1];
	const char *at = path;
	int dir = rootfd, fd, ret;

	if ((ret = check_path(path, why, why_len)) < 0)
		return ret;
	for (;;) {
		size_t n = strcspn(at, "/");
		bool last;

		if (n > NAME_MAX) {
			ret = refuse(why, why_len, path, ENAMETOOLONG, NULL);
			break;
		}
		memcpy(name, at, n);
		name[n] = 0;
		at += n;
		while (*at == '/')
			at++;
		last = !*at;
		if (!strcmp(name, "..")) {
			ret = refuse(why, why_len, path, EXDEV, "leaves the disk root");
			break;
		}
		if (!strcmp(name, ".") && !last)
			continue;
		if (last) {
			fd = openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
				    mode);
			ret = fd < 0 ? cause_of(errno, why, why_len, path) :
				regular_only(fd, flags, path, why, why_len);
			break;
		}
		fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* O_PATH|O_NOFOLLOW opens a symlink itself; O_DIRECTORY
			 * then fails it with ENOTDIR: say which it was. */
			struct stat st;
			int err = errno;

			if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				err = ELOOP;
			ret = cause_of(err, why, why_len, path);
			break;
		}
		if (dir != rootfd)
			close(dir);
		dir = fd;
	}
	if (dir != rootfd)
		close(dir);
	return ret;
}

int
root_open(int rootfd, const char *path, int flags, mode_t mode, char *why, size_t why_len)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY),
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int ret, fd;

	if ((ret = check_path(path, why, why_len)) < 0)
		return ret;
	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		return root_open_walk(rootfd, path, flags, mode, why, why_len);
	if (fd < 0)
		return cause_of(errno, why, why_len, path);
	return regular_only(fd, flags, path, why, why_len);
}
