/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/mem.c: the device's regions. VRAM (Device and Mapped kinds, which
 * are one here: the memory BAR maps all of VRAM, so the host addresses
 * every region) is handed out first-fit from a list of holes sorted by
 * offset, merged on free; GART (Pinned) is the machine's DMA memory in
 * 2 MiB pages mapped at fresh AMD_VA_HOST addresses as SYSTEM, snooped
 * pages. No library of the project's (ck, liburcu) holds a range
 * allocator, and the list is short (rig's allocator above this carves
 * most buffers out of larger regions), so this is a plain list under a
 * mutex: alloc and free may be called from any thread. Regions of peers
 * (peer.c) share the live list; the device's word (facts.word) is a region
 * of its own reserved VRAM that free leaves alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "amd/dev/dev.h"
#include "amd/boot/boot.h"
#include "amd/fail.h"

#define ALIGN	256ull

int
amd_mem_init(struct amd_dev *d)
{
	struct amd_region *h = calloc(1, sizeof(*h));

	if (!h)
		return amd_fail(-ENOMEM, "no memory for VRAM's free list");
	pthread_mutex_init(&d->mem_lock, NULL);
	h->offset = AMD_RESERVED;
	h->bytes = d->vram_bytes - AMD_RESERVED - AMD_TOP_KEPT - amd_boot_kept_top(d);
	d->holes = h;
	return 0;
}

void
amd_mem_fini(struct amd_dev *d)
{
	while (d->holes) {
		struct amd_region *n = d->holes->next;

		free(d->holes);
		d->holes = n;
	}
	pthread_mutex_destroy(&d->mem_lock);
}

static int
vram_take(struct amd_dev *d, struct amd_region *r)
{
	struct amd_region **p;

	pthread_mutex_lock(&d->mem_lock);
	for (p = &d->holes; *p; p = &(*p)->next) {
		struct amd_region *h = *p;

		if (h->bytes < r->bytes)
			continue;
		r->offset = h->offset;
		h->offset += r->bytes;
		h->bytes -= r->bytes;
		if (h->bytes == 0) {
			*p = h->next;
			free(h);
		}
		pthread_mutex_unlock(&d->mem_lock);
		return 0;
	}
	pthread_mutex_unlock(&d->mem_lock);
	return -ENOMEM;
}

static void
vram_give(struct amd_dev *d, uint64_t offset, uint64_t bytes)
{
	struct amd_region **p, *h;

	pthread_mutex_lock(&d->mem_lock);
	for (p = &d->holes; *p && (*p)->offset < offset; p = &(*p)->next)
		;
	/* Merge with the hole after, then with the one before. */
	if (*p && offset + bytes == (*p)->offset) {
		(*p)->offset = offset;
		(*p)->bytes += bytes;
		h = *p;
	} else {
		h = calloc(1, sizeof(*h));
		if (!h) {	/* the bytes are lost to the device, not corrupted */
			pthread_mutex_unlock(&d->mem_lock);
			return;
		}
		h->offset = offset;
		h->bytes = bytes;
		h->next = *p;
		*p = h;
	}
	for (struct amd_region *b = d->holes; b && b != h; b = b->next)
		if (b->next == h && b->offset + b->bytes == h->offset) {
			b->bytes += h->bytes;
			b->next = h->next;
			free(h);
			break;
		}
	pthread_mutex_unlock(&d->mem_lock);
}

static int
gart_take(struct amd_dev *d, struct amd_region *r)
{
	int ret = d->m->ops->dma_alloc(d->m, &d->t, r->bytes, &r->dma);

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&d->mem_lock);
	r->offset = d->gart_next;
	d->gart_next += r->dma.bytes;
	for (uint64_t k = 0; k < r->dma.bytes / PCI_DMA_PAGE; k++)
		amd_dev_map(d, AMD_VA_HOST + r->offset + k * PCI_DMA_PAGE, r->dma.bus[k],
			    PCI_DMA_PAGE, AMD_PTE_RWX | AMD_PTE_SYS | AMD_PTE_SNOOP);
	pthread_mutex_unlock(&d->mem_lock);
	r->host = r->dma.host;
	return 0;
}

int
amd_mem_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	      const char **fault)
{
	struct amd_dev *d = t;
	struct amd_region *r;

	(void)fault;
	if (bytes == 0 || bytes > d->vram_bytes)
		return RIG_NO_ROOM;
	r = calloc(1, sizeof(*r));
	if (!r)
		return RIG_NO_ROOM;
	r->kind = kind;
	r->bytes = (bytes + ALIGN - 1) & ~(ALIGN - 1);
	if (kind == RIG_MEMORY_PINNED ? gart_take(d, r) < 0 : vram_take(d, r) < 0) {
		free(r);
		return RIG_NO_ROOM;
	}
	if (kind != RIG_MEMORY_PINNED)
		r->host = d->vram + r->offset;
	pthread_mutex_lock(&d->mem_lock);
	r->live_next = d->live;
	if (d->live)
		d->live->live_prev = r;
	d->live = r;
	pthread_mutex_unlock(&d->mem_lock);
	*region = r;
	return RIG_OK;
}

void
amd_mem_free(void *t, void *region)
{
	struct amd_dev *d = t;
	struct amd_region *r = region;

	if (!r || r->word)
		return;
	pthread_mutex_lock(&d->mem_lock);
	if (r->live_prev)
		r->live_prev->live_next = r->live_next;
	else
		d->live = r->live_next;
	if (r->live_next)
		r->live_next->live_prev = r->live_prev;
	pthread_mutex_unlock(&d->mem_lock);
	if (r->peer) {
		pthread_mutex_lock(&d->mem_lock);
		amd_dev_map(d, AMD_VA_PEER + r->offset, 0, r->peer_pages, 0);
		pthread_mutex_unlock(&d->mem_lock);
	} else if (r->kind == RIG_MEMORY_PINNED) {
		pthread_mutex_lock(&d->mem_lock);
		amd_dev_map(d, AMD_VA_HOST + r->offset, 0, r->dma.bytes, 0);
		pthread_mutex_unlock(&d->mem_lock);
		d->m->ops->dma_free(d->m, &d->t, &r->dma);
	} else {
		vram_give(d, r->offset, r->bytes);
	}
	free(r);
}

/* The GPU VA of r's first byte. */
static uint64_t
region_va(const struct amd_region *r)
{
	if (r->peer)
		return r->peer_va;
	return (r->kind == RIG_MEMORY_PINNED ? AMD_VA_HOST : AMD_VA_VRAM) + r->offset;
}

void
amd_mem_locate(void *t, void *region, struct rig_location *out)
{
	struct amd_region *r = region;

	(void)t;
	memset(out, 0, sizeof(*out));
	if (!r)
		return;
	out->has_address = true;
	out->address = region_va(r);
	out->host = r->host;
	out->handle = (uintptr_t)r;
}

const struct amd_region *
amd_mem_find(struct amd_dev *d, uint64_t va, uint64_t *offset)
{
	const struct amd_region *found = NULL;

	pthread_mutex_lock(&d->mem_lock);
	for (const struct amd_region *r = d->live; r; r = r->live_next) {
		uint64_t at = region_va(r);

		if (va >= at && va < at + r->bytes) {
			*offset = va - at;
			found = r;
			break;
		}
	}
	pthread_mutex_unlock(&d->mem_lock);
	return found;
}
