/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/sdma.c: the copy engine, SDMA0 QUEUE0 (SDMA 6/7, GC 11/12; SDMA
 * 4.4's SDMA_GFX queue on GC 9.4.3, whose COPY and FILL counts are 22 bits). The
 * queue starts when SDMA0_QUEUE0_RB_CNTL is written with rb_enable, from
 * its registers (amd-facts §3.11; offsets linux gc_11_0_0, checked): ring
 * at RB_BASE << 8 of 4 << rb_size bytes, read pointer written back to
 * RB_RPTR_ADDR when rptr_writeback_enable (bit 12), doorbell at
 * DOORBELL_OFFSET while DOORBELL.enable (bit 28). Pointers and the
 * doorbell's value are bytes (§3.11).
 *
 * Packets (§5), strictly: an op/sub_op outside NOP, COPY_LINEAR,
 * CONSTANT_FILL, FENCE, POLL_REGMEM, TIMESTAMP (GET_GLOBAL) and TRAP, a
 * reserved bit set, or an alignment the layout forbids, halts the queue
 * and raises an entry of source 255 (client GFX on SOC21): amd-facts
 * names no SDMA illegal-packet source, so that id is the sim's own. TRAP
 * raises SDMA_TRAP (SOC21: client GFX, source 49) with its int_context in
 * src_data[0]. POLL_REGMEM's retry count is not modelled (it polls until
 * satisfied); its hdp_flush form is taken as satisfied at once.
 */
#include <string.h>

#include "amd/sim/priv.h"

/* Below RB_CNTL on every SDMA version; the others are in the layout. */
enum {
	RB_CNTL = 0x00, RB_BASE = 0x01, RB_BASE_HI = 0x02, RB_RPTR = 0x03,
	RB_RPTR_HI = 0x04, RB_WPTR = 0x05, RB_WPTR_HI = 0x06,
};

enum { OP_NOP = 0, OP_COPY = 1, OP_FENCE = 5, OP_TRAP = 6, OP_POLL_REGMEM = 8,
       OP_CONSTANT_FILL = 11, OP_TIMESTAMP = 13 };

#define SRC_SDMA_TRAP_SOC21	49
#define SRC_SDMA_TRAP_SOC15	224
#define SRC_SDMA_BAD		255

static uint32_t
rg(struct amd_sim *s, uint32_t rel)
{
	return sim_reg(s, s->lay.sdma_q0 + rel);
}

void
sdma_reg_write(struct amd_sim *s, uint32_t rel)
{
	const struct sim_layout *l = &s->lay;
	struct sim_queue *q = &s->sdma.q[0];
	uint32_t cntl = rg(s, RB_CNTL);

	if (rel == l->sdma_doorbell || rel == l->sdma_doorbell_offset) {
		q->doorbell = (rg(s, l->sdma_doorbell_offset) >> 2) & 0x3ffffff;
		q->doorbell_on = rg(s, l->sdma_doorbell) & (1u << 28);
		return;
	}
	if (rel != RB_CNTL)
		return;
	if (!(cntl & 1)) {
		q->enabled = false;
		return;
	}
	q->base = ((uint64_t)rg(s, RB_BASE_HI) << 32 | rg(s, RB_BASE)) << 8;
	q->bytes = 4ull << ((cntl >> 1) & 0x1f);
	q->rptr_addr = (uint64_t)rg(s, l->sdma_rptr_hi) << 32 | rg(s, l->sdma_rptr_lo);
	q->rptr_writeback = cntl & (1u << 12);
	atomic_store(&q->rptr, (uint64_t)rg(s, RB_RPTR_HI) << 32 | rg(s, RB_RPTR));
	atomic_store(&q->wptr, (uint64_t)rg(s, RB_WPTR_HI) << 32 | rg(s, RB_WPTR));
	atomic_store(&q->halted, false);
	q->why[0] = '\0';
	q->enabled = true;
	sim_engine_kick(&s->sdma);
}

static int
bad(struct amd_sim *s, uint32_t h, uint64_t rptr, const char *what)
{
	struct sim_iv iv = { .client = s->lay.soc == 21 ? 10 : 8,
			     .src = SRC_SDMA_BAD, .data = { h, (uint32_t)rptr } };

	sim_queue_halt(&s->sdma.q[0], "SDMA0 queue 0: %s (header 0x%08x at byte %llu)",
		       what, h, (unsigned long long)rptr);
	sim_ih_push(s, &iv);
	return -1;
}

static int
fault(struct amd_sim *s, const struct sim_fault *f)
{
	if (!f->dropped)
		sim_ih_vm_fault(s, f, 2);
	sim_queue_halt(&s->sdma.q[0], "SDMA0 queue 0: %s at 0x%llx",
		       f->dropped ? "host memory with bus mastering off" : "VM fault",
		       (unsigned long long)f->va);
	return -1;
}

/* bytes bytes from src to dst through the page tables, a page at a time. */
static int
copy(struct amd_sim *s, uint64_t dst, uint64_t src, uint64_t bytes,
     struct sim_fault *f)
{
	uint8_t buf[4096];

	while (bytes) {
		size_t n = bytes < sizeof(buf) ? (size_t)bytes : sizeof(buf);

		if (sim_vm_read(s, src, buf, n, f) || sim_vm_write(s, dst, buf, n, f))
			return -1;
		src += n;
		dst += n;
		bytes -= n;
	}
	return 0;
}

static int
fill(struct amd_sim *s, uint64_t dst, uint32_t pattern, bool dwords,
     uint64_t bytes, struct sim_fault *f)
{
	uint8_t buf[4096];

	for (size_t i = 0; i < sizeof(buf); i += 4)
		memcpy(buf + i, dwords ? &pattern : &(uint32_t){ (pattern & 0xff) * 0x01010101u }, 4);
	while (bytes) {
		size_t n = bytes < sizeof(buf) ? (size_t)bytes : sizeof(buf);

		if (sim_vm_write(s, dst, buf, n, f))
			return -1;
		dst += n;
		bytes -= n;
	}
	return 0;
}

/* One packet at rptr: its length in bytes, 0 when it waits, -1 halted. */
static int
packet(struct amd_sim *s, uint64_t rptr, uint64_t avail)
{
	struct sim_queue *q = &s->sdma.q[0];
	uint32_t p[7], h, op, sub, len;
	struct sim_fault f;
	uint64_t addr;
	void *w;

	if (sim_vm_read(s, q->base + (rptr % q->bytes), &h, 4, &f))
		return fault(s, &f);
	op = h & 0xff;
	sub = (h >> 8) & 0xff;
	switch (op) {
	case OP_NOP:		len = 1 + ((h >> 16) & 0x3fff); break;
	case OP_COPY:		len = 7; break;
	case OP_CONSTANT_FILL:	len = 5; break;
	case OP_FENCE:		len = 4; break;
	case OP_TRAP:		len = 2; break;
	case OP_POLL_REGMEM:	len = 6; break;
	case OP_TIMESTAMP:	len = 3; break;
	default:
		return bad(s, h, rptr, "op the sim does not take");
	}
	if (sub != (op == OP_TIMESTAMP ? 2u : 0u))
		return bad(s, h, rptr, "sub_op the sim does not take");
	if ((uint64_t)len * 4 > q->bytes)
		return bad(s, h, rptr, "packet longer than its ring");
	if ((uint64_t)len * 4 > avail)
		return 0;	/* the rest is not written yet */
	if (op == OP_NOP)
		return (int)len * 4;
	for (uint32_t i = 1; i < len; i++)
		if (sim_vm_read(s, q->base + ((rptr + 4ull * i) % q->bytes), &p[i], 4, &f))
			return fault(s, &f);
	switch (op) {
	case OP_COPY:
		if (p[1] & ~s->lay.sdma_count_mask)
			return bad(s, h, rptr, "COPY_LINEAR count's reserved bits set");
		if (copy(s, (uint64_t)p[6] << 32 | p[5], (uint64_t)p[4] << 32 | p[3],
			 (uint64_t)p[1] + 1, &f))
			return fault(s, &f);
		break;
	case OP_CONSTANT_FILL: {
		uint32_t size = h >> 30;

		addr = (uint64_t)p[2] << 32 | p[1];
		if ((p[4] & ~s->lay.sdma_count_mask) || (size != 0 && size != 2))
			return bad(s, h, rptr, "CONSTANT_FILL count or fillsize the sim does not take");
		if (size == 2 && ((addr & 3) || ((uint64_t)p[4] + 1) % 4))
			return bad(s, h, rptr, "CONSTANT_FILL of dwords misaligned");
		if (fill(s, addr, p[3], size == 2, (uint64_t)p[4] + 1, &f))
			return fault(s, &f);
		break;
	}
	case OP_FENCE:
		addr = (uint64_t)p[2] << 32 | p[1];
		if (addr & 3)
			return bad(s, h, rptr, "FENCE address not 4-byte aligned");
		if (!(w = sim_vm_ptr(s, addr, 4, true, &f)))
			return fault(s, &f);
		atomic_store_explicit((_Atomic uint32_t *)w, p[3], memory_order_release);
		break;
	case OP_TRAP: {
		struct sim_iv iv = {
			.client = s->lay.soc == 21 ? 10 : 8,
			.src = s->lay.soc == 21 ? SRC_SDMA_TRAP_SOC21 : SRC_SDMA_TRAP_SOC15,
			.data = { p[1] & 0x0fffffff },
		};

		if (p[1] >> 28)
			return bad(s, h, rptr, "TRAP int_context's reserved bits set");
		sim_ih_push(s, &iv);
		break;
	}
	case OP_POLL_REGMEM: {
		uint32_t fn = (h >> 28) & 7, v;

		if (h & (1u << 26))
			break;				/* an HDP flush */
		if (fn == 7)
			return bad(s, h, rptr, "POLL_REGMEM function 7");
		if (h >> 31) {
			addr = (uint64_t)p[2] << 32 | p[1];
			if (addr & 3)
				return bad(s, h, rptr, "POLL_REGMEM address not 4-byte aligned");
			if (!(w = sim_vm_ptr(s, addr, 4, false, &f)))
				return fault(s, &f);
			v = atomic_load_explicit((_Atomic uint32_t *)w, memory_order_acquire);
		} else {
			v = sim_reg(s, (p[1] >> 2) & (SIM_REGS - 1));
		}
		if (!sim_compare(fn, v & p[4], p[3]))
			return 0;
		break;
	}
	case OP_TIMESTAMP:
		addr = (uint64_t)p[2] << 32 | p[1];
		if (addr & 7)
			return bad(s, h, rptr, "TIMESTAMP address not 8-byte aligned");
		if (!(w = sim_vm_ptr(s, addr, 8, true, &f)))
			return fault(s, &f);
		atomic_store_explicit((_Atomic uint64_t *)w, sim_gpu_clock(),
				      memory_order_release);
		break;
	}
	return (int)len * 4;
}

bool
sdma_run(struct amd_sim *s, int qi)
{
	struct sim_queue *q = &s->sdma.q[qi];
	bool progress = false;
	struct sim_fault f;
	int n;

	/* Each packet under the engine's lock, as cp_run()'s. */
	sim_engine_lock(&s->sdma);
	atomic_store(&q->blocked, false);
	for (bool first = true;; first = false) {
		uint64_t wptr, rptr;
		void *w;

		if (!first) {	/* register writes in between packets */
			sim_engine_unlock(&s->sdma);
			sim_engine_lock(&s->sdma);
		}
		if (!q->enabled || atomic_load(&q->halted) || atomic_load(&q->stalled))
			break;
		/* Pairs with the doorbell's release: the packets before it. */
		wptr = atomic_load_explicit(&q->wptr, memory_order_acquire);
		rptr = atomic_load_explicit(&q->rptr, memory_order_relaxed);
		if (rptr == wptr)
			break;
		if ((rptr | wptr) & 3) {
			bad(s, 0, rptr, "ring pointer not dword aligned");
			break;
		}
		n = packet(s, rptr, wptr - rptr);
		if (n <= 0) {
			atomic_store(&q->blocked, n == 0);
			break;
		}
		progress = true;
		atomic_store_explicit(&q->rptr, rptr + (uint64_t)n, memory_order_release);
		if (q->rptr_writeback && q->rptr_addr &&
		    (w = sim_vm_ptr(s, q->rptr_addr, 8, true, &f)))
			atomic_store_explicit((_Atomic uint64_t *)w, rptr + (uint64_t)n,
					      memory_order_release);
	}
	sim_engine_unlock(&s->sdma);
	return progress;
}
