/* SPDX-License-Identifier: MIT */
/*
 * core/hold.c: claims a program holds (docs/claims.md). A hold keeps buffers from
 * being consumed or donated: rig_buffer_consume() refuses a held buffer and
 * rig_buffer_exclusive() answers false for one. Taken runs hold their
 * submission's fixed memory and the buffers its parts name, as holds do.
 * Holds count on the root allocation, so a view or a borrowed buffer holds
 * the memory it shares.
 */
#include <stdlib.h>

#include "core/buffer.h"
#include "core/error.h"
#include "submit/submission.h"

struct rig_claim {
	size_t n;
	struct alloc *a[];
};

void
alloc_hold(struct alloc *a, int delta)
{
	atomic_fetch_add_explicit(&a->root->holds, (uint32_t)delta, memory_order_acq_rel);
}

int
rig_claim_hold(struct rig_buffer *const *bufs, size_t n, struct rig_claim **out)
{
	struct rig_claim *c;
	int ret;

	if (!out || (n && !bufs))
		return rig_fail(RIG_EINVAL, "the %s is NULL", !out ? "out" : "buffers array");
	if ((ptrdiff_t)n < 0)
		return rig_fail(RIG_EINVAL, "%td buffers is negative", (ptrdiff_t)n);
	for (size_t i = 0; i < n; i++)
		if ((ret = buffer_check(__func__, bufs[i])) < 0)
			return ret;
	if (!(c = malloc(sizeof(*c) + n * sizeof(c->a[0]))))
		return rig_fail(RIG_ENOMEM, "no memory for the claim");
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		c->a[i] = bufs[i]->a;
		atomic_fetch_add(&c->a[i]->refs, 1);	/* the memory stays while held */
		alloc_hold(c->a[i], 1);
	}
	*out = c;
	return 0;
}

void
rig_claim_release(struct rig_claim *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		alloc_hold(c->a[i], -1);
		alloc_put(c->a[i]);
	}
	free(c);
}

int
rig_claim_with(struct rig_buffer *const *bufs, size_t n,
	       int (*fn)(void *arg), void *arg)
{
	struct rig_claim *c;
	int ret;

	if (!fn)
		return rig_fail(RIG_EINVAL, "the function is NULL");
	if ((ret = rig_claim_hold(bufs, n, &c)) < 0)
		return rig_fail_keep(__func__, ret);
	ret = fn(arg);
	rig_claim_release(c);
	return ret;
}

bool
rig_buffer_exclusive(const struct rig_buffer *b)
{
	if (!b)
		return rig_fail(0, "the buffer is NULL"), false;
	return !buffer_dead(b) &&
	       atomic_load(&b->a->refs) == 1 && b->a->root == b->a &&
	       atomic_load(&b->a->holds) == 0;
}

int
rig_buffer_consume(struct rig_buffer *b, struct rig_buffer **out)
{
	struct rig_buffer *c;
	const char *none = NULL;
	int ret;

	if ((ret = buffer_check(__func__, b)) < 0)
		return ret;
	if (!out)
		return rig_fail(RIG_EINVAL, "out is NULL");
	if (atomic_load(&b->a->root->holds))
		return rig_fail(RIG_EINVAL, "the buffer is held (by a claim or a taken run)");
	if (!(c = buffer_dup(b)))
		return rig_fail(RIG_ENOMEM, "no memory for the new buffer's handle");
	/* One consume wins; the new buffer's uses follow b's through the
	 * stamps of the memory they share. */
	if (!atomic_compare_exchange_strong(&b->dead, &none, "consumed")) {
		rig_buffer_release(c);
		return rig_fail(RIG_EINVAL, "the buffer is dead: %s", none);
	}
	*out = c;
	return 0;
}

void
submission_hold(struct rig_submission *s, int delta)
{
	for (size_t i = 0; i < s->nfixed; i++)
		alloc_hold(s->fixed[i].buffer->a, delta);
	for (size_t i = 0; i < s->nparts; i++) {
		struct sub_part *p = &s->parts[i];

		if (p->src.buffer)
			alloc_hold(p->src.buffer->a, delta);
		if (p->dst.buffer)
			alloc_hold(p->dst.buffer->a, delta);
		if (p->words)
			alloc_hold(p->words->a, delta);
	}
}
