/* SPDX-License-Identifier: MIT */
/*
 * tests/remote/test_agent_orphan.c: no agent outlives the test that
 * started it. A child process plays a test: it starts `rig agent` the way
 * every remote test does (agent_proc.c), opens the agent's HOST, makes a
 * Pinned buffer there (so the agent holds a client with a device and its
 * memory), and is killed by SIGKILL mid-way, as a test that times out is.
 * This process is a subreaper, so the orphaned agent becomes its child:
 * waitpid() on it returns once it has ended, which it must do by itself
 * (its parent-death signal, then a bounded teardown of the dead client).
 * The wait is for the event, not for a time: an agent that stays hangs the
 * test until meson's timeout fails it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_proc.h"
#include "rig.h"
#include "rig_remote.h"

static int
fail(const char *what)
{
	fprintf(stderr, "FAIL: %s\n", what);
	return 1;
}

/* The "test": its agent's pid down fd, then its own death. */
static void
doomed_test(const char *key_path, int fd)
{
	static struct agent_proc agent;
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *b;
	pid_t pid;

	if (!agent_start(&agent, key_path, "127.0.0.1:0", NULL))
		_exit(2);
	pid = agent.pid;
	if (rig_remote_opener(agent.where, "HOST", key_path, &o) < 0 || rig_open(&o, &d) < 0 ||
	    rig_buffer_create(d, 1 << 20, RIG_MEMORY_PINNED, &b) < 0) {
		fprintf(stderr, "remote HOST: %s\n", rig_why());
		kill(pid, SIGKILL);
		_exit(3);
	}
	if (write(fd, &pid, sizeof(pid)) != sizeof(pid))
		_exit(4);
	raise(SIGKILL);
}

int
main(void)
{
	char key_path[128];
	int fds[2], status;
	pid_t test, agent = 0;

	snprintf(key_path, sizeof(key_path), "/tmp/rig-orphan-key-%d", (int)getpid());
	key_write(key_path, "the shared key of test_agent_orphan\n", 0600);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || pipe(fds) < 0)
		return fail("no subreaper or pipe");
	if ((test = fork()) == 0) {
		close(fds[0]);
		doomed_test(key_path, fds[1]);
		_exit(5);
	}
	close(fds[1]);
	if (read(fds[0], &agent, sizeof(agent)) != sizeof(agent)) {
		waitpid(test, &status, 0);
		unlink(key_path);
		return fail("the test child did not start its agent and open HOST");
	}
	if (waitpid(test, &status, 0) != test || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		unlink(key_path);
		return fail("the test child did not die by SIGKILL");
	}
	/* The agent is this process's child now; it must end on its own. */
	if (waitpid(agent, &status, 0) != agent) {
		unlink(key_path);
		return fail(strerror(errno));
	}
	unlink(key_path);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "the agent's status: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return fail("the agent did not stop cleanly on its parent's death");
	}
	printf("the orphaned agent ended by itself\n");
	return 0;
}
