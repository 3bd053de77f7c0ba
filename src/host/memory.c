/* SPDX-License-Identifier: MIT */
/*
 * host/memory.c: the memory device, the simplest driver: its memory is the
 * host's, and its submit runs the parts (copies, byte fills, fill
 * functions) before it returns, then stores the value in the word and
 * answers RIG_COMMITTED. Its one queue "MEMORY:0" runs copies and fills.
 * It waits for no producer (waits {false, false}): rig waits on the host.
 * make opens a new handle each time it is called. Its opener,
 * rig_memory_opener(), is declared by rig_edge.h: rig_memory_device()
 * opens it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_edge.h"

struct memory_dev {
	const struct rig_driver *drv;	/* first: the facts' edge points here */
	_Atomic uint64_t *word;
	char fill_failure[96];
};

struct memory_region {
	void *host;
	uint64_t bytes;
	bool mapped;			/* map_host: the caller's memory */
};

static const struct rig_queue memory_queues[] = {
	{ .name = "MEMORY:0", .runs = RIG_RUNS(RIG_COPY_PART) | RIG_RUNS(RIG_FILL_PART) },
};

static int
memory_room(void *edge, struct rig_part *parts, size_t n, size_t nwaits)
{
	for (size_t i = 0; i < n; i++)
		if (parts[i].kind != RIG_COPY_PART && parts[i].kind != RIG_FILL_PART)
			return RIG_NEVER;
	return nwaits ? RIG_NEVER : RIG_FITS;
}

static void
run_copy(const struct rig_copy *c)
{
	char *dst, *src;

	/* An empty buffer has no memory (address 0): nothing to point at. */
	if (!c->bytes)
		return;
	dst = (char *)(uintptr_t)c->dst.at.address + c->dst.offset;
	src = (char *)(uintptr_t)c->src.at.address + c->src.offset;
	for (uint64_t r = 0; r < c->rows; r++) {
		if (c->fill >= 0)
			memset(dst + r * c->dst_pitch, c->fill, c->bytes);
		else
			memmove(dst + r * c->dst_pitch, src + r * c->src_pitch, c->bytes);
	}
}

static int
memory_submit(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	      const struct rig_wait *waits, size_t nwaits,
	      struct rig_times *times, const char **failure)
{
	struct memory_dev *m = edge;
	uint64_t start = times ? rig_now_ns() : 0;

	for (size_t i = 0; i < n; i++) {
		struct rig_part *p = &parts[i];
		int r;

		if (p->kind == RIG_COPY_PART) {
			run_copy(&p->u.copy);
			continue;
		}
		r = p->u.fill.fn(NULL, p->u.fill.arg, value);
		if (r != 0) {
			snprintf(m->fill_failure, sizeof(m->fill_failure),
				 "fill of part %zu returned %d", i, r);
			*failure = m->fill_failure;
			return RIG_FAILED;
		}
	}
	if (times) {
		times->start_ns = start;
		times->end_ns = rig_now_ns();
	}
	/* Pairs with rig's acquire loads of the word: the parts' effects
	 * are visible once the value is. */
	atomic_store_explicit(m->word, value, memory_order_release);
	return RIG_COMMITTED;
}

static int
memory_commit(void *edge, uint64_t value, const char **failure)
{
	return RIG_OK;		/* never asked: submit commits */
}

static const struct rig_driver memory_driver = {
	.room = memory_room,
	.submit = memory_submit,
	.commit = memory_commit,
};

static int
memory_facts(void *t, struct rig_facts *f, const char **fault)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);

	*f = (struct rig_facts){
		.arch = "host-memory",
		.budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : 1ull << 30,
		.queues = memory_queues,
		.nqueues = 1,
		.copy_engine = 0,
		.completion = RIG_BY_HOST,
		.hang_ms = RIG_NONE,
		.maps_host = true,
		.host_addresses = true,
		.alignment = 64,
		.cache_bytes = l3 > 0 ? RIG_SOME(l3) : RIG_NONE,
		.edge = t,
	};
	return RIG_OK;
}

static int
memory_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	     const char **fault)
{
	struct memory_region *r = malloc(sizeof(*r));

	if (!r)
		return RIG_NO_ROOM;
	r->bytes = bytes;
	r->mapped = false;
	r->host = aligned_alloc(64, (bytes + 63) & ~63ull);
	if (!r->host) {
		free(r);
		return RIG_NO_ROOM;
	}
	memset(r->host, 0, bytes);
	*region = r;
	return RIG_OK;
}

static void
memory_free(void *t, void *region)
{
	struct memory_region *r = region;

	if (!r->mapped)
		free(r->host);
	free(r);
}

static void
memory_locate(void *t, void *region, struct rig_location *out)
{
	struct memory_region *r = region;

	*out = (struct rig_location){
		.has_address = true,
		.address = (uintptr_t)r->host,
		.host = r->host,
		.handle = (uintptr_t)r,
	};
}

static enum rig_mapping
memory_map_host(void *t, void *host, uint64_t bytes, void **region)
{
	struct memory_region *r = malloc(sizeof(*r));

	if (!r)
		return RIG_MAP_NO_ROOM;
	*r = (struct memory_region){ .host = host, .bytes = bytes, .mapped = true };
	*region = r;
	return RIG_MAPS;
}

static enum rig_mapping
memory_map_peer(void *t, const struct rig_location *peer, uint64_t bytes,
		void **region)
{
	return peer->host ? memory_map_host(t, peer->host, bytes, region) : RIG_MAP_NEVER;
}

static void
memory_stop(void *t, const char *reason)
{
	/* Its work ran inside submit: nothing runs to stop. */
}

static void
memory_release(void *t)
{
	free(t);
}

static const struct rig_ops memory_ops = {
	.facts = memory_facts,
	.alloc = memory_alloc,
	.free = memory_free,
	.locate = memory_locate,
	.map_host = memory_map_host,
	.map_peer = memory_map_peer,
	.stop = memory_stop,
	.release = memory_release,
};

static int
memory_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	    char *why, size_t why_len)
{
	struct memory_dev *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(why, why_len, "no memory for the device's state");
		return -ENOMEM;
	}
	m->drv = &memory_driver;
	m->word = word;
	*handle = m;
	return 0;
}

void
rig_memory_opener(const char *name, struct rig_opener *out)
{
	if (!out) {
		rig_why_set(__func__, -EINVAL, "out is NULL");
		return;
	}
	*out = (struct rig_opener){
		.name = name,
		.ops = &memory_ops,
		.make = memory_make,
	};
}
