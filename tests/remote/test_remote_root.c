/* SPDX-License-Identifier: MIT */
/*
 * test_remote_root: root_open() opens files beneath the root and refuses
 * every way out: "..", an absolute path, a symlink pointing out (of a
 * directory or of the file itself), a magic link of /proc; what is not a
 * regular file is refused (a FIFO without blocking). The walk used where
 * the kernel has no openat2 refuses the same, and any symlink at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/root.h"

typedef int (*open_fn)(int, const char *, int, mode_t, char *, size_t);

static char top[] = "/tmp/rig-root-test-XXXXXX", root[64], why[300];
static int rootfd = -1;

static void
make_tree(void)
{
	char p[128];
	int fd;

	assert_non_null(mkdtemp(top));
	snprintf(root, sizeof(root), "%s/root", top);
	assert_int_equal(mkdir(root, 0700), 0);
	snprintf(p, sizeof(p), "%s/secret", top);	/* outside the root */
	assert_true((fd = open(p, O_CREAT | O_WRONLY, 0600)) >= 0);
	assert_int_equal(write(fd, "secret", 6), 6);
	close(fd);
	snprintf(p, sizeof(p), "%s/sub", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/sub/data", root);
	assert_true((fd = open(p, O_CREAT | O_WRONLY, 0600)) >= 0);
	assert_int_equal(write(fd, "data", 4), 4);
	close(fd);
	snprintf(p, sizeof(p), "%s/inside", root);
	assert_int_equal(symlink("sub/data", p), 0);
	snprintf(p, sizeof(p), "%s/out", root);
	assert_int_equal(symlink("../secret", p), 0);
	snprintf(p, sizeof(p), "%s/abs", root);
	snprintf(why, sizeof(why), "%s/secret", top);
	assert_int_equal(symlink(why, p), 0);
	snprintf(p, sizeof(p), "%s/outdir", root);
	assert_int_equal(symlink("..", p), 0);
	snprintf(p, sizeof(p), "%s/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_true((rootfd = open(root, O_PATH | O_DIRECTORY)) >= 0);
}

static void
remove_tree(void)
{
	char cmd[160];

	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

static void
opens(open_fn f, const char *path, int flags, const char *want)
{
	char got[8] = "";
	int fd = f(rootfd, path, flags, 0600, why, sizeof(why));

	if (fd < 0)
		fail_msg("%s: %s", path, why);
	if (want)
		assert_int_equal(pread(fd, got, strlen(want), 0), (ssize_t)strlen(want));
	assert_string_equal(got, want ? want : "");
	close(fd);
}

static void
refused(open_fn f, const char *path, int flags, int err, const char *cause)
{
	int fd = f(rootfd, path, flags, 0600, why, sizeof(why));

	if (fd >= 0)
		close(fd);
	assert_int_equal(fd, -err);
	assert_non_null(strstr(why, cause));
}

static void
both(open_fn f, bool walk)
{
	char p[128];
	struct stat st;

	opens(f, "sub/data", O_RDONLY, "data");
	opens(f, "./sub//data", O_RDWR, "data");
	opens(f, "sub/new", O_RDWR | O_CREAT | O_TRUNC, NULL);
	snprintf(p, sizeof(p), "%s/sub/new", root);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(unlink(p), 0);
	refused(f, "../secret", O_RDONLY, EXDEV, "leaves the disk root");
	refused(f, "sub/../../secret", O_RDONLY, EXDEV, "leaves the disk root");
	refused(f, "/etc/passwd", O_RDONLY, EXDEV, "absolute path");
	refused(f, "", O_RDONLY, EINVAL, "empty path");
	refused(f, "out", O_RDONLY, walk ? ELOOP : EXDEV, walk ? "symlink" : "leaves");
	refused(f, "abs", O_RDONLY, walk ? ELOOP : EXDEV, walk ? "symlink" : "leaves");
	refused(f, "outdir/secret", O_RDONLY, walk ? ELOOP : EXDEV, walk ? "symlink" : "leaves");
	/* A symlink out is not followed to create a file there either. */
	refused(f, "outdir/made", O_RDWR | O_CREAT, walk ? ELOOP : EXDEV, walk ? "symlink" : "leaves");
	snprintf(p, sizeof(p), "%s/made", top);
	assert_int_equal(stat(p, &st), -1);
	refused(f, "fifo", O_RDONLY, EPERM, "not a regular file");
	refused(f, "sub", O_RDONLY, EISDIR, "a directory");
	refused(f, "missing", O_RDONLY, ENOENT, "missing: No such file");
	if (walk)
		refused(f, "inside", O_RDONLY, ELOOP, "symlink");
	else
		opens(f, "inside", O_RDONLY, "data");	/* a symlink that stays inside */
}

static void
with_openat2(void **state)
{
	(void)state;
	both(root_open, false);
	/* A magic link of /proc names a file by what it is, not by where:
	 * refused beneath any root. */
	refused(root_open, "../../proc/self/exe", O_RDONLY, EXDEV, "leaves");
}

static void
with_walk(void **state)
{
	(void)state;
	both(root_open_walk, true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(with_openat2),
		cmocka_unit_test(with_walk),
	};
	int rc;

	make_tree();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	remove_tree();
	return rc;
}
