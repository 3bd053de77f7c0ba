/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/cp.c: the command processor's compute queues (MEC ME1 pipe 0,
 * HQDs 0..7). A queue starts when CP_HQD_ACTIVE is written 1 under
 * GRBM_GFX_CNTL's selection, from its HQD registers (MQD dwords 0x80..0xB7
 * 1:1, amd-facts §3.10): ring at PQ_BASE << 8 of 4 << (queue_size + 1)
 * bytes, read pointer written back to PQ_RPTR_REPORT_ADDR, doorbell at
 * PQ_DOORBELL_CONTROL's offset. Its write pointer (dwords) is the
 * doorbell's value. CP_HQD_DEQUEUE_REQUEST stops it. Packets run only
 * while the MEC runs (mec.c's gate).
 *
 * Packets (§4.1-4.3), strictly: a type other than 3 (or the type-2
 * filler), an opcode outside the subset, a count, a reserved bit or an
 * alignment the layout forbids, raises the CP error entry (GRBM_CP client,
 * CP_BAD_OPCODE_ERROR 183 or CP_PM4_PKT_RSVD_BIT_ERROR 180, src_data[0]
 * the header, src_data[1] the read pointer) and halts the queue; a memory
 * access the page tables refuse raises the VM fault and halts it. The sim
 * reads packets up to 256 dwords; an IB holds no IB (one level).
 * HQD register offsets below CP_MQD_BASE_ADDR: linux's v11 MQD (U in
 * layout.c), of which §3.13 confirms ACTIVE (+2), DEQUEUE_REQUEST (+24)
 * and PQ_WPTR_HI (+55).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "amd/sim/priv.h"

enum {
	HQD_ACTIVE = 2, HQD_PQ_BASE = 8, HQD_PQ_BASE_HI = 9, HQD_PQ_RPTR = 10,
	HQD_RPTR_REPORT = 11, HQD_WPTR_POLL = 13, HQD_DOORBELL = 15,
	HQD_PQ_CONTROL = 17, HQD_DEQUEUE = 24, HQD_WPTR_LO = 54, HQD_WPTR_HI = 55,
};

enum {
	IT_NOP = 0x10, IT_DISPATCH_DIRECT = 0x15, IT_WRITE_DATA = 0x37,
	IT_WAIT_REG_MEM = 0x3C, IT_INDIRECT_BUFFER = 0x3F, IT_EVENT_WRITE = 0x46,
	IT_RELEASE_MEM = 0x49, IT_ACQUIRE_MEM = 0x58, IT_SET_SH_REG = 0x76,
	IT_WAIT_REG_MEM64 = 0x93,
};

#define SRC_RSVD_BIT_ERROR	180
#define SRC_EOP			181
#define SRC_BAD_OPCODE		183
#define CLIENT_GRBM_CP		20
#define PKT_MAX			256

void
cp_hqd_write(struct amd_sim *s, uint32_t q_rel)
{
	struct sim_queue *q = &s->cp.q[q_rel >> 8];
	uint32_t *h = q->hqd;

	switch (q_rel & 0xff) {
	case HQD_ACTIVE:
		if (!(h[HQD_ACTIVE] & 1)) {
			q->enabled = false;
			return;
		}
		q->enabled = false;
		atomic_store(&q->halted, false);
		q->why[0] = '\0';
		if ((h[HQD_PQ_CONTROL] & 0x3f) > 28) {	/* rings up to 2 GiB */
			sim_queue_halt(q, "CP queue %u: PQ_CONTROL queue_size %u is past "
				       "a 2 GiB ring", q_rel >> 8, h[HQD_PQ_CONTROL] & 0x3f);
			return;
		}
		q->base = ((uint64_t)h[HQD_PQ_BASE_HI] << 32 | h[HQD_PQ_BASE]) << 8;
		q->bytes = 4ull << ((h[HQD_PQ_CONTROL] & 0x3f) + 1);
		q->rptr_addr = (uint64_t)h[HQD_RPTR_REPORT + 1] << 32 | h[HQD_RPTR_REPORT];
		q->wptr_addr = (uint64_t)h[HQD_WPTR_POLL + 1] << 32 | h[HQD_WPTR_POLL];
		q->doorbell = (h[HQD_DOORBELL] >> 2) & 0x3ffffff;
		q->doorbell_on = h[HQD_DOORBELL] & (1u << 30);
		atomic_store(&q->rptr, h[HQD_PQ_RPTR]);
		atomic_store(&q->wptr, (uint64_t)h[HQD_WPTR_HI] << 32 | h[HQD_WPTR_LO]);
		q->in_ib = false;	/* a restart reads the ring from PQ_RPTR */
		q->enabled = true;
		sim_engine_kick(&s->cp);
		break;
	case HQD_DEQUEUE:
		if (h[HQD_DEQUEUE]) {
			q->enabled = false;
			h[HQD_ACTIVE] = 0;
			h[HQD_DEQUEUE] = 0;
		}
		break;
	}
}

/* Where the queue reads: the ring (wrapping) or its IB. */
struct stream {
	struct sim_queue *q;
	bool ib;
	uint64_t pos;		/* dwords: ring read pointer or IB offset */
	uint64_t avail;		/* dwords there */
};

static void report_rptr(struct amd_sim *s, struct sim_queue *q, uint64_t rptr);

/* The read pointer's write-back where the queue reads now: before an
 * entry a packet raises (an error, a kernel's fault), so the driver that
 * reads the entry finds the packet at the read pointer (cp_run()). */
static void
report_here(struct amd_sim *s, struct sim_queue *q)
{
	report_rptr(s, q, atomic_load_explicit(&q->rptr, memory_order_relaxed));
}

static int
raise_error(struct amd_sim *s, int qi, uint8_t src, uint32_t header,
	    uint64_t rptr, const char *what)
{
	struct sim_iv iv = { .client = CLIENT_GRBM_CP, .src = src,
			     .ring = (uint8_t)(1 << 2 | qi << 4),
			     .data = { header, (uint32_t)rptr } };

	sim_queue_halt(&s->cp.q[qi], "CP queue %d: %s (header 0x%08x at dword %llu)",
		       qi, what, header, (unsigned long long)rptr);
	report_here(s, &s->cp.q[qi]);
	sim_ih_push(s, &iv);
	return -1;
}

static int
vm_fault(struct amd_sim *s, int qi, const struct sim_fault *f)
{
	report_here(s, &s->cp.q[qi]);
	if (!f->dropped)
		sim_ih_vm_fault(s, f, 1);
	sim_queue_halt(&s->cp.q[qi], "CP queue %d: %s at 0x%llx", qi,
		       f->dropped ? "host memory with bus mastering off"
				  : "VM fault", (unsigned long long)f->va);
	return -1;
}

/* Dword i of the stream's packet at pos. */
static int
read_dw(struct amd_sim *s, const struct stream *st, uint64_t i, uint32_t *v,
	struct sim_fault *f)
{
	const struct sim_queue *q = st->q;
	uint64_t va = st->ib ? q->ib_base + (st->pos + i) * 4
			     : q->base + ((st->pos + i) % (q->bytes / 4)) * 4;

	return sim_vm_read(s, va, v, 4, f);
}

/*
 * Dwords i .. i + n - 1 of the stream's packet at pos, through the page
 * tables as read_dw() reads each, but one walk per page of them rather
 * than one per dword (the ring wraps once at most: n <= PKT_MAX, and a
 * longer packet than the ring is refused before). A page the tables
 * refuse faults at its first byte the packet reaches, the dword read_dw()
 * would fault at.
 */
static int
read_span(struct amd_sim *s, const struct stream *st, uint64_t i, uint32_t *v,
	  uint32_t n, struct sim_fault *f)
{
	const struct sim_queue *q = st->q;
	uint64_t ring, at, first;

	if (st->ib)
		return sim_vm_read(s, q->ib_base + (st->pos + i) * 4, v, 4ull * n, f);
	ring = q->bytes / 4;
	at = (st->pos + i) % ring;
	first = at + n > ring ? ring - at : n;
	if (sim_vm_read(s, q->base + at * 4, v, 4 * first, f))
		return -1;
	return first == n ? 0 : sim_vm_read(s, q->base, v + first, 4 * (n - first), f);
}

static void *
word(struct amd_sim *s, uint64_t va, size_t n, bool write, struct sim_fault *f)
{
	return sim_vm_ptr(s, va, n, write, f);
}

/* One packet: its length (> 0) when done, 0 when it waits, -1 halted. */
static int
packet(struct amd_sim *s, int qi, struct stream *st)
{
	struct sim_queue *q = &s->cp.q[qi];
	uint32_t p[PKT_MAX], h, count, op, len;
	struct sim_fault f;
	uint64_t addr;
	void *w;

	if (read_dw(s, st, 0, &h, &f))
		return vm_fault(s, qi, &f);
	if (h == 0x80000000u || (h >> 30 == 3 && ((h >> 8) & 0xff) == IT_NOP &&
				 ((h >> 16) & 0x3fff) == 0x3fff))
		return 1;	/* type-2 filler; linux's one-dword NOP (§4.1) */
	if (h >> 30 != 3)
		return raise_error(s, qi, SRC_BAD_OPCODE, h, st->pos, "not a type-3 packet");
	count = (h >> 16) & 0x3fff;
	op = (h >> 8) & 0xff;
	len = count + 2;
	if (!st->ib && len > q->bytes / 4)
		return raise_error(s, qi, SRC_RSVD_BIT_ERROR, h, st->pos,
				   "packet longer than its ring");
	if (len > st->avail)
		return st->ib ? raise_error(s, qi, SRC_RSVD_BIT_ERROR, h, st->pos,
					    "packet runs past its IB's end") : 0;
	if (op == IT_NOP)
		return (int)len;
	if (len > PKT_MAX)
		return raise_error(s, qi, SRC_RSVD_BIT_ERROR, h, st->pos,
				   "packet longer than the sim's 256 dwords");
	if (len > 1 && read_span(s, st, 1, &p[1], len - 1, &f))
		return vm_fault(s, qi, &f);
	p[0] = h;
#define BAD(why) raise_error(s, qi, SRC_RSVD_BIT_ERROR, h, st->pos, why)
	switch (op) {
	case IT_WRITE_DATA: {
		uint32_t dst = (p[1] >> 8) & 0xf;
		bool one = p[1] & (1u << 16);

		if (count < 3)
			return BAD("WRITE_DATA with no data");
		if (dst == 0) {
			for (uint32_t i = 0; i < count - 2; i++)
				amd_sim_reg_write(s, (p[2] & 0x3ffff) + (one ? 0 : i), p[4 + i]);
			return (int)len;
		}
		if (dst != 5)
			return BAD("WRITE_DATA dst_sel other than memory or register");
		addr = (uint64_t)p[3] << 32 | p[2];
		if (addr & 3)
			return BAD("WRITE_DATA address not 4-byte aligned");
		for (uint32_t i = 0; i < count - 2; i++) {
			if (!(w = word(s, addr + (one ? 0 : 4ull * i), 4, true, &f)))
				return vm_fault(s, qi, &f);
			atomic_store_explicit((_Atomic uint32_t *)w, p[4 + i],
					      memory_order_release);
		}
		return (int)len;
	}
	case IT_RELEASE_MEM: {
		uint32_t int_sel = (p[2] >> 24) & 7, data_sel = (p[2] >> 29) & 7;
		uint32_t dst = (p[2] >> 16) & 3;

		if (count != 6)
			return BAD("RELEASE_MEM count is not 6");
		if (dst > 1 || int_sel > 4 || (data_sel > 3))
			return BAD("RELEASE_MEM dst_sel, int_sel or data_sel the sim does not take");
		addr = (uint64_t)p[4] << 32 | p[3];
		if (data_sel == 1) {
			if (addr & 3)
				return BAD("RELEASE_MEM 32-bit address not 4-byte aligned");
			if (!(w = word(s, addr, 4, true, &f)))
				return vm_fault(s, qi, &f);
			atomic_store_explicit((_Atomic uint32_t *)w, p[5], memory_order_release);
		} else if (data_sel >= 2) {
			uint64_t v = data_sel == 2 ? (uint64_t)p[6] << 32 | p[5]
						   : sim_gpu_clock();

			if (addr & 7)
				return BAD("RELEASE_MEM 64-bit address not 8-byte aligned");
			if (!(w = word(s, addr, 8, true, &f)))
				return vm_fault(s, qi, &f);
			/* One 64-bit store: never torn (a reader's acquire pairs). */
			atomic_store_explicit((_Atomic uint64_t *)w, v, memory_order_release);
		}
		if (int_sel) {
			struct sim_iv iv = { .client = CLIENT_GRBM_CP, .src = SRC_EOP,
					     .ring = (uint8_t)(1 << 2 | qi << 4),
					     .data = { p[7] } };

			sim_ih_push(s, &iv);
		}
		return (int)len;
	}
	case IT_WAIT_REG_MEM:
	case IT_WAIT_REG_MEM64: {
		bool wide = op == IT_WAIT_REG_MEM64;
		uint32_t fn = p[1] & 7, space = (p[1] >> 4) & 3, oper = (p[1] >> 6) & 3;
		uint64_t v, ref = wide ? (uint64_t)p[5] << 32 | p[4] : p[4];
		uint64_t mask = wide ? (uint64_t)p[7] << 32 | p[6] : p[5];

		if (count != (wide ? 7u : 5u))
			return BAD(wide ? "WAIT_REG_MEM64 count is not 7"
					: "WAIT_REG_MEM count is not 5");
		if (fn == 7 || space > 1 || oper != 0)
			return BAD("WAIT_REG_MEM function, mem_space or operation the sim does not take");
		if (space == 0) {
			v = sim_reg(s, p[2] & 0x3ffff);
		} else {
			addr = (uint64_t)p[3] << 32 | p[2];
			if (addr & (wide ? 7 : 3))
				return BAD("WAIT_REG_MEM poll address misaligned");
			if (!(w = word(s, addr, wide ? 8 : 4, false, &f)))
				return vm_fault(s, qi, &f);
			v = wide ? atomic_load_explicit((_Atomic uint64_t *)w, memory_order_acquire)
				 : atomic_load_explicit((_Atomic uint32_t *)w, memory_order_acquire);
		}
		return sim_compare(fn, v & mask, ref) ? (int)len : 0;
	}
	case IT_ACQUIRE_MEM:
		/* Caches are not modelled: the count is what is checked. */
		if (count != (s->lay.soc == 15 ? 5u : 6u))
			return BAD("ACQUIRE_MEM count wrong for this generation");
		return (int)len;
	case IT_SET_SH_REG: {
		uint32_t off = p[1] & 0xffff;

		if (count < 1 || off + count > SIM_SH_REGS)
			return BAD("SET_SH_REG outside the SH window");
		memcpy(&q->sh[off], &p[2], count * 4);
		return (int)len;
	}
	case IT_DISPATCH_DIRECT:
		if (count != 3)
			return BAD("DISPATCH_DIRECT count is not 3");
		if (!(p[4] & 1))
			return BAD("DISPATCH_DIRECT without compute_shader_en");
		/* A kernel may raise an entry (a fault, an SQ error) as it runs. */
		report_here(s, q);
		return launch_dispatch(s, qi, &p[1], p[4]) < 0 ? -1 : (int)len;
	case IT_EVENT_WRITE:
		if (count != 0 && count != 2)
			return BAD("EVENT_WRITE count is not 0 or 2");
		return (int)len;	/* the sim's work is done when it is read */
	case IT_INDIRECT_BUFFER:
		if (count != 2)
			return BAD("INDIRECT_BUFFER count is not 2");
		if (st->ib)
			return BAD("INDIRECT_BUFFER inside an IB");
		if ((p[1] & 3) || !(p[3] & (1u << 23)) || ((p[3] >> 24) & 0xf))
			return BAD("INDIRECT_BUFFER misaligned, not valid, or of a vmid other than 0");
		q->ib_base = ((uint64_t)(p[2] & 0xffff) << 32) | p[1];
		q->ib_dw = p[3] & 0xfffff;
		q->ib_pos = 0;
		q->in_ib = true;
		return (int)len;
	}
#undef BAD
	return raise_error(s, qi, SRC_BAD_OPCODE, h, st->pos, "opcode the sim does not take");
}

/* The read pointer's write-back to PQ_RPTR_REPORT_ADDR (dwords, 32 bits). */
static void
report_rptr(struct amd_sim *s, struct sim_queue *q, uint64_t rptr)
{
	struct sim_fault f;
	void *w;

	if (q->rptr_addr && (w = sim_vm_ptr(s, q->rptr_addr, 4, true, &f)))
		atomic_store_explicit((_Atomic uint32_t *)w, (uint32_t)rptr,
				      memory_order_release);
}

/*
 * A pass writes the read pointer back every REPORT_DWORDS dwords it reads
 * and where it stops (caught up, waiting, halted), as the hardware reports
 * it in blocks (PQ_CONTROL's RPTR_BLOCK_SIZE), not after every packet: a
 * write-back per packet was a page walk and a store to the line the
 * driver reads for room, per packet. Before a packet that may raise an
 * entry (a dispatch, whose kernel may fault, and any error) it writes back
 * where it reads, that packet, so a driver decoding the entry finds it
 * there; a halted queue's write-back stays there.
 */
#define REPORT_DWORDS	1024

bool
cp_run(struct amd_sim *s, int qi)
{
	struct sim_queue *q = &s->cp.q[qi];
	bool progress = false, moved = false;
	uint64_t reported;
	int n;

	/* Each packet under the engine's lock (sim_engine_lock()), so a
	 * register write that stops, restarts or resets the queue lands
	 * between packets: a pass begun before it reads the queue's state
	 * again, never stores the old read pointer over the new one. */
	sim_engine_lock(&s->cp);
	atomic_store(&q->blocked, false);
	reported = atomic_load_explicit(&q->rptr, memory_order_relaxed);
	for (bool first = true;; first = false) {
		uint64_t wptr, rptr;
		struct stream st;

		if (!first) {	/* register writes in between packets */
			sim_engine_unlock(&s->cp);
			sim_engine_lock(&s->cp);
		}
		/* A halted MEC runs nothing (mec.c); checked per packet, so
		 * a packet's own halting write stops it after that packet. */
		if (!q->enabled || atomic_load(&q->halted) || atomic_load(&q->stalled) ||
		    !sim_mec_runs(s))
			break;
		/* Pairs with the doorbell's release: the packets before it. */
		wptr = atomic_load_explicit(&q->wptr, memory_order_acquire);
		rptr = atomic_load_explicit(&q->rptr, memory_order_relaxed);
		st = (struct stream){ q, q->in_ib, q->in_ib ? q->ib_pos : rptr,
				      q->in_ib ? q->ib_dw - q->ib_pos : wptr - rptr };
		if (!q->in_ib && rptr == wptr)
			break;
		if (q->in_ib && q->ib_pos == q->ib_dw) {
			q->in_ib = false;
			continue;
		}
		n = packet(s, qi, &st);
		if (n <= 0) {
			atomic_store(&q->blocked, n == 0);
			break;
		}
		progress = true;
		if (st.ib) {
			q->ib_pos += (uint32_t)n;
			continue;
		}
		atomic_store_explicit(&q->rptr, rptr + (uint64_t)n, memory_order_release);
		moved = true;
		if (rptr + (uint64_t)n - reported >= REPORT_DWORDS) {
			reported = rptr + (uint64_t)n;
			report_rptr(s, q, reported);
			moved = false;
		}
	}
	/* Not for a queue stopped between packets: its driver may be
	 * rewriting the memory the write-back's walk reads. */
	if (moved && q->enabled)
		report_rptr(s, q, atomic_load_explicit(&q->rptr, memory_order_relaxed));
	sim_engine_unlock(&s->cp);
	return progress;
}
