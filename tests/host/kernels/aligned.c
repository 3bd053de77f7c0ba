/* SPDX-License-Identifier: MIT */
/*
 * aligned: reads a params block's vector members with aligned loads, as
 * compilers emit for members of vector types: vmovaps of a 32-byte
 * member (AVX) and of a 64-byte one (AVX-512), each of which faults on an
 * address that is not a multiple of its size. The loads are written in
 * asm, so the object builds with the plain host kernel flags; the test
 * calls each only where the CPU has the instructions. `aligned_where`
 * writes the block's address modulo 64, on any CPU.
 */
#include <stdint.h>

#include "rig_host.h"

struct aligned_params {
	float *out;			/* 16 floats */
	int64_t pad[3];
	float v8[8] __attribute__((aligned(32)));	/* at 32 */
	float v16[16] __attribute__((aligned(64)));	/* at 64 */
};

RIG_HOST_KERNEL void
aligned_where(const void *params, int64_t first, int64_t end)
{
	const struct aligned_params *p = params;

	p->out[0] = (float)((uintptr_t)params % 64);
}

#if defined(__x86_64__)
RIG_HOST_KERNEL void
aligned_256(const void *params, int64_t first, int64_t end)
{
	const struct aligned_params *p = params;

	__asm__ volatile("vmovaps (%0), %%ymm0\n\tvmovups %%ymm0, (%1)\n\tvzeroupper"
			 : : "r"(p->v8), "r"(p->out) : "memory", "xmm0");
}

RIG_HOST_KERNEL void
aligned_512(const void *params, int64_t first, int64_t end)
{
	const struct aligned_params *p = params;

	__asm__ volatile("vmovaps (%0), %%zmm0\n\tvmovups %%zmm0, (%1)\n\tvzeroupper"
			 : : "r"(p->v16), "r"(p->out) : "memory", "xmm0");
}
#endif
