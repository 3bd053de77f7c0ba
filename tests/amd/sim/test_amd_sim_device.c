/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_device: the sim as a machine shows it. Its PCI function,
 * discovery table and VRAM read through the front half's own code as a
 * real GPU's do; its registers resolve to amd-facts §3.13's indices; it
 * starts as a GPU a clean session left; its sysfs tree changes state under
 * rig's detach, attach and reset as the kernel's does; each bad call is
 * refused with a message naming the function, changing nothing.
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
#include <unistd.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/amd.h"
#include "amd/discovery/discovery.h"
#include "amd/discovery/read.h"
#include "gpu.h"
#include "../fake.h"

static const char *const gcs[] = { "9.4.3", "11.0.0", "11.0.2", "12.0.0", "12.0.1" };

static void
test_create_refusals(void **state)
{
	struct amd_sim_opts o = { .gc = "11.0.0", .root = "/tmp" };
	struct amd_sim *s = (struct amd_sim *)0x1;

	(void)state;
	assert_int_equal(amd_sim_create(NULL, &s), -EINVAL);
	assert_string_equal(rig_why(), "amd_sim_create: opts, its gc or its root is NULL");
	o.gc = "10.3.0";
	assert_int_equal(amd_sim_create(&o, &s), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_create: GC 10.3.0 is not one"));
	o.gc = "11.0.0";
	o.root = "relative";
	assert_int_equal(amd_sim_create(&o, &s), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_create: root \"relative\""));
	o.root = "/tmp";
	o.vram_bytes = 100 << 20;
	assert_int_equal(amd_sim_create(&o, &s), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_create: vram_bytes"));
	o.vram_bytes = 0;
	o.bus = "03:00.0";
	assert_int_equal(amd_sim_create(&o, &s), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_create: bus \"03:00.0\""));
	assert_int_equal(amd_sim_create(&o, NULL), -EINVAL);
	assert_ptr_equal(s, (struct amd_sim *)0x1);	/* untouched */
}

/* The front half finds the GPU and reads its table as it reads a real one. */
static void
test_discovery_reads_as_real(void **state)
{
	static struct amd_discovery t;

	(void)state;
	for (size_t k = 0; k < sizeof(gcs) / sizeof(gcs[0]); k++) {
		const struct rig_pci_machine *m;
		const struct amd_block *b;
		struct pci_function *fs;
		struct gpu g;
		uint8_t *bytes;
		uint64_t vram;
		size_t n, len;
		char want[16];

		gpu_open(&g, gcs[k]);
		m = amd_sim_machine(g.sim);
		assert_int_equal(pci_amd_gpus(m, &fs, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(fs[0].bus, "0000:03:00.0");
		assert_int_equal(fs[0].vendor, 0x1002);
		if (amd_discovery_read(m, &fs[0], &bytes, &len, &vram))
			fail_msg("%s", rig_why());
		assert_int_equal(vram, 1ull << 30);
		assert_int_equal(amd_discovery_parse(bytes, len, &t), 0);
		b = amd_discovery_block(&t, GC_HWID);
		assert_non_null(b);
		snprintf(want, sizeof(want), "%u.%u.%u", b->major, b->minor, b->revision);
		assert_string_equal(want, gcs[k]);
		assert_non_null(amd_discovery_block(&t, SDMA0_HWID));
		assert_non_null(amd_discovery_block(&t, MP0_HWID));
		free(bytes);
		free(fs);
		gpu_close(&g);
	}
}

/* §3.13's absolute indices (GC 11.0.0 offsets + Navi bases). */
static void
test_register_indices_gc11(void **state)
{
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	assert_int_equal(g.sim->lay.scratch7, 0xc047);
	assert_int_equal(g.sim->lay.scratch6, 0xc046);
	assert_int_equal(g.sim->lay.grbm_gfx_cntl, 0xa900);
	assert_int_equal(g.sim->lay.cp_stat, 0x21a0);
	assert_int_equal(g.sim->lay.hqd, 0x3209);
	assert_int_equal(g.sim->lay.sdma_q0, 0x12e0);
	assert_int_equal(g.sim->lay.vm_cntl, 0x28e8);
	assert_int_equal(g.sim->lay.ih, 0x1120);
	assert_int_equal(g.sim->lay.fb_base, 0x1a8ec);
	assert_int_equal(g.sim->lay.c2pmsg_81, 0x16091);
	gpu_close(&g);
}

/* A register past BAR5 through the RSMU index/data pair (§0.3). */
static uint32_t
far_read(struct gpu *g, uint32_t index)
{
	if (index < SIM_REGS)
		return gpu_rreg(g, index);
	gpu_wreg(g, gpu_reg(g, AMD_REG_NBIF_BIF_BX_PF0_RSMU_INDEX), index * 4);
	return gpu_rreg(g, gpu_reg(g, AMD_REG_NBIF_BIF_BX_PF0_RSMU_DATA));
}

/* §3.1: what a partial boot reads of a GPU a clean session left. */
static void
test_clean_session(void **state)
{
	uint16_t command;
	struct gpu g;

	(void)state;
	for (size_t k = 0; k < sizeof(gcs) / sizeof(gcs[0]); k++) {
		gpu_open(&g, gcs[k]);
		assert_int_equal(gpu_rreg(&g, g.sim->lay.scratch7), 0xA0000008);
		assert_int_equal(gpu_rreg(&g, g.sim->lay.scratch6), 0);
		assert_int_not_equal(gpu_rreg(&g, g.sim->lay.c2pmsg_81), 0);
		assert_int_not_equal(far_read(&g, gpu_reg(&g, AMD_REG_MP1_C2PMSG_90)), 0);
		assert_int_equal(far_read(&g, gpu_reg(&g, AMD_REG_MMHUB_MMMC_VM_FB_LOCATION_TOP)),
				 ((1u << 30) - 1) >> 24);
		assert_int_equal(gpu_rreg(&g, g.sim->lay.cp_stat), 0);
		if (g.sim->lay.rlc_bootload)
			assert_true(gpu_rreg(&g, g.sim->lay.rlc_bootload) >> 31);
		if (g.sim->lay.vm_fault_status)
			assert_int_equal(gpu_rreg(&g, g.sim->lay.vm_fault_status), 0);
		assert_int_equal(gpu_rreg(&g, 0xde3), 1024);	/* RCC_CONFIG_MEMSIZE */
		assert_int_equal(amd_sim_config_read(g.sim, 4, &command, 2), 0);
		assert_true(command & 4);			/* bus master */
		gpu_close(&g);
	}
}

static const char *
dev_file(struct gpu *g, const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/0000:03:00.0/%s", name);
	return fake_read(g->root, rel);
}

static bool
linked(struct gpu *g, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/0000:03:00.0/%s", g->root, name);
	return access(p, F_OK) == 0;
}

/* rig's attach, detach and reset change the tree as sysfs would. */
static void
test_attach_detach_reset(void **state)
{
	enum rig_pci_progress p = 0;
	const struct rig_pci_machine *m;
	struct gpu g;

	(void)state;
	amd_driver_wait_ms = 200;
	gpu_open(&g, "12.0.1");
	m = amd_sim_machine(g.sim);
	assert_false(linked(&g, "driver"));
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "resource0_resize", "8"), 0);
	assert_non_null(strstr(dev_file(&g, "resource"),
			       "0x0000007000000000 0x000000700fffffff"));
	/* The reset attach starts with reads the discovery table through
	 * BAR0, which no longer reaches it: refused, nothing bound. */
	assert_int_equal(rig_amd_pci_attach(m, 0), -EPROTO);
	assert_non_null(strstr(rig_why(), "the memory BAR (256 MiB) does not reach "
			       "the table at 0x3fff0000"));
	assert_false(linked(&g, "driver"));
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "resource0_resize", "10"), 0);
	assert_int_equal(rig_amd_pci_attach(m, 0), 0);
	assert_true(linked(&g, "driver"));
	assert_true(linked(&g, "ip_discovery"));
	assert_string_equal(dev_file(&g, "driver_override"), "(null)\n");
	/* attach reset it first: its firmware no longer runs, no mark */
	assert_int_equal(gpu_rreg(&g, g.sim->lay.scratch7), 0);
	assert_int_equal(gpu_rreg(&g, g.sim->lay.c2pmsg_81), 0);
	assert_int_equal(gpu_rreg(&g, 0xde3), 1024);
	assert_int_equal(rig_amd_pci_reset(m, 0), -EBUSY);	/* amdgpu has it */
	assert_int_equal(rig_amd_pci_detach(m, 0, &p), 0);
	assert_int_equal(p, RIG_PCI_DETACHED);
	assert_false(linked(&g, "driver"));
	assert_false(linked(&g, "ip_discovery"));
	assert_string_equal(dev_file(&g, "driver_override"), "none\n");
	/* BAR0 became as large as VRAM (1 GiB) */
	assert_non_null(strstr(dev_file(&g, "resource"),
			       "0x0000007000000000 0x000000703fffffff"));
	/* No OS runs on it (attach's mode 1): reset keeps its state but marks
	 * it dirty, so its next open boots in full. */
	gpu_wreg(&g, g.sim->lay.scratch7, 5);
	assert_int_equal(rig_amd_pci_reset(m, 0), 0);
	assert_int_equal(gpu_rreg(&g, g.sim->lay.scratch7), 5);
	assert_int_equal(gpu_rreg(&g, g.sim->lay.scratch6), 1);
	gpu_close(&g);
}

static void
test_tree_refusals(void **state)
{
	const struct rig_pci_machine *m;
	struct gpu g;
	const char *res;

	(void)state;
	gpu_open(&g, "11.0.0");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers/amdgpu/unbind",
					    "0000:03:00.0"), -ENODEV);
	assert_string_equal(rig_why(), "unbind_from: 0000:03:00.0 is not bound to amdgpu");
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers/amdgpu/bind",
					    "0000:09:00.0"), -ENODEV);
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "resource0_resize", "3"), -EINVAL);
	assert_non_null(strstr(rig_why(), "does not take size bit \"3\""));
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/reset",
					    "2"), -EINVAL);
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "driver_override", "x1234567890123456789012345678901"
					    "234567890123456789012345678901234567890"), -EINVAL);
	assert_string_equal(dev_file(&g, "driver_override"), "(null)\n");
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "driver_override", "vfio-pci"), 0);
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers/amdgpu/bind",
					    "0000:03:00.0"), -EINVAL);
	assert_non_null(strstr(rig_why(), "driver_override is vfio-pci, not amdgpu"));
	assert_false(linked(&g, "driver"));
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers_probe",
					    "0000:03:00.0"), 0);
	assert_true(linked(&g, "driver"));
	res = dev_file(&g, "resource");
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/drivers/vfio-pci/bind",
					    "0000:03:00.0"), -EBUSY);
	assert_int_equal(m->ops->file_write(m, "sys/bus/pci/devices/0000:03:00.0/"
					    "resource0_resize", "10"), -EBUSY);
	assert_string_equal(dev_file(&g, "resource"), res);	/* unchanged */
	gpu_close(&g);
}

static void
test_windows(void **state)
{
	const struct rig_pci_machine *m;
	struct pci_window w;
	uint32_t v[2];
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.2");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->window_map(m, "0000:03:00.0", AMD_BAR_VRAM, &w), 0);
	assert_int_equal(w.bytes, 1u << 30);
	((uint32_t *)w.addr)[100] = 0x5eed;
	assert_int_equal(((uint32_t *)amd_sim_vram(g.sim))[100], 0x5eed);
	m->ops->window_unmap(m, &w);
	assert_int_equal(m->ops->window_read(m, "0000:03:00.0", AMD_BAR_MMIO,
					     0xde3 * 4, v, 4), 0);
	assert_int_equal(v[0], 1024);
	assert_int_equal(m->ops->window_read(m, "0000:03:00.0", AMD_BAR_MMIO, 2, v, 4),
			 -EINVAL);
	assert_int_equal(m->ops->config_read(m, "0000:04:00.0", 0, v, 4), -ENODEV);
	assert_int_equal(m->ops->config_read(m, "0000:03:00.0", 0, v, 4), 0);
	assert_int_equal(v[0] & 0xffff, 0x1002);
	gpu_close(&g);
}

static void
test_call_refusals(void **state)
{
	uint32_t v = 7, cfg;
	uint64_t bus;
	void *p;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	assert_int_equal(amd_sim_reg_read(g.sim, SIM_REGS, &v), -EINVAL);
	assert_string_equal(rig_why(), "amd_sim_reg_read: register 0x20000 is past "
			    "BAR5 (0x20000 dwords)");
	assert_int_equal(v, 7);
	assert_int_equal(amd_sim_reg_write(g.sim, SIM_REGS, 1), -EINVAL);
	assert_int_equal(amd_sim_reg_read(NULL, 0, &v), -EINVAL);
	assert_int_equal(amd_sim_doorbell(g.sim, 4, 1), -EINVAL);
	assert_non_null(strstr(rig_why(), "amd_sim_doorbell: doorbell 0x4"));
	assert_int_equal(amd_sim_config_write(g.sim, 0, &v, 2), -EINVAL);
	assert_string_equal(rig_why(), "amd_sim_config_write: vendor and device ids "
			    "are read-only");
	assert_int_equal(amd_sim_config_read(g.sim, 0, &cfg, 4), 0);
	assert_int_equal(cfg & 0xffff, 0x1002);
	assert_int_equal(amd_sim_config_read(g.sim, 4095, &cfg, 4), -EINVAL);
	assert_int_equal(amd_sim_host_alloc(g.sim, 100, &p, &bus), -EINVAL);
	assert_int_equal(amd_sim_kernel(g.sim, 64, NULL, NULL), -EINVAL);
	assert_int_equal(amd_sim_stall(g.sim, AMD_SIM_CP, 8, true), -EINVAL);
	assert_false(amd_sim_halted(g.sim, AMD_SIM_SDMA, 3, NULL, 0));
	assert_int_equal(amd_sim_idle(NULL, 0), -EINVAL);
	assert_string_equal(rig_why(), "amd_sim_idle: sim is NULL");
	gpu_close(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refusals),
		cmocka_unit_test(test_discovery_reads_as_real),
		cmocka_unit_test(test_register_indices_gc11),
		cmocka_unit_test(test_clean_session),
		cmocka_unit_test(test_attach_detach_reset),
		cmocka_unit_test(test_tree_refusals),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_call_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
