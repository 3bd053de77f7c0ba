/* SPDX-License-Identifier: MIT */
/*
 * host/submit.c: room, submit and commit, the producer side of the value
 * ring (dev.h). rig calls the three one at a time per device.
 *
 * submit copies what the value's launches and copies need (their params
 * bytes too: the run that held them is reused once submit returns) into
 * the value's slot, calls the value's fills, publishes the slot and returns
 * RIG_COMMITTED: the device thread runs every published value without a
 * commit, so every submitted value is committed (k = 1) and commit has
 * nothing to do.
 *
 * Fills run here, at encode time, in part order, with a NULL queue context
 * (the host's queues have no object a fill could encode on): like a GPU
 * driver's fill that encodes on its stream, a fill runs before the value's
 * launches and copies, and before earlier values' work has completed. A
 * fill that returns non-zero fails the submit: the value is not published
 * and the device is lost.
 *
 * Parts run on the device thread in part order. Every `follows` entry names
 * an earlier part, so part order keeps every follows list across the two
 * queues and each queue's prefix order.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/dev.h"
#include "host/elf.h"
#include "rig_host.h"

/* The smallest arena a slot allocates, so most values never grow one. */
#define HOST_ARENA_MIN	1024u

/* Every launch's params block starts on this boundary (rig_host.h): a
 * kernel may read a member of any vector type, up to AVX-512's, with an
 * aligned load. The arena itself is allocated on it. */
#define HOST_PARAMS_ALIGN	64u
_Static_assert(HOST_PARAMS_ALIGN == RIG_HOST_PARAMS_ALIGN, "rig_host.h states it");

static bool
runs(uint32_t queue, enum rig_kind kind)
{
	if (queue == HOST_COMPUTE)
		return kind == RIG_LAUNCH_PART || kind == RIG_FILL_PART;
	if (queue == HOST_COPY)
		return kind == RIG_COPY_PART;
	return false;
}

/* The launch's groups; 0 where a dimension is empty or they pass
 * HOST_MAX_GROUPS. Overflow checked by multiplying, not dividing: room,
 * submit and encode each ask, and a 64-bit division costs tens of cycles. */
static uint64_t
groups(const struct rig_launch *l)
{
	uint64_t n = (uint64_t)l->grid[0] * l->grid[1];	/* two 32-bit: fits */

	if (__builtin_mul_overflow(n, (uint64_t)l->grid[2], &n) || n > HOST_MAX_GROUPS)
		return 0;
	return n;
}

/* Why part i can never run on the host, or NULL if it can. */
static const char *
never(const struct rig_part *parts, size_t i)
{
	const struct rig_part *p = &parts[i];
	const struct rig_launch *l = &p->u.launch;
	uint32_t j;

	if (p->kind < RIG_WORDS_PART || p->kind > RIG_LAUNCH_PART)
		return "a part of no kind";
	if (p->kind == RIG_WORDS_PART)
		return "words parts: the host's queues take no words";
	if (!runs(p->queue, p->kind))
		return "a part on a queue that does not run its kind";
	for (j = 0; j < p->nfollows; j++)
		if (p->follows[j] >= i)
			return "a follows entry that names no earlier part";
	switch (p->kind) {
	case RIG_LAUNCH_PART:
		if (!l->launch)
			return "a launch of no function";
		if (!groups(l) || !l->group[0] || !l->group[1] || !l->group[2])
			return "a launch whose grid or group is empty or too large";
		if (l->shared_bytes)
			return "a launch with shared memory, which host functions have none of";
		return NULL;
	case RIG_FILL_PART:
		return p->u.fill.fn ? NULL : "a fill of no function";
	default:
		if (p->u.copy.fill > 255)
			return "a fill with a value that is no byte";
		if (p->u.copy.bytes && p->u.copy.rows > UINT64_MAX / p->u.copy.bytes)
			return "a copy of more bytes than the host addresses";
		return NULL;
	}
}

/*
 * Why part i cannot run with the fields submit was given, or NULL. Room
 * does not ask: a copy's ends and a launch's params arrive with each run
 * (rig asks room at make with slots and params not yet known).
 */
static const char *
cannot(const struct rig_part *p)
{
	const struct rig_copy *c = &p->u.copy;

	if (p->kind == RIG_LAUNCH_PART && p->u.launch.params_bytes && !p->u.launch.params)
		return "a launch whose params are NULL";
	if (p->kind == RIG_COPY_PART && c->bytes && c->rows &&
	    (!c->dst.at.host || (c->fill < 0 && !c->src.at.host)))
		return "a copy of memory the host does not address";
	return NULL;
}

/* Whether value's slot is free: its previous job is done. Reads done only
 * when the copy of it submit kept says no. */
static bool
slot_free(struct host_dev *d, uint64_t value)
{
	if (value - d->done_seen <= HOST_RING)
		return true;
	/* Acquire pairs with the device thread's release store of done:
	 * the slot's previous job is no longer read once done passed it. */
	d->done_seen = atomic_load_explicit(&d->done, memory_order_acquire);
	return value - d->done_seen <= HOST_RING;
}

static size_t round64(size_t n);

/*
 * The ring is full (value's slot still runs): give the device thread a
 * moment before room answers RIG_LATER. Where that thread runs on another
 * core it frees a slot within a value's time, which a few pauses cover.
 * Where it shares this core (two cores and more threads that want them),
 * it runs only once this thread gives the core up: rig's answer to LATER
 * (a spin for room, the submission thread, a wait for the word, their
 * wake-ups) costs several switches per value, and once the submission
 * thread holds the device's values it keeps them (order), so the batch
 * stays on that path; a yield here lets the device thread drain the whole
 * ring and give the core back as it waits for the next publish (spin.h: a
 * yield). A yield may give the core to other work instead, so up to
 * FULL_YIELDS rounds of pauses and a yield, each ending as soon as done
 * moved (any move frees this slot). Measured (bench/host.c's
 * batched_submit, both threads on one core): 318-857 ns a submit and
 * 1,300-1,800 switches per batch of 100,000 before, 166-209 ns and ~780
 * (two per ring) after; with one round instead of eight, 2 of 8 unpinned
 * runs under load 18 still fell to the submission thread (60-240 futex
 * calls a batch where the others made 2), none of 8 with eight.
 * Bounded: FULL_YIELDS rounds, then room answers.
 */
#define FULL_PAUSES	16u	/* ~1 us here */
#define FULL_YIELDS	8u

static bool
make_way(struct host_dev *d, uint64_t value)
{
	for (unsigned y = 0; y < FULL_YIELDS; y++) {
		for (unsigned i = 0; i < FULL_PAUSES; i++)
			ck_pr_stall();
		if (slot_free(d, value))
			return true;
		sched_yield();
		if (slot_free(d, value))
			return true;
	}
	return false;
}

/* Walks the parts once: whether each can run, and what submit, called
 * next with the same parts, would walk them again for (the arena's bytes,
 * whether any is a fill), kept for it. */
int
host_room(void *edge, struct rig_part *parts, size_t nparts, size_t nwaits)
{
	struct host_dev *d = edge;
	size_t need = round64(nwaits * sizeof(struct rig_wait)) +
		      round64(nparts * sizeof(struct host_op));
	bool fills = false;
	size_t i;

	d->room_parts = NULL;
	for (i = 0; i < nparts; i++) {
		if (never(parts, i))
			return RIG_NEVER;
		if (parts[i].kind == RIG_LAUNCH_PART)
			need += round64(parts[i].u.launch.params_bytes);
		fills |= parts[i].kind == RIG_FILL_PART;
	}
	d->room_parts = parts;
	d->room_nparts = nparts;
	d->room_nwaits = nwaits;
	d->room_need = need;
	d->room_fills = fills;
	return slot_free(d, d->submitted + 1) || make_way(d, d->submitted + 1) ? RIG_FITS : RIG_LATER;
}

static int
fail(struct host_dev *d, const char **failure, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct host_dev *d, const char **failure, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->failure, sizeof(d->failure), fmt, ap);
	va_end(ap);
	d->failed = true;
	*failure = d->failure;
	return RIG_FAILED;
}

static size_t
round64(size_t n)
{
	return (n + HOST_PARAMS_ALIGN - 1) & ~(size_t)(HOST_PARAMS_ALIGN - 1);
}

/* The arena bytes value's work needs: waits, ops, then params blocks,
 * each starting on a multiple of 64 from the arena's 64-aligned start. */
static size_t
arena_need(const struct rig_part *parts, size_t nparts, size_t nwaits)
{
	size_t n = round64(nwaits * sizeof(struct rig_wait)) +
		   round64(nparts * sizeof(struct host_op));
	size_t i;

	for (i = 0; i < nparts; i++)
		if (parts[i].kind == RIG_LAUNCH_PART)
			n += round64(parts[i].u.launch.params_bytes);
	return n;
}

/* A span's first byte on the host; NULL for an empty buffer's. */
static unsigned char *
span_host(const struct rig_span *s)
{
	return s->at.host ? (unsigned char *)s->at.host + s->offset : NULL;
}

static void
encode_copy(struct host_op *op, const struct rig_copy *c)
{
	op->kind = RIG_COPY_PART;
	op->u.copy = (struct host_copy){
		.src = c->fill < 0 ? span_host(&c->src) : NULL,
		.dst = span_host(&c->dst),
		.bytes = c->bytes, .rows = c->rows,
		.src_pitch = c->src_pitch, .dst_pitch = c->dst_pitch,
		.fill = c->fill,
	};
}

/* Copy the value's waits, launches and copies into its slot's arena. */
static void
encode(struct host_job *job, const struct rig_part *parts, size_t nparts,
       const struct rig_wait *waits, size_t nwaits)
{
	unsigned char *a = job->arena;
	struct host_op *ops;
	size_t i, n = 0;

	if (nwaits)
		memcpy(a, waits, nwaits * sizeof(*waits));
	job->waits = (const struct rig_wait *)a;
	job->nwaits = nwaits;
	a += round64(nwaits * sizeof(*waits));
	ops = (struct host_op *)a;
	a += round64(nparts * sizeof(*ops));
	for (i = 0; i < nparts; i++) {
		const struct rig_launch *l = &parts[i].u.launch;

		if (parts[i].kind == RIG_COPY_PART) {
			ops[n].part = (int)i;
			encode_copy(&ops[n++], &parts[i].u.copy);
		} else if (parts[i].kind == RIG_LAUNCH_PART) {
			const struct elf_func *f = (const struct elf_func *)l->launch;

			if (l->params_bytes)
				memcpy(a, l->params, l->params_bytes);
			ops[n].kind = RIG_LAUNCH_PART;
			ops[n].part = (int)i;
			ops[n].u.launch.fn = (host_range_fn)f->addr;
			ops[n].u.launch.name = f->name;
			ops[n].u.launch.params = a;
			ops[n++].u.launch.groups = (int64_t)groups(l);
			a += round64(l->params_bytes);
		}
	}
	job->ops = ops;
	job->nops = n;
}

static int
call_fills(struct host_dev *d, uint64_t value, struct rig_part *parts,
	   size_t nparts, const char **failure)
{
	size_t i;
	int ret;

	for (i = 0; i < nparts; i++) {
		if (parts[i].kind != RIG_FILL_PART)
			continue;
		ret = parts[i].u.fill.fn(NULL, parts[i].u.fill.arg, value);
		if (ret != 0)
			return fail(d, failure, "the fill of part %zu of value %llu returned %d",
				    i, (unsigned long long)value, ret);
	}
	return 0;
}

/* The checks before anything changes: order, room, and parts it runs.
 * Parts that room has just found runnable (rig asks room right before
 * each submit, with the same parts, under its driver lock) are not walked
 * by never() twice: only what room cannot know is checked again. */
static int
check(struct host_dev *d, uint64_t value, const struct rig_part *parts,
      size_t nparts, size_t nwaits, bool *roomed_out, const char **failure)
{
	bool roomed = parts == d->room_parts && nparts == d->room_nparts &&
		      nwaits == d->room_nwaits;
	size_t i;

	*roomed_out = roomed;

	d->room_parts = NULL;
	if (d->failed)
		return *failure = d->failure, RIG_FAILED;
	if (value != d->submitted + 1)
		return fail(d, failure, "value %llu submitted after %llu, not next",
			    (unsigned long long)value, (unsigned long long)d->submitted);
	if (!slot_free(d, value))
		return fail(d, failure, "value %llu submitted while its slot still runs (room said RIG_LATER)",
			    (unsigned long long)value);
	for (i = 0; i < nparts; i++) {
		const char *why = !roomed && never(parts, i) ? never(parts, i) : cannot(&parts[i]);

		if (why)
			return fail(d, failure, "part %zu of value %llu: %s", i,
				    (unsigned long long)value, why);
	}
	return 0;
}

/* The slot's arena, grown to need bytes; allocates only past its size. */
static int
reserve(struct host_dev *d, struct host_job *job, size_t need, uint64_t value,
	const char **failure)
{
	void *a;

	if (need <= job->arena_bytes && job->arena)
		return 0;
	need = round64(need > HOST_ARENA_MIN ? need : HOST_ARENA_MIN);
	/* Not realloc: its 16-byte alignment would misplace the params, and
	 * encode() writes the whole arena anew. */
	a = aligned_alloc(HOST_PARAMS_ALIGN, need);
	if (!a)
		return fail(d, failure, "no memory for the %zu bytes of value %llu's work",
			    need, (unsigned long long)value);
	free(job->arena);
	job->arena = a;
	job->arena_bytes = need;
	return 0;
}

int
host_submit(void *edge, uint64_t value, struct rig_part *parts, size_t nparts,
	    const struct rig_wait *waits, size_t nwaits, struct rig_times *times,
	    const char **failure)
{
	struct host_dev *d = edge;
	struct host_job *job = &d->ring[value % HOST_RING];
	bool roomed;

	/* Parts room just walked: its count of their arena and fills. */
	if (check(d, value, parts, nparts, nwaits, &roomed, failure) != 0 ||
	    reserve(d, job, roomed ? d->room_need : arena_need(parts, nparts, nwaits),
		    value, failure) != 0 ||
	    ((!roomed || d->room_fills) && call_fills(d, value, parts, nparts, failure) != 0))
		return RIG_FAILED;
	encode(job, parts, nparts, waits, nwaits);
	job->value = value;
	job->times = times;
	if (d->run_at_submit && host_run_here(d, job, value))
		return RIG_COMMITTED;
	d->submitted = value;
	/* Release pairs with the device thread's acquire load of published:
	 * the job's fields and arena are written first. */
	atomic_store_explicit(&d->published, value, memory_order_release);
	host_exec_wake(d);
	return RIG_COMMITTED;
}

int
host_commit(void *edge, uint64_t value, const char **failure)
{
	struct host_dev *d = edge;

	/* Every submitted value is committed (k = 1): nothing to let run. */
	if (d->failed)
		return *failure = d->failure, RIG_FAILED;
	return RIG_OK;
}
