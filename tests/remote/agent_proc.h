/* SPDX-License-Identifier: MIT */
/*
 * tests/remote/agent_proc.h: `rig agent` as a separate process for the
 * remote tests: spawned on a free loopback port (port 0, read back from
 * its first log line), its log lines kept for the tests to look for, and
 * killed by signal, and by the test's own end (its parent-death signal:
 * no agent outlives the test that started it). Also the key files the tests use.
 *
 * The heartbeat: an agent started here bounds its clients' silence by
 * AGENT_TEST_HEARTBEAT_MS (--heartbeat-ms) unless the test names its own
 * bound, and a client this process makes afterwards bounds the agent's by
 * the same (RIG_REMOTE_HEARTBEAT_MS, unless set): the default 3 s is a
 * pause a process of a loaded machine (load 50, a sanitizer) can reach,
 * and a missed heartbeat loses the connection in a test about something
 * else. The heartbeat's own tests (test_remote's agent_silent and
 * client_silent) set theirs, each on a connection of its own.
 */
#ifndef TESTS_REMOTE_AGENT_PROC_H
#define TESTS_REMOTE_AGENT_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#define AGENT_TEST_HEARTBEAT_MS "60000"

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
 * listen on where ("127.0.0.1:0" for any port); --heartbeat-ms
 * AGENT_TEST_HEARTBEAT_MS unless extra has one. false if it did not start. */
bool agent_start(struct agent_proc *a, const char *key_file, const char *where,
		 const char *const *extra);

/* Wait up to ms for the log to contain text; true once it does. */
bool agent_logged(struct agent_proc *a, const char *text, int ms);

/* Signal the agent and reap it. */
void agent_kill(struct agent_proc *a, int sig);

#endif
