/* SPDX-License-Identifier: MIT */
/*
 * test_amd_open: the opener of GPU i refuses, in the order of docs/amd.md and with
 * the message it describes, every GPU it cannot boot, before any write to
 * it; a GPU that passes every check is booted in full (a fake machine's
 * GPU was left by no clean session of rig), which stops at the PSP's
 * bootloader (no firmware answers on a fake) for GC 9.4.3 with one XCC or
 * 8 on one die, 11 and 12, and is refused as not built for GC 9.4.3 with
 * 8 XCCs on 4 dies (an MI300X's AIDs, were its table to list them so); a refusal leaves the machine as it was and leaks no
 * file.
 * Machines are fake trees; images are the real ones (RIG_TEST_FIRMWARE).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "core/error.h"
#include "amd/pci/pci.h"
#include "env.h"
#include "fake.h"
#include "synth.h"

static const char *firmware_dir;

/* A GC 9.4.3 GPU whose table lists 8 XCCs, as an MI300X's does, on
 * dies dies (its 4 AIDs, if the table gives each a die). */
static void
mi300x_dies(struct env *e, struct fake_gpu g, unsigned dies)
{
	static struct synth s;

	synth_build_dies(&s, "9.4.3", 0, 8, dies);
	g.table = s.b;
	g.table_len = s.len;
	env_gpu(e, "9.4.3", g);
}

static void
mi300x(struct env *e, struct fake_gpu g)
{
	mi300x_dies(e, g, 4);
}

/* 8 XCCs on 8 dies: XCC 4 on die 4, past the four AIDs linux's extended
 * SMN address names (4 dies, MI300X's, are built: they boot as one die). */
static void
eight_dies(struct env *e, struct fake_gpu g)
{
	mi300x_dies(e, g, 8);
}

#define XCCS_NOT_BUILT(bus) "the full boot of GC 9.4.3 with XCC 4 on die 4 is not " \
	"built yet (" bus ": the extended SMN address names AIDs 0 to 3, and XCC 0 is " \
	"AID 0's; nothing was written)"

/*
 * Opens GPU i and expects status code and a message naming the GPU, then
 * cause; checks that rig_why() names the function, that the function's
 * enable file is as it was and that no file descriptor leaked.
 */
static void
expect(struct env *e, int i, int code, const char *cause)
{
	char why[600], want[700], rel[128];
	_Alignas(8) _Atomic uint64_t word = 0;
	struct rig_opener *o;
	void *handle = NULL;
	int fds = env_fds(), ret;

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/enable", BUS);
	assert_int_equal(rig_amd_pci_gpu(e->m, e->fw, i, &o), 0);
	ret = o->make(o, &word, &handle, why, sizeof(why));
	if (i == 0)
		snprintf(want, sizeof(want), "AMD-PCI: %s", cause);
	else
		snprintf(want, sizeof(want), "AMD-PCI:%d: %s", i, cause);
	if (strcmp(why, want))
		fail_msg("expected \"%s\"\n     got \"%s\"", want, why);
	snprintf(want, sizeof(want), "amd_pci_make: %s", why);
	assert_string_equal(rig_why(), want);
	assert_int_equal(ret, code);
	assert_null(handle);
	assert_int_equal(word, 0);
	/* The function was given back disabled, as it was ("0" once written). */
	if (strcmp(fake_read(e->root, rel), "(absent)"))
		assert_int_equal(atoi(fake_read(e->root, rel)), 0);
	assert_int_equal(env_fds(), fds);
	rig_amd_pci_opener_free(o);
}

/* ---- Arguments ------------------------------------------------------------ */

static void
test_gpu_negative(void **state)
{
	struct rig_opener *o = (void *)1;

	(void)state;
	assert_int_equal(rig_amd_pci_gpu(NULL, NULL, -1, &o), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_gpu: GPU -1 is negative");
	assert_ptr_equal(o, (void *)1);
}

static void
test_gpu_null_out(void **state)
{
	(void)state;
	assert_int_equal(rig_amd_pci_gpu(NULL, NULL, 0, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_gpu: out is NULL");
}

static void
test_gpu_too_many_dirs(void **state)
{
	const char *dirs[16];
	struct rig_opener *o;

	(void)state;
	for (int k = 0; k < 15; k++)
		dirs[k] = "/x";
	dirs[15] = NULL;
	assert_int_equal(rig_amd_pci_gpu(NULL, dirs, 0, &o), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_gpu: 15 firmware directories, "
			    "more than 13");
}

static void
test_gpu_long_dir(void **state)
{
	char dir[300];
	const char *dirs[] = { "/a", dir, NULL };
	struct rig_opener *o;

	(void)state;
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	assert_int_equal(rig_amd_pci_gpu(NULL, dirs, 0, &o), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_amd_pci_gpu: firmware directory 1 is "
			    "longer than 255 bytes");
}

static void
test_names(void **state)
{
	struct rig_opener *o0, *o1, *o7;
	struct rig_pci_machine *m;

	(void)state;
	/* Making an opener does no I/O: the root need not exist. */
	assert_int_equal(rig_pci_machine_at("/nonexistent/machine", &m), 0);
	assert_int_equal(rig_amd_pci_gpu(m, NULL, 0, &o0), 0);
	assert_int_equal(rig_amd_pci_gpu(m, NULL, 1, &o1), 0);
	assert_int_equal(rig_amd_pci_gpu(m, NULL, 7, &o7), 0);
	assert_string_equal(o0->name, "AMD-PCI");
	assert_string_equal(o1->name, "AMD-PCI:1");
	assert_string_equal(o7->name, "AMD-PCI:7");
	assert_non_null(o0->make);
	assert_non_null(o0->ops);
	rig_amd_pci_opener_free(o0);
	rig_amd_pci_opener_free(o1);
	rig_amd_pci_opener_free(o7);
	rig_amd_pci_opener_free(NULL);
	rig_pci_machine_release(m);
}

/* Through rig_open: the core reaches make, and the refusal is make's. */
static void
test_rig_open_not_built(void **state)
{
	struct env *e = *state;
	struct rig_device *d = NULL;
	struct rig_opener *o;

	eight_dies(e, (struct fake_gpu){ 0 });
	assert_int_equal(rig_amd_pci_gpu(e->m, e->fw, 0, &o), 0);
	assert_int_equal(rig_open(o, &d), -ENOTSUP);
	assert_null(d);
	assert_memory_equal(rig_why(), "rig_open: AMD-PCI: ", 19);
	assert_non_null(strstr(rig_why(), "AMD-PCI: " XCCS_NOT_BUILT(BUS)));
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0");
	rig_amd_pci_opener_free(o);
}

static void
test_rig_open_refused(void **state)
{
	struct env *e = *state;
	struct rig_device *d = NULL;
	struct rig_opener *o;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .driver = "amdgpu" });
	assert_int_equal(rig_amd_pci_gpu(e->m, e->fw, 0, &o), 0);
	assert_int_equal(rig_open(o, &d), -EBUSY);
	assert_null(d);
	assert_non_null(strstr(rig_why(), "AMD-PCI: amdgpu is bound to it (" BUS
			       "); `rig detach 0` takes it from amdgpu"));
	rig_amd_pci_opener_free(o);
}

/* ---- Refusals, in the order of docs/amd.md ----------------------------------------- */

static void
test_refuse_unlistable(void **state)
{
	struct env *e = *state;

	char cause[600];

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_mkdir(e->root, "sys/bus/pci/devices/junk");
	snprintf(cause, sizeof(cause), "the machine's PCI functions cannot be "
		 "listed: cannot list %s/sys/bus/pci/devices: junk is not a PCI "
		 "bus address", e->root);
	expect(e, 0, -ENODEV, cause);
}

static void
test_refuse_unlistable_file(void **state)
{
	struct env *e = *state;
	char cause[600], path[400];

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/" BUS "/class", e->root);
	remove(path);
	snprintf(cause, sizeof(cause), "the machine's PCI functions cannot be "
		 "listed: cannot read %s: No such file or directory", path);
	expect(e, 0, -ENODEV, cause);
}

static void
test_refuse_no_gpu(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	env_gpu(e, "11.0.0", (struct fake_gpu){ .bus = "0000:83:00.0" });
	expect(e, 2, -ENODEV, "no GPU 2: the machine has 2 AMD GPUs");
}

static void
test_refuse_held_here(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	assert_int_equal(pci_hold_mark(BUS), 0);
	expect(e, 0, -EBUSY, "this process holds it (" BUS ")");
	pci_hold_clear(BUS);
}

static void
test_refuse_held_elsewhere(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_holder(e->root, 4242, "/sys/devices/pci0000:00/0000:00:01.0/" BUS
		    "/resource0");
	expect(e, 0, -EBUSY, "process 4242 holds it (" BUS "): it has "
	       "/sys/devices/pci0000:00/0000:00:01.0/" BUS "/resource0 open");
}

static void
test_refuse_held_by_own_file(void **state)
{
	struct env *e = *state;
	char cause[300];

	/* This process has the render node open (as another path to the GPU
	 * would): it holds the GPU, though no open of this path does. */
	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_mkdir(e->root, "sys/bus/pci/devices/" BUS "/drm/renderD129");
	fake_holder(e->root, getpid(), "/dev/dri/renderD129");
	snprintf(cause, sizeof(cause), "this process holds it (" BUS "): it has "
		 "/dev/dri/renderD129 open");
	expect(e, 0, -EBUSY, cause);
}

static void
test_refuse_held_render_node(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_mkdir(e->root, "sys/bus/pci/devices/" BUS "/drm/renderD128");
	fake_holder(e->root, 77, "/dev/dri/renderD128");
	expect(e, 0, -EBUSY, "process 77 holds it (" BUS "): it has "
	       "/dev/dri/renderD128 open");
}

static void
test_refuse_amdgpu_bound(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .driver = "amdgpu" });
	expect(e, 0, -EBUSY, "amdgpu is bound to it (" BUS "); `rig detach 0` "
	       "takes it from amdgpu");
}

static void
test_refuse_amdgpu_kfd(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_kfd(e->root, 1, BUS);
	expect(e, 0, -EBUSY, "amdgpu has not let go of it: KFD's topology still "
	       "lists it (node 1) (" BUS "); `rig detach 0` takes it from amdgpu");
}

static void
test_refuse_amdgpu_ip_discovery(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_mkdir(e->root, "sys/bus/pci/devices/" BUS "/ip_discovery/die/0");
	expect(e, 0, -EBUSY, "amdgpu has not let go of it: its ip_discovery "
	       "directory stays (" BUS "); `rig detach 0` takes it from amdgpu");
}

static void
test_refuse_take_other_driver(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .driver = "radeon" });
	expect(e, 0, -EBUSY, "its function " BUS " cannot be taken: " BUS
	       " is bound to radeon");
}

static void
test_refuse_take_enable(void **state)
{
	struct env *e = *state;
	char cause[512];

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_remove(strcat(strcpy(cause, e->root), "/sys/bus/pci/devices/" BUS "/enable"));
	snprintf(cause, sizeof(cause), "its function " BUS " cannot be taken: "
		 "cannot open %s/sys/bus/pci/devices/" BUS "/enable: No such file "
		 "or directory", e->root);
	expect(e, 0, -ENOENT, cause);
}

static void
test_refuse_table_unreadable(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .bar0 = 256 << 20, .memsize_mib = 16384 });
	expect(e, 0, -EPROTO, "its discovery table cannot be read: the memory BAR "
	       "(256 MiB) does not reach the table at 0x3ffff0000; `rig detach` "
	       "makes it as large as allowed");
}

static void
test_refuse_table_no_memory(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_reg(e->root, BUS, 0xde3, 0);		/* RCC_CONFIG_MEMSIZE */
	expect(e, 0, -EPROTO, "its discovery table cannot be read: "
	       "RCC_CONFIG_MEMSIZE says 0 MiB of memory, too little to hold the "
	       "table");
}

static void
test_refuse_table_placed_oddly(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_reg(e->root, BUS, 0x94, 0x1002);		/* DRIVER_SCRATCH_0: offset */
	fake_reg(e->root, BUS, 0x96, 0x2801);		/* DRIVER_SCRATCH_2: size */
	expect(e, 0, -EPROTO, "its discovery table cannot be read: DRIVER_SCRATCH "
	       "places the table at 0x1002, 0x2801 bytes: not dwords, or over 64 KiB");
}

static void
test_refuse_table_small_register_bar(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ .bar5 = 4096 });
	expect(e, 0, -EPROTO, "its discovery table cannot be read: register 0xde3 "
	       "lies past the register BAR5 (0x1000 bytes)");
}

static void
test_refuse_table_malformed(void **state)
{
	struct env *e = *state;
	struct synth s;

	synth_build(&s, "11.0.0", 0);
	s.b[0] ^= 1;
	env_gpu(e, "11.0.0", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -EPROTO, "its discovery table is malformed: the binary "
	       "signature is 0x28211406, not 0x28211407");
}

static void
test_refuse_table_lacks_block(void **state)
{
	struct env *e = *state;
	struct synth s;

	synth_build(&s, "12.0.1", 34);	/* no MMHUB */
	env_gpu(e, "12.0.1", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -EPROTO, "its discovery table lacks MMHUB, a block the boot "
	       "programs");
}

static void
test_refuse_gc_version(void **state)
{
	struct env *e = *state;
	struct synth s;

	synth_build(&s, "11.0.0", 0);
	synth_set_version(&s, 11, 10, 3, 0);
	env_gpu(e, "11.0.0", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -ENOTSUP, "GC 10.3.0 is a version rig does not boot (it boots "
	       "GC 9.4.3, 9.5.0, 11.0.0, 11.0.2, 12.0.0 and 12.0.1)");
}

static void
test_refuse_block_version(void **state)
{
	struct env *e = *state;
	struct synth s;

	synth_build(&s, "11.0.0", 0);
	synth_set_version(&s, 42, 6, 0, 1);
	env_gpu(e, "11.0.0", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -ENOTSUP, "SDMA0 6.0.1 is a version rig does not boot with "
	       "GC 11.0.0 (it boots 6.0.0)");
}

/* Every block the boot programs needs a register table for its version
 * (an MMHUB 99.9.9 once passed: only GC, SDMA0, MP0 and MP1 were checked). */
static void
test_refuse_mmhub_without_table(void **state)
{
	struct env *e = *state;
	struct synth s;

	synth_build(&s, "11.0.0", 0);
	synth_set_version(&s, 34, 99, 9, 9);
	env_gpu(e, "11.0.0", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -ENOTSUP, "MMHUB 99.9.9 has no register table (rig holds "
	       "MMHUB tables for 1.8.0, 1.8.1, 3.0.0, 3.0.1, 3.0.2 and 4.1.0)");
}

static void
test_refuse_gc_9_5_0(void **state)
{
	struct env *e = *state;

	env_gpu(e, "9.5.0", (struct fake_gpu){ .class_code = 0x120000 });
	expect(e, 0, -ENOTSUP, "GC 9.5.0 has no pinned image: linux-firmware "
	       "20250410 holds none of its images");
}

static void
test_refuse_image_missing(void **state)
{
	struct env *e = *state;
	char cause[2048];

	env_gpu(e, "12.0.0", (struct fake_gpu){ 0 });
	e->fw[0] = e->root;	/* holds no image */
	snprintf(cause, sizeof(cause), "psp_14_0_2_sos.bin is in none of the "
		 "directories with its digest cb66c8422492482b…: searched %s, %s, "
		 "%s/root/.local/share/rig/firmware/amdgpu, %s/lib/firmware/amdgpu; "
		 "no file of another digest", e->root, e->rigdir, e->root, e->root);
	expect(e, 0, -ENOENT, cause);
}

/* Copies the real image name into dir, changing one byte at offset at. */
static void
copy_changed(const char *dir, const char *name, long at)
{
	char src[512], dst[512];
	static unsigned char b[1 << 20];
	size_t n;
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s", firmware_dir, name);
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	assert_non_null(f = fopen(src, "rb"));
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (at >= 0)
		b[at] ^= 0x40;
	assert_non_null(f = fopen(dst, "wb"));
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

static void
test_refuse_image_other_digest(void **state)
{
	struct env *e = *state;
	char cause[2048], dir[300];

	env_gpu(e, "11.0.2", (struct fake_gpu){ 0 });
	snprintf(dir, sizeof(dir), "%s/given", e->root);
	fake_mkdir(e->root, "given");
	copy_changed(dir, "psp_13_0_7_sos.bin", 0x30000);
	e->fw[0] = dir;
	snprintf(cause, sizeof(cause), "psp_13_0_7_sos.bin is in none of the "
		 "directories with its digest 60286de7949de035…: searched %s, %s, "
		 "%s/root/.local/share/rig/firmware/amdgpu, %s/lib/firmware/amdgpu; "
		 "another digest: %s/psp_13_0_7_sos.bin (", dir, e->rigdir, e->root,
		 e->root, dir);
	{
		char why[2048];
		_Alignas(8) _Atomic uint64_t word = 0;
		struct rig_opener *o;
		void *h = NULL;

		assert_int_equal(rig_amd_pci_gpu(e->m, e->fw, 0, &o), 0);
		assert_int_equal(o->make(o, &word, &h, why, sizeof(why)), -ENOENT);
		assert_memory_equal(why, "AMD-PCI: ", 9);
		assert_memory_equal(why + 9, cause, strlen(cause));
		assert_non_null(strstr(why, ", 248496 bytes)"));
		rig_amd_pci_opener_free(o);
	}
}

static void
test_search_first_dir_wins(void **state)
{
	struct env *e = *state;
	char dir[300], why[600], rel[300];
	_Alignas(8) _Atomic uint64_t word = 0;
	struct rig_opener *o;
	void *h = NULL;

	/* The rig directory holds a bad copy; /lib/firmware a good one: skipped
	 * over, the next directory with the digest wins and the open goes on. */
	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	fake_mkdir(e->root, "rig-firmware");
	copy_changed(e->rigdir, "smu_13_0_0.bin", 0x200);
	snprintf(dir, sizeof(dir), "%s/lib/firmware/amdgpu", e->root);
	fake_mkdir(e->root, "lib/firmware/amdgpu");
	copy_changed(dir, "smu_13_0_0.bin", -1);
	assert_int_equal(rig_amd_pci_gpu(e->m, e->fw, 0, &o), 0);
	assert_int_equal(o->make(o, &word, &h, why, sizeof(why)), -ETIMEDOUT);
	assert_string_equal(why, "AMD-PCI: PSP: bootloader not ready after 1000 ms "
			    "(C2PMSG_35 = 0x0); the GPU is lost: its next open resets it "
			    "and boots it in full");
	rig_amd_pci_opener_free(o);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/enable", BUS);
	assert_string_equal(fake_read(e->root, rel), "0");	/* taken and given back */
}

static void
test_refuse_fabric_running(void **state)
{
	struct env *e = *state;

	for (int k = 0; k < 8; k++) {
		char bus[32];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x03 + 0x10 * k);
		env_gpu(e, "9.4.3", (struct fake_gpu){ .bus = bus, .class_code = 0x038000,
						   .c2pmsg_81 = 0x80000001 });
	}
	expect(e, 0, -EBUSY, "it is one of a fabric of 8 GPUs left running "
	       "(MP0_SMN_C2PMSG_81 = 0x80000001): its GPUs reset together; attach "
	       "them to amdgpu to reset them");
}

static void
test_fabric_stopped_passes(void **state)
{
	struct env *e = *state;

	for (int k = 0; k < 8; k++) {
		char bus[32];

		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x03 + 0x10 * k);
		eight_dies(e, (struct fake_gpu){ .bus = bus, .class_code = 0x038000 });
	}
	expect(e, 0, -ENOTSUP, XCCS_NOT_BUILT(BUS));
}

/* An MI300 whose discovery table gives NBIO 7.9 the 6 bases of other
 * NBIOs: BIFC_GFX_INT_MONITOR_MASK and the SDMA routing are in segment 8
 * (linux's nbio_7_9_0_offset.h), so the open refuses it before any write,
 * naming the block, its version, the segment and the count. */
static void
test_refuse_nbio_7_9_six_bases(void **state)
{
	struct env *e = *state;
	static struct synth s;

	synth_build_nbif_bases(&s, "9.4.3", 6);
	env_gpu(e, "9.4.3", (struct fake_gpu){ .table = s.b, .table_len = s.len });
	expect(e, 0, -EPROTO, "NBIF (NBIO) BIFC_GFX_INT_MONITOR_MASK is in segment 8, "
	       "but the discovery table gives NBIF (NBIO) 7.9.0 6 bases");
}

static void
test_refuse_memory_whole(void **state)
{
	struct env *e = *state;

	/* 256 TiB reported; the table placed by the firmware in the BAR. */
	env_gpu(e, "11.0.0", (struct fake_gpu){ .memsize_mib = 0x10000000,
					    .table_at = 0x100000 });
	expect(e, 0, -ENOMEM, "its memory controller cannot place its 268435456 "
	       "MiB of memory whole (44 address bits)");
}

static void
test_refuse_windows(void **state)
{
	struct env *e = *state;
	char cause[512];

	env_gpu(e, "12.0.0", (struct fake_gpu){ .no_bar2 = true });
	snprintf(cause, sizeof(cause), "its windows cannot be mapped into the "
		 "process: BAR2: cannot open %s/sys/bus/pci/devices/" BUS
		 "/resource2: No such file or directory", e->root);
	expect(e, 0, -ENOENT, cause);
}

/* GC 9.4.3 with XCCs on more dies than AIDs the extended SMN address
 * names: refused after every check, nothing written. */
static void
test_not_built_9_4_3_xccs(void **state)
{
	struct env *e = *state;

	eight_dies(e, (struct fake_gpu){ .iommu_group = 14 });
	expect(e, 0, -ENOTSUP, XCCS_NOT_BUILT(BUS));
	/* Nothing was written: driver_override and reset are as they were. */
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS
				      "/driver_override"), "(null)\n");
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/reset"), "");
}


/* GC 9.4.3 (one XCC), 11's and 12's full boot is built: on a fake GPU no firmware answers, so it
 * stops at the PSP's bootloader, after its first writes, the GPU lost. */
static void
full_boot_stops(void **state, const char *gc)
{
	struct env *e = *state;

	env_gpu(e, gc, (struct fake_gpu){ .iommu_group = 14 });
	expect(e, 0, -ETIMEDOUT, "PSP: bootloader not ready after 1000 ms (C2PMSG_35 "
	       "= 0x0); the GPU is lost: its next open resets it and boots it in full");
}

static void test_full_boot_9_4_3_stops(void **s) { full_boot_stops(s, "9.4.3"); }

/* 8 XCCs on one die: built, so it stops at the bootloader as one XCC does. */
static void
test_full_boot_9_4_3_8_xccs_stops(void **state)
{
	struct env *e = *state;

	mi300x_dies(e, (struct fake_gpu){ .iommu_group = 14 }, 1);
	expect(e, 0, -ETIMEDOUT, "PSP: bootloader not ready after 1000 ms (C2PMSG_35 "
	       "= 0x0); the GPU is lost: its next open resets it and boots it in full");
}

/* 8 XCCs on 4 dies (MI300X's AIDs): built too (shub_slv_mode through the
 * PCIE_INDEX2 window), so it stops at the bootloader likewise. */
static void
test_full_boot_9_4_3_4_aids_stops(void **state)
{
	struct env *e = *state;

	mi300x(e, (struct fake_gpu){ .iommu_group = 14 });
	expect(e, 0, -ETIMEDOUT, "PSP: bootloader not ready after 1000 ms (C2PMSG_35 "
	       "= 0x0); the GPU is lost: its next open resets it and boots it in full");
}
static void test_full_boot_11_0_0_stops(void **s) { full_boot_stops(s, "11.0.0"); }
static void test_full_boot_11_0_2_stops(void **s) { full_boot_stops(s, "11.0.2"); }
static void test_full_boot_12_0_0_stops(void **s) { full_boot_stops(s, "12.0.0"); }
static void test_full_boot_12_0_1_stops(void **s) { full_boot_stops(s, "12.0.1"); }

static void
test_second_gpu_named(void **state)
{
	struct env *e = *state;

	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	env_gpu(e, "12.0.1", (struct fake_gpu){ .bus = "0000:83:00.0", .driver = "amdgpu" });
	expect(e, 1, -EBUSY, "amdgpu is bound to it (0000:83:00.0); `rig detach 1` "
	       "takes it from amdgpu");
}

/* ---- Threads ---------------------------------------------------------------- */

struct racer {
	struct env *e;
	pthread_barrier_t *start;
	int refused_right;
};

static void *
race(void *arg)
{
	struct racer *r = arg;
	_Alignas(8) _Atomic uint64_t word = 0;
	struct rig_opener *o;
	char why[600];
	void *h = NULL;

	if (rig_amd_pci_gpu(r->e->m, r->e->fw, 0, &o) < 0)
		return NULL;
	pthread_barrier_wait(r->start);
	for (int k = 0; k < 4; k++)
		r->refused_right += o->make(o, &word, &h, why, sizeof(why)) == -ENOTSUP &&
				    strstr(why, "is not built yet") &&
				    strstr(rig_why(), "is not built yet");
	rig_amd_pci_opener_free(o);
	return NULL;
}

/* Opens run one at a time: four threads opening the same GPU each get the
 * refusal that follows every check, none finds the function taken. */
static void
test_opens_one_at_a_time(void **state)
{
	struct env *e = *state;
	pthread_barrier_t start;
	struct racer r[4];
	pthread_t t[4];

	eight_dies(e, (struct fake_gpu){ 0 });
	pthread_barrier_init(&start, NULL, 4);
	for (int k = 0; k < 4; k++) {
		r[k] = (struct racer){ .e = e, .start = &start };
		assert_int_equal(pthread_create(&t[k], NULL, race, &r[k]), 0);
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(t[k], NULL);
		assert_int_equal(r[k].refused_right, 4);
	}
	pthread_barrier_destroy(&start);
	assert_string_equal(fake_read(e->root, "sys/bus/pci/devices/" BUS "/enable"), "0");
}

#define T(f) cmocka_unit_test_setup_teardown(f, env_setup, env_teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_negative),
		cmocka_unit_test(test_gpu_null_out),
		cmocka_unit_test(test_gpu_too_many_dirs),
		cmocka_unit_test(test_gpu_long_dir),
		cmocka_unit_test(test_names),
		T(test_rig_open_not_built),
		T(test_rig_open_refused),
		T(test_refuse_unlistable),
		T(test_refuse_unlistable_file),
		T(test_refuse_no_gpu),
		T(test_refuse_held_here),
		T(test_refuse_held_elsewhere),
		T(test_refuse_held_by_own_file),
		T(test_refuse_held_render_node),
		T(test_refuse_amdgpu_bound),
		T(test_refuse_amdgpu_kfd),
		T(test_refuse_amdgpu_ip_discovery),
		T(test_refuse_take_other_driver),
		T(test_refuse_take_enable),
		T(test_refuse_table_unreadable),
		T(test_refuse_table_no_memory),
		T(test_refuse_table_placed_oddly),
		T(test_refuse_table_small_register_bar),
		T(test_refuse_table_malformed),
		T(test_refuse_table_lacks_block),
		T(test_refuse_gc_version),
		T(test_refuse_block_version),
		T(test_refuse_mmhub_without_table),
		T(test_refuse_gc_9_5_0),
		T(test_refuse_image_missing),
		T(test_refuse_image_other_digest),
		T(test_search_first_dir_wins),
		T(test_refuse_fabric_running),
		T(test_fabric_stopped_passes),
		T(test_refuse_nbio_7_9_six_bases),
		T(test_refuse_memory_whole),
		T(test_refuse_windows),
		T(test_not_built_9_4_3_xccs),
		T(test_full_boot_9_4_3_stops),
		T(test_full_boot_9_4_3_8_xccs_stops),
		T(test_full_boot_9_4_3_4_aids_stops),
		T(test_full_boot_11_0_0_stops),
		T(test_full_boot_11_0_2_stops),
		T(test_full_boot_12_0_0_stops),
		T(test_full_boot_12_0_1_stops),
		T(test_second_gpu_named),
		T(test_opens_one_at_a_time),
	};

	firmware_dir = getenv("RIG_TEST_FIRMWARE");
	if (!firmware_dir || !firmware_dir[0]) {	/* a TAP skip of every test, saying why */
		printf("1..0 # SKIP RIG_TEST_FIRMWARE (the real images) is not set\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
