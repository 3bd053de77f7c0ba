/* SPDX-License-Identifier: MIT */
/*
 * submit/submission.c: rig_submission_make() and what a submission keeps.
 * Every refusal of docs/submissions.md is made here, before anything is kept, with a
 * message that names the part and the rule it breaks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "core/io.h"
#include "submit/submission.h"
#include "submit/place.h"

static const char *const part_names[] = {
	[RIG_COPY] = "copy", [RIG_LAUNCH] = "launch", [RIG_FILL] = "fill",
	[RIG_WORDS] = "words",
};
static const enum rig_kind driver_kind[] = {
	[RIG_COPY] = RIG_COPY_PART, [RIG_LAUNCH] = RIG_LAUNCH_PART,
	[RIG_FILL] = RIG_FILL_PART, [RIG_WORDS] = RIG_WORDS_PART,
};

/* rig_fail for part i, prefixed "part i (kind): ". */
#define part_fail(i, kind, fmt, ...)						\
	rig_fail_at("rig_submission_make", RIG_EINVAL, "part %zu (%s): " fmt,	\
		    (i), part_names[kind], __VA_ARGS__)

/* ---- Lifetime ---- */

void
submission_get(struct rig_submission *s)
{
	atomic_fetch_add(&s->refs, 1);
}

static void
free_parts(struct rig_submission *s)
{
	for (size_t i = 0; i < s->nparts; i++) {
		struct sub_part *p = &s->parts[i];

		rig_buffer_release(p->src.buffer);
		rig_buffer_release(p->dst.buffer);
		rig_buffer_release(p->words);
		if (p->fn)
			image_put(p->fn->img);
		for (size_t k = 0; p->refs && k < p->nrefs; k++)
			if (p->refs[k].kind == RIG_REF_ENTRY)
				image_put(p->refs[k].fn->img);
		free(p->refs);
		if (s->dparts)
			free((void *)s->dparts[i].follows);
	}
	free(s->parts);
	free(s->dparts);
}

static void
submission_free(struct rig_submission *s)
{
	free_parts(s);
	for (size_t i = 0; i < s->nfixed; i++)
		rig_buffer_release(s->fixed[i].buffer);
	free(s->fixed);
	free(s->slot_use);
	for (size_t c = 0; c < RUN_CHUNKS && s->chunk[c]; c++) {
		for (size_t k = 0; k < RUN_CHUNK; k++)
			free(s->chunk[c][k].bytes);
		free(s->chunk[c]);
	}
	if (s->keep.release)
		s->keep.release(s->keep.value);
	device_put(s->d);
	free(s);
}

#ifdef RIG_TEST_HOOKS
void (*keep_window)(void);
#endif

void
submission_put(struct rig_submission *s)
{
	uint64_t last;

	if (atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	/* Every submit through s came before its run was given back, and
	 * so before its put, whose decrement our last one follows. */
	last = submission_last(s);
	if (last && !device_done_with(s->d, last)) {
		/* The deferred reference comes back here once it is. */
		atomic_store(&s->refs, 1);
#ifdef RIG_TEST_HOOKS
		if (keep_window)
			keep_window();
#endif
		defer_put(s->d, s, last);
		return;
	}
	submission_free(s);
}

uint64_t
submission_last(const struct rig_submission *s)
{
	/* Pairs with note_last()'s release, for the shared run. */
	uint64_t last = atomic_load_explicit(&s->last_value, memory_order_acquire);
	uint32_t n = atomic_load_explicit(&s->nruns, memory_order_relaxed);

	for (uint32_t i = 0; i < n && i / RUN_CHUNK < RUN_CHUNKS; i++) {
		const struct rig_run *chunk =
			atomic_load_explicit(&s->chunk[i / RUN_CHUNK], memory_order_acquire);

		if (!chunk) {		/* a make that ran out of memory */
			i += RUN_CHUNK - 1 - i % RUN_CHUNK;
			continue;
		}
		if (chunk[i % RUN_CHUNK].last > last)
			last = chunk[i % RUN_CHUNK].last;
	}
	return last;
}

void
rig_submission_release(struct rig_submission *s)
{
	if (s) {
		runs_release(s);
		submission_put(s);
	}
}

/* ---- Validation, part by part ---- */

static int
check_params(size_t i, enum rig_part_kind k, int64_t params)
{
	if (params < 0)
		return part_fail(i, k, "%lld params bytes is negative", (long long)params);
	if (params > PARAMS_MAX)
		return part_fail(i, k, "%lld params bytes is above 2^31 - 32, the most a block holds",
				 (long long)params);
	return 0;
}

static int
check_ref(struct rig_submission *s, size_t i, const struct rig_part_spec *p,
	  size_t k)
{
	const struct rig_ref *r = &p->refs[k];
	const struct rig_entry *e = p->kind == RIG_LAUNCH ? &p->fn->entry : NULL;

	if (r->kind < RIG_REF_READ || r->kind > RIG_REF_ENTRY)
		return part_fail(i, p->kind, "ref %zu has no kind (%d)", k, (int)r->kind);
	if (r->kind != RIG_REF_ENTRY && r->slot < 0)
		return part_fail(i, p->kind, "ref %zu names slot %lld, which is negative",
				 k, (long long)r->slot);
	if (r->kind != RIG_REF_ENTRY && r->slot >= SLOTS_MAX)
		return part_fail(i, p->kind, "ref %zu names slot %lld, above the most, %d",
				 k, (long long)r->slot, SLOTS_MAX - 1);
	if (r->at < 0 || r->at % 8)
		return part_fail(i, p->kind, "ref %zu is at %lld, %s", k, (long long)r->at,
				 r->at < 0 ? "which is negative" : "no multiple of 8");
	/* Subtractions, not at + 8: an at near INT64_MAX must not wrap
	 * round to pass (params is 0 .. PARAMS_MAX here). */
	if (r->at > p->params - 8)
		return part_fail(i, p->kind, "ref %zu's 8 bytes at %lld lie past the part's %lld params bytes",
				 k, (long long)r->at, (long long)p->params);
	if (e && e->params.some && (e->params.value < 8 || r->at > e->params.value - 8))
		return part_fail(i, p->kind, "ref %zu's 8 bytes at %lld lie past the %lld bytes its function reads",
				 k, (long long)r->at, (long long)e->params.value);
	if (r->kind == RIG_REF_ENTRY && !r->fn)
		return part_fail(i, p->kind, "ref %zu names no function", k);
	if (r->kind == RIG_REF_ENTRY && r->fn->img->d != s->d)
		return part_fail(i, p->kind, "ref %zu names a function loaded on %s, not %s",
				 k, r->fn->img->d->name, s->d->name);
	for (size_t j = 0; j < k; j++)
		if (p->refs[j].at == r->at)
			return part_fail(i, p->kind, "refs %zu and %zu share at %lld",
					 j, k, (long long)r->at);
	return 0;
}

static int
check_code(struct rig_submission *s, size_t i, const struct rig_part_spec *p)
{
	int ret;

	if (p->kind == RIG_LAUNCH && !p->fn)
		return part_fail(i, p->kind, "%s", "it names no function");
	if (p->kind == RIG_FILL && !p->fill)
		return part_fail(i, p->kind, "%s", "it names no C function");
	if ((ret = check_params(i, p->kind, p->params)) < 0)
		return ret;
	if (p->kind == RIG_LAUNCH && p->fn->img->d != s->d)
		return part_fail(i, p->kind, "its function is loaded on %s, not %s",
				 p->fn->img->d->name, s->d->name);
	if (p->kind == RIG_LAUNCH && p->fn->entry.params.some &&
	    p->params < p->fn->entry.params.value)
		return part_fail(i, p->kind, "%lld params bytes, fewer than the %lld its function reads",
				 (long long)p->params, (long long)p->fn->entry.params.value);
	if ((ptrdiff_t)p->nrefs < 0)
		return part_fail(i, p->kind, "%td refs is negative", (ptrdiff_t)p->nrefs);
	if (p->nrefs && !p->refs)
		return part_fail(i, p->kind, "%zu refs but no array of them", p->nrefs);
	for (size_t k = 0; k < p->nrefs; k++)
		if ((ret = check_ref(s, i, p, k)) < 0)
			return ret;
	return 0;
}

static int
check_side(struct rig_submission *s, size_t i, const char *which,
	   struct rig_side side, bool dst)
{
	const struct rig_buffer *b = side.buffer;

	if (!b && side.slot >= SLOTS_MAX)
		return part_fail(i, RIG_COPY, "%s names slot %lld, above the most, %d",
				 which, (long long)side.slot, SLOTS_MAX - 1);
	if (!b)
		return side.slot < 0 ?
		       part_fail(i, RIG_COPY, "%s names slot %lld, which is negative",
				 which, (long long)side.slot) : 0;
	if (buffer_dead(b))
		return part_fail(i, RIG_COPY, "%s is dead: %s", which, buffer_dead(b));
	if (dst && b->access == RIG_READ_ONLY)
		return part_fail(i, RIG_COPY, "%s", "dst admits only reads");
	if (b->a->d != s->d)
		return part_fail(i, RIG_COPY, "%s lies on %s, not %s", which,
				 b->a->d->name, s->d->name);
	return 0;
}

static int
check_copy(struct rig_submission *s, size_t i, const struct rig_part_spec *p)
{
	int ret;

	if (!p->src.buffer && !p->dst.buffer && p->src.slot == p->dst.slot &&
	    p->src.slot >= 0)
		return part_fail(i, p->kind, "src and dst are one slot (%lld)",
				 (long long)p->src.slot);
	if ((ret = check_side(s, i, "src", p->src, false)) < 0 ||
	    (ret = check_side(s, i, "dst", p->dst, true)) < 0)
		return ret;
	if (p->src.buffer && p->dst.buffer) {
		if (p->src.buffer->length != p->dst.buffer->length)
			return part_fail(i, p->kind, "src has %llu bytes and dst %llu",
					 (unsigned long long)p->src.buffer->length,
					 (unsigned long long)p->dst.buffer->length);
		if (buffers_share_a_byte(p->src.buffer, p->dst.buffer))
			return part_fail(i, p->kind, "%s", "src and dst share a byte");
	}
	return 0;
}

static int
check_words(size_t i, const struct rig_part_spec *p)
{
	const struct rig_buffer *b = p->words;

	if (!b)
		return part_fail(i, p->kind, "%s", "it names no buffer");
	if (buffer_dead(b))
		return part_fail(i, p->kind, "its buffer is dead: %s", buffer_dead(b));
	if (b->length && !b->a->loc.host)
		return part_fail(i, p->kind, "the host does not address %s's memory",
				 b->a->d->name);
	if (b->length % 4)
		return part_fail(i, p->kind, "its %llu bytes are no multiple of 4",
				 (unsigned long long)b->length);
	return 0;
}

static int
check_part(struct rig_submission *s, size_t i, const struct rig_part_spec *p)
{
	switch (p->kind) {
	case RIG_COPY:
		return check_copy(s, i, p);
	case RIG_LAUNCH:
	case RIG_FILL:
		return check_code(s, i, p);
	case RIG_WORDS:
		return check_words(i, p);
	default:
		return rig_fail_at("rig_submission_make", RIG_EINVAL,
				   "part %zu has no kind (%d)", i, (int)p->kind);
	}
}

static int
check_fixed(struct rig_submission *s, const struct rig_fixed *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rig_buffer *b = f[i].buffer;

		if (!b)
			return rig_fail_at("rig_submission_make", RIG_EINVAL, "fixed %zu has no buffer", i);
		if (buffer_dead(b))
			return rig_fail_at("rig_submission_make", RIG_EINVAL,
					   "fixed %zu is dead: %s", i, buffer_dead(b));
		if (f[i].access != RIG_READ_WRITE && f[i].access != RIG_READ_ONLY)
			return rig_fail_at("rig_submission_make", RIG_EINVAL,
					   "fixed %zu has no access (%d)", i, (int)f[i].access);
		if (f[i].access == RIG_READ_WRITE && b->access == RIG_READ_ONLY)
			return rig_fail_at("rig_submission_make", RIG_EINVAL,
					   "fixed %zu is fixed read-write but admits only reads", i);
		if (b->a->d != s->d)
			return rig_fail_at("rig_submission_make", RIG_EINVAL,
					   "fixed %zu lies on %s, not %s", i, b->a->d->name, s->d->name);
	}
	return 0;
}

/* ---- Keeping what the parts name ---- */

static void
use_slot(struct rig_submission *s, int64_t slot, uint8_t use)
{
	s->slot_use[slot] |= use;
}

static size_t
count_slots(const struct rig_part_spec *parts, size_t n)
{
	int64_t top = -1;

	for (size_t i = 0; i < n; i++) {
		const struct rig_part_spec *p = &parts[i];

		if (p->kind == RIG_COPY) {
			if (!p->src.buffer && p->src.slot > top)
				top = p->src.slot;
			if (!p->dst.buffer && p->dst.slot > top)
				top = p->dst.slot;
		}
		if (p->kind == RIG_LAUNCH || p->kind == RIG_FILL)
			for (size_t k = 0; k < p->nrefs; k++)
				if (p->refs[k].kind != RIG_REF_ENTRY && p->refs[k].slot > top)
					top = p->refs[k].slot;
	}
	return (size_t)(top + 1);
}

static const uint8_t ref_use[] = {
	[RIG_REF_READ] = SLOT_READ | SLOT_ADDRESSED,
	[RIG_REF_WRITE] = SLOT_READ | SLOT_WRITE | SLOT_WRITABLE | SLOT_ADDRESSED,
	[RIG_REF_UNORDERED] = SLOT_WRITABLE | SLOT_ADDRESSED,
};

/* Keep part i: own views of its buffers, its refs, its images. */
static int
keep_part(struct rig_submission *s, size_t i, const struct rig_part_spec *p)
{
	struct sub_part *k = &s->parts[i];

	k->kind = p->kind;
	k->src = p->src;
	k->dst = p->dst;
	k->fn = p->fn;
	k->fill = p->fill;
	k->params = (uint32_t)p->params;
	k->nrefs = 0;
	k->src.buffer = k->dst.buffer = NULL;
	if (p->kind == RIG_COPY) {
		if (p->src.buffer && !(k->src.buffer = buffer_dup(p->src.buffer)))
			return -1;
		if (p->dst.buffer && !(k->dst.buffer = buffer_dup(p->dst.buffer)))
			return -1;
		if (!p->src.buffer)
			use_slot(s, p->src.slot, SLOT_READ | SLOT_COPY);
		if (!p->dst.buffer)
			use_slot(s, p->dst.slot, SLOT_WRITE | SLOT_WRITABLE | SLOT_COPY);
	}
	if (p->kind == RIG_WORDS && !(k->words = buffer_dup(p->words)))
		return -1;
	if (p->kind == RIG_LAUNCH)
		image_get(p->fn->img);
	if (p->kind != RIG_LAUNCH && p->kind != RIG_FILL)
		return 0;
	if (p->nrefs && !(k->refs = malloc(p->nrefs * sizeof(*k->refs))))
		return -1;
	for (size_t r = 0; r < p->nrefs; r++) {
		k->refs[k->nrefs++] = p->refs[r];
		if (p->refs[r].kind == RIG_REF_ENTRY)
			image_get(p->refs[r].fn->img);
		else
			use_slot(s, p->refs[r].slot, ref_use[p->refs[r].kind]);
	}
	k->block = s->run_bytes;
	k->arg = s->arg_bytes + (p->kind == RIG_FILL ? FILL_HEADER : 0);
	s->run_bytes += BLOCK_HEADER + ((k->params + 7) & ~7u);
	s->arg_bytes = k->arg + ((k->params + 15) & ~15u);
	return 0;
}

static int
keep_fixed(struct rig_submission *s, const struct rig_fixed *f, size_t n)
{
	if (n && !(s->fixed = calloc(n, sizeof(*s->fixed))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		s->fixed[i].access = f[i].access;
		if (!(s->fixed[i].buffer = buffer_dup(f[i].buffer)))
			return -1;
		s->nfixed++;
	}
	return 0;
}

/* ---- Placement ---- */

static struct place_use
buffer_use(const struct rig_buffer *b, enum use_kind kind)
{
	return (struct place_use){ .alloc = b->a->root, .offset = b->offset,
				   .bytes = b->length, .kind = kind };
}

static struct place_use
slot_use(int64_t slot, enum use_kind kind)
{
	return (struct place_use){ .is_slot = true, .slot = slot, .kind = kind };
}

/* What part i uses, for docs/order.md, rule 2 (unordered refs order nothing). */
static size_t
part_uses(const struct sub_part *p, struct place_use *u)
{
	size_t n = 0;

	switch (p->kind) {
	case RIG_COPY:
		u[n++] = p->src.buffer ? buffer_use(p->src.buffer, USE_READ) : slot_use(p->src.slot, USE_READ);
		u[n++] = p->dst.buffer ? buffer_use(p->dst.buffer, USE_WRITE) : slot_use(p->dst.slot, USE_WRITE);
		break;
	case RIG_WORDS:
		u[n++] = buffer_use(p->words, USE_READ);
		break;
	default:
		for (size_t k = 0; k < p->nrefs; k++)
			if (p->refs[k].kind == RIG_REF_READ || p->refs[k].kind == RIG_REF_WRITE)
				u[n++] = slot_use(p->refs[k].slot, p->refs[k].kind == RIG_REF_READ ?
						  USE_READ : USE_WRITE);
	}
	return n;
}

static int
place(struct rig_submission *s)
{
	size_t nuses = 0, at = 0;
	struct place_part *pp = calloc(s->nparts ? s->nparts : 1, sizeof(*pp));
	struct place_use *uses, *common;
	char why[160];
	int ret = RIG_ENOMEM;

	for (size_t i = 0; i < s->nparts; i++)
		nuses += 2 + s->parts[i].nrefs;
	uses = calloc(nuses + s->nfixed + 1, sizeof(*uses));
	s->dparts = calloc(s->nparts ? s->nparts : 1, sizeof(*s->dparts));
	if (!pp || !uses || !s->dparts)
		goto out;
	for (size_t i = 0; i < s->nparts; i++) {
		pp[i].kind = driver_kind[s->parts[i].kind];
		pp[i].uses = uses + at;
		pp[i].nuses = part_uses(&s->parts[i], uses + at);
		at += pp[i].nuses;
	}
	common = uses + at;
	for (size_t i = 0; i < s->nfixed; i++)
		common[i] = buffer_use(s->fixed[i].buffer, s->fixed[i].access == RIG_READ_ONLY ?
				       USE_READ : USE_WRITE);
	ret = place_parts(&s->d->facts, pp, s->nparts, common, s->nfixed, why, sizeof(why));
	for (size_t i = 0; i < s->nparts; i++) {
		s->dparts[i].kind = pp[i].kind;
		s->dparts[i].queue = pp[i].queue;
		s->dparts[i].follows = pp[i].follows;
		s->dparts[i].nfollows = pp[i].nfollows;
	}
	if (ret == -EINVAL)
		ret = rig_fail_at("rig_submission_make", RIG_EINVAL, "%s", why);
	else if (ret < 0)
		ret = rig_fail_at("rig_submission_make", RIG_ENOMEM, "no memory to place the parts");
out:
	free(uses);
	free(pp);
	return ret;
}

/* ---- The driver's word on the parts alone ---- */

static void
static_work(struct rig_submission *s, size_t i, union rig_work *w)
{
	const struct sub_part *p = &s->parts[i];
	const struct rig_buffer *src = p->src.buffer, *dst = p->dst.buffer;

	memset(w, 0, sizeof(*w));
	switch (p->kind) {
	case RIG_COPY:
		if (src)
			w->copy.src = (struct rig_span){ src->a->loc, src->offset };
		if (dst)
			w->copy.dst = (struct rig_span){ dst->a->loc, dst->offset };
		w->copy.bytes = src ? src->length : dst ? dst->length : 0;
		w->copy.rows = 1;
		w->copy.src_pitch = w->copy.dst_pitch = w->copy.bytes;
		w->copy.fill = -1;
		break;
	case RIG_LAUNCH:
		w->launch = (struct rig_launch){ .launch = p->fn->entry.launch,
			.code = p->fn->entry.code, .grid = { 1, 1, 1 },
			.group = { 1, 1, 1 }, .params_bytes = p->params };
		break;
	case RIG_FILL:
		w->fill = (struct rig_fill){ .fn = p->fill, .arg_bytes = p->params };
		break;
	case RIG_WORDS:
		w->words = (struct rig_words_part){
			(const uint32_t *)((char *)p->words->a->loc.host + p->words->offset),
			p->words->length / 4 };
		break;
	}
}

/* RIG_NEVER where the parts alone decide it (docs/submissions.md, Room). */
static int
ask_room(struct rig_submission *s)
{
	struct submitter *sub = &s->d->sub;
	int r;

	slock_lock(&sub->driver_lock);
	for (size_t i = 0; i < s->nparts; i++)
		static_work(s, i, &s->dparts[i].u);
	r = device_check_live(NULL, s->d) ? RIG_FITS :
	    sub->drv->room(sub->edge, s->dparts, s->nparts, 0);
	slock_unlock(&sub->driver_lock);
	if (r == RIG_NEVER)
		return rig_fail_at("rig_submission_make", RIG_EINVAL,
				   "%s never runs these parts (its room answers RIG_NEVER)",
				   s->d->name);
	return 0;
}

/* ---- Making ---- */

static int
check_all(struct rig_device *d, const struct rig_part_spec *parts, size_t n,
	  const struct rig_fixed *fixed, size_t nfixed, struct rig_submission *s)
{
	int ret;

	if ((ptrdiff_t)n < 0 || (ptrdiff_t)nfixed < 0)
		return rig_fail_at("rig_submission_make", RIG_EINVAL, "%td parts or %td fixed is negative",
				   (ptrdiff_t)n, (ptrdiff_t)nfixed);
	if ((n && !parts) || (nfixed && !fixed))
		return rig_fail_at("rig_submission_make", RIG_EINVAL, "the %s array is NULL",
				   n && !parts ? "parts" : "fixed");
	if ((ret = callback_refuse("rig_submission_make")) < 0)
		return ret;
	if ((ret = device_check_live("rig_submission_make", d)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		if ((ret = check_part(s, i, &parts[i])) < 0)
			return ret;
	return check_fixed(s, fixed, nfixed);
}

int
rig_submission_make(struct rig_device *d, const struct rig_part_spec *parts,
		    size_t n, const struct rig_fixed *fixed, size_t nfixed,
		    struct rig_keep keep, struct rig_submission **out)
{
	struct rig_submission *s;
	int ret;

	if (!d || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !d ? "device" : "out");
	if (io_device(d))	/* its buffers are files: no part runs on them alone */
		return rig_fail(RIG_EINVAL, "%s is an Io device: its work is rig_buffer_copy and rig_disk_barrier",
				d->name);
	if (!(s = calloc(1, sizeof(*s))))
		return rig_fail(RIG_ENOMEM, "no memory for the submission");
	s->d = d;
	if ((ret = check_all(d, parts, n, fixed, nfixed, s)) < 0) {
		free(s);
		return ret;
	}
	device_get(d);
	atomic_init(&s->refs, 1);
	s->nslots = count_slots(parts, n);
	s->parts = calloc(n ? n : 1, sizeof(*s->parts));
	s->slot_use = calloc(s->nslots ? s->nslots : 1, 1);
	ret = RIG_ENOMEM;
	if (!s->parts || !s->slot_use)
		goto err;
	for (size_t i = 0; i < n; i++, s->nparts++)
		if (keep_part(s, i, &parts[i]) < 0)
			goto err;
	if (keep_fixed(s, fixed, nfixed) < 0)
		goto err;
	s->nheld = s->nfixed;
	for (size_t i = 0; i < s->nparts; i++)
		s->nheld += !!s->parts[i].src.buffer + !!s->parts[i].dst.buffer +
			    !!s->parts[i].words;
	submitting_layout(s);
	if ((ret = place(s)) < 0 || (ret = ask_room(s)) < 0)
		goto err;
	s->keep = keep;
	s->shared.s = s;
	*out = s;
	return 0;
err:
	if (ret == RIG_ENOMEM)
		rig_fail(RIG_ENOMEM, "no memory to keep the submission's parts");
	s->nparts = s->nparts < n ? s->nparts + 1 : n;	/* the part half kept */
	submission_free(s);
	return ret;
}

size_t
rig_submission_slots(const struct rig_submission *s)
{
	if (!s)
		return rig_fail(0, "the submission is NULL"), 0;
	return s->nslots;
}

int
rig_submission_part(const struct rig_submission *s, size_t i, uint32_t *queue,
		    const uint32_t **follows, uint32_t *nfollows)
{
	if (!s || !queue || !follows || !nfollows)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !s ? "submission" :
				!queue ? "queue" : !follows ? "follows" : "nfollows");
	if (i >= s->nparts)
		return rig_fail(RIG_EINVAL, "no part %zu (the submission has %zu)", i, s->nparts);
	*queue = s->dparts[i].queue;
	*follows = s->dparts[i].follows;
	*nfollows = s->dparts[i].nfollows;
	return 0;
}

int
rig_submission_address(const struct rig_submission *s, const struct rig_buffer *b,
		       uint64_t *out)
{
	int ret;

	if (!s || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !s ? "submission" : "out");
	if ((ret = buffer_check(__func__, b)) < 0)
		return ret;
	for (size_t i = 0; i < s->nfixed; i++) {
		const struct rig_buffer *f = s->fixed[i].buffer;

		if (f->a != b->a || b->offset < f->offset ||
		    b->offset + b->length > f->offset + f->length)
			continue;
		if (!b->a->loc.has_address)
			return rig_fail(RIG_EINVAL, "the buffer is memory named by its handle only");
		*out = b->length ? b->a->loc.address + b->offset : 0;
		return 0;
	}
	return rig_fail(RIG_EINVAL, "no buffer of the submission's fixed memory holds the buffer's bytes");
}
