/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/shared.c: what a simulated GPU keeps across the life of the
 * process that drives it (struct sim_shared, priv.h): its registers,
 * config space, its security processor's and power manager's state and
 * BAR0's size, and (sim.c) its VRAM. A sim made with opts.shared keeps
 * them in two files of its device's sysfs folder, sim_state and sim_vram,
 * mapped MAP_SHARED, so a second process that attaches to it
 * (amd_sim_attach: a test's fork+exec or fork child) finds the GPU as the
 * first left it: booted with the mark, dirty, or stopped part way through
 * a boot by a kill -9, as a real GPU keeps its state while its driver's
 * process dies. Otherwise the block is the process's own memory.
 *
 * What is not kept: the engines' queues. Engines run in the process that
 * has the sim (made or attached), and a GPU nobody drives does nothing in
 * the sim, so a process that attaches finds every queue stopped and its
 * HQD registers 0, whatever the last process left running; a GPU whose
 * driver died mid-work is then reset by its next open anyway (its mark
 * says dirty). Host memory (the DMA pages) is each process's own and dies
 * with it, as a real process's pinned pages do.
 *
 * Also here: the pause of a test (amd_sim_pause), which stops the thread
 * that drives the security processor at a named event and tells a pipe,
 * so a test kills the process there rather than guessing with a sleep.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

static void
point_into(struct amd_sim *s)
{
	s->regs = s->sh->regs;
	s->far = s->sh->far;
	s->nfar = &s->sh->nfar;
	s->config = s->sh->config;
	s->bus_master = &s->sh->bus_master;
	s->mp = &s->sh->mp;
}

static void
state_path(char *path, size_t len, const char *root, const char *bus)
{
	snprintf(path, len, "%s/sys/bus/pci/devices/%s/sim_state", root, bus);
}

/* The device folder (the tree is built later, sim_tree_build). */
static int
make_folder(const char *root, const char *bus)
{
	char path[300], *slash;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root, bus);
	for (slash = path + strlen(root) + 1; ; slash++) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return amd_fail_at(NULL, -errno, "cannot make %s: %s", path,
					   strerror(errno));
		if (!slash)
			return 0;
		*slash = '/';
	}
}

int
sim_shared_make(struct amd_sim *s, const struct amd_sim_opts *o)
{
	void *p;

	if (!s->shared) {
		p = mmap(NULL, sizeof(*s->sh), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else {
		char path[300];
		int fd, ret;

		if ((ret = make_folder(s->root, s->bus)) < 0)
			return ret;
		state_path(path, sizeof(path), s->root, s->bus);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return amd_fail_at(NULL, -errno, "cannot make %s: %s", path,
					   strerror(errno));
		if (ftruncate(fd, sizeof(*s->sh)) < 0) {
			ret = -errno;
			close(fd);
			return amd_fail_at(NULL, ret, "cannot size %s: %s", path,
					   strerror(-ret));
		}
		p = mmap(NULL, sizeof(*s->sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	}
	if (p == MAP_FAILED)
		return amd_fail_at(NULL, -errno, "cannot map the sim's state: %s",
				   strerror(errno));
	s->sh = p;
	s->sh->magic = SIM_SHARED_MAGIC;
	s->sh->version = SIM_SHARED_VERSION;
	s->sh->bytes = sizeof(*s->sh);
	snprintf(s->sh->gc, sizeof(s->sh->gc), "%s", o->gc);
	snprintf(s->sh->bus, sizeof(s->sh->bus), "%s", s->bus);
	s->sh->vram_bytes = s->vram_bytes;
	s->sh->xccs = s->lay.xccs;
	s->sh->aids = s->lay.aids;
	atomic_store(&s->sh->bar0_bytes, s->bar0_bytes);
	point_into(s);
	return 0;
}

int
sim_shared_attach(struct amd_sim *s, const char *root, const char *bus)
{
	char path[300];
	struct stat st;
	void *p;
	int fd;

	state_path(path, sizeof(path), root, bus);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return amd_fail(-errno, "no sim of %s under %s (made with opts.shared): "
				"%s: %s", bus, root, path, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_size != (off_t)sizeof(*s->sh)) {
		close(fd);
		return amd_fail(-EPROTO, "%s is not a sim's state (%lld bytes, not %zu)",
				path, (long long)st.st_size, sizeof(*s->sh));
	}
	p = mmap(NULL, sizeof(*s->sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return amd_fail(-errno, "cannot map %s: %s", path, strerror(errno));
	s->sh = p;
	if (s->sh->magic != SIM_SHARED_MAGIC || s->sh->version != SIM_SHARED_VERSION ||
	    s->sh->bytes != sizeof(*s->sh) || strcmp(s->sh->bus, bus)) {
		munmap(p, sizeof(*s->sh));
		s->sh = NULL;
		return amd_fail(-EPROTO, "%s is not a sim's state of this build, for %s",
				path, bus);
	}
	point_into(s);
	return 0;
}

void
sim_shared_unmap(struct amd_sim *s)
{
	if (s->sh)
		munmap(s->sh, sizeof(*s->sh));
	s->sh = NULL;
}

int
amd_sim_pause(struct amd_sim *s, enum amd_sim_pause_at at, unsigned nth, int fd)
{
	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	if ((at != AMD_SIM_PAUSE_NONE && at != AMD_SIM_PAUSE_BOOTLOADER &&
	     at != AMD_SIM_PAUSE_PSP_COMMAND) || (at != AMD_SIM_PAUSE_NONE &&
						  (nth == 0 || fd < 0)))
		return amd_fail(-EINVAL, "pause %d at event %u telling fd %d: not a "
				"pause the sim makes (an event, its count from 1, an fd)",
				(int)at, nth, fd);
	s->pause_fd = fd;
	atomic_store(&s->pause_left, (int)nth);
	atomic_store(&s->pause_step, (int)at);
	return 0;
}

void
sim_pause_check(struct amd_sim *s, int step)
{
	sigset_t none;

	if (atomic_load(&s->pause_step) != step ||
	    atomic_fetch_sub(&s->pause_left, 1) != 1)
		return;
	(void)!write(s->pause_fd, "p", 1);
	/* Paused for good: the test kills the process here. */
	sigemptyset(&none);
	for (;;)
		sigsuspend(&none);
}

void
amd_sim_marks(struct amd_sim *s, uint32_t *mark, uint32_t *dirty)
{
	if (mark)
		*mark = s ? sim_reg(s, s->lay.scratch7) : 0;
	if (dirty)
		*dirty = s ? sim_reg(s, s->lay.scratch6) : 0;
}
