/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_vm: the sim walks page tables in each generation's PTE
 * format (amd-facts §3.6, §3.14): 4 KiB and 2 MiB leaves, the huge-page
 * flag of its own generation only, GC 9's translate-further bit,
 * permissions, the VA range; an engine's access the tables refuse raises
 * the VM fault entry with its address and the fault status (§6.4).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>

#include "rig.h"
#include "gpu.h"

static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };

static void
test_leaves(void **state)
{
	struct sim_fault f;
	struct gpu g;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		uint64_t va4 = 0x400000000000ull + 0x5000, va2 = 0x400000400000ull;

		gpu_open(&g, gcs[k]);
		gpu_map(&g, va4, 0x7000000, 4096, PTE_RWX, false);
		gpu_map(&g, va2, 0x8000000, 2u << 20, PTE_RWX, true);
		assert_ptr_equal(sim_vm_ptr(g.sim, va4 + 0x10, 8, true, &f),
				 g.vram + 0x7000000 + 0x10);
		assert_ptr_equal(sim_vm_ptr(g.sim, va2 + 0x12345, 4, false, &f),
				 g.vram + 0x8000000 + 0x12345);
		/* The 2 MiB leaves gpu_open mapped VRAM with */
		assert_ptr_equal(sim_vm_ptr(g.sim, VA_VRAM + 0x3456780, 4, false, &f),
				 g.vram + 0x3456780);
		/* crossing the 4 KiB page's end */
		assert_null(sim_vm_ptr(g.sim, va4 + 4092, 8, false, &f));
		assert_null(sim_vm_ptr(g.sim, va4 + 4096, 4, false, &f));
		assert_true(f.status & FAULT_MAPPING_ERROR);
		assert_true(f.va == va4 + 4096);
		gpu_close(&g);
	}
}

/* A PDB0 entry: the one that maps 2 MiB at va. */
static uint64_t *
pdb0_entry(struct gpu *g, uint64_t va)
{
	uint64_t t = PT_AT;

	for (int shift = 39; shift > 21; shift -= 9)
		t = ((uint64_t *)(g->vram + t))[(va >> shift) & 511] & 0x0000FFFFFFFFF000ull;
	return (uint64_t *)(g->vram + t) + ((va >> 21) & 511);
}

/* Each generation reads its own huge-page flag, not another's. */
static void
test_huge_flag_per_generation(void **state)
{
	uint64_t va = 0x400000800000ull;
	struct sim_fault f;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	gpu_map(&g, va, 0x8000000, 2u << 20, PTE_RWX, true);
	assert_non_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	*pdb0_entry(&g, va) = 0x8000000 | PTE_RWX | 1ull << 63;	/* GFX12's flag */
	assert_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	gpu_close(&g);
	gpu_open(&g, "12.0.0");
	gpu_map(&g, va, 0x8000000, 2u << 20, PTE_RWX, true);
	assert_non_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	*pdb0_entry(&g, va) = 0x8000000 | PTE_RWX | 1ull << 54;	/* NV10's flag */
	assert_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	gpu_close(&g);
	gpu_open(&g, "9.4.3");
	gpu_map(&g, va, 0x8000000, 4096, PTE_RWX, false);
	assert_non_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	*pdb0_entry(&g, va) &= ~(1ull << 56);				/* no TF */
	assert_null(sim_vm_ptr(g.sim, va, 4, false, &f));
	assert_true(f.status & FAULT_MAPPING_ERROR);
	gpu_close(&g);
}

static void
test_permissions_and_range(void **state)
{
	uint64_t ro = 0x400000000000ull, wo = ro + 4096;
	struct sim_fault f;
	struct gpu g;

	(void)state;
	gpu_open(&g, "12.0.1");
	gpu_map(&g, ro, 0x7000000, 4096, PTE_V | PTE_R, false);
	gpu_map(&g, wo, 0x7001000, 4096, PTE_V | PTE_W, false);
	assert_non_null(sim_vm_ptr(g.sim, ro, 4, false, &f));
	assert_null(sim_vm_ptr(g.sim, ro, 4, true, &f));
	assert_int_equal(f.status, FAULT_PERM_WRITE | FAULT_RW);
	assert_non_null(sim_vm_ptr(g.sim, wo, 4, true, &f));
	assert_null(sim_vm_ptr(g.sim, wo, 4, false, &f));
	assert_int_equal(f.status, FAULT_PERM_READ);
	gpu_wreg(&g, g.sim->lay.vm_start_lo, 0x100000);		/* VA from 4 GiB */
	assert_null(sim_vm_ptr(g.sim, 0x1000, 4, false, &f));
	gpu_wreg(&g, g.sim->lay.vm_start_lo, 0);
	gpu_wreg(&g, g.sim->lay.vm_cntl, 0);			/* context off */
	assert_null(sim_vm_ptr(g.sim, ro, 4, false, &f));
	assert_true(f.status & FAULT_WALKER_ERROR);
	gpu_close(&g);
}

/* §6.3/§6.4: the entry carries the page; the status latches the first. */
static void
test_fault_entry(void **state)
{
	uint64_t bad = 0x5ab000012000ull;
	uint32_t p[10], e[8];
	struct ring r;
	struct gpu g;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		gpu_open(&g, gcs[k]);
		gpu_cp_queue(&g, 0, 4096, &r);
		p[0] = pkt3(0x37, 3);			/* WRITE_DATA to memory */
		p[1] = 5u << 8;
		p[2] = (uint32_t)bad;
		p[3] = (uint32_t)(bad >> 32);
		p[4] = 1;
		ring_put(&r, p, 5);
		gpu_idle(&g);
		assert_true(amd_sim_halted(g.sim, AMD_SIM_CP, 0, NULL, 0));
		assert_true(gpu_ih_next(&g, e));
		assert_int_equal(e[0] & 0xff, k == 0 ? 27 : 10);	/* UTCL2 / GFX */
		assert_int_equal((e[0] >> 8) & 0xff, 0);
		assert_int_equal(e[4], (uint32_t)(bad >> 12));
		assert_int_equal(e[5], (uint32_t)((bad >> 44) & 0xf) | 0x20);	/* write */
		if (g.sim->lay.vm_fault_status) {
			uint32_t st = gpu_rreg(&g, g.sim->lay.vm_fault_status);

			assert_true(st & FAULT_MAPPING_ERROR);
			assert_true(st & FAULT_RW);
			assert_false(st & 1);
			sim_ih_vm_fault(g.sim, &(struct sim_fault){ .va = 0x1000 }, 1);
			assert_true(gpu_rreg(&g, g.sim->lay.vm_fault_status) & 1);
		}
		gpu_close(&g);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaves),
		cmocka_unit_test(test_huge_flag_per_generation),
		cmocka_unit_test(test_permissions_and_range),
		cmocka_unit_test(test_fault_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
