/* SPDX-License-Identifier: MIT */
/*
 * test_host_fault: a host kernel's fault is contained as a GPU's VM fault
 * is: the device is lost with the kernel's name, the signal, the address
 * and the culprit (value, submission, part, queue: rig_loss), another
 * host device and the program go on, and the name opens anew. A store
 * through NULL, a division by zero, an illegal instruction and a stack
 * overflow, on workers and on the device thread; a kernel that never
 * returns is lost by the hang clock rig_host_open() takes ("no progress
 * for n ms") and stopped. host_crash (run as a child) shows the program's
 * own faults still end it, and exit() does not wait on a hung kernel.
 */
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/common.h"
#include "rig_host.h"
#include "fault_run.h"

static struct rig_device *
host_open(const char *name, unsigned cores, uint32_t hang_ms)
{
	struct rig_host_config c = { .name = name, .cores = cores, .hang_ms = hang_ms };
	struct rig_device *d = NULL;

	if (rig_host_open(&c, &d) != 0)
		fail_msg("rig_host_open(%s): %s", name, rig_why());
	return d;
}

/* A launch of fine over groups on d: it runs, every group once. */
static void
runs_fine(struct rig_device *d, int64_t groups)
{
	const char *fine[] = { "fine" };
	struct fault_run r;
	int64_t *out = calloc((size_t)groups, 8);

	assert_int_equal(fault_run_start(d, fine, 1, groups, -1, NULL, &r), 0);
	assert_int_equal(rig_wait(r.p, 10 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_read(r.out, 0, out, (size_t)groups * 8), 0);
	for (int64_t g = 0; g < groups; g++)
		assert_int_equal(out[g], g + 1);
	free(out);
	fault_run_end(&r);
}

/* Run [fine, kernel] on a fresh device name over groups, bad group bad:
 * the device is lost naming kernel and want; returns nothing. */
static void
faults(const char *name, const char *kernel, int64_t groups, int64_t bad, const char *want)
{
	struct rig_device *d = host_open(name, 0, 0);
	const char *names[] = { "fine", kernel };
	const struct rig_loss *l;
	struct fault_run r;
	char head[128];

	assert_int_equal(fault_run_start(d, names, 2, groups, bad, NULL, &r), 0);
	assert_int_equal(rig_wait(r.p, 10 * SECOND_NS), RIG_ELOST);
	l = rig_loss(d);
	assert_non_null(l);
	snprintf(head, sizeof(head), "kernel '%s' faulted: %s", kernel, want);
	if (!strstr(l->reason, head))
		fail_msg("%s: the loss says \"%s\", not \"%s\"", name, l->reason, head);
	assert_string_equal(l->device, name);
	assert_int_equal(l->value, r.p.value);
	assert_ptr_equal(l->submission, r.s);
	assert_int_equal(l->part, 1);
	assert_int_equal(l->queue, 0);
	assert_null(l->cause);
	assert_non_null(strstr(rig_lost(d), head));
	fault_run_end(&r);
	rig_device_release(d);
	/* The name opens anew, and runs. */
	d = host_open(name, 0, 0);
	assert_null(rig_lost(d));
	runs_fine(d, 1000);
	rig_device_release(d);
}

static void
test_null_store(void **state)
{
	struct rig_device *other = host_open("HOST:OTHER", 0, 0);
	struct rig_device *mem = NULL;

	assert_int_equal(rig_memory_device("M:FAULT", &mem), 0);
	runs_fine(other, 500);
	/* On a worker (a large grid) and on the device thread (one group). */
	faults("HOST:F1", "null_write", 5000, 4321, "SIGSEGV (address not mapped) at address 0x0 (instruction null_write+0x");
	faults("HOST:F1", "null_write", 1, 0, "SIGSEGV (address not mapped) at address 0x0");
	/* The other devices went on. */
	assert_null(rig_lost(other));
	assert_null(rig_lost(mem));
	runs_fine(other, 500);
	rig_device_release(other);
	rig_device_release(mem);
}

static void
test_other_signals(void **state)
{
	faults("HOST:F2", "divide", 3000, 2999, "SIGFPE (integer divide by zero)");
	faults("HOST:F2", "illegal", 3000, 7, "SIGILL (illegal instruction)");
	faults("HOST:F2", "overflow", 3000, 1500, "SIGSEGV");
}

/* Faults on every worker at once: one loss, the first fault's. */
static void
test_many_faults_at_once(void **state)
{
	for (int i = 0; i < 20; i++)
		faults("HOST:F3", "null_write", 1 + i * 97, i * 97 / 2, "SIGSEGV");
}

static void
test_hang(void **state)
{
	static volatile int64_t release;
	const char *spin[] = { "spin" };
	struct rig_device *d = host_open("HOST:HANG", 2, 50);
	struct fault_run r;

	release = 0;
	assert_int_equal(fault_run_start(d, spin, 1, 100, 50, &release, &r), 0);
	assert_int_equal(rig_wait(r.p, 20 * SECOND_NS), RIG_ELOST);
	assert_non_null(strstr(rig_lost(d), "no progress for 50 ms"));
	/* Under ThreadSanitizer an interrupt reaches no uninstrumented loop
	 * (it delivers signals at its own calls): the kernel is let go. */
	if (UNDER_TSAN)
		release = 1;
	fault_run_end(&r);
	rig_device_release(d);	/* the stop interrupts the spinning kernel */
	d = host_open("HOST:HANG", 2, 50);
	runs_fine(d, 100);
	rig_device_release(d);
	release = 1;
}

/* Run host_crash in a mode; its wait status, or -1 after 30 s (killed). */
static int
crash_status(const char *mode)
{
	char *argv[] = { (char *)HOST_CRASH, (char *)mode, NULL };
	extern char **environ;
	int status = 0;
	pid_t pid;

	assert_int_equal(posix_spawn(&pid, HOST_CRASH, NULL, NULL, argv, environ), 0);
	for (int i = 0; i < 3000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/* Died of sig, or (under a sanitizer, whose handler rig chains to and
 * which reports the fault) aborted or exited with a failure. */
static void
crashed(const char *mode, int sig)
{
	int st = crash_status(mode);

	if (st == -1)
		fail_msg("host_crash %s hung", mode);
	if (WIFSIGNALED(st) && (WTERMSIG(st) == sig || WTERMSIG(st) == SIGABRT))
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 5)
		return;		/* a sanitizer's report */
	fail_msg("host_crash %s: status 0x%x, not a death by signal %d", mode, st, sig);
}

static void
test_own_faults_still_crash(void **state)
{
	crashed("own", SIGSEGV);
	crashed("own-thread", SIGSEGV);
	crashed("sent-fpe", SIGFPE);
}

static void
test_exit_does_not_wait(void **state)
{
	int st;

	if (UNDER_TSAN)
		return;	/* see test_hang: no interrupt reaches the loop */
	st = crash_status("exit-hung");
	if (st == -1)
		fail_msg("exit() waited on a kernel that never returns");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void
test_open_refusals(void **state)
{
	struct rig_device *d = (struct rig_device *)&d;
	static const int bad_cpu[] = { 0, 5000 }, one[] = { 0 };
	static const struct {
		struct rig_host_config c;
		const char *why;
	} cases[] = {
		{ { .name = NULL }, "rig_host_open: the name is NULL" },
		{ { .name = "" }, "rig_host_open: the name is empty" },
		{ { .name = "HOST:0123456789012345678901234567890" }, "is longer than 31 bytes" },
		{ { .name = "HOST:C", .cpus = one }, "HOST:C: cpus is given with ncpus 0" },
		{ { .name = "HOST:C", .ncpus = 2 }, "HOST:C: ncpus is 2 but cpus is NULL" },
		{ { .name = "HOST:C", .cpus = bad_cpu, .ncpus = 2 }, "HOST:C: cpus[1] is 5000, not a core number" },
		{ { .name = "HOST:C", .cores = 5000 }, "HOST:C: 5000 cores, more than 4096" },
	};

	assert_int_equal(rig_host_open(NULL, &d), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_host_open: the config is NULL");
	assert_int_equal(rig_host_open(&cases[0].c, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_host_open: the out device is NULL");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rig_host_open(&cases[i].c, &d), RIG_EINVAL);
		if (!strstr(rig_why(), cases[i].why))
			fail_msg("case %zu: \"%s\", not \"%s\"", i, rig_why(), cases[i].why);
		assert_ptr_equal(d, (struct rig_device *)&d);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_store),
		cmocka_unit_test(test_other_signals),
		cmocka_unit_test(test_many_faults_at_once),
		cmocka_unit_test(test_hang),
		cmocka_unit_test(test_own_faults_still_crash),
		cmocka_unit_test(test_exit_does_not_wait),
		cmocka_unit_test(test_open_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
