/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/queue.c: room, submit and commit on the device's two rings,
 * "COMPUTE:0" (the compute HQD: launches, fills, words) and "SDMA:0"
 * (copies and byte fills of memory).
 *
 * Device order. A value's parts are encoded in their index order, which
 * every part's follows respects (a part follows earlier parts only). Where
 * consecutive parts run on different engines, the first hands over to the
 * second: the compute queue's RELEASE_MEM writes hand-off number s into
 * its step word once its earlier work has completed and SDMA's
 * POLL_REGMEM waits for s there; SDMA's FENCE writes s into its own step
 * word and the compute queue's WAIT_REG_MEM waits for it. Each step word
 * has one writer and its waiter waits for exactly s (EQ), so 32 bits never
 * wrap into a wrong answer. Every value ends on the compute queue: its
 * RELEASE_MEM writes the value into the device's word (64 bits, one store)
 * at the end of the pipe, after every earlier part on both engines; rig
 * reads the word through ops.signaled (completion Store). The last value
 * of a commit may also raise the EOP interrupt, which wakes rig's waiters
 * at once (ih.c; eop_wanted() below says which and why not every value).
 *
 * Waits. A value's waits go first on the compute queue, each a
 * WAIT_REG_MEM64 >= the value on the producer's 64-bit word: another AMD
 * GPU's own word, read through its memory BAR (peer.c), or for any other
 * Store producer a relay word the host keeps equal to the producer's
 * (relay.c). A wait rig's word already shows is dropped. Where the value's
 * first consuming part is a copy, the usual hand-off carries the wait to
 * SDMA: its POLL_REGMEM waits for the step the compute queue writes once
 * the 64-bit wait passed. (POLL_REGMEM compares 32 bits, so it cannot wait
 * on the 64-bit word itself without going wrong when the word passes a
 * multiple of 2^32.)
 *
 * Commit rings both doorbells (SDMA's first) for everything encoded; submit
 * commits on its own every AMD_COMMIT_K values (k = 16) and then answers
 * RIG_COMMITTED. Room counts the dwords a value takes against each ring's
 * free space (its engine's read-pointer write-back, read again only where
 * the last read leaves too little: fits()), the kernarg arena's
 * bytes against what completed values freed, and rings what is encoded
 * before answering RIG_LATER, so the value it waits for runs.
 *
 * Launches. A launch of the function the compute queue launched last
 * sets only the registers a launch changes (the kernarg address and the
 * group: amd/pm4/dispatch.h's again form, half the dwords); any other
 * sets them all (full), as does the first after the queue is made and
 * after a words part, whose packets may set any register. The queue
 * keeps SET_SH_REG state between dispatches; on the software GPU the sim
 * does too (it runs the code PGM_LO names), on hardware it is unverified.
 *
 * Fills run on the host in submit, as the polled device runs them: the
 * function is called with no queue context (NULL) and the value. So a fill
 * is ordered neither after the device's earlier work nor after the value's
 * waits, which its queue passes later (a gap of the fill's, not of waits).
 * Times: submit leaves a profile's pair 0 (work it cannot time yet).
 */
#include <stdio.h>
#include <string.h>

#include "amd/dev/dev.h"

/* The most dwords any one packet this file encodes takes (a words part,
 * the program's packets, may take more: room counts it). */
#define PACKET_MAX	(PM4_LAUNCH_MAX + 16)
#define HANDOFF_CP	(PM4_RELEASE_MEM_DWORDS + PM4_WAIT_REG_MEM_DWORDS)
#define HANDOFF_SDMA	(6 + 4)
#define VALUE_END	PM4_RELEASE_MEM_DWORDS
#define ARENA_ALIGN	256u
/* Both rings' dwords (amd_queue_init), a constant for room's checks. */
#define RING_DWORDS	(AMD_RING_BYTES / 4)

/* An entry of d->placed as read. */
struct amd_dev_placed {
	uint64_t value, start, end;
	int part;
	bool sdma;
};

static bool
is_sdma(const struct rig_part *p)
{
	return p->queue == 1;
}

uint64_t
amd_dev_word(const struct amd_dev *d)
{
	return atomic_load_explicit((_Atomic uint64_t *)(d->vram + AMD_WORD_AT),
				    memory_order_acquire);
}

void
amd_queue_init(struct amd_dev *d)
{
	d->cp = (struct amd_ring){ (uint32_t *)(d->vram + AMD_CP_RING_AT), RING_DWORDS, 0 };
	d->sdma = (struct amd_ring){ (uint32_t *)(d->vram + AMD_SDMA_RING_AT), RING_DWORDS, 0 };
	memset(d->vram + AMD_CP_STEP_AT, 0, 0x80);
	d->sh_serial = 0;	/* a queue just made: registers unknown */
	/* Every value's end is this RELEASE_MEM with the value in DW5-7. */
	(void)pm4_release_mem(d->end_template, d->gfx, PM4_WB_L2, PM4_DATA_64,
			      PM4_INT_NONE, AMD_VA_VRAM + AMD_WORD_AT, 0, 0);
}

/*
 * Whether a value taking cp and sdma dwords and arena bytes fits, by what
 * room last read of the engines' read pointers and the word, or (look)
 * by reading them now. The engines write those lines as they run, so a
 * read moves the line from the engine's core to the submitter's: room
 * reads them only where the old look says no (each only grows, so an old
 * look only understates the room).
 */
static inline bool
fits(struct amd_dev *d, uint64_t cp, uint64_t sdma, uint64_t arena, bool look)
{
	if (look) {
		d->cp_rptr_seen = atomic_load_explicit((_Atomic uint32_t *)(d->vram + AMD_CP_RPTR_AT),
						       memory_order_acquire);
		d->sdma_rptr_seen = atomic_load_explicit((_Atomic uint64_t *)(d->vram + AMD_SDMA_RPTR_AT),
							 memory_order_acquire) / 4;
		d->done_seen = amd_dev_word(d);
	}
	/* History first: where it holds, done's arena slot is still done's. */
	return d->last_submitted - d->done_seen < AMD_HISTORY - 1 &&
	       (uint32_t)((uint32_t)d->cp.wptr - d->cp_rptr_seen) + cp < RING_DWORDS &&
	       (!sdma || d->sdma.wptr - d->sdma_rptr_seen + sdma < RING_DWORDS) &&
	       d->arena_next + arena - d->arena_used_by[d->done_seen % AMD_HISTORY] <=
	       AMD_ARENA_BYTES;
}

/* The dwords a copy part takes on SDMA (its rows' packets), 0 if it cannot run. */
static uint64_t
copy_dwords(const struct amd_dev *d, const struct rig_copy *c)
{
	uint64_t per = sdma_packets(d->sdma_gen, c->bytes);

	/* An end without an address is a slot at rig_submission_make, which
	 * asks room of the parts alone: every region of this device has an
	 * address, so the slot's buffer has one at submit, where room asks
	 * again with it. Count the packets of the known length meanwhile. */
	if (!c->dst.at.has_address || (c->fill < 0 && !c->src.at.has_address))
		return (per ? per : 1) * 7 + 1;
	if (c->fill >= 0) {
		uint64_t dst = c->dst.at.address + c->dst.offset;

		/* Dword fills of a repeated byte: 4-aligned rows only. */
		if ((dst | c->bytes | (c->rows > 1 ? c->dst_pitch : 0)) & 3)
			return 0;
		return c->rows * per * 5 + 1;
	}
	return c->rows * per * 7 + 1;
}

static inline int
check_launch(const struct rig_launch *l)
{
	const struct pm4_dispatch *t = (const struct pm4_dispatch *)l->launch;
	uint64_t threads = (uint64_t)l->group[0] * l->group[1] * l->group[2];

	/* 1 to 1024 threads: 0 wraps past the bound. */
	if (!t || threads - 1 >= 1024 || !l->grid[0] || !l->grid[1] || !l->grid[2] ||
	    l->shared_bytes > 65536 || l->params_bytes > (1u << 20))
		return -1;
	return (int)t->full.ndwords;
}

/* The arena bytes a launch's kernargs take: whole, in ARENA_ALIGN steps,
 * one step where there are none (every launch has an address). */
static inline uint64_t
params_slot(const struct rig_launch *l)
{
	uint64_t bytes = (l->params_bytes + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);

	return bytes ? bytes : ARENA_ALIGN;
}

/* The arena bytes room counts for a launch's kernargs: its slot, and the
 * most a wrap to the arena's start skips, which is less than the slot
 * (put_params wraps only a slot that does not fit before the end). */
static inline uint64_t
launch_arena(const struct rig_launch *l)
{
	return 2 * params_slot(l);
}

/*
 * Whether the commit of the values up to the last one encoded asks the
 * EOP interrupt of that value (its RELEASE_MEM, not yet handed over, is
 * changed to ask: ring_doorbells()). An interrupt only hurries rig's wake
 * of the word's waiters (rig reads the word, signaled, while anyone
 * waits, and the events call wakes them at once), and each costs the
 * host a wake of the polling thread; rig commits every value nothing
 * follows, so one a commit could be one a value. So a commit asks it
 * where every interrupt asked has been read (the GPU may have gone idle:
 * a lone long kernel wakes its waiter at once) or AMD_COMMIT_K values
 * went by since the last one asked (a stream of values wakes its waiters
 * at least that often), and never while AMD_EOP_MAX asked are unread, so
 * however late the events call drains the IH ring, end-of-pipe entries
 * never fill it (ih.c).
 */
static bool
eop_wanted(struct amd_dev *d)
{
	uint64_t unread = d->eop_asked - atomic_load_explicit(&d->eop_seen,
							      memory_order_relaxed);

	return unread < AMD_EOP_MAX &&
	       (unread == 0 || d->last_submitted - d->eop_value >= AMD_COMMIT_K);
}

/* Hands everything encoded to the engines (SDMA's first). */
static void
ring_doorbells(struct amd_dev *d)
{
	if (d->eop_pending) {
		if (eop_wanted(d)) {
			pm4_release_mem_interrupt(d->eop_pending, PM4_INT_AFTER_WRITE);
			d->eop_asked++;
			d->eop_value = d->last_submitted;
		}
		d->eop_pending = NULL;
	}
	if (d->sdma.wptr != d->sdma_committed) {
		d->sdma_committed = d->sdma.wptr;
		pci_doorbell_ring(&d->sdma_db, d->sdma.wptr * 4);
	}
	if (d->cp.wptr != d->cp_committed) {
		d->cp_committed = d->cp.wptr;
		pci_doorbell_ring(&d->cp_db, d->cp.wptr);
	}
	atomic_store_explicit(&d->cp_rung, d->cp_committed, memory_order_release);
	d->last_committed = d->last_submitted;
	if (!d->irq.msi)
		(void)d->m->ops->irq_arm(d->m, &d->t, &d->irq, true);
}

/* Room's answer for a value that takes cp and sdma dwords and arena bytes. */
static inline int
room_for(struct amd_dev *d, uint64_t cp, uint64_t sdma, uint64_t arena)
{
	if (!fits(d, cp, sdma, arena, false) && !fits(d, cp, sdma, arena, true)) {
		ring_doorbells(d);
		return RIG_LATER;
	}
	return RIG_FITS;
}

static int
amd_room(void *edge, struct rig_part *parts, size_t n, size_t nwaits)
{
	struct amd_dev *d = edge;
	uint64_t cp = VALUE_END + HANDOFF_CP + PACKET_MAX, sdma = HANDOFF_SDMA + PACKET_MAX;
	uint64_t arena = 0, words_max = 0;
	int dw;

	/* The usual value, one launch and no wait: the walk below for it
	 * alone, whose counts lie far under the halves checked there. It
	 * writes nothing on SDMA (submit_launch()). */
	if (n == 1 && !nwaits && parts[0].kind == RIG_LAUNCH_PART) {
		if (is_sdma(&parts[0]) || (dw = check_launch(&parts[0].u.launch)) < 0)
			return RIG_NEVER;
		return room_for(d, cp + HANDOFF_CP + (uint64_t)dw, 0,
				launch_arena(&parts[0].u.launch));
	}
	cp += nwaits * PM4_WAIT_REG_MEM64_DWORDS;
	for (size_t i = 0; i < n; i++) {
		const struct rig_part *p = &parts[i];

		cp += HANDOFF_CP;
		sdma += HANDOFF_SDMA;
		switch (p->kind) {
		case RIG_COPY_PART:
			if (!is_sdma(p) || !(dw = (int)copy_dwords(d, &p->u.copy)))
				return RIG_NEVER;
			sdma += (uint64_t)dw;
			break;
		case RIG_WORDS_PART:
			if (is_sdma(p) || !p->u.words.count ||
			    p->u.words.count > RING_DWORDS / 4)
				return RIG_NEVER;
			cp += p->u.words.count;
			if (p->u.words.count > words_max)
				words_max = p->u.words.count;
			break;
		case RIG_LAUNCH_PART:
			if (is_sdma(p) || (dw = check_launch(&p->u.launch)) < 0)
				return RIG_NEVER;
			cp += (uint64_t)dw;
			arena += launch_arena(&p->u.launch);
			break;
		case RIG_FILL_PART:
			if (is_sdma(p) || !p->u.fill.fn)
				return RIG_NEVER;
			break;
		default:
			return RIG_NEVER;
		}
	}
	/* A value of at most half the ring wraps at most once, and the NOPs
	 * before the end are fewer than the packet that wraps: PACKET_MAX
	 * counted them for every packet but words. */
	if (words_max > PACKET_MAX)
		cp += words_max - PACKET_MAX;
	if (cp > RING_DWORDS / 2 || sdma > RING_DWORDS / 2 || arena > AMD_ARENA_BYTES / 2)
		return RIG_NEVER;
	return room_for(d, cp, sdma, arena);
}

/* Submit's: the entry's sequence odd, its fields, the sequence even. */
static inline void
place(struct amd_dev *d, uint64_t value, size_t part, bool sdma, uint64_t start,
      uint64_t end)
{
	uint64_t n = atomic_load_explicit(&d->nplaced, memory_order_relaxed);
	struct amd_placed *p = &d->placed[n % AMD_HISTORY];

	atomic_store_explicit(&p->seq, 2 * value + 1, memory_order_relaxed);
	/* The odd sequence before the fields (a reader that sees a field
	 * sees it odd, or changed at its second look). */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&p->start, start, memory_order_relaxed);
	atomic_store_explicit(&p->info, (end - start) << 32 |
			      (uint64_t)(part & INT32_MAX) << 1 | sdma, memory_order_relaxed);
	atomic_store_explicit(&p->seq, 2 * value, memory_order_release);
	atomic_store_explicit(&d->nplaced, n + 1, memory_order_release);
}

/* The events call's: entry k whole, or false where submit rewrote it. */
static bool
placed_read(struct amd_dev *d, uint64_t k, struct amd_dev_placed *out)
{
	struct amd_placed *p = &d->placed[k % AMD_HISTORY];
	uint64_t seq = atomic_load_explicit(&p->seq, memory_order_acquire), info;

	if (seq & 1)
		return false;
	out->value = seq / 2;
	out->start = atomic_load_explicit(&p->start, memory_order_relaxed);
	info = atomic_load_explicit(&p->info, memory_order_relaxed);
	out->end = out->start + (info >> 32);
	out->part = (int)((uint32_t)info >> 1);
	out->sdma = info & 1;
	/* The fields before the second look at the sequence. */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&p->seq, memory_order_relaxed) == seq;
}

static void
handoff(struct amd_dev *d, bool to_sdma)
{
	uint32_t s = ++d->step;
	uint32_t *p;

	if (to_sdma) {
		p = amd_ring_reserve(&d->cp, PM4_RELEASE_MEM_DWORDS, pm4_nop);
		p = pm4_release_mem(p, d->gfx, PM4_WB_L2, PM4_DATA_32, PM4_INT_NONE,
				    AMD_VA_VRAM + AMD_CP_STEP_AT, s, 0);
		amd_ring_advance(&d->cp, p);
		p = sdma_ring_reserve(&d->sdma, 6);
		p = sdma_poll_regmem(p, SDMA_FUNC_EQ, AMD_VA_VRAM + AMD_CP_STEP_AT, s,
				     0xFFFFFFFFu);
		amd_ring_advance(&d->sdma, p);
	} else {
		p = sdma_ring_reserve(&d->sdma, 4);
		p = sdma_fence(p, d->sdma_gen, AMD_VA_VRAM + AMD_SDMA_STEP_AT, s);
		amd_ring_advance(&d->sdma, p);
		p = amd_ring_reserve(&d->cp, PM4_WAIT_REG_MEM_DWORDS, pm4_nop);
		p = pm4_wait_reg_mem(p, PM4_FUNC_EQ, true, AMD_VA_VRAM + AMD_SDMA_STEP_AT,
				     s, 0xFFFFFFFFu, 4);
		amd_ring_advance(&d->cp, p);
	}
	d->on_sdma = to_sdma;
}

static void
encode_copy(struct amd_dev *d, const struct rig_copy *c)
{
	uint64_t max = sdma_count_max(d->sdma_gen);
	uint32_t pattern = (uint32_t)(c->fill & 0xff) * 0x01010101u;

	for (uint64_t r = 0; r < c->rows; r++) {
		uint64_t dst = c->dst.at.address + c->dst.offset + r * c->dst_pitch;
		uint64_t src = c->src.at.address + c->src.offset + r * c->src_pitch;

		for (uint64_t at = 0; at < c->bytes; at += max) {
			uint64_t b = c->bytes - at < max ? c->bytes - at : max;
			uint32_t *p = sdma_ring_reserve(&d->sdma, 7);

			p = c->fill >= 0 ? sdma_fill_one(p, dst + at, pattern, b)
					 : sdma_copy_one(p, dst + at, src + at, b);
			amd_ring_advance(&d->sdma, p);
		}
	}
}

/* A launch's kernargs into the arena: the usual few words inline (a
 * call to memcpy cost more than the copy), 16 bytes a step where they
 * come in such steps. */
static inline void
copy_params(uint8_t *to, const void *from, uint64_t bytes)
{
	if (bytes <= 64 && !(bytes & 15)) {
		for (uint64_t i = 0; i < bytes; i += 16)
			memcpy(to + i, (const uint8_t *)from + i, 16);
	} else if (bytes <= 64 && !(bytes & 7)) {
		for (uint64_t i = 0; i < bytes; i += 8)
			memcpy(to + i, (const uint8_t *)from + i, 8);
	} else if (bytes) {
		memcpy(to, from, bytes);
	}
}

/* A launch's kernargs into the arena, whole: their GPU VA. */
static inline uint64_t
put_params(struct amd_dev *d, const struct rig_launch *l)
{
	uint64_t bytes = params_slot(l);
	uint64_t at = d->arena_next % AMD_ARENA_BYTES;

	if (at + bytes > AMD_ARENA_BYTES) {	/* kernargs lie whole */
		d->arena_next += AMD_ARENA_BYTES - at;
		at = 0;
	}
	copy_params(d->vram + AMD_ARENA_AT + at, l->params, l->params_bytes);
	d->arena_next += bytes;
	return AMD_VA_VRAM + AMD_ARENA_AT + at;
}

/* The form a launch of t takes: again where the queue's registers are
 * already t's, else full, after which they are. */
static inline const struct pm4_form *
launch_form(struct amd_dev *d, const struct pm4_dispatch *t)
{
	if (t->serial == d->sh_serial)
		return &t->again;
	d->sh_serial = t->serial;
	return &t->full;
}

/* A launch (its kernargs, then its packets): the dwords it took. */
static uint32_t
encode_launch(struct amd_dev *d, const struct rig_launch *l)
{
	const struct pm4_form *f = launch_form(d, (const struct pm4_dispatch *)l->launch);
	uint64_t va = put_params(d, l);
	uint32_t *p = amd_ring_reserve(&d->cp, f->ndwords, pm4_nop);

	p = pm4_launch(p, f, va, l->grid, l->group);
	amd_ring_advance(&d->cp, p);
	return f->ndwords;
}

/*
 * Every value's end at p on the compute queue (reserved): the RELEASE_MEM
 * of the value into the word, whose interrupt ring_doorbells() decides,
 * and the commit every AMD_COMMIT_K values.
 */
static inline int
end_value(struct amd_dev *d, uint64_t value, uint32_t *p)
{
	d->eop_pending = p;
	p = pm4_release_mem_copy(p, d->end_template, value, (uint32_t)value);
	amd_ring_advance(&d->cp, p);
	d->arena_used_by[value % AMD_HISTORY] = d->arena_next;
	d->last_submitted = value;
	if (value - d->last_committed >= AMD_COMMIT_K) {
		ring_doorbells(d);
		return RIG_COMMITTED;
	}
	return RIG_OK;
}

/*
 * The usual value: one launch, no wait, the compute queue's turn. Its
 * launch and its end are reserved at once, one reserve and one advance
 * for both (room counted the same dwords).
 */
static inline int
submit_launch(struct amd_dev *d, uint64_t value, const struct rig_launch *l)
{
	const struct pm4_form *f = launch_form(d, (const struct pm4_dispatch *)l->launch);
	uint64_t va = put_params(d, l);
	uint32_t *p = amd_ring_reserve(&d->cp, f->ndwords + PM4_RELEASE_MEM_DWORDS, pm4_nop);
	uint64_t start = d->cp.wptr;

	p = pm4_launch(p, f, va, l->grid, l->group);
	place(d, value, 0, false, start, start + f->ndwords);
	return end_value(d, value, p);
}

/* The value's waits on the compute queue: 0, or RIG_FAILED (no relay). */
static int
encode_waits(struct amd_dev *d, uint64_t value, const struct rig_wait *waits,
	     size_t nwaits, const char **failure)
{
	for (size_t i = 0; i < nwaits; i++) {
		const struct rig_wait *w = &waits[i];
		uint64_t va;
		uint32_t *p;
		int ret;

		if (atomic_load_explicit(w->word, memory_order_acquire) >= w->value)
			continue;
		if (!amd_peer_word_va(d, w->word, &va) &&
		    (ret = amd_relay_va(d, w->word, w->value, value, &va)) != 0) {
			if (ret > 0)
				continue;	/* waited for on the host */
			*failure = d->fault;
			return RIG_FAILED;
		}
		p = amd_ring_reserve(&d->cp, PM4_WAIT_REG_MEM64_DWORDS, pm4_nop);
		p = pm4_wait_reg_mem64(p, PM4_FUNC_GE, va, w->value, ~0ull, 4);
		amd_ring_advance(&d->cp, p);
	}
	return 0;
}

/* Any value: its waits, its parts in order with the hand-offs between
 * engines, its end. Out of line, so the usual value's path (amd_submit)
 * saves none of the registers this one uses. */
static __attribute__((noinline)) int
submit_any(struct amd_dev *d, uint64_t value, struct rig_part *parts, size_t n,
	   const struct rig_wait *waits, size_t nwaits, const char **failure)
{
	uint32_t *p, dw;

	if (nwaits && encode_waits(d, value, waits, nwaits, failure) < 0)
		return RIG_FAILED;
	for (size_t i = 0; i < n; i++) {
		struct rig_part *pt = &parts[i];
		bool sdma = is_sdma(pt);
		uint64_t start;

		if (pt->kind == RIG_FILL_PART) {
			if (pt->u.fill.fn(NULL, pt->u.fill.arg, value) != 0) {
				snprintf(d->fault, sizeof(d->fault), "the fill of part %zu of "
					 "value %llu failed", i, (unsigned long long)value);
				*failure = d->fault;
				return RIG_FAILED;
			}
			continue;
		}
		if (sdma != d->on_sdma)
			handoff(d, sdma);
		start = sdma ? d->sdma.wptr * 4 : d->cp.wptr;
		switch (pt->kind) {
		case RIG_COPY_PART:
			encode_copy(d, &pt->u.copy);
			break;
		case RIG_WORDS_PART:
			p = amd_ring_reserve(&d->cp, (uint32_t)pt->u.words.count, pm4_nop);
			memcpy(p, pt->u.words.words, pt->u.words.count * 4);
			amd_ring_advance(&d->cp, p + pt->u.words.count);
			start = d->cp.wptr - pt->u.words.count;
			d->sh_serial = 0;	/* the words may set any register */
			break;
		case RIG_LAUNCH_PART:
			dw = encode_launch(d, &pt->u.launch);
			start = d->cp.wptr - dw;	/* after a wrap's filler */
			break;
		default:
			break;
		}
		place(d, value, i, sdma, start, sdma ? d->sdma.wptr * 4 : d->cp.wptr);
	}
	if (d->on_sdma)
		handoff(d, false);
	return end_value(d, value, amd_ring_reserve(&d->cp, PM4_RELEASE_MEM_DWORDS, pm4_nop));
}

static int
amd_submit(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	   const struct rig_wait *waits, size_t nwaits, struct rig_times *times,
	   const char **failure)
{
	struct amd_dev *d = edge;

	if (times)
		*times = (struct rig_times){ 0, 0 };
	if (n == 1 && !nwaits && parts[0].kind == RIG_LAUNCH_PART && !d->on_sdma)
		return submit_launch(d, value, &parts[0].u.launch);
	return submit_any(d, value, parts, n, waits, nwaits, failure);
}

static int
amd_commit(void *edge, uint64_t value, const char **failure)
{
	struct amd_dev *d = edge;

	(void)failure;
	if (value > d->last_committed)
		ring_doorbells(d);
	return RIG_OK;
}

void
amd_queue_culprit(struct amd_dev *d, bool sdma, struct rig_fault_site *site)
{
	uint64_t rung = atomic_load_explicit(&d->cp_rung, memory_order_acquire);
	uint64_t at, n;

	if (sdma) {
		at = atomic_load_explicit((_Atomic uint64_t *)(d->vram + AMD_SDMA_RPTR_AT),
					  memory_order_acquire);
	} else {
		uint32_t lo = atomic_load_explicit((_Atomic uint32_t *)(d->vram + AMD_CP_RPTR_AT),
						   memory_order_acquire);

		at = (rung & ~0xFFFFFFFFull) | lo;
		if (at > rung && at >= 1ull << 32)
			at -= 1ull << 32;
	}
	n = atomic_load_explicit(&d->nplaced, memory_order_acquire);
	for (uint64_t k = n; k > 0 && n - k < AMD_HISTORY; k--) {
		struct amd_dev_placed p;

		/* An entry rewritten meanwhile is a newer value's: the halted
		 * engine's read pointer is not in it. */
		if (placed_read(d, k - 1, &p) && p.sdma == sdma && p.start <= at &&
		    at < p.end) {
			site->value = p.value;
			site->part = p.part;
			site->queue = sdma ? 1 : 0;
			return;
		}
	}
	site->value = amd_dev_word(d) + 1;
	site->queue = sdma ? 1 : 0;
}

const struct rig_driver amd_dev_driver = {
	.room = amd_room,
	.submit = amd_submit,
	.commit = amd_commit,
};
