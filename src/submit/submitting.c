/* SPDX-License-Identifier: MIT */
/*
 * submit/submitting.c: rig_submit(). A submit checks the run's buffers
 * against what the parts do with each slot, copies what varies into a job
 * (copy ends, blocks with refs placed), claims the memory it uses (claim.c)
 * while it draws the device's value, routes the waits the stamps gave, and
 * places the job on the device's ring. It never calls the driver itself
 * unless the device runs its work inline (the memory device).
 */
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "profile/profile.h"
#include "submit/claim_hot.h"
#include "submit/submission.h"

#define SMALL 16		/* uses kept on the stack */

struct sub_job {
	struct job job;
	struct rig_submission *s;
	union rig_work *work;		/* per part, installed by prepare */
	unsigned char *args;		/* the parts' params, refs placed */
};

static size_t
align16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static void
sub_prepare(struct job *job)
{
	struct sub_job *sj = (struct sub_job *)job;
	struct rig_submission *s = sj->s;

	for (size_t i = 0; i < s->nparts; i++)
		s->dparts[i].u = sj->work[i];
	job->parts = s->dparts;
	job->nparts = s->nparts;
}

/* The layout of a job: the job, its work, its args, nwaits waits of each
 * kind. */
struct job_layout { size_t work, args, waits, host, bytes; };

void
submitting_layout(struct rig_submission *s)
{
	s->job_args_at = align16(sizeof(struct sub_job)) +
			 align16(s->nparts * sizeof(union rig_work));
	s->job_waits_at = s->job_args_at + align16(s->arg_bytes);
}

/* What the parts decide was laid out at make (submitting_layout); a
 * submit adds only its waits. */
static inline struct job_layout
job_layout(const struct rig_submission *s, size_t nwaits)
{
	struct job_layout l;

	l.work = align16(sizeof(struct sub_job));
	l.args = s->job_args_at;
	l.waits = s->job_waits_at;
	l.host = l.waits + nwaits * sizeof(struct rig_wait);
	l.bytes = l.host + nwaits * sizeof(struct stamp);
	return l;
}

/* The job in mem (its ring slot's room, or heap). */
/* Inlined, as before profiles: place_job() is the hot path. */
#define HOT static inline __attribute__((always_inline))

HOT struct sub_job *
job_init(void *mem, void *heap, struct rig_submission *s, size_t nwaits)
{
	struct job_layout l = job_layout(s, nwaits);
	char *m = mem;
	struct sub_job *sj = mem;

	*sj = (struct sub_job){
		.job = { .waits = (struct rig_wait *)(m + l.waits),
			 .host_waits = (struct stamp *)(m + l.host),
			 .prepare = sub_prepare, .heap = heap, .owner = s },
		.s = s,
		.work = (union rig_work *)(m + l.work),
		.args = (unsigned char *)(m + l.args),
	};
	return sj;
}

/* ---- Checks of the run's buffers ---- */

static struct rig_buffer *
side_buffer(const struct rig_side *side, struct rig_buffer *const *buffers)
{
	return side->buffer ? side->buffer : buffers[side->slot];
}

static int
check_slot(const struct rig_submission *s, size_t k, const struct rig_buffer *b)
{
	uint8_t use = s->slot_use[k];

	if (!b)
		return rig_fail_at("rig_submit", RIG_EINVAL, "slot %zu has no buffer", k);
	if (buffer_dead(b))
		return rig_fail_at("rig_submit", RIG_EINVAL, "slot %zu's buffer is dead: %s",
				   k, buffer_dead(b));
	if (b->a->d != s->d)
		return rig_fail_at("rig_submit", RIG_EINVAL, "slot %zu's buffer lies on %s, not %s",
				   k, b->a->d->name, s->d->name);
	if ((use & SLOT_WRITABLE) && b->access == RIG_READ_ONLY)
		return rig_fail_at("rig_submit", RIG_EINVAL,
				   "slot %zu's buffer admits only reads, and a part writes it", k);
	if ((use & SLOT_ADDRESSED) && b->length && !b->a->loc.has_address)
		return rig_fail_at("rig_submit", RIG_EINVAL,
				   "slot %zu's buffer has no address the device's work can use", k);
	return 0;
}

static int
check_part(const struct rig_submission *s, size_t i, const struct rig_run *r,
	   struct rig_buffer *const *buffers)
{
	const struct sub_part *p = &s->parts[i];
	const struct block *b;

	if (p->kind == RIG_COPY) {
		const struct rig_buffer *src = side_buffer(&p->src, buffers);
		const struct rig_buffer *dst = side_buffer(&p->dst, buffers);

		if (src->length != dst->length)
			return rig_fail_at("rig_submit", RIG_EINVAL,
					   "part %zu (copy): src has %llu bytes and dst %llu", i,
					   (unsigned long long)src->length,
					   (unsigned long long)dst->length);
		if (buffers_share_a_byte(src, dst))
			return rig_fail_at("rig_submit", RIG_EINVAL,
					   "part %zu (copy): src and dst share a byte", i);
	}
	if (p->kind == RIG_LAUNCH) {
		b = (const struct block *)(r->bytes + p->block);
		if (!b->grid[0] || !b->grid[1] || !b->grid[2] ||
		    !b->group[0] || !b->group[1] || !b->group[2])
			return rig_fail_at("rig_submit", RIG_EINVAL,
					   "part %zu (launch): the run holds an empty grid or group (store its block)", i);
	}
	if ((p->kind == RIG_COPY || p->kind == RIG_WORDS) &&
	    ((p->src.buffer && buffer_dead(p->src.buffer)) ||
	     (p->dst.buffer && buffer_dead(p->dst.buffer)) ||
	     (p->words && buffer_dead(p->words))))
		return rig_fail_at("rig_submit", RIG_EINVAL,
				   "part %zu (%s): a buffer it names is dead", i,
				   p->kind == RIG_COPY ? "copy" : "words");
	return 0;
}

static int
check_run(const struct rig_run *r, struct rig_buffer *const *buffers, size_t nbuf,
	  const struct rig_point *waits, size_t nwaits)
{
	const struct rig_submission *s = r->s;
	int ret;

	if (nbuf != s->nslots)
		return rig_fail_at("rig_submit", RIG_EINVAL, "%zu buffers for %zu slots",
				   nbuf, s->nslots);
	if ((ptrdiff_t)nwaits < 0)
		return rig_fail_at("rig_submit", RIG_EINVAL, "%td waits is negative",
				   (ptrdiff_t)nwaits);
	if ((nbuf && !buffers) || (nwaits && !waits))
		return rig_fail_at("rig_submit", RIG_EINVAL, "the %s array is NULL",
				   nbuf && !buffers ? "buffers" : "waits");
	for (size_t k = 0; k < nbuf; k++)
		if ((ret = check_slot(s, k, buffers[k])) < 0)
			return ret;
	for (size_t i = 0; i < s->nparts; i++)
		if ((ret = check_part(s, i, r, buffers)) < 0)
			return ret;
	for (size_t w = 0; w < nwaits; w++) {
		const struct rig_device *wd = waits[w].device;

		if (!wd)
			return rig_fail_at("rig_submit", RIG_EINVAL, "wait %zu names no device", w);
		/* A value no submit gave would never be signaled: the
		 * device's work would wait for it forever. */
		if (waits[w].value > atomic_load_explicit(&wd->tl.issued, memory_order_acquire))
			return rig_fail_at("rig_submit", RIG_EINVAL,
					   "wait %zu names value %llu of %s, which no submit gave (the last given is %llu)",
					   w, (unsigned long long)waits[w].value, wd->name,
					   (unsigned long long)atomic_load(&wd->tl.issued));
	}
	return device_check_live("rig_submit", s->d);
}

/* ---- What varies from one submit to the next ---- */

/*
 * The driver calls a fill through this, so the program's function runs
 * marked as a callback of rig's: a call it makes that takes one of rig's
 * locks (a submit on the device whose driver lock is held, a wait) is
 * refused instead of deadlocking (docs/process.md). The function lies in the
 * FILL_HEADER bytes before the argument.
 */
static int
fill_trampoline(void *queue, void *arg, uint64_t value)
{
	rig_fill_fn fn;
	int r;

	memcpy(&fn, (char *)arg - FILL_HEADER, sizeof(fn));
	callback_enter();
	r = fn(queue, arg, value);
	callback_leave();
	return r;
}

HOT void
place_refs(const struct sub_part *p, unsigned char *arg,
	   struct rig_buffer *const *buffers)
{
	for (size_t k = 0; k < p->nrefs; k++) {
		const struct rig_ref *ref = &p->refs[k];
		uint64_t v;

		if (ref->kind == RIG_REF_ENTRY) {
			v = ref->fn->entry.code;
		} else {
			memcpy(&v, arg + ref->at, 8);	/* the offset the run stored */
			v += rig_buffer_address(buffers[ref->slot]);
		}
		memcpy(arg + ref->at, &v, 8);
	}
}

HOT void
fill_work(struct sub_job *sj, const struct rig_run *r,
	  struct rig_buffer *const *buffers)
{
	const struct rig_submission *s = sj->s;

	for (size_t i = 0; i < s->nparts; i++) {
		const struct sub_part *p = &s->parts[i];
		union rig_work *w = &sj->work[i];
		const struct block *b;
		unsigned char *arg;

		w->copy.bytes = 0;
		if (p->kind == RIG_COPY) {
			const struct rig_buffer *src = side_buffer(&p->src, buffers);
			const struct rig_buffer *dst = side_buffer(&p->dst, buffers);

			w->copy = (struct rig_copy){
				.src = { src->a->loc, src->offset },
				.dst = { dst->a->loc, dst->offset },
				.bytes = src->length, .rows = 1,
				.src_pitch = src->length, .dst_pitch = src->length,
				.fill = -1 };
		} else if (p->kind == RIG_WORDS) {
			w->words = (struct rig_words_part){
				(const uint32_t *)((char *)p->words->a->loc.host + p->words->offset),
				p->words->length / 4 };
		} else {
			b = (const struct block *)(r->bytes + p->block);
			arg = sj->args + p->arg;
			memcpy(arg, b + 1, p->params);
			place_refs(p, arg, buffers);
			if (p->kind == RIG_FILL) {
				memcpy(arg - FILL_HEADER, &p->fill, sizeof(p->fill));
				w->fill = (struct rig_fill){ fill_trampoline, arg, p->params };
			}
			else
				w->launch = (struct rig_launch){
					.launch = p->fn->entry.launch, .code = p->fn->entry.code,
					.grid = { b->grid[0], b->grid[1], b->grid[2] },
					.group = { b->group[0], b->group[1], b->group[2] },
					.params = arg, .params_bytes = p->params };
		}
	}
}

/* ---- The memory a submit uses ---- */

static struct use
use_of(const struct rig_buffer *b, enum use_kind kind)
{
	struct use u = { .a = b->a->root, .kind = kind };

	words_of(b->offset, b->length, &u.lo, &u.hi);
	return u;
}

HOT size_t
collect_uses(const struct rig_submission *s, struct rig_buffer *const *buffers,
	     struct use *u)
{
	size_t n = 0;

	for (size_t k = 0; k < s->nslots; k++)
		if (s->slot_use[k] & (SLOT_READ | SLOT_WRITE))
			u[n++] = use_of(buffers[k], s->slot_use[k] & SLOT_WRITE ?
					USE_WRITE : USE_READ);
	for (size_t i = 0; i < s->nfixed; i++)
		u[n++] = use_of(s->fixed[i].buffer, s->fixed[i].access == RIG_READ_ONLY ?
				USE_READ : USE_WRITE);
	for (size_t i = 0; i < s->nparts; i++) {
		const struct sub_part *p = &s->parts[i];

		if (p->src.buffer)
			u[n++] = use_of(p->src.buffer, USE_READ);
		if (p->dst.buffer)
			u[n++] = use_of(p->dst.buffer, USE_WRITE);
		if (p->words)
			u[n++] = use_of(p->words, USE_READ);
	}
	return n;
}

static void
note_last_shared(struct rig_submission *s, uint64_t v)
{
	uint64_t last = atomic_load_explicit(&s->last_value, memory_order_relaxed);

	while (last < v && !atomic_compare_exchange_weak_explicit(&s->last_value, &last, v,
			memory_order_release, memory_order_relaxed))
		;
}

/* The submission's last value: what it keeps stays until that value's
 * work is done (submission_put). A run of its own notes it in the run,
 * with no locked instruction (submission.h); the shared run, which many
 * threads take at once, by a compare-and-swap. */
static void
note_last(struct rig_submission *s, struct rig_run *r, uint64_t v)
{
	if (r != &s->shared) {
		r->last = v;
		return;
	}
	note_last_shared(s, v);
}

/*
 * Claim, draw the value, route the waits, publish. Frees nothing of r.
 * Inlined twice (place_job): profiled, a profile's record of the value and
 * the waits each use gave (src/profile/); not, none of it, folded away.
 */
static inline __attribute__((always_inline)) int
place_job_as(struct rig_run *r, struct rig_buffer *const *buffers,
	     const struct rig_point *waits, size_t nwaits, struct rig_point *out,
	     bool profiled)
{
	struct claim_arrow arrows[PROFILE_ARROWS];
	size_t narrows = 0;
	struct rig_submission *s = r->s;
	struct rig_device *d = s->d;
	size_t max = s->nslots + s->nfixed + 2 * s->nparts;
	struct use small[SMALL], *u = max <= SMALL ? small : malloc(max * sizeof(*u));
	struct waitset ws;
	struct sub_job *sj;
	void *heap = NULL;
	size_t n, bytes;
	uint64_t v;
	int ret;

	if (!u)
		return rig_fail_at("rig_submit", RIG_ENOMEM, "no memory for the submit's claim");
	n = collect_uses(s, buffers, u);
	waitset_init(&ws, d->tl.slot);
	if ((ret = claim_lock_inline(u, n, &ws)) < 0) {
		ret = rig_fail_keep("rig_submit", ret);
		goto out;
	}
	if (profiled && ws.n)	/* no wait at all: no arrow */
		narrows = claim_arrows(u, n, d->tl.slot, arrows, PROFILE_ARROWS);
	for (size_t w = 0; w < nwaits && ret == 0; w++)
		if (waits[w].device->tl.slot >= 0)
			ret = waitset_add(&ws, (struct stamp){
				(uint32_t)waits[w].device->tl.slot, waits[w].value });
	bytes = job_layout(s, ws.n).bytes;
	if (ret < 0 || (bytes > SRING_ROOM && !(heap = malloc(bytes)))) {
		claim_unlock(u, n);
		ret = rig_fail_at("rig_submit", RIG_ENOMEM, "no memory for the submit's job");
		goto out;
	}
	if ((ret = claim_draw_inline("rig_submit", d, u, n, &ws, &v)) < 0) {
		free(heap);
		goto out;
	}
	/* Under the claim: the buffers' locations are live. */
	sj = job_init(submit_job_memory(&d->sub, v, heap), heap, s, ws.n);
	fill_work(sj, r, buffers);
	claim_unlock_inline(u, n);
	route_commit(d, &ws, &sj->job, v);
	note_last(s, r, v);
	if (profiled) {
		uint32_t queues, nlaunch;

		profile_parts(s, &queues, &nlaunch);
		profile_note(d, v, queues, nlaunch, &ws, arrows, narrows, &sj->job);
	}
	submit_publish(&d->sub, v, &sj->job);
	if (out)
		*out = (struct rig_point){ d, v };
out:
	waitset_fini(&ws);
	if (u != small)
		free(u);
	return ret;
}

/* The profiled copy, out of line: the hot path's code stays as it was. */
static __attribute__((noinline)) int
place_job_profiled(struct rig_run *r, struct rig_buffer *const *buffers,
		   const struct rig_point *waits, size_t nwaits, struct rig_point *out)
{
	return place_job_as(r, buffers, waits, nwaits, out, true);
}

/* A submit's one branch for profiles: NULL while none times the device
 * (relaxed: profile_note() reads the pointer again, seq_cst). */
static int
place_job(struct rig_run *r, struct rig_buffer *const *buffers,
	  const struct rig_point *waits, size_t nwaits, struct rig_point *out)
{
	if (__builtin_expect(submit_profiled(&r->s->d->sub), 0))
		return place_job_profiled(r, buffers, waits, nwaits, out);
	return place_job_as(r, buffers, waits, nwaits, out, false);
}

int
rig_submit(struct rig_run *r, struct rig_buffer *const *buffers, size_t nbuf,
	   const struct rig_point *waits, size_t nwaits, struct rig_point *out)
{
	int ret;

	if (!r)
		return rig_fail(RIG_EINVAL, "the run is NULL");
	ret = callback_refuse(__func__);
	if (ret == 0)
		ret = check_run(r, buffers, nbuf, waits, nwaits);
	if (ret == 0)
		ret = place_job(r, buffers, waits, nwaits, out);
	run_give_back(r);
	return ret;
}
