/* SPDX-License-Identifier: MIT */
/*
 * submit/copy.c: rig_buffer_copy(), a one-part submission of a copy on the
 * buffers' device, on its copy engine: claimed like every submit (claim.c),
 * so it follows the last write of src and every use of dst, on any device.
 *
 * The one copy between devices: a file of an Io device and memory the host
 * addresses, on any device. The Io device runs it (its value), reading or
 * writing the other side's memory through its host address; the claim
 * stamps both allocations, so the other device's work orders against it
 * as against its own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "core/io.h"
#include "profile/profile.h"
#include "submit/claim_hot.h"

struct copy_job {
	struct job job;
	struct rig_part part;
	struct rig_wait waits[];	/* then the host waits */
};

/* The bytes of a copy's job with room for nwaits waits of either kind. */
static size_t
copy_job_bytes(size_t nwaits)
{
	return sizeof(struct copy_job) + nwaits * (sizeof(struct rig_wait) + sizeof(struct stamp));
}

/* A copy with a side on an Io device: the other side is memory the host
 * addresses, on a live device (the Io device's work uses it). */
static int
check_io(const char *func, struct rig_buffer *src, struct rig_buffer *dst)
{
	bool file_src = io_device(src->a->d);
	struct rig_buffer *file = file_src ? src : dst, *other = file_src ? dst : src;
	int ret;

	if (io_device(other->a->d))
		return rig_fail_at(func, RIG_EINVAL,
				   "src and dst are both files (on %s and %s): copy through host memory",
				   src->a->d->name, dst->a->d->name);
	if (other->length && !other->a->loc.host)
		return rig_fail_at(func, RIG_EINVAL,
				   "%s on %s has no host address, which a copy with a file needs",
				   file_src ? "dst" : "src", other->a->d->name);
	if ((ret = device_check_live(func, other->a->d)) < 0)
		return ret;
	return device_check_live(func, file->a->d);
}

/* Both ends given and live: inline, the common case; the messages of a
 * refusal from buffer_check(). */
static inline int
check_ends(const char *func, const struct rig_buffer *src, const struct rig_buffer *dst)
{
	int ret;

	if (src && dst && !buffer_dead(src) && !buffer_dead(dst))
		return 0;
	if ((ret = buffer_check(func, src)) < 0)
		return ret;
	return buffer_check(func, dst);
}

/* rig_buffer_overlaps() of two buffers known to be there: the words the
 * stamps keep, so two ends that share a word are refused. */
static inline bool
share_a_word(const struct rig_buffer *x, const struct rig_buffer *y)
{
	return x->a->root == y->a->root && x->length && y->length &&
	       x->offset / 4 < (y->offset + y->length + 3) / 4 &&
	       y->offset / 4 < (x->offset + x->length + 3) / 4;
}

static inline __attribute__((always_inline)) int
check_copy(struct rig_buffer *src, struct rig_buffer *dst)
{
	const char *func = "rig_buffer_copy";
	int ret;

	if ((ret = check_ends(func, src, dst)) < 0 || (ret = callback_refuse(func)) < 0)
		return ret;
	if (dst->access == RIG_READ_ONLY)
		return rig_fail_at(func, RIG_EINVAL, "dst is read-only");
	if (src->length != dst->length)
		return rig_fail_at(func, RIG_EINVAL, "src has %llu bytes and dst %llu",
				   (unsigned long long)src->length,
				   (unsigned long long)dst->length);
	if (share_a_word(src, dst))
		return rig_fail_at(func, RIG_EINVAL, "src and dst share memory");
	if (io_device(src->a->d) || io_device(dst->a->d))
		return check_io(func, src, dst);
	if (src->a->d != dst->a->d)
		return rig_fail_at(func, RIG_EINVAL, "src lies on %s and dst on %s",
				   src->a->d->name, dst->a->d->name);
	if (src->a->d->facts.copy_engine < 0)
		return rig_fail_at(func, RIG_EINVAL, "%s has no copy engine",
				   src->a->d->name);
	return device_check_live(func, src->a->d);
}

/* v's job in mem: a copy of bytes from src to dst on d, with room for
 * nwaits waits of either kind. Under the claim: the locations are those
 * the memory has while the claim holds it live. Field by field, not by a
 * compound literal: that would zero the whole union of work kinds (a
 * string store that costs more than the rest of the job) where a copy
 * needs its own fields and a clean scratch. */
static struct copy_job *
make_job(void *mem, void *heap, struct rig_device *d, const struct rig_buffer *src,
	 const struct rig_buffer *dst, uint64_t bytes, size_t nwaits)
{
	struct copy_job *cj = mem;
	struct rig_part *p = &cj->part;
	struct rig_copy *c = &p->u.copy;

	cj->job = (struct job){ .parts = p, .nparts = 1, .waits = cj->waits,
				.host_waits = (struct stamp *)(cj->waits + nwaits),
				.heap = heap };
	p->kind = RIG_COPY_PART;
	p->queue = (uint32_t)d->facts.copy_engine;
	p->follows = NULL;
	p->nfollows = 0;
	memset(p->scratch, 0, sizeof(p->scratch));
	c->src = (struct rig_span){ src->a->loc, src->offset };
	c->dst = (struct rig_span){ dst->a->loc, dst->offset };
	c->bytes = bytes;
	c->rows = 1;
	c->src_pitch = c->dst_pitch = bytes;
	c->fill = -1;
	return cj;
}

/* copy_post(), inlined into rig_buffer_copy(): a copy's whole submit is
 * one function. */
static inline __attribute__((always_inline)) int
post(const char *func, struct rig_device *d, const struct rig_buffer *src,
     const struct rig_buffer *dst, uint64_t bytes, struct use *u, size_t n,
     struct rig_point *out)
{
	/* Profiles (src/profile/): the record of the copy's value. */
	bool profiled = submit_profiled(&d->sub);
	struct claim_arrow arrows[PROFILE_ARROWS];
	size_t narrows = 0;
	struct waitset ws;
	struct copy_job *cj;
	const char *dead;
	void *heap = NULL;
	uint64_t v = 0;	/* drawn by claim_draw_inline() */
	int ret;

	waitset_init(&ws, d->tl.slot);
	if ((ret = claim_lock_inline(u, n, &ws)) < 0)
		return rig_fail_keep(func, ret);
	if (profiled && ws.n)	/* no wait at all: no arrow */
		narrows = claim_arrows(u, n, d->tl.slot, arrows, PROFILE_ARROWS);
	/* A device's end marks its memory dead under these locks: checked
	 * here, the memory stays until the claim's stamps are signaled. */
	dead = buffer_dead(src) ? buffer_dead(src) : buffer_dead(dst);
	if (dead)
		ret = rig_fail_at(func, RIG_EINVAL, "the buffer is dead: %s", dead);
	else if (copy_job_bytes(ws.n) > SRING_ROOM && !(heap = malloc(copy_job_bytes(ws.n))))
		ret = rig_fail_at(func, RIG_ENOMEM, "no memory for the copy's job");
	if (ret < 0)
		claim_unlock(u, n);
	else
		ret = claim_draw_inline(func, d, u, n, &ws, &v);	/* unlocks on failure */
	if (ret < 0) {
		free(heap);
		waitset_fini(&ws);
		return ret;
	}
	cj = make_job(submit_job_memory(&d->sub, v, heap), heap, d, src, dst, bytes, ws.n);
	claim_unlock_inline(u, n);
	route_commit(d, &ws, &cj->job, v);
	if (profiled)
		profile_note(d, v, 1u << (d->facts.copy_engine & 31), 0, &ws, arrows, narrows,
			     &cj->job);
	waitset_fini(&ws);
	submit_publish(&d->sub, v, &cj->job);
	if (out)
		*out = (struct rig_point){ d, v };
	return 0;
}

int
copy_post(const char *func, struct rig_device *d, const struct rig_buffer *src,
	  const struct rig_buffer *dst, uint64_t bytes, struct use *u, size_t n,
	  struct rig_point *out)
{
	return post(func, d, src, dst, bytes, u, n, out);
}

int
rig_buffer_copy(struct rig_buffer *src, struct rig_buffer *dst,
		struct rig_point *out)
{
	struct use u[2];
	int ret;

	if ((ret = check_copy(src, dst)) < 0)
		return ret;
	u[0] = (struct use){ .a = src->a->root, .kind = USE_READ };
	u[1] = (struct use){ .a = dst->a->root, .kind = USE_WRITE };
	words_of(src->offset, src->length, &u[0].lo, &u[0].hi);
	words_of(dst->offset, dst->length, &u[1].lo, &u[1].hi);
	/* The Io device runs a copy with a file; else the buffers' device. */
	return post(__func__, io_device(dst->a->d) ? dst->a->d : src->a->d,
		    src, dst, src->length, u, 2, out);
}
