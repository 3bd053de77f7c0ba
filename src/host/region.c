/* SPDX-License-Identifier: MIT */
/*
 * host/region.c: the host device's memory. Every kind (Device, Pinned,
 * Mapped) is zeroed host memory aligned to HOST_ALIGN; large regions are
 * anonymous mappings, small ones come from the heap. A region is a small
 * record that needs no device state, so rig may free it after stop.
 * map_host makes a region over the caller's memory, which free leaves be.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host/dev.h"
#include "host/host.h"

/* Bytes from which a region is its own mapping rather than heap memory. */
#define HOST_MMAP_BYTES	(256u << 10)

enum how { HOW_EMPTY, HOW_HEAP, HOW_MMAP, HOW_BORROWED };

struct host_region {
	void *host;
	uint64_t bytes;
	enum how how;
};

static struct host_region *
region_new(void *host, uint64_t bytes, enum how how)
{
	struct host_region *r = malloc(sizeof(*r));

	if (r)
		*r = (struct host_region){ .host = host, .bytes = bytes, .how = how };
	return r;
}

static void *
memory_new(uint64_t bytes, enum how *how)
{
	void *p;

	if (bytes >= HOST_MMAP_BYTES) {
		*how = HOW_MMAP;
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	*how = HOW_HEAP;
	p = aligned_alloc(HOST_ALIGN, (bytes + HOST_ALIGN - 1) & ~(uint64_t)(HOST_ALIGN - 1));
	if (p)
		memset(p, 0, bytes);
	return p;
}

int
host_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	   const char **fault)
{
	struct host_region *r;
	enum how how = HOW_EMPTY;
	void *p = NULL;

	if (kind != RIG_MEMORY_DEVICE && kind != RIG_MEMORY_PINNED && kind != RIG_MEMORY_MAPPED) {
		*fault = "alloc: a memory kind the host does not have";
		return RIG_FAULT;
	}
	if (bytes > SIZE_MAX - HOST_ALIGN)
		return RIG_NO_ROOM;
	if (bytes) {
		p = memory_new(bytes, &how);
		if (!p)
			return RIG_NO_ROOM;
	}
	r = region_new(p, bytes, how);
	if (!r) {
		if (how == HOW_MMAP)
			munmap(p, bytes);
		else
			free(p);
		return RIG_NO_ROOM;
	}
	*region = r;
	return RIG_OK;
}

void
host_free(void *t, void *region)
{
	struct host_region *r = region;

	if (!r)
		return;
	if (r->how == HOW_MMAP)
		munmap(r->host, r->bytes);
	else if (r->how == HOW_HEAP)
		free(r->host);
	free(r);
}

void
host_locate(void *t, void *region, struct rig_location *out)
{
	const struct host_region *r = region;

	*out = (struct rig_location){
		.has_address = true,
		.address = (uint64_t)(uintptr_t)r->host,
		.host = r->host,
		.handle = (uintptr_t)r,
	};
}

enum rig_mapping
host_map_host(void *t, void *host, uint64_t bytes, void **region)
{
	struct host_region *r = region_new(host, bytes, HOW_BORROWED);

	if (!r)
		return RIG_MAP_NO_ROOM;
	*region = r;
	return RIG_MAPS;
}

enum rig_mapping
host_map_peer(void *t, const struct rig_location *peer, uint64_t bytes, void **region)
{
	return RIG_MAP_NEVER;
}

enum rig_mapping
host_dma(void *t, void *region, struct rig_dma *out)
{
	return RIG_MAP_NEVER;
}
