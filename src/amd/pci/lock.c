/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/lock.c: the two locks of opens and machine changes. In a
 * process they run one at a time (docs/amd.md, Moving GPUs), each under
 * machine_lock for its whole run; callers check rig_in_callback() first: a
 * call from inside one of rig's callbacks is refused instead of taking it.
 *
 * Among processes, each function has a lock file, root/run/lock/
 * rig-pci-<bus>.lock, held with flock(LOCK_EX | LOCK_NB) from before the
 * holder scan (hold.c) until the take is given back or the device stops.
 * Without it two processes could both find no holder and both take the
 * GPU. flock belongs to the open file, so the kernel releases it when its
 * process exits however it exits, a kill -9 included, and a stale file
 * never blocks a later open; the file itself stays (removing it would race
 * a third process that opened it meanwhile). No library offers this, and
 * it is one system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

static pthread_mutex_t machine_lock = PTHREAD_MUTEX_INITIALIZER;

void
pci_lock(void)
{
	pthread_mutex_lock(&machine_lock);
}

void
pci_unlock(void)
{
	pthread_mutex_unlock(&machine_lock);
}

/* root/run/lock, made (0755 for run, sticky 1777 for lock, as Linux has
 * them) where missing. */
static int
lock_dir(const struct rig_pci_machine *m, char *dir, size_t len)
{
	int ret = pci_path(m, dir, len, "run");

	if (ret < 0)
		return ret;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return amd_fail(-errno, "cannot make %s: %s", dir, strerror(errno));
	ret = pci_path(m, dir, len, "run/lock");
	if (ret < 0)
		return ret;
	if (mkdir(dir, 01777) < 0 && errno != EEXIST)
		return amd_fail(-errno, "cannot make %s: %s", dir, strerror(errno));
	return 0;
}

int
pci_function_lock(const struct rig_pci_machine *m, const char *bus, int *fd)
{
	char dir[512], path[600];
	int ret, lfd;

	*fd = -1;
	ret = lock_dir(m, dir, sizeof(dir));
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/rig-pci-%s.lock", dir, bus);
	lfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (lfd < 0 && errno == EACCES)	/* another user's file: flock reads suffice */
		lfd = open(path, O_RDONLY | O_CLOEXEC);
	if (lfd < 0)
		return amd_fail(-errno, "cannot open %s: %s", path, strerror(errno));
	if (flock(lfd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		close(lfd);
		if (ret == -EWOULDBLOCK)
			return amd_fail(-EBUSY, "another process is opening, "
					"changing or holding %s: it holds %s", bus,
					path);
		return amd_fail(ret, "cannot lock %s: %s", path, strerror(-ret));
	}
	*fd = lfd;
	return 0;
}

void
pci_function_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}
