/* SPDX-License-Identifier: MIT */
/*
 * test_remote_amd: AMD GPUs through `rig agent --amd`, a separate process
 * on a loopback port, serving the software GPU (--amd-sim: no AMD GPU is
 * on this machine) with the real images at RIG_TEST_FIRMWARE. A machine
 * handle of the agent (rig_remote_machine) is what the AMD openers take:
 * rig_amd_pci_count() and rig_amd_pci_buses() list the agent's GPU,
 * rig_amd_pci_gpu() gives the opener "AMD-PCI@host:port", whose open
 * boots the GPU there; bytes of this process's Pinned memory go to its
 * VRAM (RMA to the agent, then its host access of the GPU's memory),
 * across it on its SDMA, and back; a close leaves it clean, so it opens
 * again. Refused: a GPU the agent lacks, the calls that need the
 * machine's own PCI functions (describe), an agent without --amd, and a
 * bad address. Skipped (77) without RIG_TEST_FIRMWARE.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_proc.h"
#include "rig.h"
#include "rig_amd_pci.h"
#include "rig_remote.h"

#define BYTES (4u << 20)

static char key_path[128];
static struct agent_proc agent;

static int
setup(void **state)
{
	const char *extra[] = { "--amd", "--amd-sim", "11.0.0", "--amd-firmware",
				getenv("RIG_TEST_FIRMWARE"), NULL };

	snprintf(key_path, sizeof(key_path), "/tmp/rig-remamd-key-%d", (int)getpid());
	key_write(key_path, "the shared key of test_remote_amd 012\n", 0600);
	return agent_start(&agent, key_path, "127.0.0.1:0", extra) ? 0 : -1;
}

static int
teardown(void **state)
{
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	return 0;
}

static struct rig_pci_machine *
remote_machine(const char *where)
{
	struct rig_pci_machine *m;

	if (rig_remote_machine(where, key_path, &m) < 0)
		fail_msg("rig_remote_machine: %s", rig_why());
	return m;
}

/* The handle lists the agent's GPUs, as the AMD path lists a machine's. */
static void
machine_lists(void **state)
{
	struct rig_pci_machine *m = remote_machine(agent.where);
	struct rig_pci_address *buses = NULL;
	size_t n = 0;

	if (rig_amd_pci_count(m) != 1)
		fail_msg("count: %d (%s)", rig_amd_pci_count(m), rig_why());
	assert_int_equal(rig_amd_pci_buses(m, &buses, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(buses[0].text, "0000:03:00.0");
	free(buses);
	rig_pci_machine_release(m);
}

/* GPU 0 of the handle opens through the agent; bytes of this process go
 * to its VRAM, across it on its SDMA, and back. */
static void
gpu_opens(void **state)
{
	struct rig_pci_machine *m = remote_machine(agent.where);
	struct rig_opener *o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *in, *out;
	uint8_t *x = malloc(BYTES), *y = malloc(BYTES);
	struct rig_point p;
	char name[100];

	assert_int_equal(rig_amd_pci_gpu(m, NULL, 0, &o), 0);
	snprintf(name, sizeof(name), "AMD-PCI@%s", agent.where);
	assert_string_equal(o->name, name);
	for (int round = 0; round < 2; round++) {
		if (rig_open(o, &d) < 0)
			fail_msg("open %s (round %d): %s", name, round, rig_why());
		assert_string_equal(rig_name(d), name);
		assert_null(rig_lost(d));
		assert_int_equal(rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a), 0);
		assert_int_equal(rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b), 0);
		assert_int_equal(rig_buffer_create(d, BYTES, RIG_MEMORY_PINNED, &in), 0);
		assert_int_equal(rig_buffer_create(d, BYTES, RIG_MEMORY_PINNED, &out), 0);
		for (size_t k = 0; k < BYTES; k++)
			x[k] = (uint8_t)(k * 131 + round);
		/* Here to the GPU's VRAM (RMA), across it (SDMA), and back. */
		assert_int_equal(rig_buffer_write(in, 0, x, BYTES), 0);
		assert_int_equal(rig_buffer_copy(in, a, NULL), 0);
		assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
		assert_int_equal(rig_buffer_copy(b, out, &p), 0);
		if (rig_wait(p, 60ull * 1000000000) < 0)
			fail_msg("copies on %s: %s", name, rig_why());
		assert_int_equal(rig_buffer_read(out, 0, y, BYTES), 0);
		assert_memory_equal(x, y, BYTES);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(in);
		rig_buffer_release(out);
		/* Closed clean: the next round opens it again. */
		assert_int_equal(rig_close(d), 0);
		rig_device_release(d);
	}
	rig_amd_pci_opener_free(o);
	rig_pci_machine_release(m);
	free(x);
	free(y);
	assert_true(agent_logged(&agent, "opened AMD-PCI as device", 1000));
}

static void
refused(void **state)
{
	struct rig_pci_machine *m = remote_machine(agent.where), *bad = NULL;
	struct rig_amd_pci_gpu_info info;
	struct agent_proc other;
	struct rig_opener *o;
	struct rig_device *d = NULL;

	/* A GPU the agent's machine lacks: its open says so. */
	assert_int_equal(rig_amd_pci_gpu(m, NULL, 1, &o), 0);
	assert_true(rig_open(o, &d) < 0);
	if (!strstr(rig_why(), "rig_open") || !strstr(rig_why(), "AMD-PCI:1"))
		fail_msg("expected rig_open and AMD-PCI:1 in \"%s\"", rig_why());
	print_message("# %s\n", rig_why());
	assert_null(d);
	rig_amd_pci_opener_free(o);
	/* What needs the machine's own PCI functions is the agent's. */
	assert_true(rig_amd_pci_describe(m, 0, &info) < 0);
	print_message("# %s\n", rig_why());
	rig_pci_machine_release(m);

	assert_int_equal(rig_remote_machine("nohost", key_path, &bad), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "rig_remote_machine"));
	assert_null(bad);
	assert_int_equal(rig_remote_machine(NULL, key_path, &bad), RIG_EINVAL);
	assert_int_equal(rig_remote_machine("127.0.0.1:1", key_path, NULL), RIG_EINVAL);

	/* An agent without --amd serves no GPU. */
	assert_true(agent_start(&other, key_path, "127.0.0.1:0", NULL));
	m = remote_machine(other.where);
	assert_true(rig_amd_pci_count(m) < 0);
	if (!strstr(rig_why(), "no --amd"))
		fail_msg("expected no --amd in \"%s\"", rig_why());
	rig_pci_machine_release(m);
	agent_kill(&other, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(machine_lists),
		cmocka_unit_test(gpu_opens),
		cmocka_unit_test(refused),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE names no firmware directory\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
