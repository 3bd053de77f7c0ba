/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_launch: launches on the sim. The kernel is a real AMDGPU
 * code object written here byte by byte (an ELF64 for EM_AMDGPU with
 * .text, a 64-byte kernel descriptor "add.kd" in .rodata, amd-facts §7.1,
 * and its symbols), loaded the way a driver loads one (§7.2: the entry is
 * the descriptor's address plus kernel_code_entry_byte_offset), launched
 * with the packets of §4.5. Its code bytes are the sim's marker with a
 * callback id; DISPATCH_DIRECT calls the test's function with the grid,
 * the group, the kernarg address and amd_sim_translate(). Faults: a kernel
 * touching an unmapped address, one ending with an SQ error, code bytes
 * that are no sim kernel, a USER_SGPR_COUNT that misses the kernarg pointer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <stdatomic.h>
#include <string.h>

#include "rig.h"
#include "gpu.h"
#include "../code_object.h"

#define CODE	(VA_VRAM + DATA_AT + (1u << 20))	/* the code object's VA */
#define IN	(VA_VRAM + DATA_AT + (2u << 20))
#define OUT	(VA_VRAM + DATA_AT + (3u << 20))
#define KARGS	(VA_VRAM + DATA_AT + (4u << 20))
#define SIGNAL	(VA_VRAM + DATA_AT + (5u << 20))

/* A driver's load: the object's bytes at CODE; "add.kd" found by symbol. */
static void
load(struct gpu *g, const struct obj *o, uint64_t *entry, uint32_t *rsrc1,
     uint32_t *rsrc2)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->b;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(o->b + eh->e_shoff);
	const Elf64_Sym *kd = NULL;
	int64_t off;

	assert_int_equal(eh->e_machine, EM_AMDGPU);
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *names;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		names = (const char *)o->b + sh[sh[i].sh_link].sh_offset;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
			const Elf64_Sym *s = (const Elf64_Sym *)(o->b + sh[i].sh_offset) + k;

			if (!strcmp(names + s->st_name, "add.kd"))
				kd = s;
		}
	}
	assert_non_null(kd);
	memcpy(gpu_ptr(g, CODE), o->b, sizeof(o->b));
	memcpy(&off, o->b + kd->st_value + 16, 8);
	memcpy(rsrc1, o->b + kd->st_value + 48, 4);
	memcpy(rsrc2, o->b + kd->st_value + 52, 4);
	*entry = CODE + kd->st_value + (uint64_t)off;
	assert_int_equal(*entry & 255, 0);		/* §7.2: 256-byte aligned */
}

/* §4.5's dispatch: PGM, RSRC, NUM_THREAD, USER_DATA, DISPATCH_DIRECT, signal. */
static unsigned
dispatch(uint32_t *p, uint64_t entry, uint32_t rsrc1, uint32_t rsrc2, uint64_t kargs,
	 const uint32_t grid[3], uint32_t signal)
{
	unsigned n = 0;

	p[n++] = pkt3(0x76, 2);				/* SET_SH_REG PGM_LO/HI */
	p[n++] = 0x20c;
	p[n++] = (uint32_t)(entry >> 8);
	p[n++] = (uint32_t)(entry >> 40);
	p[n++] = pkt3(0x76, 2);				/* PGM_RSRC1/2 */
	p[n++] = 0x212;
	p[n++] = rsrc1;
	p[n++] = rsrc2;
	p[n++] = pkt3(0x76, 3);				/* NUM_THREAD_X/Y/Z */
	p[n++] = 0x207;
	p[n++] = 64;
	p[n++] = 1;
	p[n++] = 1;
	p[n++] = pkt3(0x76, 2);				/* USER_DATA_0/1: kernarg */
	p[n++] = 0x240;
	p[n++] = (uint32_t)kargs;
	p[n++] = (uint32_t)(kargs >> 32);
	p[n++] = pkt3(0x15, 3);				/* DISPATCH_DIRECT */
	p[n++] = grid[0];
	p[n++] = grid[1];
	p[n++] = grid[2];
	p[n++] = 1 | 1u << 2 | 1u << 15;		/* en, force_start_at_000, w32 */
	p[n++] = pkt3(0x46, 0);				/* EVENT_WRITE CS_PARTIAL_FLUSH */
	p[n++] = 7 | 4u << 8;
	p[n++] = pkt3(0x49, 6);				/* RELEASE_MEM 32-bit, no int */
	p[n++] = 0x14 | 5u << 8;
	p[n++] = 1u << 29;
	p[n++] = (uint32_t)SIGNAL;
	p[n++] = (uint32_t)(SIGNAL >> 32);
	p[n++] = signal;
	p[n++] = 0;
	p[n++] = 0;
	return n;
}

struct kargs { uint64_t in, out; uint32_t n; } __attribute__((packed));

struct seen {
	uint32_t grid[3], group[3];
	uint64_t kernarg;
	int calls;
};

static int
add_kernel(const struct amd_sim_launch *l)
{
	struct seen *s = l->ctx;
	struct kargs *k = amd_sim_translate(l, l->kernarg, sizeof(*k), false);

	s->calls++;
	memcpy(s->grid, l->grid, sizeof(s->grid));
	memcpy(s->group, l->group, sizeof(s->group));
	s->kernarg = l->kernarg;
	if (!k)
		return AMD_SIM_SQ_OK;
	for (uint32_t gid = 0; gid < l->grid[0] * l->grid[1] * l->grid[2]; gid++)
		for (uint32_t tid = 0; tid < l->group[0]; tid++) {
			uint32_t i = gid * l->group[0] + tid, *in, *out;

			if (i >= k->n)
				continue;
			in = amd_sim_translate(l, k->in + 4ull * i, 4, false);
			out = amd_sim_translate(l, k->out + 4ull * i, 4, true);
			if (!in || !out)
				return AMD_SIM_SQ_OK;	/* the fault halts the queue */
			*out = *in + 1;
		}
	return AMD_SIM_SQ_OK;
}

static int
memviol_kernel(const struct amd_sim_launch *l)
{
	(void)l;
	return AMD_SIM_SQ_MEMVIOL;
}

/* A launch of kernel callback with kernarg kargs on a fresh sim queue. */
static void
run(struct gpu *g, uint64_t magic, uint32_t callback, uint32_t rsrc2,
    const uint32_t grid[3])
{
	uint32_t p[64], rsrc1, rs2;
	uint64_t entry;
	struct obj o;
	struct ring r;
	unsigned n;

	build_object(&o, magic, callback, rsrc2);
	load(g, &o, &entry, &rsrc1, &rs2);
	gpu_cp_queue(g, 0, 4096, &r);
	n = dispatch(p, entry, rsrc1, rs2, KARGS, grid, 1);
	ring_put(&r, p, n);
	gpu_idle(g);
}

static void
test_launch_calls_the_kernel(void **state)
{
	static const char *const gcs[] = { "9.4.3", "11.0.0", "12.0.1" };
	const uint32_t grid[3] = { 4, 2, 1 };
	struct seen seen;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct kargs ka = { IN, OUT, 500 };
		struct gpu g;

		gpu_open(&g, gcs[k]);
		memset(&seen, 0, sizeof(seen));
		for (uint32_t i = 0; i < 512; i++)
			((uint32_t *)gpu_ptr(&g, IN))[i] = i * 3;
		memcpy(gpu_ptr(&g, KARGS), &ka, sizeof(ka));
		assert_int_equal(amd_sim_kernel(g.sim, 7, add_kernel, &seen), 0);
		run(&g, AMD_SIM_KERNEL_MAGIC, 7, 2u << 1, grid);
		assert_int_equal(seen.calls, 1);
		assert_int_equal(seen.grid[0], 4);
		assert_int_equal(seen.grid[1], 2);
		assert_int_equal(seen.grid[2], 1);
		assert_int_equal(seen.group[0], 64);
		assert_true(seen.kernarg == KARGS);
		for (uint32_t i = 0; i < 500; i++)
			assert_int_equal(((uint32_t *)gpu_ptr(&g, OUT))[i], i * 3 + 1);
		assert_int_equal(((uint32_t *)gpu_ptr(&g, OUT))[500], 0);
		assert_int_equal(*(uint32_t *)gpu_ptr(&g, SIGNAL), 1);
		assert_false(amd_sim_halted(g.sim, AMD_SIM_CP, 0, NULL, 0));
		gpu_close(&g);
	}
}

/* The kernel touches an unmapped address: a VM fault, the queue halts. */
static void
test_kernel_touches_unmapped(void **state)
{
	const uint32_t grid[3] = { 1, 1, 1 };
	struct kargs ka = { 0x7ff000000000ull, OUT, 1 };
	uint32_t e[8];
	char why[160];
	struct seen seen = { 0 };
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	memcpy(gpu_ptr(&g, KARGS), &ka, sizeof(ka));
	amd_sim_kernel(g.sim, 1, add_kernel, &seen);
	run(&g, AMD_SIM_KERNEL_MAGIC, 1, 2u << 1, grid);
	assert_int_equal(seen.calls, 1);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_CP, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "touched unmapped memory"));
	assert_int_equal(*(uint32_t *)gpu_ptr(&g, SIGNAL), 0);	/* no signal after */
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal(e[0] & 0xff, 10);
	assert_int_equal((e[0] >> 8) & 0xff, 0);			/* VM fault */
	assert_int_equal(e[4], (uint32_t)(0x7ff000000000ull >> 12));
	assert_int_equal(e[5] & 0x20, 0);				/* a read */
	gpu_close(&g);
}

/* §6.4 SQ interrupt: src 239, encoding ERROR (ctxid1[7:6] = 2), type in
 * ctxid0[24:21] on GFX10+. */
static void
expect_sq_error(const char *gc, uint64_t magic, uint32_t rsrc2, int type)
{
	const uint32_t grid[3] = { 1, 1, 1 };
	struct gpu g;
	uint32_t e[8];

	gpu_open(&g, gc);
	amd_sim_kernel(g.sim, 2, memviol_kernel, NULL);
	run(&g, magic, 2, rsrc2, grid);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_CP, 0, NULL, 0));
	assert_int_equal(*(uint32_t *)gpu_ptr(&g, SIGNAL), 0);
	assert_true(gpu_ih_next(&g, e));
	assert_int_equal((e[0] >> 8) & 0xff, 239);
	if (gc[0] == '9') {
		assert_int_equal((e[4] >> 26) & 3, 2);
		assert_int_equal((e[4] >> 20) & 0xf, type);
	} else {
		assert_int_equal((e[5] >> 6) & 3, 2);
		assert_int_equal((e[4] >> 21) & 0xf, type);
	}
	gpu_close(&g);
}

static void
test_sq_errors(void **state)
{
	(void)state;
	expect_sq_error("11.0.0", AMD_SIM_KERNEL_MAGIC, 2u << 1, AMD_SIM_SQ_MEMVIOL);
	expect_sq_error("12.0.0", AMD_SIM_KERNEL_MAGIC, 2u << 1, AMD_SIM_SQ_MEMVIOL);
	expect_sq_error("9.4.3", AMD_SIM_KERNEL_MAGIC, 2u << 1, AMD_SIM_SQ_MEMVIOL);
	/* code bytes that are no sim kernel: an illegal instruction */
	expect_sq_error("11.0.2", 0xbf810000bf810000ull, 2u << 1, AMD_SIM_SQ_ILLEGAL_INST);
	/* USER_SGPR_COUNT 0: s0-s1 never hold the kernarg pointer */
	expect_sq_error("12.0.1", AMD_SIM_KERNEL_MAGIC, 0, AMD_SIM_SQ_ILLEGAL_INST);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_calls_the_kernel),
		cmocka_unit_test(test_kernel_touches_unmapped),
		cmocka_unit_test(test_sq_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
