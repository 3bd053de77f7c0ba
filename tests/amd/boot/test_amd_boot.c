/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/boot/test_amd_boot.c: the full boot (src/amd/boot/) on the
 * software GPU, opened as a program opens it (rig_open of the opener on
 * the sim's machine, the real images at RIG_TEST_FIRMWARE). A GPU no
 * clean session left (the sim's firmware running without rig's mark) is
 * reset and booted in full, runs a launch and a copy checked bytewise,
 * and opens again in part after a clean close. Each firmware step's
 * failure, injected in the sim, is refused with its step's message and
 * leaves the GPU lost; missing or changed images are refused before any
 * register write; a MEC that never starts fails the GFX step. GC 9.4.3
 * boots in full with 1, 2, 4 and 8 XCCs, every XCC set up as the sim
 * checks, and NBIO 7.9 with them (the BIFC pair and every AID's SDMA
 * doorbell routing, amd_sim_nbio_check); without AID 0's routing its SDMA
 * copy never runs. A write that fails on XCC n names XCC n. Its refusal of
 * XCCs on several dies is test_amd_open's (a fake GPU's table).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dev/sim_dev.h"
#include "amd/sim/priv.h"

#define LOST "; the GPU is lost: its next open resets it and boots it in full"

/* A sim of gc with its firmware running but no rig mark (as amdgpu left
 * it), and its opener, searching fw (default: RIG_TEST_FIRMWARE). */
static void
up_aids(struct sim_dev *f, const char *gc, const char *fw, unsigned xccs, unsigned aids)
{
	struct amd_sim_opts o = { .gc = gc, .mark = 0, .xccs = xccs, .aids = aids };

	memset(f, 0, sizeof(*f));
	fake_root(f->root);
	o.root = f->root;
	o.firmware = getenv("RIG_TEST_FIRMWARE");
	if (amd_sim_create(&o, &f->sim) < 0)
		fail_msg("sim: %s", rig_why());
	f->fw[0] = fw ? fw : getenv("RIG_TEST_FIRMWARE");
	assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(f->sim), f->fw, 0, &f->o), 0);
}

static void
up_xccs(struct sim_dev *f, const char *gc, const char *fw, unsigned xccs)
{
	up_aids(f, gc, fw, xccs, 0);
}

static void
up(struct sim_dev *f, const char *gc, const char *fw)
{
	up_xccs(f, gc, fw, 0);
}

static void
open_ok(struct sim_dev *f)
{
	if (rig_open(f->o, &f->d) < 0)
		fail_msg("open: %s", rig_why());
}

/* The open fails with code, its message "AMD-PCI: " + want. */
static void
open_fails(struct sim_dev *f, int code, const char *want)
{
	char full[1024];

	snprintf(full, sizeof(full), "AMD-PCI: %s", want);
	assert_int_equal(rig_open(f->o, &f->d), code);
	f->d = NULL;
	if (!strstr(rig_why(), full))
		fail_msg("the refusal: %s\nwanted: %s", rig_why(), full);
}

static void
close_dev(struct sim_dev *f)
{
	assert_int_equal(rig_close(f->d), 0);
	rig_device_release(f->d);
	f->d = NULL;
}

/* NBIO 7.9 set up as linux's nbio_v7_9.c sets it up: the segment-8
 * BIFC pair and every AID's SDMA doorbell routing (amd_sim_nbio_check). */
static void
nbio_set_up(struct sim_dev *f)
{
	char why[300];

	if (amd_sim_nbio_check(f->sim, why, sizeof(why)) < 0)
		fail_msg("NBIO 7.9: %s", why);
}

/* GC 12.0.1 (the R9700) and 12.0.0 load 13 pieces: SMU, SDMA TH0, PFP, ME
 * and MEC (instructions and stack each), IMU_I and IMU_D, RLC IRAM, DRAM
 * and G. GC 11.0.0 and 11.0.2, 12: SMU, SDMA TH1 and TH0, MEC's two, IMU's
 * two, RLC IRAM, DRAM, P, V and G. */
static void
full_then_partial(const char *gc, uint64_t pieces)
{
	struct sim_dev f;
	bool autoloaded = false;

	up(&f, gc, NULL);
	open_ok(&f);
	assert_int_equal(amd_sim_psp_loads(f.sim, &autoloaded), pieces);
	assert_true(autoloaded);
	if (!strcmp(gc, "9.4.3"))
		nbio_set_up(&f);
	sim_copy_work(&f, 0);
	close_dev(&f);
	/* Marked clean: the next open boots in part, loading nothing. */
	open_ok(&f);
	assert_int_equal(amd_sim_psp_loads(f.sim, NULL), pieces);
	if (!strcmp(gc, "9.4.3"))
		nbio_set_up(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

/*
 * GC 9.4.3 whose SDMA doorbell routing is gone (AID 0's
 * DOORBELL0_CTRL_ENTRY_1 cleared in the sim after the boot wrote it, as a
 * boot that left it out would leave it): the copy's doorbell never reaches
 * the engine, so the copy makes no progress and the device is lost; the
 * sim's check names the entry. With the routing (test_full_boot_9_4_3) the
 * same copy runs.
 */
static void
test_sdma_unrouted_9_4_3(void **state)
{
	struct rig_buffer *a, *b;
	struct rig_point p;
	struct sim_dev f;
	char why[300];

	(void)state;
	up(&f, "9.4.3", NULL);
	open_ok(&f);
	nbio_set_up(&f);
	assert_int_equal(amd_sim_reg_write(f.sim, f.sim->lay.db_ctrl_entry0 + 1, 0), 0);
	assert_int_equal(amd_sim_nbio_check(f.sim, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "AID 0 SDMA instance 0: DOORBELL0_CTRL_ENTRY_1"));
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(f.d, 4096, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_true(rig_wait(p, 60 * SIM_SECOND) < 0);
	if (!strstr(rig_why(), "no progress"))
		fail_msg("the copy's end: %s", rig_why());
	rig_buffer_release(a);
	rig_buffer_release(b);
	sim_dev_close(&f);
}

static void test_full_boot_12_0_1(void **s) { (void)s; full_then_partial("12.0.1", 13); }
static void test_full_boot_12_0_0(void **s) { (void)s; full_then_partial("12.0.0", 13); }
static void test_full_boot_11_0_0(void **s) { (void)s; full_then_partial("11.0.0", 12); }
static void test_full_boot_11_0_2(void **s) { (void)s; full_then_partial("11.0.2", 12); }
/* GC 9.4.3 (its firmware running: reset by GfxDriverReset first) loads 12
 * pieces after SETUP_TMR: P2S table, SDMA0..3, CP_MEC and its jump table,
 * the RLC's three lists and RLC_G, and REG_LIST, which starts its RLC. */
static void test_full_boot_9_4_3(void **s) { (void)s; full_then_partial("9.4.3", 12); }

/* GC 9.4.3 from power-on: its bootloader takes the sOS's primary set. */
static void
test_full_boot_9_4_3_from_power_on(void **state)
{
	struct sim_dev f;
	bool autoloaded = false;

	(void)state;
	up(&f, "9.4.3", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	open_ok(&f);
	assert_int_equal(amd_sim_psp_loads(f.sim, &autoloaded), 12);
	assert_true(autoloaded);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

/* Every XCC of the sim set up as amd-facts says (amd_sim_xcc_check), and
 * NBIO 7.9 with it. */
static void
xccs_set_up(struct sim_dev *f, unsigned n)
{
	char why[300];

	nbio_set_up(f);

	for (unsigned x = 0; x < n; x++)
		if (amd_sim_xcc_check(f->sim, x, why, sizeof(why)) < 0)
			fail_msg("XCC %u of %u: %s", x, n, why);
}

/*
 * GC 9.4.3 with n XCCs: booted in full, each XCC's GC hub, golden and
 * per-XCC registers, doorbell range and MEC set up and the sOS asked for
 * one partition; work runs on XCC 0; after a clean close it opens in
 * part, loading nothing, and runs work again.
 */
static void
full_boot_aids(unsigned n, unsigned aids)
{
	struct sim_dev f;
	bool autoloaded = false;
	char why[300];

	up_aids(&f, "9.4.3", NULL, n, aids);
	/* Before the boot no XCC past 0 is set up, nor NBIO: the checks see it. */
	assert_int_equal(amd_sim_xcc_check(f.sim, n - 1, why, sizeof(why)), -EPROTO);
	assert_int_equal(amd_sim_nbio_check(f.sim, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "BIFC_GFX_INT_MONITOR_MASK"));
	open_ok(&f);
	assert_int_equal(amd_sim_psp_loads(f.sim, &autoloaded), 12);
	assert_true(autoloaded);
	xccs_set_up(&f, n);
	sim_copy_work(&f, 0);
	close_dev(&f);
	open_ok(&f);
	assert_int_equal(amd_sim_psp_loads(f.sim, NULL), 12);
	xccs_set_up(&f, n);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void
full_boot_xccs(unsigned n)
{
	full_boot_aids(n, 0);
}

static void test_full_boot_9_4_3_2_xccs(void **s) { (void)s; full_boot_xccs(2); }

/* XCCs on several AIDs (MI300X's 8 on 4, and 2 on 2): each XCC's AID but
 * AID 0 has its NBIO in slave mode, written through the PCIE_INDEX2
 * window, and the rest as on one die (xccs_set_up's amd_sim_xcc_check). */
static void
test_full_boot_9_4_3_8_xccs_4_aids(void **s)
{
	(void)s;
	full_boot_aids(8, 4);
}

static void
test_full_boot_9_4_3_2_xccs_2_aids(void **s)
{
	(void)s;
	full_boot_aids(2, 2);
}

static void test_full_boot_9_4_3_4_xccs(void **s) { (void)s; full_boot_xccs(4); }
static void test_full_boot_9_4_3_8_xccs(void **s) { (void)s; full_boot_xccs(8); }

/*
 * A step that fails on XCC x (the sim's writes to its GC registers fail):
 * the boot's message names the unit, the XCC and the register, and the
 * GPU is lost; cleared, the next open resets it, boots it in full with
 * every XCC set up, and runs work.
 */
static void
xcc_write_fails(unsigned n, unsigned x)
{
	struct sim_dev f;
	char want[300];

	up_xccs(&f, "9.4.3", NULL, n);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_XCC_WRITES_FAIL, x, true), 0);
	snprintf(want, sizeof(want), "GFX: XCC %u: writing "
		 "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32: ", x);
	open_fails(&f, -EIO, want);
	if (!strstr(rig_why(), "the sim's injected fault: XCC") || !strstr(rig_why(), LOST))
		fail_msg("the refusal: %s", rig_why());
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_XCC_WRITES_FAIL, x, false), 0);
	open_ok(&f);
	xccs_set_up(&f, n);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void test_xcc_1_write_fails(void **s) { (void)s; xcc_write_fails(2, 1); }
static void test_xcc_3_write_fails(void **s) { (void)s; xcc_write_fails(4, 3); }

/* The fault names only XCCs past 0 the sim has. */
static void
test_xcc_fault_refused(void **state)
{
	struct sim_dev f;
	char why[300];

	(void)state;
	up_xccs(&f, "9.4.3", NULL, 2);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_XCC_WRITES_FAIL, 0, true), -EINVAL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_XCC_WRITES_FAIL, 2, true), -EINVAL);
	assert_int_equal(amd_sim_xcc_check(f.sim, 2, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(rig_why(), "XCC 2: the sim's GC 9.4.3 has 2 XCCs to check"));
	sim_dev_close(&f);
}

/*
 * An SMU that does not answer on a GPU whose sOS runs (as a process killed
 * between its sOS's start and the load of the SMU's firmware leaves it):
 * the mode-1 reset goes through the sOS (GFX_CTRL_CMD_ID_MODE1_RST), and
 * the full boot runs; here the SMU stays silent after the load too, so the
 * boot stops at its SMU step, and once it answers again the next open
 * resets the GPU and boots it.
 */
static void
smu_silent_reset_through_sos(const char *gc)
{
	struct sim_dev f;
	uint64_t before;

	up(&f, gc, NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	before = amd_sim_psp_loads(f.sim, NULL);
	open_fails(&f, -ETIMEDOUT, "SMU: no answer to GetSmuVersion after 1000 ms "
		   "(C2PMSG_90 = 0x0)" LOST);
	assert_true(amd_sim_psp_loads(f.sim, NULL) > before);	/* reset, then loaded */
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, false), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void
test_smu_silent_reset_through_sos(void **state)
{
	(void)state;
	smu_silent_reset_through_sos("12.0.1");
	smu_silent_reset_through_sos("11.0.0");
}

/* MP1 13.0.6 silent: GC 9.4.3 is reset through its sOS too. */
static void
test_smu_silent_reset_through_sos_9_4_3(void **state)
{
	(void)state;
	smu_silent_reset_through_sos("9.4.3");
}

/* The reset's message where the SMU is silent and the sOS's reset fails. */
#define SOS_MODE1_FAILED "RESET: its sOS runs (C2PMSG_81 = 0x1) but its SMU does " \
	"not answer (SMU: no answer to GetSmuVersion after 100 ms (C2PMSG_90 = " \
	"0x0)), and the mode-1 reset through the sOS failed: "

/* Both silent: the reset's message names both, the GPU is lost. */
static void
test_smu_and_sos_mode1_silent(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SOS_MODE1_SILENT, 0, true), 0);
	open_fails(&f, -ETIMEDOUT, SOS_MODE1_FAILED "RESET: the sOS's mode-1 reset "
		   "not done after 1000 ms (C2PMSG_33 = 0x0)" LOST);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SOS_MODE1_SILENT, 0, false), 0);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, false), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

/* An sOS whose last command failed (C2PMSG_64's status not 0) is not
 * ready for the mode-1 command: the wait names it. */
static void
test_sos_not_ready_for_mode1(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	/* An unknown command in C2PMSG_64: the sim refuses it, status 1. */
	assert_int_equal(amd_sim_reg_write(f.sim, f.sim->lay.c2pmsg_81 - 81 + 64,
					   0x12340000u), 0);
	open_fails(&f, -ETIMEDOUT, SOS_MODE1_FAILED "RESET: sOS not ready for the "
		   "mode-1 command after 1000 ms (C2PMSG_64 = 0x80000001)" LOST);
	sim_dev_close(&f);
}

/* A GPU no firmware runs on (power-on): booted from its bootloader, no reset. */
static void
test_full_boot_from_power_on(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void
test_bootloader_never_ready(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_BOOTLOADER_NEVER_READY, 0, true), 0);
	open_fails(&f, -ETIMEDOUT, "PSP: bootloader not ready after 1000 ms "
		   "(C2PMSG_35 = 0x0)" LOST);
	/* Lost: the next open boots in full again (no sOS: no reset), and only
	 * a power cycle brings the bootloader back. */
	open_fails(&f, -ETIMEDOUT, "PSP: bootloader not ready after 1000 ms");
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_BOOTLOADER_NEVER_READY, 0, false), 0);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

/* A LOAD_IP_FW of type refused on gc: the step names it, the GPU is lost;
 * the sOS runs, so the next open resets it (mode 1) and boots it. */
static void
load_refused(const char *gc, uint32_t type, const char *want)
{
	struct sim_dev f;

	up(&f, gc, NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_PSP_REFUSES_TYPE, type, true), 0);
	open_fails(&f, -EPROTO, want);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_PSP_REFUSES_TYPE, 0, false), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void
test_load_ip_fw_refused(void **state)
{
	(void)state;
	load_refused("12.0.1", 89, "PSP: LOAD_IP_FW of gc_12_0_1_mec.bin's RS64 "
		     "instructions (type 89) refused (status 0xffff000f)" LOST);
}

/* GC 9.4.3's REG_LIST refused; its next open resets it by GfxDriverReset. */
static void
test_reg_list_refused(void **state)
{
	(void)state;
	load_refused("9.4.3", 67, "PSP: LOAD_IP_FW of psp_13_0_6_sos.bin's PSP_RL as "
		     "REG_LIST (type 67) refused (status 0xffff000f)" LOST);
}

static void
test_smu_silent_after_load(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_POWER_CYCLE, 0, true), 0);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SMU_SILENT, 0, true), 0);
	open_fails(&f, -ETIMEDOUT, "SMU: no answer to GetSmuVersion after 1000 ms "
		   "(C2PMSG_90 = 0x0)" LOST);
	sim_dev_close(&f);
}

static void
test_firmware_survives_reset(void **state)
{
	struct sim_dev f;

	(void)state;
	up(&f, "12.0.1", NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_SOS_SURVIVES_RESET, 0, true), 0);
	open_fails(&f, -EIO, "RESET: firmware rig did not start still runs after "
		   "the mode-1 reset (C2PMSG_81 = 0x1)" LOST);
	sim_dev_close(&f);
}

/* A MEC that never starts (the sim ignores the writes that would start
 * it, as a driver that never un-halts it would leave it): the boot's
 * GFX step finds compute queue 0 ran nothing and names the step; the
 * NOP it put there is still unread, and the GPU is lost. Cleared, the
 * next open resets it, boots it in full and runs work. */
static void
mec_never_starts(const char *gc)
{
	struct sim_dev f;

	up(&f, gc, NULL);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_MEC_STAYS_HALTED, 0, true), 0);
	open_fails(&f, -ETIMEDOUT, "GFX: MEC not running: compute queue 0 read no "
		   "packet after 1000 ms (the fence at VRAM 0x580000 = 0x0, not 0x1)" LOST);
	assert_int_equal(amd_sim_idle(f.sim, 10000000000ull), 0);
	assert_int_equal(atomic_load((_Atomic uint32_t *)((uint8_t *)amd_sim_vram(f.sim) +
							  0x580000)), 0);
	assert_int_equal(amd_sim_inject(f.sim, AMD_SIM_MEC_STAYS_HALTED, 0, false), 0);
	open_ok(&f);
	sim_copy_work(&f, 0);
	sim_dev_close(&f);
}

static void test_mec_never_starts_12_0_1(void **s) { (void)s; mec_never_starts("12.0.1"); }
static void test_mec_never_starts_12_0_0(void **s) { (void)s; mec_never_starts("12.0.0"); }
static void test_mec_never_starts_11_0_0(void **s) { (void)s; mec_never_starts("11.0.0"); }
static void test_mec_never_starts_11_0_2(void **s) { (void)s; mec_never_starts("11.0.2"); }
static void test_mec_never_starts_9_4_3(void **s) { (void)s; mec_never_starts("9.4.3"); }

/* ---- refusals before any write ------------------------------------------ */

static void
copy_file(const char *from, const char *to, long flip)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	int ch;
	long at = 0;

	assert_non_null(in);
	assert_non_null(out);
	while ((ch = fgetc(in)) != EOF)
		fputc(at++ == flip ? ch ^ 0xFF : ch, out);
	fclose(in);
	fclose(out);
}

/* The pinned images of GC 12.0.1 into dir, smu_14_0_3.bin's byte flip
 * changed (-1: none), skipping skip (NULL: none). */
static void
images_into(const char *dir, long flip, const char *skip)
{
	static const char *const names[] = {
		"psp_14_0_3_sos.bin", "smu_14_0_3.bin", "sdma_7_0_1.bin",
		"gc_12_0_1_pfp.bin", "gc_12_0_1_me.bin", "gc_12_0_1_mec.bin",
		"gc_12_0_1_imu.bin", "gc_12_0_1_rlc.bin",
	};
	char from[600], to[600];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (skip && !strcmp(skip, names[i]))
			continue;
		snprintf(from, sizeof(from), "%s/%s", getenv("RIG_TEST_FIRMWARE"), names[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, names[i]);
		copy_file(from, to, strcmp(names[i], "smu_14_0_3.bin") ? -1 : flip);
	}
}

static void
refused_without_writes(long flip, const char *skip, const char *want)
{
	struct sim_dev f;
	char dir[300], rigdir[300];
	uint64_t writes;

	memset(&f, 0, sizeof(f));
	fake_root(dir);
	fake_root(rigdir);
	/* Only dir holds images: rig's own directory is empty. */
	setenv("RIG_FIRMWARE_DIR", rigdir, 1);
	images_into(dir, flip, skip);
	up(&f, "12.0.1", dir);
	writes = amd_sim_reg_writes(f.sim);
	open_fails(&f, -ENOENT, want);
	assert_int_equal(amd_sim_reg_writes(f.sim), writes);
	sim_dev_close(&f);
	fake_remove(dir);
	fake_remove(rigdir);
	unsetenv("RIG_FIRMWARE_DIR");
}

static void
test_changed_image_refused_before_any_write(void **state)
{
	(void)state;
	refused_without_writes(0x4000, NULL, "smu_14_0_3.bin");
}

static void
test_missing_image_refused_before_any_write(void **state)
{
	(void)state;
	refused_without_writes(-1, "gc_12_0_1_imu.bin", "gc_12_0_1_imu.bin");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_boot_12_0_1),
		cmocka_unit_test(test_full_boot_12_0_0),
		cmocka_unit_test(test_full_boot_11_0_0),
		cmocka_unit_test(test_full_boot_11_0_2),
		cmocka_unit_test(test_full_boot_9_4_3),
		cmocka_unit_test(test_full_boot_9_4_3_from_power_on),
		cmocka_unit_test(test_full_boot_9_4_3_2_xccs),
		cmocka_unit_test(test_full_boot_9_4_3_4_xccs),
		cmocka_unit_test(test_full_boot_9_4_3_8_xccs),
		cmocka_unit_test(test_full_boot_9_4_3_8_xccs_4_aids),
		cmocka_unit_test(test_full_boot_9_4_3_2_xccs_2_aids),
		cmocka_unit_test(test_sdma_unrouted_9_4_3),
		cmocka_unit_test(test_xcc_1_write_fails),
		cmocka_unit_test(test_xcc_3_write_fails),
		cmocka_unit_test(test_xcc_fault_refused),
		cmocka_unit_test(test_reg_list_refused),
		cmocka_unit_test(test_smu_silent_reset_through_sos_9_4_3),
		cmocka_unit_test(test_full_boot_from_power_on),
		cmocka_unit_test(test_bootloader_never_ready),
		cmocka_unit_test(test_load_ip_fw_refused),
		cmocka_unit_test(test_smu_silent_reset_through_sos),
		cmocka_unit_test(test_smu_and_sos_mode1_silent),
		cmocka_unit_test(test_sos_not_ready_for_mode1),
		cmocka_unit_test(test_smu_silent_after_load),
		cmocka_unit_test(test_firmware_survives_reset),
		cmocka_unit_test(test_mec_never_starts_12_0_1),
		cmocka_unit_test(test_mec_never_starts_12_0_0),
		cmocka_unit_test(test_mec_never_starts_11_0_0),
		cmocka_unit_test(test_mec_never_starts_11_0_2),
		cmocka_unit_test(test_mec_never_starts_9_4_3),
		cmocka_unit_test(test_changed_image_refused_before_any_write),
		cmocka_unit_test(test_missing_image_refused_before_any_write),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the boot needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
