/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/session/test_amd_session.c: sessions and crash-safe ownership
 * of an AMD GPU between processes, on a software GPU whose state lives in
 * files of its sysfs tree (amd_sim_opts.shared), so each process that
 * attaches to it (amd_sim_attach) finds it as the last one left it. The
 * second processes are this program run again (fork+exec, "--child ROLE
 * ARG ROOT"), telling the test where they stand on a pipe: the test waits
 * for that byte, never for a time.
 *
 *   - a process that exits without closing stops its GPU and marks it
 *     clean, and the next process boots it in part;
 *   - a child of fork stops nothing at its exit: the parent's GPU keeps
 *     its session's marks and bus mastering and still runs work;
 *   - a process killed with -9 at each step of a full boot (before each
 *     unit, amd_boot_step_hook; in the middle of the PSP's bootloader and
 *     of its LOAD_IP_FWs, amd_sim_pause), in a partial boot, or while a
 *     launch runs, leaves a GPU the next open cannot vouch for: it is
 *     reset where its sOS runs, booted in full, and runs a launch and a
 *     copy checked bytewise;
 *   - while a process holds the GPU, another's open is refused naming it
 *     (pid and command), rig_amd_pci_describe and `rig --root R devices`
 *     name it, and the holder, undisturbed, runs its work and closes.
 * Arguments: the rig program (for `rig devices`). The real images are at
 * RIG_TEST_FIRMWARE (none: every test is skipped).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../dev/sim_dev.h"
#include "amd/boot/boot.h"

#define BUS		"0000:03:00.0"
#define TELL_FD		3	/* a child's pipe to the test */
#define GO_FD		4	/* the test's pipe to a child that waits */
/* The GC of the sims made: 12.0.1, or 9.4.3 for the kill tests' second
 * run (gc943), and its full boot's LOAD_IP_FWs. */
static const char *gc = "12.0.1";
static uint64_t gc_pieces = 13;
#define COMMAND		"test_amd_session"

static const char *rig_tool;

struct gpu {
	char root[256];
	struct amd_sim *sim;
	struct rig_opener *o;
	const char *fw[2];
};

/*
 * A shared sim of GC gc and this process's opener of it: as a clean
 * session of rig left it (mark), with foreign firmware running (mark 0),
 * or power-cycled (no firmware runs, the bootloader ready).
 */
static void
gpu_make(struct gpu *g, uint32_t mark, bool power_cycled)
{
	struct amd_sim_opts o = { .gc = gc, .mark = mark, .shared = true,
				  .vram_bytes = 512ull << 20 };

	memset(g, 0, sizeof(*g));
	fake_root(g->root);
	o.root = g->root;
	o.firmware = getenv("RIG_TEST_FIRMWARE");
	if (amd_sim_create(&o, &g->sim) < 0)
		fail_msg("sim: %s", rig_why());
	if (power_cycled)
		assert_int_equal(amd_sim_inject(g->sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	g->fw[0] = getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(g->sim), g->fw, 0, &g->o), 0);
}

static void
gpu_free(struct gpu *g)
{
	rig_amd_pci_opener_free(g->o);
	amd_sim_destroy(g->sim);
	fake_remove(g->root);
}

/* This process opens g: a full boot (full) or a partial one, then work. */
static void
open_and_run(struct gpu *g, bool full)
{
	uint64_t before = amd_sim_psp_loads(g->sim, NULL), after;
	struct rig_device *d;
	uint32_t mark, dirty;

	if (rig_open(g->o, &d) < 0)
		fail_msg("open: %s", rig_why());
	after = amd_sim_psp_loads(g->sim, NULL);
	assert_int_equal(after - before, full ? gc_pieces : 0);
	amd_sim_marks(g->sim, &mark, &dirty);
	assert_int_equal(mark, SIM_MARK_CLEAN);
	assert_int_equal(dirty, 1);
	sim_copy_work(&(struct sim_dev){ .sim = g->sim, .d = d }, (uint32_t)getpid());
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	amd_sim_marks(g->sim, &mark, &dirty);
	assert_int_equal(mark, SIM_MARK_CLEAN);
	assert_int_equal(dirty, 0);
}

struct child {
	pid_t pid;
	int tell, go;
};

static void
keep_open(int fd, int at)
{
	if (fd == at)
		assert_int_equal(fcntl(fd, F_SETFD, 0), 0);	/* dup2 would keep CLOEXEC */
	else
		assert_true(dup2(fd, at) == at);
}

/* This program run again as a second process: --child role arg root. */
static struct child
spawn(struct gpu *g, const char *role, const char *arg)
{
	int tell[2], go[2];
	struct child c;

	assert_int_equal(pipe2(tell, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_true(tell[1] > GO_FD && go[0] > GO_FD);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed test leaves none */
		keep_open(tell[1], TELL_FD);
		keep_open(go[0], GO_FD);
		execl("/proc/self/exe", COMMAND, "--child", role, arg, g->root,
		      (char *)NULL);
		_exit(127);
	}
	close(tell[1]);
	close(go[0]);
	c.tell = tell[0];
	c.go = go[1];
	return c;
}

/* The byte the child tells, or 0 if it ended first. */
static char
told(struct child *c)
{
	char b = 0;
	ssize_t n;

	do
		n = read(c->tell, &b, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? b : 0;
}

/* The child's exit status (-signal if killed); its pipes closed. */
static int
reap(struct child *c)
{
	int status;

	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	close(c->tell);
	close(c->go);
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

/* The child stopped where it was told, and is killed there with -9. */
static void
kill_when_told(struct child *c)
{
	char b = told(c);

	if (b != 'p') {
		int st = reap(c);

		fail_msg("the child did not stop where told (said '%c', ended %d)",
			 b ? b : '-', st);
	}
	assert_int_equal(kill(c->pid, SIGKILL), 0);
	assert_int_equal(reap(c), -SIGKILL);
}

static bool
skipped(void)
{
	return !getenv("RIG_TEST_FIRMWARE");
}

/* A process that exits without closing stops the GPU, marked clean; the
 * next process boots it in part and runs work on it. */
static void
test_exit_without_close(void **state)
{
	struct child c;
	struct gpu g;
	uint32_t mark, dirty;

	(void)state;
	if (skipped())
		skip();
	gpu_make(&g, SIM_MARK_CLEAN, false);
	c = spawn(&g, "exit", "-");
	assert_int_equal(told(&c), 'r');	/* it ran its work */
	assert_int_equal(reap(&c), 0);
	amd_sim_marks(g.sim, &mark, &dirty);
	assert_int_equal(mark, SIM_MARK_CLEAN);
	assert_int_equal(dirty, 0);
	open_and_run(&g, false);
	/* the next open of this process is partial too */
	open_and_run(&g, false);
	gpu_free(&g);
}

/* A child of fork stops nothing at its exit: the parent's session keeps
 * its marks and bus mastering, and its device runs work after. */
static void
test_fork_child_stops_nothing(void **state)
{
	struct rig_device *d;
	uint32_t mark, dirty;
	uint16_t command;
	struct gpu g;
	int status;
	pid_t pid;

	(void)state;
	if (skipped())
		skip();
	gpu_make(&g, SIM_MARK_CLEAN, false);
	if (rig_open(g.o, &d) < 0)
		fail_msg("open: %s", rig_why());
	sim_copy_work(&(struct sim_dev){ .sim = g.sim, .d = d }, (uint32_t)getpid());
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		exit(0);	/* atexit runs: rig's exit stops nothing in a child */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	amd_sim_marks(g.sim, &mark, &dirty);
	assert_int_equal(mark, SIM_MARK_CLEAN);
	assert_int_equal(dirty, 1);		/* the session still runs */
	assert_int_equal(amd_sim_config_read(g.sim, 4, &command, 2), 0);
	assert_true(command & 4);		/* bus mastering still on */
	sim_copy_work(&(struct sim_dev){ .sim = g.sim, .d = d }, (uint32_t)getpid());
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	open_and_run(&g, false);
	gpu_free(&g);
}

/* Killed with -9 where role/arg says, from a GPU of mark (power-cycled
 * or not): the next open boots in full and runs work. */
static void
killed_then_full(uint32_t mark, bool power_cycled, const char *role, const char *arg)
{
	struct child c;
	struct gpu g;
	uint32_t m, dirty;

	gpu_make(&g, mark, power_cycled);
	c = spawn(&g, role, arg);
	kill_when_told(&c);
	amd_sim_marks(g.sim, &m, &dirty);
	if (m == SIM_MARK_CLEAN && dirty == 0)
		fail_msg("killed at %s %s, the GPU reads as a clean session's", role, arg);
	open_and_run(&g, true);
	gpu_free(&g);
}

/* Before each unit of a full boot. RESET's runs from foreign firmware
 * (the next open resets it again); the others from a power-cycled GPU,
 * whose full boot needs no reset (after SMU, GFX and SDMA the next open
 * finds the sOS running and resets it, mode 1). */
static void
test_killed_at_each_boot_step(void **state)
{
	static const char *const units[] = { "SOC", "GMC", "IH", "PSP", "SMU", "GFX",
					      "SDMA" };

	(void)state;
	if (skipped())
		skip();
	killed_then_full(0, false, "step", "RESET");
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		killed_then_full(0, true, "step", units[i]);
}

/* In the middle of the PSP: at the bootloader's third component (the
 * next open's bootloader takes the first again), at the sOS's first
 * command (LOAD_TOC; GC 9.4.3's SETUP_TMR), between its start and the
 * load of the SMU's firmware (the sOS runs, the SMU does not answer: the
 * next open resets it through the sOS, GFX_CTRL_CMD_ID_MODE1_RST), and
 * at its third (the SMU's firmware loaded: mode 1 through the SMU). */
static void
test_killed_inside_the_psp(void **state)
{
	(void)state;
	if (skipped())
		skip();
	killed_then_full(0, true, "bootloader", "3");
	killed_then_full(0, true, "command", "1");
	killed_then_full(0, true, "command", "3");
}

/* In a partial boot: SCRATCH_REG6 was written 1 first, so the next open
 * cannot vouch for it and boots it in full. */
static void
test_killed_in_a_partial_boot(void **state)
{
	(void)state;
	if (skipped())
		skip();
	killed_then_full(SIM_MARK_CLEAN, false, "step", "GFX");
	killed_then_full(SIM_MARK_CLEAN, false, "step", "SDMA");
}

/* While a launch runs: the GPU is left dirty (mark, SCRATCH_REG6 1). */
static void
test_killed_mid_work(void **state)
{
	struct child c;
	struct gpu g;
	uint32_t mark, dirty;

	(void)state;
	if (skipped())
		skip();
	gpu_make(&g, SIM_MARK_CLEAN, false);
	c = spawn(&g, "work", "-");
	kill_when_told(&c);
	amd_sim_marks(g.sim, &mark, &dirty);
	assert_int_equal(mark, SIM_MARK_CLEAN);
	assert_int_equal(dirty, 1);
	open_and_run(&g, true);
	gpu_free(&g);
}

/* The kill tests again on GC 9.4.3, whose dirty GPU its next open resets
 * with MP1 13.0.6's GfxDriverReset and boots in full (12 pieces). */
static void
gc943(void (*test)(void **), void **state)
{
	gc = "9.4.3";
	gc_pieces = 12;
	test(state);
	gc = "12.0.1";
	gc_pieces = 13;
}

static void test_killed_at_each_boot_step_9_4_3(void **s) { gc943(test_killed_at_each_boot_step, s); }
static void test_killed_inside_the_psp_9_4_3(void **s) { gc943(test_killed_inside_the_psp, s); }
static void test_killed_in_a_partial_boot_9_4_3(void **s) { gc943(test_killed_in_a_partial_boot, s); }
static void test_killed_mid_work_9_4_3(void **s) { gc943(test_killed_mid_work, s); }

/* `rig --root root devices`: its output. */
static void
rig_devices(const char *root, char *out, size_t len)
{
	char cmd[1200];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --root '%s' devices", rig_tool, root);
	assert_non_null(p = popen(cmd, "r"));
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

/* While a process holds the GPU: this one's open is refused naming it,
 * describe and rig devices name it, and the holder runs on undisturbed. */
static void
test_holder_named(void **state)
{
	struct rig_amd_pci_gpu_info info;
	char want[200], out[4096];
	struct rig_device *d = NULL;
	uint32_t mark, dirty;
	struct child c;
	struct gpu g;

	(void)state;
	if (skipped())
		skip();
	gpu_make(&g, SIM_MARK_CLEAN, false);
	c = spawn(&g, "hold", "-");
	assert_int_equal(told(&c), 'h');
	snprintf(want, sizeof(want), "AMD-PCI: process %d (" COMMAND ") is opening, "
		 "changing or holding " BUS, (int)c.pid);
	assert_true(rig_open(g.o, &d) < 0);
	assert_null(d);
	if (!strstr(rig_why(), want))
		fail_msg("the refusal: %s\nwanted: %s", rig_why(), want);
	/* a second refusal, the same: the first changed nothing */
	assert_true(rig_open(g.o, &d) < 0);
	if (!strstr(rig_why(), want))
		fail_msg("the second refusal: %s", rig_why());
	snprintf(want, sizeof(want), "held by process %d (" COMMAND ")", (int)c.pid);
	assert_int_equal(rig_amd_pci_describe(amd_sim_machine(g.sim), 0, &info), 0);
	assert_string_equal(info.state, want);
	rig_devices(g.root, out, sizeof(out));
	if (!strstr(out, want) || !strstr(out, BUS))
		fail_msg("rig devices: %s\nwanted: %s", out, want);
	amd_sim_marks(g.sim, &mark, &dirty);
	assert_int_equal(dirty, 1);		/* its session runs on */
	/* go on: the holder runs its work and closes, undisturbed */
	assert_int_equal(write(c.go, "g", 1), 1);
	assert_int_equal(told(&c), 'r');
	assert_int_equal(reap(&c), 0);
	assert_int_equal(rig_amd_pci_describe(amd_sim_machine(g.sim), 0, &info), 0);
	assert_string_equal(info.state, "detached");
	open_and_run(&g, false);
	gpu_free(&g);
}

/* Attach and pause refuse bad input with a message, changing nothing. */
static void
test_refusals(void **state)
{
	struct amd_sim_opts o = { .gc = gc, .shared = true };
	char root[256], want[700];
	struct amd_sim *a = NULL, *b = NULL, *peer;

	(void)state;
	fake_root(root);
	assert_int_equal(amd_sim_attach(NULL, NULL, NULL, &a), -EINVAL);
	assert_non_null(strstr(rig_why(), "root or out is NULL"));
	assert_int_equal(amd_sim_attach(root, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(amd_sim_attach("relative", NULL, NULL, &a), -EINVAL);
	assert_non_null(strstr(rig_why(), "is not an absolute path"));
	assert_int_equal(amd_sim_attach(root, "0000:3:0.0", NULL, &a), -EINVAL);
	/* no sim there */
	assert_int_equal(amd_sim_attach(root, NULL, NULL, &a), -ENOENT);
	snprintf(want, sizeof(want), "no sim of " BUS " under %s", root);
	if (!strstr(rig_why(), want))
		fail_msg("%s", rig_why());
	assert_null(a);
	/* a file that is not a sim's state */
	fake_write(root, "sys/bus/pci/devices/" BUS "/sim_state", "not a state\n");
	assert_int_equal(amd_sim_attach(root, NULL, NULL, &a), -EPROTO);
	assert_non_null(strstr(rig_why(), "is not a sim's state"));
	assert_null(a);
	/* a sim made without opts.shared has no files to attach to */
	o.root = root;
	o.shared = false;
	assert_int_equal(amd_sim_create(&o, &b), 0);
	assert_int_equal(amd_sim_attach(root, NULL, NULL, &a), -EPROTO);
	/* shared and peer together */
	o.shared = true;
	o.peer = b;
	o.bus = "0000:04:00.0";
	assert_int_equal(amd_sim_create(&o, &peer), -EINVAL);
	assert_non_null(strstr(rig_why(), "a shared sim has no peers"));
	/* pauses */
	assert_int_equal(amd_sim_pause(NULL, AMD_SIM_PAUSE_BOOTLOADER, 1, 1), -EINVAL);
	assert_int_equal(amd_sim_pause(b, (enum amd_sim_pause_at)7, 1, 1), -EINVAL);
	assert_non_null(strstr(rig_why(), "not a pause the sim makes"));
	assert_int_equal(amd_sim_pause(b, AMD_SIM_PAUSE_BOOTLOADER, 0, 1), -EINVAL);
	assert_int_equal(amd_sim_pause(b, AMD_SIM_PAUSE_PSP_COMMAND, 1, -1), -EINVAL);
	assert_int_equal(amd_sim_pause(b, AMD_SIM_PAUSE_NONE, 0, -1), 0);
	amd_sim_destroy(b);
	/* attached: the same GPU in two sims of one process */
	o.peer = NULL;
	o.bus = NULL;
	o.mark = SIM_MARK_CLEAN;
	assert_int_equal(amd_sim_create(&o, &b), 0);
	assert_int_equal(amd_sim_attach(root, NULL, NULL, &a), 0);
	{
		uint32_t mark = 0, dirty = 1, v = 0;

		amd_sim_marks(a, &mark, &dirty);
		assert_int_equal(mark, SIM_MARK_CLEAN);
		assert_int_equal(dirty, 0);
		((uint32_t *)amd_sim_vram(b))[77] = 0x5eed;
		assert_int_equal(((uint32_t *)amd_sim_vram(a))[77], 0x5eed);
		assert_int_equal(amd_sim_reg_write(b, 0x100, 0xabc), 0);
		assert_int_equal(amd_sim_reg_read(a, 0x100, &v), 0);
		assert_int_equal(v, 0xabc);
	}
	amd_sim_destroy(a);
	amd_sim_destroy(b);
	fake_remove(root);
}

/* ---- the second process ------------------------------------------------ */

static const char *hook_unit;

static void
tell(char b)
{
	if (write(TELL_FD, &b, 1) != 1)
		_exit(5);
}

static void
stop_here(void)
{
	sigset_t none;

	sigemptyset(&none);
	for (;;)
		sigsuspend(&none);	/* the test kills it */
}

static void
step_hook(const char *unit)
{
	if (!strcmp(unit, hook_unit)) {
		tell('p');
		stop_here();
	}
}

/* A kernel that says it runs, then runs for good. */
static int
endless_kernel(const struct amd_sim_launch *l)
{
	(void)l;
	tell('p');
	stop_here();
	return AMD_SIM_SQ_OK;
}

/* The child's, kept where LeakSanitizer sees them at its exit (an exit
 * without a close is what it tests). */
static struct amd_sim *child_sim;
static struct rig_opener *child_opener;
static struct rig_device *child_dev;

static int
child_main(const char *role, const char *arg, const char *root)
{
	const char *fw[2] = { getenv("RIG_TEST_FIRMWARE"), NULL };
	char b;

	if (amd_sim_attach(root, NULL, fw[0], &child_sim) < 0 ||
	    rig_amd_pci_gpu(amd_sim_machine(child_sim), fw, 0, &child_opener) < 0) {
		fprintf(stderr, "child: %s\n", rig_why());
		return 2;
	}
	if (!strcmp(role, "step")) {
		hook_unit = arg;
		amd_boot_step_hook = step_hook;
	} else if (!strcmp(role, "bootloader") || !strcmp(role, "command")) {
		if (amd_sim_pause(child_sim, !strcmp(role, "bootloader") ? AMD_SIM_PAUSE_BOOTLOADER
				  : AMD_SIM_PAUSE_PSP_COMMAND, (unsigned)atoi(arg), TELL_FD) < 0)
			return 2;
	}
	if (rig_open(child_opener, &child_dev) < 0) {
		fprintf(stderr, "child: open: %s\n", rig_why());
		return 3;
	}
	if (!strcmp(role, "exit")) {
		sim_copy_work(&(struct sim_dev){ .sim = child_sim, .d = child_dev }, (uint32_t)getpid());
		tell('r');
		return 0;	/* no close: the exit stops it */
	}
	if (!strcmp(role, "hold")) {
		tell('h');
		if (read(GO_FD, &b, 1) != 1)
			return 6;
		sim_copy_work(&(struct sim_dev){ .sim = child_sim, .d = child_dev }, (uint32_t)getpid());
		if (rig_close(child_dev) < 0)
			return 7;
		rig_device_release(child_dev);
		tell('r');
		return 0;
	}
	if (!strcmp(role, "work")) {
		static const uint32_t one[3] = { 1, 1, 1 };
		struct sim_dev f = { .sim = child_sim, .d = child_dev };
		struct sim_copy_ctx ctx = { 0 };
		struct sim_copy_params params = { 0, 0, 1, 0 };
		struct rig_buffer *a, *bb;
		struct rig_submission *sub;
		struct rig_function *fn;
		struct rig_image *img;
		struct rig_run *run;
		struct rig_point p;

		sim_copy_load(&f, &ctx, &img, &fn);
		amd_sim_kernel(child_sim, SIM_COPY_CALLBACK, endless_kernel, NULL);
		sub = sim_copy_submission(child_dev, fn);
		if (rig_buffer_create(child_dev, 4096, RIG_MEMORY_DEVICE, &a) < 0 ||
		    rig_buffer_create(child_dev, 4096, RIG_MEMORY_DEVICE, &bb) < 0 ||
		    rig_run_take(sub, &run) < 0 ||
		    rig_run_store(run, 0, one, one, &params, sizeof(params)) < 0 ||
		    rig_submit(run, (struct rig_buffer *[]){ a, bb }, 2, NULL, 0, &p) < 0)
			return 8;
		(void)read(GO_FD, &b, 1);	/* killed meanwhile */
		return 9;
	}
	return 4;	/* it should have stopped in the boot */
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_exit_without_close),
		cmocka_unit_test(test_fork_child_stops_nothing),
		cmocka_unit_test(test_killed_at_each_boot_step),
		cmocka_unit_test(test_killed_inside_the_psp),
		cmocka_unit_test(test_killed_in_a_partial_boot),
		cmocka_unit_test(test_killed_mid_work),
		cmocka_unit_test(test_killed_at_each_boot_step_9_4_3),
		cmocka_unit_test(test_killed_inside_the_psp_9_4_3),
		cmocka_unit_test(test_killed_in_a_partial_boot_9_4_3),
		cmocka_unit_test(test_killed_mid_work_9_4_3),
		cmocka_unit_test(test_holder_named),
	};

	if (argc == 5 && !strcmp(argv[1], "--child"))
		return child_main(argv[2], argv[3], argv[4]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s RIG-PROGRAM\n", argv[0]);
		return 2;
	}
	rig_tool = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
