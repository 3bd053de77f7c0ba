/* SPDX-License-Identifier: MIT */
/*
 * tests/host/host_crash.c: a program with a host device open, for
 * test_host_fault to run and watch: its own faults must still end it as
 * they would without rig, and exit() must not wait on a kernel that
 * never returns. Mode (argv[1]):
 *   own         a store through NULL on the main thread: dies of SIGSEGV
 *   own-thread  the same on a thread of the program's own
 *   sent-fpe    raise(SIGFPE): dies of SIGFPE
 *   exit-hung   a kernel that never returns, then exit(0): exits 0
 * Not a cmocka test: cmocka's own handlers would catch the faults.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fault_run.h"

static void *
crash(void *arg)
{
	*(volatile int *)(uintptr_t)arg = 1;
	return NULL;
}

int
main(int argc, char **argv)
{
	static volatile int64_t never;
	const char *fine[] = { "fine" }, *spin[] = { "spin" };
	struct rig_device *d;
	struct fault_run r;
	pthread_t t;

	if (argc != 2 || rig_host_device(&d) != 0)
		return 2;
	/* A launch first, so every worker has run (and armed) once. */
	if (fault_run_start(d, fine, 1, 64, -1, NULL, &r) != 0 || rig_wait(r.p, 10000000000ull) != 0)
		return 3;
	if (!strcmp(argv[1], "own"))
		crash(NULL);
	else if (!strcmp(argv[1], "own-thread"))
		pthread_create(&t, NULL, crash, NULL), pthread_join(t, NULL);
	else if (!strcmp(argv[1], "sent-fpe"))
		raise(SIGFPE);
	else if (!strcmp(argv[1], "exit-hung")) {
		if (fault_run_start(d, spin, 1, 64, 5, &never, &r) != 0)
			return 4;
		usleep(50000);
		exit(0);
	}
	return 5;	/* still alive: the test fails */
}
