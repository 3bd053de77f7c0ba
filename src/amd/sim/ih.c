/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/ih.c: interrupt ring 0 (OSSSYS's IH, amd-facts §3.7) and the
 * entries the engines raise, 8 dwords each in the SOC15/SOC21 layout of
 * §6.1. The ring is where IH_RB_BASE/BASE_HI put it (an MC address),
 * 4 << rb_size bytes; pointers are byte offsets (linux's reading, which
 * §3.7 says a simulator should take). A full ring drops the entry and sets
 * IH_RB_WPTR.rb_overflow until the driver writes IH_RB_CNTL with
 * wptr_overflow_clear; a disabled ring drops entries silently. Each entry
 * written signals the sim's MSI eventfd when IH_RB_CNTL.enable_intr is set.
 * Entries come from every engine thread, so they are appended under a lock.
 */
#include <time.h>
#include <unistd.h>

#include "amd/sim/priv.h"

#define RB_ENABLE		(1u << 0)
#define ENABLE_INTR		(1u << 17)
#define WPTR_OVERFLOW_CLEAR	(1u << 31)
#define RB_OVERFLOW		(1u << 0)

struct ih_regs { uint32_t cntl, base, base_hi, rptr, wptr, addr_hi, addr_lo; };

static struct ih_regs
regs(const struct sim_layout *l)
{
	uint32_t b = l->ih;

	if (l->ih_v7)	/* §3.7: OSSSYS 7 orders RPTR 0x81, WPTR 0x82, BASE 0x83 */
		return (struct ih_regs){ b, b + 3, b + 4, b + 1, b + 2, b + 5, b + 6 };
	return (struct ih_regs){ b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6 };
}

void
sim_ih_reg_write(struct amd_sim *s, uint32_t rel)
{
	struct ih_regs r = regs(&s->lay);

	if (rel != 0 || !(sim_reg(s, r.cntl) & WPTR_OVERFLOW_CLEAR))
		return;
	pthread_mutex_lock(&s->ih_lock);
	sim_reg_set(s, r.wptr, sim_reg(s, r.wptr) & ~RB_OVERFLOW);
	pthread_mutex_unlock(&s->ih_lock);
}

void
sim_ih_push(struct amd_sim *s, const struct sim_iv *iv)
{
	struct ih_regs r = regs(&s->lay);
	uint64_t ts = sim_gpu_clock(), one = 1;
	uint32_t cntl, size, wptr, rptr, e[8];
	uint64_t base, wb;
	uint32_t *slot, *wbp;

	e[0] = iv->client | (uint32_t)iv->src << 8 | (uint32_t)iv->ring << 16 |
	       (uint32_t)(iv->vmid & 0xf) << 24;
	e[1] = (uint32_t)ts;
	e[2] = (uint32_t)(ts >> 32) & 0xffff;
	e[3] = 0;					/* pasid, node 0 */
	for (int i = 0; i < 4; i++)
		e[4 + i] = iv->data[i];
	pthread_mutex_lock(&s->ih_lock);
	cntl = sim_reg(s, r.cntl);
	/* The pointers' offset field is [17:2]: rings of up to 256 KiB. */
	size = 4u << (((cntl >> 1) & 0x1f) < 16 ? ((cntl >> 1) & 0x1f) : 16);
	base = (uint64_t)(sim_reg(s, r.base_hi) & 0xff) << 40 |
	       (uint64_t)sim_reg(s, r.base) << 8;
	wptr = sim_reg(s, r.wptr);
	rptr = sim_reg(s, r.rptr) & (size - 1) & ~31u;
	if (!(cntl & RB_ENABLE) || (wptr & RB_OVERFLOW))
		goto out;
	wptr &= (size - 1) & ~31u;
	if (((wptr + 32) & (size - 1)) == rptr) {
		sim_reg_set(s, r.wptr, wptr | RB_OVERFLOW);
		goto out;
	}
	slot = sim_mc_ptr(s, base + wptr, 32);
	if (!slot)
		goto out;
	for (int i = 0; i < 8; i++)	/* the driver reads them after the wptr */
		atomic_store_explicit((_Atomic uint32_t *)&slot[i], e[i],
				      memory_order_relaxed);
	wptr = (wptr + 32) & (size - 1);
	/* Release: the entry's dwords before the pointer that shows them. */
	sim_reg_set(s, r.wptr, wptr);
	wb = (uint64_t)sim_reg(s, r.addr_hi) << 32 | sim_reg(s, r.addr_lo);
	if (wb && (wbp = sim_mc_ptr(s, wb, 4)))
		atomic_store_explicit((_Atomic uint32_t *)wbp, wptr,
				      memory_order_release);
	if (cntl & ENABLE_INTR)
		(void)!write(s->irq_fd, &one, sizeof(one));
out:
	pthread_mutex_unlock(&s->ih_lock);
}

/*
 * A VM fault (§6.3, §6.4): SOC21 client GFX (GC hub) / SOC15 client
 * UTCL2, source 0; the page in src_data[0] and src_data[1][3:0], write in
 * src_data[1] bit 5. The GC hub's status register latches the first fault
 * (more_faults, bit 0, for later ones) until the driver clears it.
 */
void
sim_ih_vm_fault(struct amd_sim *s, const struct sim_fault *f, uint8_t cid)
{
	struct sim_iv iv = {
		.client = s->lay.soc == 21 ? 10 : 27,
		.src = 0,
		.data = { (uint32_t)(f->va >> 12),
			  (uint32_t)((f->va >> 44) & 0xf) | (f->write ? 0x20 : 0) },
	};
	uint32_t st = s->lay.vm_fault_status;

	if (st) {
		uint32_t none = 0;

		/* Engines fault at once: the first latches, the rest add more_faults. */
		if (!atomic_compare_exchange_strong(&s->regs[st], &none,
						    f->status | (uint32_t)cid << 9))
			atomic_fetch_or(&s->regs[st], 1);
	}
	sim_ih_push(s, &iv);
}
