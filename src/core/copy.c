/*
 * core/copy.c: rig_buffer_copy(), a one-part submission of a copy on the
 * buffers' device, on its copy engine: claimed like every submit (claim.c),
 * so it follows the last write of src and every use of dst, on any device.
 */
#include <stdlib.h>

#include "core/buffer.h"
#include "core/error.h"

struct copy_job {
	struct job job;
	struct rig_part part;
	struct rig_wait waits[];	/* then the host waits */
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

	if ((ret = buffer_check(func, src)) < 0 || (ret = buffer_check(func, dst)) < 0 ||
	    (ret = callback_refuse(func)) < 0)
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

/* The job, with room for nwaits waits of either kind. */
static struct copy_job *
make_job(struct rig_buffer *src, struct rig_buffer *dst, size_t nwaits)
{
	struct copy_job *cj = calloc(1, sizeof(*cj) + nwaits *
				     (sizeof(struct rig_wait) + sizeof(struct stamp)));
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
	cj->job.waits = cj->waits;
	cj->job.host_waits = (struct stamp *)(cj->waits + nwaits);
	cj->job.done = copy_done;
	return cj;
}

int
rig_buffer_copy(struct rig_buffer *src, struct rig_buffer *dst,
		struct rig_point *out)
{
	struct waitset ws = { 0 };
	struct rig_device *d;
	struct copy_job *cj;
	struct use u[2];
	uint64_t v;
	int ret;

	if ((ret = check_copy(src, dst)) < 0)
		return ret;
	d = src->a->d;
	u[0] = (struct use){ .a = src->a->root, .kind = USE_READ };
	u[1] = (struct use){ .a = dst->a->root, .kind = USE_WRITE };
	words_of(src->offset, src->length, &u[0].lo, &u[0].hi);
	words_of(dst->offset, dst->length, &u[1].lo, &u[1].hi);
	if ((ret = claim_lock(u, 2, &ws)) < 0)
		return rig_fail_keep(__func__, ret);
	if (!(cj = make_job(src, dst, ws.n))) {
		claim_unlock(u, 2);
		waitset_fini(&ws);
		return rig_fail(RIG_ENOMEM, "no memory for the copy's job");
	}
	ret = claim_draw(__func__, d, u, 2, &ws, &cj->job, &v);
	waitset_fini(&ws);
	if (ret < 0) {
		free(cj);
		return ret;
	}
	submit_publish(&d->sub, v, &cj->job);
	if (out)
		*out = (struct rig_point){ d, v };
	return 0;
}
