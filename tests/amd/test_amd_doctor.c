/* SPDX-License-Identifier: MIT */
/*
 * test_amd_doctor: `rig doctor`'s report on fake machines, compared line by
 * line with golden text: one machine behind an IOMMU with a detached GPU
 * and one amdgpu holds, one without an IOMMU; the process's facts are
 * fixed by the test; the images are the real ones (RIG_TEST_FIRMWARE).
 * Then on the software GPU's sysfs tree (src/amd/sim/tree.c), whose
 * driver binding, huge pages and BAR files change as the kernel's do, and
 * with an image of another digest.
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
#include <sys/resource.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/firmware/firmware.h"
#include "amd/pci/pci.h"
#include "amd/sim/sim.h"
#include "fake.h"

static const char *fwdir;

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
	setenv("RIG_FIRMWARE_DIR", "/nonexistent/rig-firmware", 1);
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

/* The report, with the root and the images' folder as $ROOT and $FW. */
static char *
report(struct env *e, const char *const *dirs, int i,
       const struct rig_doctor_process *p, int *failed)
{
	char *text, *out, *o;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	*failed = rig_amd_pci_doctor(e->m, dirs, i, p, f);
	fclose(f);
	out = o = calloc(1, len * 2 + 1);
	for (const char *t = text; *t; ) {
		if (!strncmp(t, e->root, strlen(e->root))) {
			o += sprintf(o, "$ROOT");
			t += strlen(e->root);
		} else if (!strncmp(t, fwdir, strlen(fwdir))) {
			o += sprintf(o, "$FW");
			t += strlen(fwdir);
		} else {
			*o++ = *t++;
		}
	}
	free(text);
	return out;
}

static void
firmware_lines(char *buf, size_t len, bool present)
{
	const struct amd_pin *pins;
	size_t n, at;

	at = (size_t)snprintf(buf, len, "firmware (linux-firmware 20250410):\n");
	pins = amd_pins(&n);
	for (size_t k = 0; k < n; k++)
		if (present)
			at += (size_t)snprintf(buf + at, len - at, "  pass  %s: $FW/%s, "
					       "BLAKE2b-256 %s as pinned\n", pins[k].name,
					       pins[k].name, pins[k].digest);
		else
			at += (size_t)snprintf(buf + at, len - at, "  FAIL  %s: missing; "
					       "fix: rig firmware amd\n", pins[k].name);
}

static void
test_iommu_machine(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p), .memlock_bytes = 8 << 20,
					.cap_sys_admin = true, .io_uring = true };
	const char *dirs[] = { fwdir, NULL };
	char want[16384];
	char *got;
	int failed;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = "0000:03:00.0", .iommu_group = 14,
					      .resize = "0000000000000300\n" });
	fake_gpu(e->root, &(struct fake_gpu){ .bus = "0000:83:00.0", .driver = "amdgpu" });
	fake_mkdir(e->root, "sys/bus/pci/drivers/vfio-pci");
	got = report(e, dirs, -1, &p, &failed);
	snprintf(want, sizeof(want),
		"GPU 0 (0000:03:00.0):\n"
		"  pass  driver: none (detached)\n"
		"  pass  IOMMU: on; the function's group is 14\n"
		"  pass  vfio-pci: present\n"
		"  pass  memory BAR: 512 MiB, its largest size\n"
		"  pass  doorbell BAR (2): 2048 KiB\n"
		"  pass  register BAR (5): 512 KiB\n"
		"  FAIL  locked memory: 8192 KiB, less than the 32768 KiB a device locks at open (its rings, interrupt rings and staging); fix: ulimit -l 32768 or more (or memlock in /etc/security/limits.conf)\n"
		"  pass  hugepages: not needed behind an IOMMU\n"
		"GPU 1 (0000:83:00.0):\n"
		"  FAIL  driver: amdgpu is bound; fix: rig detach 1\n"
		"  FAIL  IOMMU: on; the function has no group; fix: check the IOMMU's kernel parameters\n"
		"  pass  vfio-pci: present\n"
		"  pass  memory BAR: 512 MiB (not resizable)\n"
		"  pass  doorbell BAR (2): 2048 KiB\n"
		"  pass  register BAR (5): 512 KiB\n"
		"  FAIL  locked memory: 8192 KiB, less than the 32768 KiB a device locks at open (its rings, interrupt rings and staging); fix: ulimit -l 32768 or more (or memlock in /etc/security/limits.conf)\n"
		"  pass  hugepages: not needed behind an IOMMU\n"
		"process:\n"
		"  pass  CAP_SYS_ADMIN: held (for host memory's physical addresses in /proc/self/pagemap, and detach's and attach's sysfs writes)\n"
		"  pass  io_uring: available\n");
	firmware_lines(want + strlen(want), sizeof(want) - strlen(want), true);
	assert_string_equal(got, want);
	assert_int_equal(failed, 4);
	free(got);
}

/* A finite limit at least the device's host memory passes (any finite
 * limit once failed). */
static void
test_iommu_finite_memlock_enough(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p), .memlock_bytes = 64 << 20,
					.cap_sys_admin = true, .io_uring = true };
	char *got;
	int failed;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = "0000:03:00.0", .iommu_group = 14 });
	got = report(e, NULL, 0, &p, &failed);
	assert_non_null(strstr(got, "  pass  locked memory: 65536 KiB, at least the "
			       "32768 KiB a device locks at open\n"));
	assert_non_null(strstr(got, "  FAIL  vfio-pci: absent, and behind an IOMMU "
			       "host memory is mapped through it; fix: modprobe "
			       "vfio-pci\n"));
	free(got);
}

static void
test_physical_machine(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p), .memlock_bytes = 65536,
					.io_uring_why = "Operation not permitted" };
	char want[16384];
	char *got;
	int failed;

	fake_gpu(e->root, &(struct fake_gpu){ .bus = "0000:03:00.0", .bar0 = 256 << 20,
					      .memsize_mib = 16384,
					      .resize = "0000000000007f00\n" });
	fake_gpu(e->root, &(struct fake_gpu){ .bus = "0000:04:00.0", .driver = "radeon" });
	fake_kfd(e->root, 2, "0000:03:00.0");
	fake_write(e->root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n");
	got = report(e, NULL, 0, &p, &failed);
	snprintf(want, sizeof(want),
		"GPU 0 (0000:03:00.0):\n"
		"  FAIL  driver: amdgpu has not let go of it: KFD's topology still lists it (node 2); fix: rig detach 0 (again), or reload the amdgpu module\n"
		"  pass  IOMMU: off (host memory comes from 2 MiB hugepages)\n"
		"  pass  vfio-pci: not needed without an IOMMU (the function is taken through sysfs)\n"
		"  FAIL  memory BAR: 256 MiB, resizable to 16384 MiB; fix: rig detach 0 (it resizes the BAR)\n"
		"  pass  doorbell BAR (2): 2048 KiB\n"
		"  pass  register BAR (5): 512 KiB\n"
		"  pass  locked memory: not counted without an IOMMU\n"
		"  FAIL  hugepages: 0 free 2 MiB pages, fewer than the 16 a device takes at open; fix: echo 1024 > /proc/sys/vm/nr_hugepages\n"
		"process:\n"
		"  FAIL  CAP_SYS_ADMIN: missing, so /proc/self/pagemap reads physical addresses as 0 and a device without an IOMMU gets no host memory; fix: run as root, or setcap cap_sys_admin+ep on the program\n"
		"  FAIL  io_uring: Operation not permitted; fix: sysctl kernel.io_uring_disabled=0\n");
	firmware_lines(want + strlen(want), sizeof(want) - strlen(want), false);
	assert_string_equal(got, want);
	assert_int_equal(failed, 5 + 33);
	free(got);
	/* GPU 1 is bound to another driver. */
	fake_write(e->root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "512\n");
	got = report(e, NULL, 1, &p, &failed);
	assert_non_null(strstr(got, "GPU 1 (0000:04:00.0):\n  FAIL  driver: radeon is "
			       "bound; fix: echo 0000:04:00.0 > /sys/bus/pci/drivers/"
			       "radeon/unbind\n"));
	assert_non_null(strstr(got, "  pass  hugepages: 512 free 2 MiB pages, at "
			       "least the 16 a device takes at open\n"));
	free(got);
}

static void
test_no_gpu(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p) };
	FILE *f = fopen("/dev/null", "w");

	assert_int_equal(rig_amd_pci_doctor(e->m, NULL, 0, &p, f), -ENODEV);
	assert_string_equal(rig_why(), "rig_amd_pci_doctor: no GPU 0: the machine "
			    "has 0 AMD GPUs");
	fclose(f);
}

static void
test_unlistable(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p) };
	char want[600];

	fake_mkdir(e->root, "sys/bus/pci/devices/nonsense");
	assert_int_equal(rig_amd_pci_doctor(e->m, NULL, -1, &p, stderr), -ENODEV);
	snprintf(want, sizeof(want), "rig_amd_pci_doctor: the machine's PCI "
		 "functions cannot be listed: cannot list %s/sys/bus/pci/devices: "
		 "nonsense is not a PCI bus address", e->root);
	assert_string_equal(rig_why(), want);
}

static void
test_bad_proc_size(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = 8 };

	char want[100];

	assert_int_equal(rig_amd_pci_doctor(e->m, NULL, -1, &p, stderr), RIG_EINVAL);
	snprintf(want, sizeof(want), "rig_amd_pci_doctor: proc->size 8 is not %zu",
		 sizeof(p));
	assert_string_equal(rig_why(), want);
}

static void
test_null_out(void **state)
{
	struct env *e = *state;

	assert_int_equal(rig_amd_pci_doctor(e->m, NULL, -1, NULL, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_doctor: out is NULL");
}

static void
test_process_read(void **state)
{
	struct rig_doctor_process p;
	struct rlimit rl;

	(void)state;
	rig_doctor_process_read(&p);
	assert_int_equal(p.size, sizeof(p));
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	assert_int_equal(p.memlock_bytes, rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
			 (uint64_t)rl.rlim_cur);
	assert_true(p.io_uring || p.io_uring_why);
}


/* The GPU's lines of the report for the sim's machine, GPU 0. */
static char *
sim_report(struct amd_sim *sim, const struct rig_doctor_process *p, int *failed)
{
	const char *dirs[] = { fwdir, NULL };
	char *text, *gpu, *end;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	*failed = rig_amd_pci_doctor(amd_sim_machine(sim), dirs, 0, p, f);
	fclose(f);
	gpu = strstr(text, "):\n");
	assert_non_null(gpu);
	end = strstr(gpu, "process:\n");
	assert_non_null(end);
	*end = '\0';
	gpu = strdup(gpu + 3);
	free(text);
	return gpu;
}

static void
test_sim_tree(void **state)
{
	struct rig_doctor_process p = { .size = sizeof(p), .memlock_bytes = 65536,
					.cap_sys_admin = true, .io_uring = true };
	struct amd_sim_opts o = { .gc = "12.0.1" };
	const struct rig_pci_machine *m;
	enum rig_pci_progress progress;
	struct amd_sim *sim;
	char root[256], rel[200], *got;
	int failed;

	(void)state;
	fake_root(root);
	o.root = root;
	o.firmware = fwdir;
	assert_int_equal(amd_sim_create(&o, &sim), 0);
	m = amd_sim_machine(sim);
	got = sim_report(sim, &p, &failed);
	assert_string_equal(got,
		"  pass  driver: none (detached)\n"
		"  pass  IOMMU: off (host memory comes from 2 MiB hugepages)\n"
		"  pass  vfio-pci: not needed without an IOMMU (the function is taken through sysfs)\n"
		"  pass  memory BAR: 1024 MiB, its largest size\n"
		"  pass  doorbell BAR (2): 2048 KiB\n"
		"  pass  register BAR (5): 512 KiB\n"
		"  pass  locked memory: not counted without an IOMMU\n"
		"  FAIL  hugepages: 0 free 2 MiB pages, fewer than the 16 a device takes at open; fix: echo 1024 > /proc/sys/vm/nr_hugepages\n");
	assert_int_equal(failed, 1);
	free(got);
	/* Huge pages freed, then amdgpu bound through the tree's bind file. */
	fake_write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "16\n");
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers/amdgpu/bind",
					    amd_sim_bus(sim)), 0);
	got = sim_report(sim, &p, &failed);
	assert_non_null(strstr(got, "  FAIL  driver: amdgpu is bound; fix: rig detach 0\n"));
	assert_non_null(strstr(got, "  pass  hugepages: 16 free 2 MiB pages, at least "
			       "the 16 a device takes at open\n"));
	assert_int_equal(failed, 1);
	free(got);
	/* The fix it names: detached, every prerequisite passes. */
	assert_int_equal(rig_amd_pci_detach(m, 0, &progress), 0);
	assert_int_equal(progress, RIG_PCI_DETACHED);
	got = sim_report(sim, &p, &failed);
	assert_non_null(strstr(got, "  pass  driver: none (detached)\n"));
	assert_int_equal(failed, 0);
	free(got);
	/* A BAR the resource file does not list. */
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/resource", amd_sim_bus(sim));
	fake_write(root, rel, "0x0000007000000000 0x000000703fffffff 0x000000000014220c\n");
	got = sim_report(sim, &p, &failed);
	assert_non_null(strstr(got, "  FAIL  doorbell BAR (2): absent from its "
			       "resource file, so an open cannot map it"));
	assert_non_null(strstr(got, "  FAIL  register BAR (5): absent"));
	free(got);
	amd_sim_destroy(sim);
	fake_remove(root);
}

/* An image of another digest is named with its path and digest. */
static void
test_another_digest(void **state)
{
	struct env *e = *state;
	struct rig_doctor_process p = { .size = sizeof(p), .cap_sys_admin = true,
					.io_uring = true };
	char dir[256], from[600], to[600], want[900], *got;
	const char *dirs[] = { NULL, NULL };
	FILE *in, *out;
	int failed, ch;
	long at = 0;

	fake_root(dir);
	dirs[0] = dir;
	snprintf(from, sizeof(from), "%s/smu_14_0_3.bin", fwdir);
	snprintf(to, sizeof(to), "%s/smu_14_0_3.bin", dir);
	in = fopen(from, "rb");
	out = fopen(to, "wb");
	assert_non_null(in);
	assert_non_null(out);
	while ((ch = fgetc(in)) != EOF)
		fputc(at++ == 0x4000 ? ch ^ 0xFF : ch, out);
	fclose(in);
	fclose(out);
	got = report(e, dirs, -1, &p, &failed);
	snprintf(want, sizeof(want), "  FAIL  smu_14_0_3.bin: only of another digest: "
		 "%s (", to);
	assert_non_null(strstr(got, want));
	assert_non_null(strstr(got, "; fix: rig firmware amd\n"));
	assert_int_equal(failed, 33);
	free(got);
	fake_remove(dir);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_iommu_machine),
		T(test_iommu_finite_memlock_enough),
		T(test_physical_machine),
		T(test_no_gpu),
		T(test_unlistable),
		T(test_bad_proc_size),
		T(test_null_out),
		cmocka_unit_test(test_process_read),
		cmocka_unit_test(test_sim_tree),
		T(test_another_digest),
	};

	fwdir = getenv("RIG_TEST_FIRMWARE");
	if (!fwdir || !fwdir[0]) {	/* a TAP skip of every test, saying why */
		printf("1..0 # SKIP RIG_TEST_FIRMWARE (the real images) is not set\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
