/* SPDX-License-Identifier: MIT */
/*
 * test_amd_driver: detach, attach and reset write what docs/amd.md describes
 * to a fake machine's sysfs files (which keep what was written), report
 * Detached / Unreleased / Part_way naming the file, and refuse a GPU a
 * process holds, each refusal with its message and nothing written.
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
#include "core/error.h"
#include "amd/amd.h"
#include "amd/pci/pci.h"
#include "fake.h"
#include "synth.h"

#define BUS "0000:03:00.0"
#define DEVDIR "sys/bus/pci/devices/" BUS "/"

struct env {
	char root[256];
	struct rig_pci_machine *m;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	fake_root(e->root);
	fake_function(e->root, "0000:00:00.0", 0x8086, 0x0d57, 0x060000);
	assert_int_equal(rig_pci_machine_at(e->root, &e->m), 0);
	amd_driver_wait_ms = 200;
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

static const char *
rd(struct env *e, const char *rel)
{
	return fake_read(e->root, rel);
}

/* Nothing was written to the GPU's files. */
static void
untouched(struct env *e)
{
	assert_string_equal(rd(e, DEVDIR "driver_override"), "(null)\n");
	assert_string_equal(rd(e, DEVDIR "reset"), "");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/unbind"), "");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/bind"), "");
}

static void
why_is(struct env *e, const char *fmt)
{
	char want[700];

	snprintf(want, sizeof(want), fmt, e->root);
	assert_string_equal(rig_why(), want);
}

/*
 * A detached GPU the reset can act on: GC 11.0.0's discovery table (MP0 at
 * 0x16000, GC's SCRATCH_REG6 at 0xc046, OSSSYS's IH_RB_CNTL at 0x10A0 +
 * 0x80), no sOS running and its bootloader ready (C2PMSG_35 bit 31).
 */
#define REG_SCRATCH_REG6	0xc046
#define REG_C2PMSG_35		(0x16000 + 0x63)
#define REG_IH_RB_CNTL		(0x10A0 + 0x80)

static void
resettable_gpu(struct env *e, const char *driver)
{
	struct synth s;

	synth_build(&s, "11.0.0", 0);
	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = driver,
		.table = s.b, .table_len = s.len });
	fake_reg(e->root, BUS, REG_C2PMSG_35, 1u << 31);
}

/* A register of the fake's MMIO BAR (resource5) as rig left it. */
static uint32_t
reg_of(struct env *e, uint32_t index)
{
	char path[400];
	uint32_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" DEVDIR "resource5", e->root);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)index * 4, SEEK_SET), 0);
	assert_int_equal(fread(&v, 4, 1, f), 1);
	fclose(f);
	return v;
}

/* ---- detach ---------------------------------------------------------------- */

static void
test_detach_from_amdgpu(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu",
		.bar0 = 256 << 20, .resize = "0000000000007f00\n" });
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") "
			    "detached; BAR0 resized to 16384 MiB");
	assert_string_equal(rd(e, DEVDIR "driver_override"), "none");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/unbind"), BUS);
	assert_string_equal(rd(e, DEVDIR "resource0_resize"), "14");
}

static void
test_detach_bar_largest(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu",
		.bar0 = 512 << 20, .resize = "0000000000000300\n" });
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") "
			    "detached; BAR0 stays 512 MiB");
	assert_string_equal(rd(e, DEVDIR "resource0_resize"), "0000000000000300\n");
}

static void
test_detach_waits_for_dead_files(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	fake_mkdir(e->root, DEVDIR "drm/renderD128");
	fake_mkdir(e->root, "proc/1000");
	fake_write(e->root, "sys/kernel/debug/dri/128/clients",
		   "             command  tgid dev master a   uid      magic\n"
		   "                rocm  1000 128   n    n     0          0\n"
		   "               gone1 99999 128   n    n     0          0\n");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") "
			    "detached; BAR0 is not resizable (512 MiB); KFD still "
			    "held the DRM files of exited "
			    "processes 99999 (renderD128) after 200 ms");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/unbind"), BUS);
}

static void
test_detach_unreleased(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	fake_kfd(e->root, 1, BUS);
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_UNRELEASED);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") "
			    "unreleased: amdgpu has not let go of it: KFD's topology "
			    "still lists it (node 1); BAR0 is not resizable (512 MiB); "
			    "a later detach waits again");
}

static void
test_detach_later_times_out(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	fake_mkdir(e->root, DEVDIR "ip_discovery/die/0");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -ETIMEDOUT);
	assert_int_equal(p, 0);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS "): "
			    "amdgpu has not let go of it: its ip_discovery directory "
			    "stays after 200 ms");
	untouched(e);
}

static void
test_detach_later_finishes(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") detached; "
			    "BAR0 is not resizable (512 MiB)");
	untouched(e);
}

static void
test_detach_part_way(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;
	char path[400];

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/amdgpu/unbind", e->root);
	remove(path);
	fake_mkdir(e->root, "sys/bus/pci/drivers/amdgpu/unbind");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_PART_WAY);
	why_is(e, "rig_amd_pci_detach: GPU 0 (" BUS ") part way: driver_override "
	       "is none, but cannot open %s/sys/bus/pci/drivers/amdgpu/unbind: Is "
	       "a directory");
	assert_string_equal(rd(e, DEVDIR "driver_override"), "none");
}

static void
test_detach_override_fails(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;
	char path[400];

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	snprintf(path, sizeof(path), "%s/" DEVDIR "driver_override", e->root);
	remove(path);
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -EIO);
	assert_int_equal(p, 0);
	why_is(e, "rig_amd_pci_detach: GPU 0 (" BUS "): cannot open %s/" DEVDIR
	       "driver_override: No such file or directory");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/unbind"), "");
}

static void
test_detach_held_here(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	assert_int_equal(pci_hold_mark(BUS), 0);
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -EBUSY);
	pci_hold_clear(BUS);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: this process holds "
			    "GPU 0 (" BUS ")");
	untouched(e);
}

static void
test_detach_held_elsewhere(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	fake_mkdir(e->root, DEVDIR "drm/card1");
	fake_holder(e->root, 31337, "/dev/dri/card1");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: process 31337 holds "
			    "GPU 0 (" BUS "): it has /dev/dri/card1 open");
	untouched(e);
}

static void
test_detach_held_mapped(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	fake_write(e->root, "proc/555/maps", "7f0000000000-7f0000200000 rw-s 00000000 "
		   "00:15 1234 /sys/devices/pci0000:00/" BUS "/resource5\n");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: process 555 holds GPU 0 "
			    "(" BUS "): it has /sys/devices/pci0000:00/" BUS
			    "/resource5 mapped");
}

static void
test_detach_other_driver(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "radeon" });
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU 0 (" BUS ") is "
			    "bound to radeon, not amdgpu");
	untouched(e);
}

static void
test_detach_no_gpu(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	assert_int_equal(rig_amd_pci_detach(e->m, 2, &p), -ENODEV);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: no GPU 2: the machine "
			    "has 1 AMD GPU");
}

static void
test_detach_unlistable(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_mkdir(e->root, "sys/bus/pci/devices/junk");
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), -ENODEV);
	why_is(e, "rig_amd_pci_detach: cannot list %s/sys/bus/pci/devices: junk is "
	       "not a PCI bus address");
}

static void
test_detach_negative(void **state)
{
	enum rig_pci_progress p = 0;

	(void)state;
	assert_int_equal(rig_amd_pci_detach(NULL, -1, &p), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: GPU -1 is negative");
}

static void
test_detach_null_progress(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_pci_detach(NULL, 0, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_detach: progress is NULL");
}

static void
test_detach_from_callback(void **state)
{
	struct env *e = *state;
	enum rig_pci_progress p = 0;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	callback_enter();
	assert_int_equal(rig_amd_pci_detach(e->m, 0, &p), RIG_EINVAL);
	callback_leave();
	assert_string_equal(rig_why(), "rig_amd_pci_detach: called from inside one "
			    "of rig's callbacks, which holds a lock");
	untouched(e);
}

/* ---- attach ---------------------------------------------------------------- */

/* No OS runs on it: the reset stops it and marks it dirty (SCRATCH_REG6
 * 1), writes no sysfs reset; then amdgpu is bound. */
static void
test_attach_detached(void **state)
{
	struct env *e = *state;

	resettable_gpu(e, NULL);
	assert_int_equal(rig_amd_pci_attach(e->m, 0), 0);
	assert_string_equal(rd(e, DEVDIR "reset"), "");
	assert_int_equal(reg_of(e, REG_SCRATCH_REG6), 1);
	assert_string_equal(rd(e, DEVDIR "driver_override"), "\n");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/bind"), BUS);
}

static void
test_attach_attached(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	assert_int_equal(rig_amd_pci_attach(e->m, 0), 0);
	untouched(e);
}

static void
test_attach_held(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .iommu_group = 7 });
	fake_holder(e->root, 900, "/dev/vfio/7");
	assert_int_equal(rig_amd_pci_attach(e->m, 0), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_attach: process 900 holds GPU 0 "
			    "(" BUS "): it has /dev/vfio/7 open");
	untouched(e);
}

static void
test_attach_bind_fails(void **state)
{
	struct env *e = *state;
	char path[400];

	resettable_gpu(e, NULL);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/amdgpu/bind", e->root);
	remove(path);
	assert_int_equal(rig_amd_pci_attach(e->m, 0), -EIO);
	why_is(e, "rig_amd_pci_attach: GPU 0 (" BUS "): cannot open "
	       "%s/sys/bus/pci/drivers/amdgpu/bind: No such file or directory");
}

/* A GPU whose discovery table cannot be read cannot be reset: its
 * registers' places are unknown. Nothing is bound. */
static void
test_attach_reset_fails(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	assert_int_equal(rig_amd_pci_attach(e->m, 0), -EPROTO);
	if (!strstr(rig_why(), "rig_amd_pci_attach: GPU 0 (" BUS "): its discovery "
		    "table, which names its registers' places, cannot be read: "))
		fail_msg("%s", rig_why());
	untouched(e);
}

static void
test_attach_negative(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_pci_attach(NULL, -3), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_attach: GPU -3 is negative");
}

/* ---- reset ----------------------------------------------------------------- */

static void
test_reset_detached(void **state)
{
	struct env *e = *state;

	resettable_gpu(e, NULL);
	fake_reg(e->root, BUS, REG_IH_RB_CNTL, 0x20011);	/* IH ring 0 on */
	assert_int_equal(rig_amd_pci_reset(e->m, 0), 0);
	assert_int_equal(reg_of(e, REG_IH_RB_CNTL), 0);
	assert_int_equal(reg_of(e, REG_SCRATCH_REG6), 1);
	untouched(e);
}

/* The bootloader not ready with no OS running: a power cycle's case. */
static void
test_reset_bootloader_not_ready(void **state)
{
	struct env *e = *state;

	resettable_gpu(e, NULL);
	fake_reg(e->root, BUS, REG_C2PMSG_35, 0);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -ETIMEDOUT);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS "): RESET: "
			    "bootloader not ready with no OS running; only a power "
			    "cycle recovers it after 1000 ms (C2PMSG_35 = 0x0)");
}

/* A GPU that reads all ones does not respond. */
static void
test_reset_no_response(void **state)
{
	struct env *e = *state;

	resettable_gpu(e, NULL);
	fake_reg(e->root, BUS, 0x16000 + 0x91, 0xFFFFFFFFu);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EIO);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS "): it does "
			    "not respond (C2PMSG_81 = 0xffffffff); nothing was written; "
			    "only a power cycle recovers it");
	assert_int_equal(reg_of(e, REG_SCRATCH_REG6), 0);
}

/* A function that cannot be taken (no config file to open). */
static void
test_reset_not_taken(void **state)
{
	struct env *e = *state;
	char path[400];

	resettable_gpu(e, NULL);
	snprintf(path, sizeof(path), "%s/" DEVDIR "config", e->root);
	assert_int_equal(remove(path), 0);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -ENOENT);
	why_is(e, "rig_amd_pci_reset: GPU 0 (" BUS "): its function cannot be taken: "
	       "cannot open %s/" DEVDIR "config: No such file or directory");
	assert_int_equal(reg_of(e, REG_SCRATCH_REG6), 0);
}

static void
test_reset_amdgpu(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "amdgpu" });
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS ") is bound "
			    "to amdgpu; `rig detach 0` first");
	untouched(e);
}

/* Seed 003: reset refuses a GPU another kernel driver holds. */
static void
test_reset_radeon_refused(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS, .driver = "radeon" });
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS ") is bound "
			    "to radeon, which holds it: unbind it first");
	untouched(e);
}

/* ... and one amdgpu has not let go of: KFD still lists it. */
static void
test_reset_kfd_lists_refused(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	fake_kfd(e->root, 1, BUS);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EBUSY);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS "): amdgpu "
			    "has not let go of it: KFD's topology still lists it "
			    "(node 1); `rig detach 0` waits for it to");
	untouched(e);
}

static void
test_reset_held(void **state)
{
	struct env *e = *state;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = BUS });
	assert_int_equal(pci_hold_mark(BUS), 0);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EBUSY);
	pci_hold_clear(BUS);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: this process holds GPU 0 "
			    "(" BUS ")");
	untouched(e);
}

static void
test_reset_no_gpu(void **state)
{
	struct env *e = *state;

	assert_int_equal(rig_amd_pci_reset(e->m, 0), -ENODEV);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: no GPU 0: the machine "
			    "has 0 AMD GPUs");
}

static void
test_reset_negative(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_pci_reset(NULL, -1), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU -1 is negative");
}

/* ---- Fabrics ---------------------------------------------------------------- */

/* Eight GPUs of gc, GPU 0 at BUS; table false: GPU 0 has none. */
static void
eight(struct env *e, const char *gc, bool table)
{
	static struct synth s;

	synth_build(&s, gc, 0);
	for (int k = 0; k < 8; k++) {
		char bus[32];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x03 + 0x10 * k);
		fake_gpu(e->root, &(struct fake_gpu){ .bus = bus,
			.table = table || k ? s.b : NULL, .table_len = s.len });
	}
}

static void
test_reset_fabric_refused(void **state)
{
	struct env *e = *state;

	eight(e, "9.4.3", true);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -ENOTSUP);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS ") is one "
			    "of a fabric of 8 GPUs, which reset together: its reset "
			    "only stops it, which comes with the boot; attach the "
			    "fabric's GPUs to amdgpu to reset them");
	untouched(e);
	assert_string_equal(rd(e, DEVDIR "enable"), "0");	/* taken to read, given back */
}

static void
test_reset_fabric_unknown(void **state)
{
	struct env *e = *state;

	eight(e, "9.4.3", false);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), -EIO);
	assert_string_equal(rig_why(), "rig_amd_pci_reset: GPU 0 (" BUS "): cannot "
			    "tell whether it is one of a fabric: the binary signature "
			    "is 0x00000000, not 0x28211407");
	untouched(e);
}

static void
test_reset_eight_radeons(void **state)
{
	struct env *e = *state;

	eight(e, "11.0.0", true);		/* no XGMI: eight single GPUs */
	fake_reg(e->root, BUS, REG_C2PMSG_35, 1u << 31);
	assert_int_equal(rig_amd_pci_reset(e->m, 0), 0);
	assert_int_equal(reg_of(e, REG_SCRATCH_REG6), 1);
}

static void
test_attach_fabric_leaves_reset(void **state)
{
	struct env *e = *state;

	eight(e, "9.4.3", true);
	assert_int_equal(rig_amd_pci_attach(e->m, 0), 0);
	assert_string_equal(rd(e, DEVDIR "reset"), "");
	assert_string_equal(rd(e, "sys/bus/pci/drivers/amdgpu/bind"), BUS);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_detach_from_amdgpu),
		T(test_detach_bar_largest),
		T(test_detach_waits_for_dead_files),
		T(test_detach_unreleased),
		T(test_detach_later_times_out),
		T(test_detach_later_finishes),
		T(test_detach_part_way),
		T(test_detach_override_fails),
		T(test_detach_held_here),
		T(test_detach_held_elsewhere),
		T(test_detach_held_mapped),
		T(test_detach_other_driver),
		T(test_detach_no_gpu),
		T(test_detach_unlistable),
		cmocka_unit_test(test_detach_negative),
		cmocka_unit_test(test_detach_null_progress),
		T(test_detach_from_callback),
		T(test_attach_detached),
		T(test_attach_attached),
		T(test_attach_held),
		T(test_attach_bind_fails),
		T(test_attach_reset_fails),
		cmocka_unit_test(test_attach_negative),
		T(test_reset_detached),
		T(test_reset_bootloader_not_ready),
		T(test_reset_no_response),
		T(test_reset_not_taken),
		T(test_reset_amdgpu),
		T(test_reset_radeon_refused),
		T(test_reset_kfd_lists_refused),
		T(test_reset_held),
		T(test_reset_no_gpu),
		cmocka_unit_test(test_reset_negative),
		T(test_reset_fabric_refused),
		T(test_reset_fabric_unknown),
		T(test_reset_eight_radeons),
		T(test_attach_fabric_leaves_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
