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
 *
 * Who holds it. The taker writes "<pid> <command>" into the file once it
 * holds the lock and empties it before it lets go, so a process refused
 * names the holder (pci_lock_holder, `rig devices`). A killed holder's
 * line stays; it names a dead process, which a reader checks (kill 0)
 * before naming it, and a live one's is believed only while the lock is
 * held (a shared flock that fails). flock itself tells no pid, and
 * /proc/locks lies outside a machine's root.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The "<pid> <command>" an fd's file holds: the pid, or 0 for none. */
static int
holder_line(int fd, char *command, size_t len)
{
	char line[128], cmd[64] = "";
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	int pid = 0;

	if (n <= 0)
		return 0;
	line[n] = '\0';
	if (sscanf(line, "%d %63s", &pid, cmd) < 1 || pid <= 0)
		return 0;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 0;	/* a killed holder's line */
	snprintf(command, len, "%s", cmd[0] ? cmd : "?");
	return pid;
}

int
pci_lock_holder(const struct rig_pci_machine *m, const char *bus, char *command,
		size_t len)
{
	char path[600];
	int ret, fd, pid;

	ret = pci_path(m, path, sizeof(path) - 40, "run/lock");
	if (ret < 0)
		return ret;
	snprintf(path + strlen(path), 40, "/rig-pci-%s.lock", bus);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;	/* never locked */
	pid = holder_line(fd, command, len);
	/* A live process's line: believed while the lock is held. A shared
	 * lock taken here means no one holds it (and it goes at once). */
	if (pid > 0 && flock(fd, LOCK_SH | LOCK_NB) == 0)
		pid = 0;
	close(fd);
	return pid;
}

int
pci_function_lock(const struct rig_pci_machine *m, const char *bus, int *fd)
{
	char dir[512], path[600], command[64], line[128];
	int ret, lfd, pid;

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
		pid = ret == -EWOULDBLOCK ? holder_line(lfd, command, sizeof(command)) : 0;
		close(lfd);
		if (ret == -EWOULDBLOCK && pid > 0)
			return amd_fail(-EBUSY, "process %d (%s) is opening, changing "
					"or holding %s: it holds %s", pid, command,
					bus, path);
		if (ret == -EWOULDBLOCK)
			return amd_fail(-EBUSY, "another process is opening, "
					"changing or holding %s: it holds %s", bus,
					path);
		return amd_fail(ret, "cannot lock %s: %s", path, strerror(-ret));
	}
	/* Best effort: a file opened read-only (another user's) names no one. */
	snprintf(line, sizeof(line), "%d %.60s\n", (int)getpid(),
		 program_invocation_short_name);
	if (ftruncate(lfd, 0) == 0 && pwrite(lfd, line, strlen(line), 0) < 0)
		(void)ftruncate(lfd, 0);
	*fd = lfd;
	return 0;
}

void
pci_function_unlock(int fd)
{
	if (fd < 0)
		return;
	(void)ftruncate(fd, 0);	/* names no one from now on */
	close(fd);		/* drops the flock */
}
