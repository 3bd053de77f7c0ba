/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/boot/test_amd_moves.c: detach, open, close, reset and attach
 * end to end on the software GPU, whose sysfs tree changes as the
 * kernel's does (src/amd/sim/tree.c): each step's sysfs state is read
 * back from the tree, and whether the next open boots in full (the PSP
 * loads every image again) or in part (it loads none) shows what the
 * reset left. Each refusal of reset and detach is run with its message,
 * and what it must not change is checked unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dev/sim_dev.h"
#include "amd/amd.h"

#define PIECES_12_0_1	13	/* LOAD_IP_FW pieces of a full boot (test_amd_boot); 12 on 9.4.3 */

struct moves {
	struct sim_dev f;
	const struct rig_pci_machine *m;
	char dev[160];			/* the function's sysfs folder, relative */
	uint64_t pieces;		/* what its full boot loads */
};

/* A sim of gc whose firmware another driver started (mark 0), unbound. */
static void
up(struct moves *v, const char *gc)
{
	struct amd_sim_opts o = { .gc = gc, .mark = 0 };

	memset(v, 0, sizeof(*v));
	fake_root(v->f.root);
	o.root = v->f.root;
	o.firmware = getenv("RIG_TEST_FIRMWARE");
	if (amd_sim_create(&o, &v->f.sim) < 0)
		fail_msg("sim: %s", rig_why());
	v->m = amd_sim_machine(v->f.sim);
	v->f.fw[0] = getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(v->m, v->f.fw, 0, &v->f.o), 0);
	snprintf(v->dev, sizeof(v->dev), "sys/bus/pci/devices/%s",
		 amd_sim_bus(v->f.sim));
	amd_driver_wait_ms = 200;
	v->pieces = strcmp(gc, "9.4.3") ? PIECES_12_0_1 : 12;
}

static void
down(struct moves *v)
{
	sim_dev_close(&v->f);
}

/* The driver the tree says is bound ("" for none). */
static const char *
driver_now(struct moves *v)
{
	static char name[64];
	char path[600], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/driver", v->f.root, v->dev);
	n = readlink(path, target, sizeof(target) - 1);
	name[0] = '\0';
	if (n > 0) {
		target[n] = '\0';
		snprintf(name, sizeof(name), "%s", strrchr(target, '/') + 1);
	}
	return name;
}

static const char *
dev_file(struct moves *v, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", v->dev, name);
	return fake_read(v->f.root, rel);
}

static bool
has_ip_discovery(struct moves *v)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/ip_discovery", v->f.root, v->dev);
	return stat(path, &st) == 0;
}

/* Binds driver to the function as the kernel would (the sim's tree). */
static void
bind(struct moves *v, const char *driver)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/bind", driver);
	if (v->m->ops->file_write(v->m, rel, amd_sim_bus(v->f.sim)) < 0)
		fail_msg("bind %s: %s", driver, rig_why());
}

static const char *
state_now(struct moves *v)
{
	static struct rig_amd_pci_gpu_info g;

	assert_int_equal(rig_amd_pci_describe(v->m, 0, &g), 0);
	return g.state;
}

/* Opens and closes the device: true if its boot was full. */
static bool
open_close(struct moves *v)
{
	uint64_t before = amd_sim_psp_loads(v->f.sim, NULL);
	bool full;

	if (rig_open(v->f.o, &v->f.d) < 0)
		fail_msg("open: %s", rig_why());
	full = amd_sim_psp_loads(v->f.sim, NULL) > before;
	if (full)
		assert_int_equal(amd_sim_psp_loads(v->f.sim, NULL) - before, v->pieces);
	assert_string_equal(state_now(v), "held by this process");
	assert_int_equal(rig_close(v->f.d), 0);
	rig_device_release(v->f.d);
	v->f.d = NULL;
	return full;
}

static void
why_has(const char *want)
{
	if (!strstr(rig_why(), want))
		fail_msg("the message: %s\nwanted: %s", rig_why(), want);
}

/* ---- the sequence ---------------------------------------------------------- */

static void
test_detach_open_close_reset_attach(void **state)
{
	struct moves v;
	enum rig_pci_progress p = 0;

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "amdgpu");
	assert_string_equal(driver_now(&v), "amdgpu");
	assert_true(has_ip_discovery(&v));
	assert_string_equal(state_now(&v), "amdgpu");

	/* detach: driver_override none, unbound, ip_discovery gone. */
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	why_has("rig_amd_pci_detach: GPU 0 (");
	why_has(") detached");
	assert_string_equal(driver_now(&v), "");
	assert_false(has_ip_discovery(&v));
	assert_string_equal(dev_file(&v, "driver_override"), "none\n");
	assert_string_equal(state_now(&v), "detached");

	/* open: amdgpu's firmware without rig's mark: reset, full boot. */
	assert_true(open_close(&v));
	assert_string_equal(state_now(&v), "detached");
	/* closed clean: the next open boots in part. */
	assert_false(open_close(&v));

	/* reset: mode 1 through the SMU; the next open boots in full. */
	assert_int_equal(rig_amd_pci_reset(v.m, 0), 0);
	assert_string_equal(driver_now(&v), "");
	assert_string_equal(dev_file(&v, "driver_override"), "none\n");
	assert_string_equal(state_now(&v), "detached");
	assert_true(open_close(&v));

	/* attach resets a clean GPU first, clears driver_override, binds amdgpu. */
	assert_int_equal(rig_amd_pci_attach(v.m, 0), 0);
	assert_string_equal(driver_now(&v), "amdgpu");
	assert_true(has_ip_discovery(&v));
	assert_string_equal(dev_file(&v, "driver_override"), "(null)\n");
	assert_string_equal(state_now(&v), "amdgpu");
	/* What attach left is no clean session's: detached again, it boots in full. */
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_true(open_close(&v));
	down(&v);
}

/* A GPU no OS runs on keeps its state but for its interrupt rings, and is
 * marked so that its next open boots in full. */
static void
test_reset_without_os(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "12.0.1");
	assert_true(open_close(&v));
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), 0);
	assert_true(open_close(&v));
	assert_false(open_close(&v));
	down(&v);
}

/* attach from vfio-pci: unbinds it, resets, binds amdgpu. */
static void
test_attach_from_vfio(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "vfio-pci");
	assert_string_equal(state_now(&v), "detached");
	assert_int_equal(rig_amd_pci_attach(v.m, 0), 0);
	assert_string_equal(driver_now(&v), "amdgpu");
	down(&v);
}

/* ---- reset's refusals -------------------------------------------------------- */

static void
reset_refused(struct moves *v, int code, const char *want)
{
	uint64_t writes = amd_sim_reg_writes(v->f.sim);

	assert_int_equal(rig_amd_pci_reset(v->m, 0), code);
	why_has(want);
	assert_int_equal(amd_sim_reg_writes(v->f.sim), writes);
}

static void
test_reset_refuses_amdgpu_radeon_kfd(void **state)
{
	struct moves v;
	char want[200];

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "amdgpu");
	snprintf(want, sizeof(want), "rig_amd_pci_reset: GPU 0 (%s) is bound to "
		 "amdgpu; `rig detach 0` first", amd_sim_bus(v.f.sim));
	reset_refused(&v, -EBUSY, want);
	assert_string_equal(driver_now(&v), "amdgpu");
	assert_int_equal(v.m->ops->file_write(v.m, "sys/bus/pci/drivers/amdgpu/unbind",
					      amd_sim_bus(v.f.sim)), 0);
	bind(&v, "radeon");
	snprintf(want, sizeof(want), "rig_amd_pci_reset: GPU 0 (%s) is bound to "
		 "radeon, which holds it: unbind it first", amd_sim_bus(v.f.sim));
	reset_refused(&v, -EBUSY, want);
	assert_int_equal(v.m->ops->file_write(v.m, "sys/bus/pci/drivers/radeon/unbind",
					      amd_sim_bus(v.f.sim)), 0);
	fake_kfd(v.f.root, 1, amd_sim_bus(v.f.sim));
	reset_refused(&v, -EBUSY, "amdgpu has not let go of it: KFD's topology "
		      "still lists it (node 1); `rig detach 0` waits for it to");
	down(&v);
}

static void
test_reset_refuses_held(void **state)
{
	struct moves v;
	char want[1400], target[700];

	(void)state;
	up(&v, "12.0.1");
	/* By this process: an open device. */
	if (rig_open(v.f.o, &v.f.d) < 0)
		fail_msg("open: %s", rig_why());
	snprintf(want, sizeof(want), "rig_amd_pci_reset: this process holds GPU 0 "
		 "(%s)", amd_sim_bus(v.f.sim));
	reset_refused(&v, -EBUSY, want);
	assert_int_equal(rig_close(v.f.d), 0);
	rig_device_release(v.f.d);
	v.f.d = NULL;
	/* By another: process 4242 has its BAR mapped. */
	snprintf(target, sizeof(target), "%s/%s/resource0", v.f.root, v.dev);
	fake_holder(v.f.root, 4242, target);
	snprintf(want, sizeof(want), "rig_amd_pci_reset: process 4242 holds GPU 0 "
		 "(%s): it has %s open", amd_sim_bus(v.f.sim), target);
	reset_refused(&v, -EBUSY, want);
	down(&v);
}

static void
test_reset_sos_survives(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "12.0.1");
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SOS_SURVIVES_RESET, 0, true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), -EIO);
	why_has("): RESET: firmware rig did not start still runs after the mode-1 "
		"reset (C2PMSG_81 = 0x1)");
	down(&v);
}

/* The SMU silent: reset goes through the sOS (GFX_CTRL_CMD_ID_MODE1_RST),
 * and once the SMU answers again the next open boots in full; with the
 * sOS silent too it fails naming both. */
static void
test_reset_smu_silent(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "12.0.1");
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), 0);
	assert_string_equal(state_now(&v), "detached");
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SMU_SILENT, 0, false), 0);
	assert_true(open_close(&v));
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SOS_MODE1_SILENT, 0, true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), -ETIMEDOUT);
	why_has("): RESET: its sOS runs (C2PMSG_81 = 0x");	/* its version */
	why_has(") but its SMU does not answer (SMU: no answer to GetSmuVersion "
		"after 100 ms (C2PMSG_90 = 0x0)), and the mode-1 reset through the "
		"sOS failed: RESET: the sOS's mode-1 reset not done after 1000 ms "
		"(C2PMSG_33 = 0x0)");
	down(&v);
}

static void
test_reset_bootloader_never_ready(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "12.0.1");
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_BOOTLOADER_NEVER_READY, 0,
					true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), -ETIMEDOUT);
	why_has("): RESET: bootloader not ready with no OS running; only a power "
		"cycle recovers it after 1000 ms (C2PMSG_35 = 0x0)");
	down(&v);
}

/* GC 9.4.3 with its sOS running: mode 1 by MP1 13.0.6's GfxDriverReset(1),
 * after which it opens with a full boot, then in part; firmware that
 * survives its reset is refused as on GC 12. */
static void
test_reset_gc9(void **state)
{
	struct moves v;

	(void)state;
	up(&v, "9.4.3");
	if (rig_amd_pci_reset(v.m, 0) < 0)
		fail_msg("reset: %s", rig_why());
	assert_true(open_close(&v));
	assert_false(open_close(&v));
	assert_int_equal(amd_sim_inject(v.f.sim, AMD_SIM_SOS_SURVIVES_RESET, 0, true), 0);
	assert_int_equal(rig_amd_pci_reset(v.m, 0), -EIO);
	why_has("): RESET: firmware rig did not start still runs after the mode-1 "
		"reset (C2PMSG_81 = 0x1)");
	down(&v);
}

/* ---- detach's refusals and notes -------------------------------------------- */

static void
test_detach_refuses_radeon_and_held(void **state)
{
	struct moves v;
	enum rig_pci_progress p = 0;
	char want[1400], target[700];

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "radeon");
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), -EBUSY);
	snprintf(want, sizeof(want), "rig_amd_pci_detach: GPU 0 (%s) is bound to "
		 "radeon, not amdgpu", amd_sim_bus(v.f.sim));
	why_has(want);
	assert_string_equal(driver_now(&v), "radeon");
	assert_string_equal(dev_file(&v, "driver_override"), "(null)\n");
	assert_int_equal(v.m->ops->file_write(v.m, "sys/bus/pci/drivers/radeon/unbind",
					      amd_sim_bus(v.f.sim)), 0);
	bind(&v, "amdgpu");
	snprintf(target, sizeof(target), "%s/%s/resource5", v.f.root, v.dev);
	fake_holder(v.f.root, 4243, target);
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), -EBUSY);
	snprintf(want, sizeof(want), "rig_amd_pci_detach: process 4243 holds GPU 0 "
		 "(%s): it has %s open", amd_sim_bus(v.f.sim), target);
	why_has(want);
	assert_string_equal(driver_now(&v), "amdgpu");
	assert_string_equal(dev_file(&v, "driver_override"), "(null)\n");
	down(&v);
}

/* KFD still lists it after the unbind: Unreleased, and open refuses it. */
static void
test_detach_unreleased_kfd(void **state)
{
	struct moves v;
	enum rig_pci_progress p = 0;

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "amdgpu");
	fake_kfd(v.f.root, 2, amd_sim_bus(v.f.sim));
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_UNRELEASED);
	why_has("unreleased: amdgpu has not let go of it: KFD's topology still "
		"lists it (node 2)");
	assert_string_equal(driver_now(&v), "");
	assert_int_equal(rig_open(v.f.o, &v.f.d), -EBUSY);
	why_has("KFD's topology still lists it (node 2)");
	v.f.d = NULL;
	down(&v);
}

/* A memory BAR that is not resizable: detached, its size unchanged. */
static void
test_detach_bar_not_resizable(void **state)
{
	struct moves v;
	enum rig_pci_progress p = 0;
	char path[600];

	(void)state;
	up(&v, "12.0.1");
	bind(&v, "amdgpu");
	snprintf(path, sizeof(path), "%s/%s/resource0_resize", v.f.root, v.dev);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rig_amd_pci_detach(v.m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	why_has("detached; BAR0 is not resizable");
	assert_true(open_close(&v));
	down(&v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detach_open_close_reset_attach),
		cmocka_unit_test(test_reset_without_os),
		cmocka_unit_test(test_attach_from_vfio),
		cmocka_unit_test(test_reset_refuses_amdgpu_radeon_kfd),
		cmocka_unit_test(test_reset_refuses_held),
		cmocka_unit_test(test_reset_sos_survives),
		cmocka_unit_test(test_reset_smu_silent),
		cmocka_unit_test(test_reset_bootloader_never_ready),
		cmocka_unit_test(test_reset_gc9),
		cmocka_unit_test(test_detach_refuses_radeon_and_held),
		cmocka_unit_test(test_detach_unreleased_kfd),
		cmocka_unit_test(test_detach_bar_not_resizable),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the boot needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
