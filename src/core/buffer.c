/* SPDX-License-Identifier: MIT */
/*
 * core/buffer.c: buffers, the views of allocations a program holds, and the
 * host's access to their bytes. A host access claims the allocation like a
 * submit, so it is ordered against every submit's claim of the same
 * memory: a read waits for the last write, a write for every use. It marks
 * the allocation busy before it lets the claim's short lock go to wait
 * and copy; claims (and a device's end) wait, with no lock held, until
 * the mark clears, so nothing uses the memory until the access is over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer.h"
#include "core/error.h"
#include "profile/profile.h"
#include "util/futex.h"

void
alloc_await_host(struct alloc *a)
{
	while (atomic_load_explicit(&a->host_busy, memory_order_acquire))
		futex_wait(&a->host_busy, 1, UINT64_MAX);
}

void
alloc_lock_quiet(struct alloc *a)
{
	spin_lock(&a->lock);
	while (atomic_load_explicit(&a->host_busy, memory_order_acquire)) {
		spin_unlock(&a->lock);
		alloc_await_host(a);
		spin_lock(&a->lock);
	}
}

/* The access is over: claims waiting for it go on. */
static void
host_done(struct alloc *a)
{
	/* Release: the access's bytes are written before a claim that sees
	 * the mark clear goes on. */
	atomic_store_explicit(&a->host_busy, 0, memory_order_release);
	futex_wake_all(&a->host_busy);
}

int
buffer_check(const char *func, const struct rig_buffer *b)
{
	if (!b)
		return rig_fail_at(func, RIG_EINVAL, "the buffer is NULL");
	if (buffer_dead(b))
		return rig_fail_at(func, RIG_EINVAL, "the buffer is dead: %s",
				   buffer_dead(b));
	return 0;
}

static int
check_range(const char *func, const struct rig_buffer *b, size_t offset,
	    size_t n)
{
	if ((ptrdiff_t)offset < 0 || (ptrdiff_t)n < 0)
		return rig_fail_at(func, RIG_EINVAL, "%td bytes at %td is negative",
				   (ptrdiff_t)n, (ptrdiff_t)offset);
	if (offset > b->length || n > b->length - offset)
		return rig_fail_at(func, RIG_EINVAL,
				   "bytes %zu..%zu lie outside the buffer's %llu",
				   offset, offset + n, (unsigned long long)b->length);
	return 0;
}

struct rig_buffer *
buffer_over(struct alloc *a, uint64_t offset, uint64_t length,
	    enum rig_access access)
{
	struct rig_buffer *b = malloc(sizeof(*b));

	if (!b)
		return NULL;
	b->a = a;
	b->offset = offset;
	b->length = length;
	b->access = access;
	atomic_init(&b->dead, NULL);
	return b;
}

struct rig_buffer *
buffer_dup(const struct rig_buffer *b)
{
	struct rig_buffer *c = buffer_over(b->a, b->offset, b->length, b->access);

	if (c)
		atomic_fetch_add(&b->a->refs, 1);
	return c;
}

/* rig_buffer_create()'s refusals, in the order it checks: out of line and
 * cold, so the create that passes saves no registers for their calls. */
static __attribute__((noinline, cold)) int
create_refuse(const struct rig_device *d, size_t bytes, enum rig_memory kind,
	      struct rig_buffer **out)
{
	const char *func = "rig_buffer_create";
	int ret;

	if (!d || !out)
		return rig_fail_at(func, RIG_EINVAL, "the %s is NULL", !d ? "device" : "out");
	if ((ptrdiff_t)bytes < 0)
		return rig_fail_at(func, RIG_EINVAL, "%td bytes is negative", (ptrdiff_t)bytes);
	if ((ret = callback_refuse(func)) < 0)
		return ret;
	return rig_fail_at(func, RIG_EINVAL, "%d is no memory kind", (int)kind);
}

int
rig_buffer_create(struct rig_device *d, size_t bytes, enum rig_memory kind,
		  struct rig_buffer **out)
{
	struct alloc *a;
	int ret;

	if (!d || !out || (ptrdiff_t)bytes < 0 || callback_depth() ||
	    kind < RIG_MEMORY_DEVICE || kind > RIG_MEMORY_MAPPED)
		return create_refuse(d, bytes, kind, out);
	if ((ret = alloc_make(d, bytes, kind, &a)) < 0)
		return rig_fail_keep(__func__, ret);
	/* The allocation's own handle: made, and reused with it, for free. */
	*out = &a->first;
	**out = (struct rig_buffer){ .a = a, .length = bytes, .access = RIG_READ_WRITE };
	return 0;
}

int
rig_buffer_view(struct rig_buffer *b, size_t offset, size_t length,
		enum rig_access access, struct rig_buffer **out)
{
	int ret;

	if ((ret = buffer_check(__func__, b)) < 0 ||
	    (ret = check_range(__func__, b, offset, length)) < 0)
		return ret;
	if (!out)
		return rig_fail(RIG_EINVAL, "out is NULL");
	if (access != RIG_READ_WRITE && access != RIG_READ_ONLY)
		return rig_fail(RIG_EINVAL, "%d is no access", (int)access);
	if (access == RIG_READ_WRITE && b->access == RIG_READ_ONLY)
		return rig_fail(RIG_EINVAL, "a read-write view of a read-only buffer");
	*out = buffer_over(b->a, b->offset + offset, length, access);
	if (!*out)
		return rig_fail(RIG_ENOMEM, "no memory for the view's handle");
	atomic_fetch_add(&b->a->refs, 1);
	return 0;
}

/* What a program reads of a buffer answers a NULL one with its empty
 * value, and says so in rig_why() (rig.h, NULL handles). */
#define NULL_BUFFER(empty) (rig_fail(0, "the buffer is NULL"), (empty))

size_t
rig_buffer_length(const struct rig_buffer *b)
{
	return b ? b->length : NULL_BUFFER(0);
}

enum rig_access
rig_buffer_access(const struct rig_buffer *b)
{
	return b ? b->access : NULL_BUFFER((enum rig_access)0);
}

struct rig_device *
rig_buffer_device(const struct rig_buffer *b)
{
	return b ? b->a->d : NULL_BUFFER(NULL);
}

uint64_t
rig_buffer_address(const struct rig_buffer *b)
{
	if (!b)
		return NULL_BUFFER(0);
	if (!b->length || !b->a->loc.has_address)
		return 0;
	return b->a->loc.address + b->offset;
}

bool
rig_buffer_overlaps(const struct rig_buffer *x, const struct rig_buffer *y)
{
	if (!x || !y)
		return NULL_BUFFER(false);
	if (!x->length || !y->length)
		return false;
	if (x->a->root != y->a->root)
		return false;
	/* Word granularity: [first word, end word) of each. */
	return x->offset / 4 < (y->offset + y->length + 3) / 4 &&
	       y->offset / 4 < (x->offset + x->length + 3) / 4;
}

/* Under the claim: wait for the work the access follows. */
static int
wait_claimed(const char *func, const struct waitset *ws)
{
	struct stamp dropped;
	struct timeline *tl;
	char chain[512];
	int ret = claim_wait_host(ws, &dropped);

	if (ret == 0)
		return 0;
	tl = timeline_get(dropped.slot);
	if (tl && atomic_load(&tl->lost))
		loss_chain_text(tl->loss, chain, sizeof(chain));
	else
		snprintf(chain, sizeof(chain), "lost");
	ret = rig_fail_at(func, ret, "the work of value %llu on %s was dropped: %s is lost: %s",
			  (unsigned long long)dropped.value,
			  tl ? tl->name : "an ended device",
			  tl ? tl->name : "it", chain);
	if (tl)
		timeline_put(tl);
	return ret;
}

static int
host_access(const char *func, struct rig_buffer *b, size_t offset, void *host,
	    size_t n, bool write)
{
	struct waitset ws;
	struct use u;
	char *at;
	int ret;

	if ((ret = buffer_check(func, b)) < 0 ||
	    (ret = check_range(func, b, offset, n)) < 0 ||
	    (ret = callback_refuse(func)) < 0)
		return ret;
	if (!host && n)
		return rig_fail_at(func, RIG_EINVAL, "the host memory is NULL");
	if (write && b->access == RIG_READ_ONLY)
		return rig_fail_at(func, RIG_EINVAL, "the buffer is read-only");
	waitset_init(&ws, -1);
	u.a = b->a->root;
	u.kind = write ? USE_WRITE : USE_READ;
	words_of(b->offset + offset, n, &u.lo, &u.hi);
	if ((ret = claim_lock(&u, 1, &ws)) < 0)
		return rig_fail_keep(func, ret);
	/* Under the claim: a device's end clears loc.host under this lock. */
	if (n && !b->a->loc.host) {
		claim_unlock(&u, 1);
		waitset_fini(&ws);
		return rig_fail_at(func, RIG_EINVAL,
				   "the host does not address %s's memory", b->a->d->name);
	}
	/* Busy, then no lock held while we wait and copy. */
	atomic_store_explicit(&u.a->host_busy, 1, memory_order_relaxed);
	claim_unlock(&u, 1);
	/* Profiles: a host access that waits is a span with an arrow. */
	if (__builtin_expect(atomic_load_explicit(&profile_taken, memory_order_relaxed), 0) &&
	    ws.n) {
		uint64_t t0 = rig_now_ns();

		ret = wait_claimed(func, &ws);
		profile_host_wait_at(func, ws.w[0].slot, ws.w[0].value, t0);
	} else {
		ret = wait_claimed(func, &ws);
	}
	/* A device's end waits for the mark: dead is final once seen here. */
	if (ret == 0 && buffer_dead(b))
		ret = rig_fail_at(func, RIG_EINVAL, "the buffer is dead: %s", buffer_dead(b));
	at = ret == 0 && n ? (char *)b->a->loc.host + b->offset + offset : NULL;
	if (at && write)
		memcpy(at, host, n);
	else if (at)
		memcpy(host, at, n);
	host_done(u.a);
	waitset_fini(&ws);
	return ret;
}

int
rig_buffer_read(struct rig_buffer *b, size_t offset, void *dst, size_t n)
{
	return host_access(__func__, b, offset, dst, n, false);
}

int
rig_buffer_write(struct rig_buffer *b, size_t offset, const void *src, size_t n)
{
	return host_access(__func__, b, offset, (void *)src, n, true);
}

void
rig_buffer_release(struct rig_buffer *b)
{
	bool first;

	if (!b)
		return;
	first = b == &b->a->first;	/* goes with its allocation */
	alloc_put(b->a);
	if (!first)
		free(b);
}
