/* SPDX-License-Identifier: MIT */
/*
 * test_amd_function_lock: two processes never both open or change one GPU.
 * Each function's lock (amd/pci/lock.c) is taken before the holder scan,
 * so a second process is refused from the scan to the take; the kernel
 * releases a lock whose process was killed (kill -9), so the next open
 * finds the GPU free. The stress half has processes race for the lock and
 * checks, with an O_EXCL marker file, that no two are ever inside at once.
 * Usage: test_amd_function_lock [PROCESSES [ROUNDS]] (defaults 4, 200).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/pci/pci.h"
#include "fake.h"

#define BUS "0000:03:00.0"

static int processes = 4, rounds = 200;

struct env {
	char root[256];
	struct rig_pci_machine *m;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	fake_root(e->root);
	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	assert_int_equal(rig_pci_machine_at(e->root, &e->m), 0);
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	rig_pci_machine_release(e->m);
	fake_remove(e->root);
	free(e);
	return 0;
}

/* A child that takes the lock, says so on the pipe, and waits to die. */
static pid_t
holder(struct env *e)
{
	int p[2], fd;
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed test leaves none */
		if (pci_function_lock(e->m, BUS, &fd) < 0)
			_exit(1);
		if (write(p[1], "L", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void
test_refused_while_another_holds(void **state)
{
	struct env *e = *state;
	char want[800], why[700];
	_Alignas(8) _Atomic uint64_t word = 0;
	struct rig_opener *o;
	void *handle = NULL;
	pid_t pid = holder(e);
	int fd = 99, status;

	/* The refusal names the holder: its pid and command, from the lock
	 * file it wrote once it held the lock. */
	snprintf(want, sizeof(want), "pci_function_lock: process %d "
		 "(test_amd_function_lock) is opening, changing or holding " BUS
		 ": it holds %s/run/lock/rig-pci-" BUS ".lock", (int)pid, e->root);
	assert_int_equal(pci_function_lock(e->m, BUS, &fd), -EBUSY);
	assert_int_equal(fd, -1);
	assert_string_equal(rig_why(), want);
	/* reset and an open refuse it, having changed nothing */
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EBUSY);
	snprintf(want, sizeof(want), "rig_amd_pci_reset: process %d "
		 "(test_amd_function_lock) is opening, changing or holding " BUS
		 ": it holds %s/run/lock/rig-pci-" BUS ".lock", (int)pid, e->root);
	assert_string_equal(rig_why(), want);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/reset"), "");
	assert_int_equal(rig_amd_pci_gpu(e->m, NULL, 0, &o), 0);
	assert_int_equal(o->make(o, &word, &handle, why, sizeof(why)), -EBUSY);
	snprintf(want, sizeof(want), "AMD-PCI: process %d (test_amd_function_lock) "
		 "is opening, changing or holding " BUS ": it holds %s/run/lock/"
		 "rig-pci-" BUS ".lock", (int)pid, e->root);
	assert_string_equal(why, want);
	assert_null(handle);
	rig_amd_pci_opener_free(o);
	/* rig devices names it too (pci_lock_holder) */
	{
		char command[64];

		assert_int_equal(pci_lock_holder(e->m, BUS, command, sizeof(command)), pid);
		assert_string_equal(command, "test_amd_function_lock");
	}
	/* kill -9: the kernel drops the lock with the process */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* its line stays in the file, naming a process that is gone: no one */
	{
		char command[64];

		assert_int_equal(pci_lock_holder(e->m, BUS, command, sizeof(command)), 0);
	}
	assert_int_equal(pci_function_lock(e->m, BUS, &fd), 0);
	assert_true(fd >= 0);
	pci_function_unlock(fd);
	/* Past the lock: the reset goes on to take the function and read its
	 * discovery table, which this fake GPU lacks. */
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EPROTO);
	assert_non_null(strstr(rig_why(), "its discovery table, which names its "
			       "registers' places, cannot be read"));
}

/* The lock is free again once its holder gives it back. */
static void
test_released_by_unlock(void **state)
{
	struct env *e = *state;
	int a, b;

	assert_int_equal(pci_function_lock(e->m, BUS, &a), 0);
	pci_function_unlock(a);
	assert_int_equal(pci_function_lock(e->m, BUS, &b), 0);
	pci_function_unlock(b);
	pci_function_unlock(-1);	/* nothing to give back */
}

/* One racer: rounds entries, each checked alone with an O_EXCL marker. */
static int
race(struct env *e, const char *marker)
{
	int entered = 0, fd, m;

	while (entered < rounds) {
		if (pci_function_lock(e->m, BUS, &fd) < 0) {
			/* Another is inside: try again, once the holder
			 * (maybe off its CPU on a loaded machine) had a
			 * chance to run, rather than spin against it. */
			sched_yield();
			continue;
		}
		m = open(marker, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (m < 0) {
			fprintf(stderr, "process %d: the marker exists, so another "
				"process holds the lock too (%s)\n", getpid(),
				strerror(errno));
			return 1;
		}
		close(m);
		usleep(50);
		unlink(marker);
		pci_function_unlock(fd);
		entered++;
	}
	return 0;
}

static void
test_processes_race(void **state)
{
	struct env *e = *state;
	char marker[300];
	pid_t pids[64];
	int status, bad = 0;

	snprintf(marker, sizeof(marker), "%s/inside", e->root);
	for (int p = 0; p < processes; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0)
			_exit(race(e, marker));
	}
	for (int p = 0; p < processes; p++) {
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	if (bad)
		fail_msg("two of %d processes held the lock at once", processes);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refused_while_another_holds,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_released_by_unlock, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_processes_race, setup, teardown),
	};

	if (argc > 1)
		processes = atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (processes < 2 || processes > 64 || rounds < 1)
		return fprintf(stderr, "usage: %s [PROCESSES (2-64) [ROUNDS]]\n",
			       argv[0]), 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
