/*
 * core/copy.c: rig_buffer_copy(), a one-part submission of a copy on the
 * buffers' device, on its copy engine. Its claim locks both allocations (by
 * address, so two copies never deadlock), draws the device's next value,
 * and stamps src as read and dst as written by it, so every later host
 * access or copy of that memory is ordered after it. Both buffers lie on
 * one device, whose own order needs no wait (rule 1).
 */
#include <stdlib.h>

#include "core/buffer.h"
#include "core/error.h"

struct copy_job {
	struct job job;
	struct rig_part part;
};

static void
copy_done(struct job *job)
{
	free(job);
}

static int
check_copy(struct rig_buffer *src, struct rig_buffer *dst)
{
	const char *func = "rig_buffer_copy";
	int ret;

	if ((ret = buffer_check(func, src)) < 0 || (ret = buffer_check(func, dst)) < 0)
		return ret;
	if (dst->access == RIG_READ_ONLY)
		return rig_fail_at(func, RIG_EINVAL, "dst is read-only");
	if (src->length != dst->length)
		return rig_fail_at(func, RIG_EINVAL, "src has %llu bytes and dst %llu",
				   (unsigned long long)src->length,
				   (unsigned long long)dst->length);
	if (src->a->d != dst->a->d)
		return rig_fail_at(func, RIG_EINVAL, "src lies on %s and dst on %s",
				   src->a->d->name, dst->a->d->name);
	if (rig_buffer_overlaps(src, dst))
		return rig_fail_at(func, RIG_EINVAL, "src and dst share memory");
	if (src->a->d->facts.copy_engine < 0)
		return rig_fail_at(func, RIG_EINVAL, "%s has no copy engine",
				   src->a->d->name);
	return device_check_live(func, src->a->d);
}

static struct copy_job *
make_job(struct rig_buffer *src, struct rig_buffer *dst)
{
	struct copy_job *cj = calloc(1, sizeof(*cj));
	struct rig_copy *c;

	if (!cj)
		return NULL;
	cj->part.kind = RIG_COPY_PART;
	cj->part.queue = (uint32_t)src->a->d->facts.copy_engine;
	c = &cj->part.u.copy;
	c->src = (struct rig_span){ src->a->loc, src->offset };
	c->dst = (struct rig_span){ dst->a->loc, dst->offset };
	c->bytes = src->length;
	c->rows = 1;
	c->src_pitch = c->dst_pitch = src->length;
	c->fill = -1;
	cj->job.parts = &cj->part;
	cj->job.nparts = 1;
	cj->job.done = copy_done;
	return cj;
}

static void
lock_pair(struct alloc *x, struct alloc *y)
{
	if (x == y) {
		pthread_mutex_lock(&x->lock);
		return;
	}
	if ((uintptr_t)x > (uintptr_t)y) {
		struct alloc *t = x;
		x = y;
		y = t;
	}
	pthread_mutex_lock(&x->lock);
	pthread_mutex_lock(&y->lock);
}

static void
unlock_pair(struct alloc *x, struct alloc *y)
{
	pthread_mutex_unlock(&x->lock);
	if (x != y)
		pthread_mutex_unlock(&y->lock);
}

int
rig_buffer_copy(struct rig_buffer *src, struct rig_buffer *dst,
		struct rig_point *out)
{
	struct rig_device *d;
	struct copy_job *cj;
	uint64_t v;
	int ret;

	if ((ret = check_copy(src, dst)) < 0)
		return ret;
	d = src->a->d;
	if (!(cj = make_job(src, dst)))
		return rig_fail(RIG_ENOMEM, "no memory for the copy's job");
	lock_pair(src->a, dst->a);
	if (src->a->dead || dst->a->dead ||
	    (ret = submit_reserve(&d->sub, &v)) < 0) {
		unlock_pair(src->a, dst->a);
		free(cj);
		return device_check_live(__func__, d) ? RIG_ELOST :
			rig_fail(RIG_EINVAL, "the buffer died meanwhile");
	}
	src->a->last_use = v;
	dst->a->last_write = v;
	dst->a->last_use = v;
	unlock_pair(src->a, dst->a);
	submit_publish(&d->sub, v, &cj->job);
	if (out)
		*out = (struct rig_point){ d, v };
	return 0;
}
