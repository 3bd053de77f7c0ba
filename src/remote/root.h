/* SPDX-License-Identifier: MIT */
/*
 * remote/root.h: files opened only beneath a root directory, for the
 * agent's disks (--disk-root): a client names a file by a path relative
 * to the root, and no path that leaves it (by "..", an absolute path, or
 * a symlink pointing out) opens anything.
 */
#ifndef REMOTE_ROOT_H
#define REMOTE_ROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Open the regular file at path beneath the directory rootfd with flags
 * (O_RDONLY, O_RDWR, O_CREAT, O_TRUNC...; O_CLOEXEC is added) and mode.
 * Returns the fd, or a negative errno with why naming the path and the
 * cause: -EXDEV for a path that leaves the root, -ELOOP for a symlink the
 * walk refuses, -EINVAL for an empty path, -EISDIR or -EPERM for what is
 * not a regular file (a FIFO is refused without blocking).
 */
int root_open(int rootfd, const char *path, int flags, mode_t mode, char *why,
	      size_t why_len);

/*
 * The same by a walk of the path one name at a time, each opened with
 * O_NOFOLLOW beneath the one before, refusing ".." and every symlink:
 * what root_open() does where the kernel has no openat2 (before 5.6).
 * Exposed for its test.
 */
int root_open_walk(int rootfd, const char *path, int flags, mode_t mode, char *why,
		   size_t why_len);

#endif
