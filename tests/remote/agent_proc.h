/* SPDX-License-Identifier: MIT */
/*
 * tests/remote/agent_proc.h: `rig agent` as a separate process for the
 * remote tests: spawned on a free loopback port (port 0, read back from
 * its first log line), its log lines kept for the tests to look for, and
 * killed by signal, and by the test's own end (its parent-death signal:
 * no agent outlives the test that started it). Also the key files the tests use.
 */
#ifndef TESTS_REMOTE_AGENT_PROC_H
#define TESTS_REMOTE_AGENT_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct agent_proc {
	pid_t pid;
	int log_fd;		/* its stderr */
	char where[64];		/* 127.0.0.1:PORT */
	char log[65536];	/* what it logged so far */
	size_t log_len;
};

/* Write key (a C string) into path with mode. */
void key_write(const char *path, const char *key, unsigned mode);

/* Start `rig agent` (RIG_EXE) with key_file and extra flags (NULL-ended);
 * listen on where ("127.0.0.1:0" for any port). false if it did not start. */
bool agent_start(struct agent_proc *a, const char *key_file, const char *where,
		 const char *const *extra);

/* Wait up to ms for the log to contain text; true once it does. */
bool agent_logged(struct agent_proc *a, const char *text, int ms);

/* Signal the agent and reap it. */
void agent_kill(struct agent_proc *a, int sig);

#endif
