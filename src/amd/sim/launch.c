/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/launch.c: DISPATCH_DIRECT on the sim. The sim runs no shader
 * ISA: a test kernel is a real code object whose code bytes, at the entry
 * COMPUTE_PGM_LO/HI << 8 names (amd-facts §7.2), hold struct
 * amd_sim_kernel_code: a magic, a callback id and the user SGPR of its
 * kernarg address. The sim reads them through the page tables and calls
 * the test's function with the grid, the group size (COMPUTE_NUM_THREAD_*),
 * the kernarg address (COMPUTE_USER_DATA_n, n + 1, §7.3) and
 * amd_sim_translate() for its memory. Other code bytes, an unregistered
 * id, or a user SGPR count (RSRC2[5:1]) that does not cover the kernarg
 * pointer end the wave with an SQ error, as an illegal instruction would.
 * SQ errors raise SQ_INTERRUPT_ID (239) with encoding ERROR (§6.4) and
 * halt the queue, as does a VM fault of the kernel's memory.
 */
#include <errno.h>
#include <stddef.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

/* SH offsets (§4.5). */
enum { SH_NUM_THREAD_X = 0x207, SH_PGM_LO = 0x20c, SH_PGM_HI = 0x20d,
       SH_PGM_RSRC2 = 0x213, SH_USER_DATA_0 = 0x240 };

struct launch {
	struct amd_sim_launch pub;
	_Atomic bool faulted;
};

int
amd_sim_kernel(struct amd_sim *s, uint32_t id, amd_sim_kernel_fn fn, void *ctx)
{
	if (!s || !fn)
		return amd_fail(-EINVAL, "sim or fn is NULL");
	if (id >= SIM_KERNELS)
		return amd_fail(-EINVAL, "callback id %u is not below %d", id, SIM_KERNELS);
	pthread_mutex_lock(&s->kernel_lock);
	s->kernels[id] = (struct sim_kernel){ fn, ctx };
	pthread_mutex_unlock(&s->kernel_lock);
	return 0;
}

void *
amd_sim_translate(const struct amd_sim_launch *pub, uint64_t va, size_t bytes,
		  bool write)
{
	struct launch *l = (struct launch *)((char *)pub - offsetof(struct launch, pub));
	struct sim_fault f;
	void *p;

	p = sim_vm_ptr(pub->sim, va, bytes, write, &f);
	if (!p) {
		if (!f.dropped)
			sim_ih_vm_fault(pub->sim, &f, 3);
		atomic_store(&l->faulted, true);
	}
	return p;
}

static int
sq_error(struct amd_sim *s, int qi, int type, const char *what)
{
	struct sim_iv iv = { .client = 10, .src = 239 };	/* SOC21 GFX / SOC15 SE0SH */

	if (s->lay.soc == 21) {
		iv.data[0] = (uint32_t)type << 21;
		iv.data[1] = 2u << 6;				/* encoding ERROR */
	} else {
		iv.data[0] = 2u << 26 | (uint32_t)type << 20;
	}
	sim_queue_halt(&s->cp.q[qi], "CP queue %d: SQ error %d: %s", qi, type, what);
	sim_ih_push(s, &iv);
	return -1;
}

int
launch_dispatch(struct amd_sim *s, int qi, const uint32_t dims[3],
		uint32_t initiator)
{
	const uint32_t *sh = s->cp.q[qi].sh;
	uint64_t entry = ((uint64_t)sh[SH_PGM_HI] << 32 | sh[SH_PGM_LO]) << 8;
	struct amd_sim_kernel_code code;
	struct launch l = { .pub = { .sim = s, .queue = qi } };
	struct sim_kernel k = { 0 };
	struct sim_fault f;
	uint32_t sgprs = (sh[SH_PGM_RSRC2] >> 1) & 0x1f;
	int ret;

	(void)initiator;
	if (sim_vm_read(s, entry, &code, sizeof(code), &f)) {
		if (!f.dropped)
			sim_ih_vm_fault(s, &f, 3);
		sim_queue_halt(&s->cp.q[qi], "CP queue %d: kernel entry 0x%llx unmapped",
			       qi, (unsigned long long)entry);
		return -1;
	}
	if (code.magic != AMD_SIM_KERNEL_MAGIC)
		return sq_error(s, qi, AMD_SIM_SQ_ILLEGAL_INST, "code bytes are no sim kernel");
	if (code.callback < SIM_KERNELS) {
		pthread_mutex_lock(&s->kernel_lock);
		k = s->kernels[code.callback];
		pthread_mutex_unlock(&s->kernel_lock);
	}
	if (!k.fn)
		return sq_error(s, qi, AMD_SIM_SQ_ILLEGAL_INST, "no callback of that id");
	if (code.kernarg_sgpr >= 15 || code.kernarg_sgpr + 2 > sgprs)
		return sq_error(s, qi, AMD_SIM_SQ_ILLEGAL_INST,
				"USER_SGPR_COUNT does not cover the kernarg pointer");
	for (int i = 0; i < 3; i++) {
		l.pub.grid[i] = dims[i];
		l.pub.group[i] = sh[SH_NUM_THREAD_X + i] & 0xffff;
	}
	l.pub.kernarg = (uint64_t)sh[SH_USER_DATA_0 + code.kernarg_sgpr + 1] << 32 |
			sh[SH_USER_DATA_0 + code.kernarg_sgpr];
	l.pub.ctx = k.ctx;
	if (!dims[0] || !dims[1] || !dims[2])
		return 0;				/* no work-groups */
	ret = k.fn(&l.pub);
	if (atomic_load(&l.faulted)) {
		sim_queue_halt(&s->cp.q[qi], "CP queue %d: kernel %u touched unmapped memory",
			       qi, code.callback);
		return -1;
	}
	if (ret != AMD_SIM_SQ_OK)
		return sq_error(s, qi, ret, "the kernel ended with it");
	return 0;
}
