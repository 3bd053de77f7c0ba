/* SPDX-License-Identifier: MIT */
/*
 * tests/remote/agent_proc.c: the agent process of the remote tests
 * (agent_proc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_proc.h"

void
key_write(const char *path, const char *key, unsigned mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, key, strlen(key)) != (ssize_t)strlen(key) ||
	    fchmod(fd, mode) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void
drain(struct agent_proc *a, int ms)
{
	struct pollfd p = { .fd = a->log_fd, .events = POLLIN };

	while (poll(&p, 1, ms) > 0) {
		ssize_t n = read(a->log_fd, a->log + a->log_len,
				 sizeof(a->log) - 1 - a->log_len);

		if (n <= 0)
			break;
		/* Echoed for the test's log: what the agent said and when. */
		fwrite(a->log + a->log_len, 1, (size_t)n, stderr);
		a->log_len += (size_t)n;
		a->log[a->log_len] = 0;
		ms = 0;
	}
}

static long
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool
agent_logged(struct agent_proc *a, const char *text, int ms)
{
	long end = now_ms() + ms;

	do {
		if (strstr(a->log, text))
			return true;
		drain(a, 20);
	} while (now_ms() < end);
	return strstr(a->log, text) != NULL;
}

bool
agent_start(struct agent_proc *a, const char *key_file, const char *where,
	    const char *const *extra)
{
	const char *argv[16] = { RIG_EXE, "agent", "--listen", where, "--key", key_file };
	int n = 6, fds[2];
	const char *at;
	pid_t parent = getpid();
	bool own_heartbeat = false;

	memset(a, 0, sizeof(*a));
	for (; extra && *extra && n < 13; extra++) {
		own_heartbeat |= !strcmp(*extra, "--heartbeat-ms");
		argv[n++] = *extra;
	}
	if (!own_heartbeat) {
		argv[n++] = "--heartbeat-ms";
		argv[n++] = AGENT_TEST_HEARTBEAT_MS;
	}
	argv[n] = NULL;
	/* The clients this process makes next: read as a machine is first
	 * named (src/remote/client.c); a test's own setting wins. */
	setenv("RIG_REMOTE_HEARTBEAT_MS", AGENT_TEST_HEARTBEAT_MS, 0);
	if (pipe(fds) < 0)
		return false;
	if ((a->pid = fork()) == 0) {
		/* A test that dies (a failed assert, a timeout's kill) takes
		 * its agent with it: no agent outlives its test. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(RIG_EXE, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	a->log_fd = fds[0];
	if (!agent_logged(a, "listening on ", 20000))
		return false;
	at = strstr(a->log, "listening on ") + strlen("listening on ");
	sscanf(at, "%63s", a->where);
	return true;
}

void
agent_kill(struct agent_proc *a, int sig)
{
	if (a->pid <= 0)
		return;
	kill(a->pid, sig);
	drain(a, 50);
	waitpid(a->pid, NULL, 0);
	drain(a, 0);
	close(a->log_fd);
	a->pid = 0;
}
