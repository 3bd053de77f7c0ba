/* SPDX-License-Identifier: MIT */
/*
 * bench/amd_encode.c: what encoding a one-launch value on the AMD compute
 * queue costs the submitting thread (issue 17's target: 150 ns or less).
 * A value is what the device's submit writes for one launch: ACQUIRE_MEM,
 * the launch's registers, DISPATCH_DIRECT and a CS flush (pm4_launch: a
 * copy of the function's packets, encoded once, with its kernargs, group
 * and grid),
 * then the RELEASE_MEM that writes the timeline word (64-bit data, EOP
 * interrupt), each placed whole on a 64 KiB ring (amd_ring_reserve).
 *
 *   pm4       a launch of the function the queue launched last (the
 *             again form: what bench_amd_submit's submits encode)
 *   pm4-full  a launch of another function (every register: the full form)
 *   memcpy    the floor: the full form's dwords, prepared once, copied
 *             into the ring: what writing them costs at least
 *
 * GFX11 layouts.
 */
#include <string.h>

#include "bench.h"
#include "amd/pm4/dispatch.h"
#include "amd/pm4/ring.h"

#define RING_DWORDS (16u << 10)

static uint32_t ring_mem[RING_DWORDS];
static struct amd_ring ring = { .base = ring_mem, .dwords = RING_DWORDS };
static struct pm4_dispatch t = {
	.code = 0x7F0000001000ull, .rsrc1 = 0x60AF0041, .rsrc2 = 0x8C,
	.nuser = 2, .kernarg_at = 0, .initiator = 0x8005,
};
static uint32_t prepared[128];
static uint32_t value_dwords;
static volatile uint64_t sink;

/* n values of one launch in form arg (t.full or t.again). */
static int
encode(void *arg, uint64_t n)
{
	static const uint32_t grid[3] = { 256, 1, 1 }, group[3] = { 64, 1, 1 };
	const struct pm4_form *f = arg;

	for (uint64_t v = 1; v <= n; v++) {
		uint32_t *p = amd_ring_reserve(&ring, f->ndwords + PM4_RELEASE_MEM_DWORDS,
					       pm4_nop);

		p = pm4_launch(p, f, 0x7F0000020000ull + 64 * (v & 255), grid,
			       group);
		p = pm4_release_mem(p, AMD_GFX11, PM4_WB_L2, PM4_DATA_64,
				    PM4_INT_AFTER_WRITE, 0x7F0000000000ull, v, 0);
		amd_ring_advance(&ring, p);
	}
	sink = ring.wptr;
	return 0;
}

static int
copy(void *arg, uint64_t n)
{
	(void)arg;
	for (uint64_t v = 1; v <= n; v++) {
		uint32_t *p = amd_ring_reserve(&ring, value_dwords, pm4_nop);

		memcpy(p, prepared, value_dwords * 4);
		p[value_dwords - 3] = (uint32_t)v;	/* the value's data */
		amd_ring_advance(&ring, p + value_dwords);
	}
	sink = ring.wptr;
	return 0;
}

int
main(int argc, char **argv)
{
	static const uint32_t grid[3] = { 256, 1, 1 }, group[3] = { 64, 1, 1 };
	struct bench b;
	uint64_t n;
	uint32_t *end;

	bench_init(&b, "bench_amd_encode", argc, argv);
	pm4_dispatch_build(&t, AMD_GFX11);
	end = pm4_launch(prepared, &t.full, 0x7F0000020000ull, grid, group);
	end = pm4_release_mem(end, AMD_GFX11, PM4_WB_L2, PM4_DATA_64,
			      PM4_INT_AFTER_WRITE, 0x7F0000000000ull, 1, 0);
	value_dwords = (uint32_t)(end - prepared);
	n = bench_count(&b, 2000000, 100000);
	if (bench_per_run(&b, "amd_encode_1launch", "memcpy", BENCH_FLOOR, copy,
			  NULL, n, 0) < 0 ||
	    bench_per_run(&b, "amd_encode_1launch", "pm4-full", BENCH_RIG, encode,
			  &t.full, n, 0) < 0 ||
	    bench_per_run(&b, "amd_encode_1launch", "pm4", BENCH_RIG, encode,
			  &t.again, n, 0) < 0)
		return 1;
	return 0;
}
