/* SPDX-License-Identifier: MIT */
/*
 * test_amd_gpus: which functions are AMD GPUs and in what order (GPU i is
 * the i-th in bus order, whichever driver holds it), machines at a root,
 * and what `rig devices` shows of each GPU, on fake machines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/pci/pci.h"
#include "env.h"
#include "fake.h"

#define T(f) cmocka_unit_test_setup_teardown(f, env_setup, env_teardown)

static void
test_machine_at_null(void **state)
{
	struct rig_pci_machine *m;

	(void)state;
	assert_int_equal(rig_pci_machine_at(NULL, &m), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_pci_machine_at: root or out is NULL");
}

static void
test_machine_at_relative(void **state)
{
	struct rig_pci_machine *m;

	(void)state;
	assert_int_equal(rig_pci_machine_at("fake", &m), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_pci_machine_at: root \"fake\" is not "
			    "an absolute path");
}

static void
test_machine_at_long(void **state)
{
	char root[300];
	struct rig_pci_machine *m;

	(void)state;
	memset(root, 'a', sizeof(root) - 1);
	root[0] = '/';
	root[sizeof(root) - 1] = '\0';
	assert_int_equal(rig_pci_machine_at(root, &m), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_pci_machine_at: root is 299 bytes, "
			    "more than 207");
}

/* ---- Enumeration ----------------------------------------------------------- */

static void
test_is_gpu(void **state)
{
	(void)state;
	assert_true(rig_amd_is_gpu(0x1002, 0x030000));
	assert_true(rig_amd_is_gpu(0x1002, 0x038000));
	assert_true(rig_amd_is_gpu(0x1002, 0x030200));
	assert_true(rig_amd_is_gpu(0x1002, 0x120000));
	assert_false(rig_amd_is_gpu(0x1002, 0x040300));	/* HDMI audio */
	assert_false(rig_amd_is_gpu(0x1022, 0x030000));	/* AMD's CPU vendor id */
	assert_false(rig_amd_is_gpu(0x10de, 0x030200));
}

static void
test_buses_in_bus_order(void **state)
{
	struct env *e = *state;
	struct rig_pci_address *a;
	size_t n;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .bus = "0000:83:00.0" });
	env_gpu(e, "12.0.1", (struct fake_gpu){ .bus = "0000:03:00.0", .driver = "amdgpu" });
	env_gpu(e, "11.0.2", (struct fake_gpu){ .bus = "0000:0a:00.0", .class_code = 0x038000 });
	assert_int_equal(rig_amd_pci_buses(e->m, &a, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(a[0].text, "0000:03:00.0");
	assert_string_equal(a[1].text, "0000:0a:00.0");
	assert_string_equal(a[2].text, "0000:83:00.0");
	free(a);
	assert_int_equal(rig_amd_pci_count(e->m), 3);
}

static void
test_buses_none(void **state)
{
	struct env *e = *state;
	struct rig_pci_machine *empty;
	struct rig_pci_address *a = (void *)1;
	size_t n = 9;

	assert_int_equal(rig_amd_pci_buses(e->m, &a, &n), 0);	/* bridge and audio only */
	assert_int_equal(n, 0);
	assert_null(a);
	/* A machine that lists no PCI functions at all (no sys/bus/pci). */
	assert_int_equal(rig_pci_machine_at("/nonexistent/machine", &empty), 0);
	assert_int_equal(rig_amd_pci_count(empty), 0);
	rig_pci_machine_release(empty);
}

static void
test_buses_unlistable(void **state)
{
	struct env *e = *state;
	struct rig_pci_address *a;
	size_t n;
	char want[600];

	fake_mkdir(e->root, "sys/bus/pci/devices/junk");
	assert_int_equal(rig_amd_pci_buses(e->m, &a, &n), -ENODEV);
	snprintf(want, sizeof(want), "rig_amd_pci_buses: cannot list "
		 "%s/sys/bus/pci/devices: junk is not a PCI bus address", e->root);
	assert_string_equal(rig_why(), want);
}

static void
test_count_unlistable(void **state)
{
	struct env *e = *state;
	char want[600];

	fake_mkdir(e->root, "sys/bus/pci/devices/junk");
	assert_int_equal(rig_amd_pci_count(e->m), -ENODEV);
	snprintf(want, sizeof(want), "rig_amd_pci_count: cannot list "
		 "%s/sys/bus/pci/devices: junk is not a PCI bus address", e->root);
	assert_string_equal(rig_why(), want);
}

static void
test_buses_null(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_pci_buses(NULL, NULL, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_buses: out or n is NULL");
}

/* ---- What `rig devices` shows ----------------------------------------------- */

static void
test_describe_detached(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "11.0.2", (struct fake_gpu){ .device = 0x7480 });
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	assert_string_equal(g.bus.text, BUS);
	assert_int_equal(g.device, 0x7480);
	assert_string_equal(g.driver, "");
	assert_string_equal(g.state, "detached");
	assert_true(g.gc_known);
	assert_int_equal(g.gc_major, 11);
	assert_int_equal(g.gc_minor, 0);
	assert_int_equal(g.gc_rev, 2);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0");
}

static void
test_describe_amdgpu(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "12.0.1", (struct fake_gpu){ .driver = "amdgpu" });
	fake_write(e->root, "sys/bus/pci/devices/" BUS "/ip_discovery/die/0/11/0/major", "12\n");
	fake_write(e->root, "sys/bus/pci/devices/" BUS "/ip_discovery/die/0/11/0/minor", "0\n");
	fake_write(e->root, "sys/bus/pci/devices/" BUS "/ip_discovery/die/0/11/0/revision", "1\n");
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	assert_string_equal(g.driver, "amdgpu");
	assert_string_equal(g.state, "amdgpu");
	assert_true(g.gc_known);
	assert_int_equal(g.gc_major, 12);
	assert_int_equal(g.gc_rev, 1);
	/* amdgpu's GPU is never taken to read its table. */
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0\n");
}

static void
test_describe_held(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_holder(e->root, 4242, "/sys/bus/pci/devices/" BUS "/config");
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	assert_string_equal(g.state, "held by process 4242");
	assert_false(g.gc_known);
	/* with its command, where the machine's /proc tells it */
	fake_write(e->root, "proc/4242/comm", "amdvk\n");
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	assert_string_equal(g.state, "held by process 4242 (amdvk)");
	assert_int_equal(pci_hold_mark(BUS), 0);
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	pci_hold_clear(BUS);
	assert_string_equal(g.state, "held by this process");
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0\n");
}

static void
test_describe_unreleased_and_other(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	env_gpu(e, "11.0.0", (struct fake_gpu){ .bus = "0000:83:00.0", .driver = "radeon" });
	fake_kfd(e->root, 1, BUS);
	assert_int_equal(rig_amd_pci_describe(e->m, 0, &g), 0);
	assert_string_equal(g.state, "unreleased: amdgpu has not let go of it: "
			    "KFD's topology still lists it (node 1)");
	assert_false(g.gc_known);
	assert_int_equal(rig_amd_pci_describe(e->m, 1, &g), 0);
	assert_string_equal(g.state, "bound to radeon");
}

static void
test_describe_negative(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(rig_amd_pci_describe(e->m, -2, &g), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_describe: GPU -2 is negative");
}

static void
test_describe_null_out(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(rig_amd_pci_describe(e->m, 0, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_describe: out is NULL");
}

static void
test_describe_no_gpu(void **state)
{
	struct env *e = *state;
	struct rig_amd_pci_gpu_info g;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(rig_amd_pci_describe(e->m, 1, &g), -ENODEV);
	assert_string_equal(rig_why(), "rig_amd_pci_describe: no GPU 1: the machine "
			    "has 1 AMD GPU");
}

/* ---- The machine's operations ------------------------------------------------ */

static void
test_machine_config_read(void **state)
{
	struct env *e = *state;
	uint32_t id = 0;
	char want[400];

	env_gpu(e, "11.0.0", (struct fake_gpu){ .device = 0x7550 });
	assert_int_equal(e->m->ops->config_read(e->m, BUS, 0, &id, 4), 0);
	assert_int_equal(id, 0x75501002);
	assert_int_equal(e->m->ops->config_read(e->m, BUS, 300, &id, 4), -EIO);
	snprintf(want, sizeof(want), "sysfs_config_read: %s/sys/bus/pci/devices/"
		 BUS "/config has 0 bytes at 0x12c, not 4", e->root);
	assert_string_equal(rig_why(), want);
}

static void
test_machine_window_read(void **state)
{
	struct env *e = *state;
	uint32_t v = 0;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .memsize_mib = 512 });
	assert_int_equal(e->m->ops->window_read(e->m, BUS, 5, 0xde3 * 4, &v, 4), 0);
	assert_int_equal(v, 512);		/* RCC_CONFIG_MEMSIZE */
	assert_int_equal(e->m->ops->window_read(e->m, BUS, 5, 2, &v, 4), -EINVAL);
	assert_string_equal(rig_why(), "sysfs_window_read: BAR5 read at 0x2 of 4 "
			    "bytes is not in dwords");
}

static void
test_machine_window_map(void **state)
{
	struct env *e = *state;
	struct pci_window w;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(e->m->ops->window_map(e->m, BUS, 2, &w), 0);
	assert_int_equal(w.bytes, 2 << 20);
	((volatile uint32_t *)w.addr)[1] = 0xabcd;	/* a doorbell write lands */
	e->m->ops->window_unmap(e->m, &w);
	assert_null(w.addr);
	assert_int_equal(e->m->ops->window_map(e->m, BUS, 4, &w), -ENODEV);
	assert_string_equal(rig_why(), "sysfs_window_map: " BUS " has no BAR4");
}

static void
test_machine_take_give_back(void **state)
{
	struct env *e = *state;
	struct pci_taken t;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(e->m->ops->take(e->m, BUS, &t), 0);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "1");
	assert_true(t.config_fd >= 0);
	e->m->ops->give_back(e->m, &t);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0");
	assert_int_equal(t.config_fd, -1);
	/* A function enabled already (by its owner) stays enabled. */
	fake_write(e->root, "sys/bus/pci/devices/" BUS "/enable", "1\n");
	assert_int_equal(e->m->ops->take(e->m, BUS, &t), 0);
	e->m->ops->give_back(e->m, &t);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "1\n");
}

static void
test_machine_file_write(void **state)
{
	struct env *e = *state;
	char want[400];

	assert_int_equal(e->m->ops->file_write(e->m, "sys/nothing", "1"), -ENOENT);
	snprintf(want, sizeof(want), "sysfs_file_write: cannot open %s/sys/nothing: "
		 "No such file or directory", e->root);
	assert_string_equal(rig_why(), want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_at_null),
		cmocka_unit_test(test_machine_at_relative),
		cmocka_unit_test(test_machine_at_long),
		cmocka_unit_test(test_is_gpu),
		cmocka_unit_test(test_buses_null),
		T(test_buses_in_bus_order),
		T(test_buses_none),
		T(test_buses_unlistable),
		T(test_count_unlistable),
		T(test_describe_detached),
		T(test_describe_amdgpu),
		T(test_describe_held),
		T(test_describe_unreleased_and_other),
		T(test_describe_negative),
		T(test_describe_null_out),
		T(test_describe_no_gpu),
		T(test_machine_config_read),
		T(test_machine_window_read),
		T(test_machine_window_map),
		T(test_machine_take_give_back),
		T(test_machine_file_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
