/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/peer.c: the other AMD GPUs of the process, as this GPU's engines
 * reach them: through their memory BARs, peer to peer over PCI (seed 003,
 * Fabrics: GPUs off a fabric reach each other through their BARs). A page
 * of a peer's BAR is mapped into this GPU's page tables as a SYSTEM page
 * (not snooped: it is no host memory) at the bus address the machine gives
 * for it (pci.h's peer_bus: the peer's resource file without an IOMMU; the
 * sim's bus on the software GPU).
 *
 *   - map_peer: a region of another AMD device (its location's host
 *     address lies in that device's BAR window) becomes a region of this
 *     one at fresh AMD_VA_PEER addresses, so this GPU's copies and kernels
 *     read and write it. RIG_MAP_NEVER for memory of any other device, of
 *     a GPU of another machine, or one the machine cannot reach (behind an
 *     IOMMU: pci/peer.c).
 *   - Waits: the page of a peer's BAR that holds its timeline word, mapped
 *     read-only once per peer, so the compute queue's WAIT_REG_MEM64 polls
 *     the peer's word itself (queue.c).
 *
 * The registry of the process's AMD devices is a short array under a
 * mutex: a device enters once booted and leaves at release, and lookups
 * copy what they need (bus, machine, BAR window) so nothing of another
 * device is read after the lock. It is read on a submit only for a wait,
 * never on the path of a value without one. No library of the project's
 * holds a table keyed by address range, and 64 entries need none.
 *
 * Not built: an IOTLB/TLB invalidation after a mapping (the software GPU
 * has no TLB; the GART mappings of mem.c share the gap), peers behind an
 * IOMMU, a peer's BAR moving while the process holds both GPUs (its bus
 * address is taken once per peer and kept).
 */
#include <stdlib.h>
#include <string.h>

#include "amd/dev/dev.h"

#define PEERS		64
#define PAGE		PCI_DMA_PAGE

struct peer {
	const struct amd_dev *d;	/* identity only: never dereferenced */
	const _Atomic uint64_t *rig_word;
	char bus[32];
	char root[208];
	const void *ops;
	uintptr_t vram;			/* its BAR window in this process */
	uint64_t vram_bytes;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct peer peers[PEERS];
static int npeers;

void
amd_peer_enter(struct amd_dev *d)
{
	pthread_mutex_lock(&lock);
	if (npeers < PEERS) {	/* beyond: others reach it through the relay */
		struct peer *p = &peers[npeers++];

		*p = (struct peer){ d, d->rig_word, "", "", d->m->ops, (uintptr_t)d->vram,
				    d->vram_bytes };
		memcpy(p->bus, d->bus, sizeof(p->bus));
		memcpy(p->root, d->m->root, sizeof(p->root));
	}
	pthread_mutex_unlock(&lock);
}

void
amd_peer_leave(struct amd_dev *d)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < npeers; i++)
		if (peers[i].d == d) {
			peers[i] = peers[--npeers];
			break;
		}
	pthread_mutex_unlock(&lock);
}

/* The peer of d that matches (by its rig word, or the host address in its
 * BAR window), on d's machine: true with *out a copy. */
static bool
find(const struct amd_dev *d, const _Atomic uint64_t *word, uintptr_t host,
     struct peer *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < npeers && !found; i++) {
		const struct peer *p = &peers[i];

		if (p->d == d)
			continue;
		if (word ? p->rig_word == word
			 : host >= p->vram && host - p->vram < p->vram_bytes) {
			*out = *p;
			found = true;
		}
	}
	pthread_mutex_unlock(&lock);
	/* One machine: the same root and operations (a sim's bus is one). */
	return found && out->ops == d->m->ops && !strcmp(out->root, d->m->root) &&
	       d->m->ops->peer_bus;
}

/* Maps bytes (2 MiB pages) at offset of p's BAR at a fresh peer VA, under
 * mem_lock: the VA, or 0 where the machine cannot reach them. */
static uint64_t
map_pages(struct amd_dev *d, const struct peer *p, uint64_t offset, uint64_t bytes,
	  uint64_t flags)
{
	uint64_t bus, va;

	if (d->m->ops->peer_bus(d->m, &d->t, p->bus, AMD_BAR_VRAM, offset, bytes, &bus) < 0)
		return 0;
	va = AMD_VA_PEER + d->peer_next;
	d->peer_next += bytes;
	amd_dev_map(d, va, bus, bytes, flags);
	return va;
}

int
amd_peer_word_va(struct amd_dev *d, const _Atomic uint64_t *word, uint64_t *va)
{
	const uint64_t page = AMD_WORD_AT & ~(PAGE - 1);
	struct peer p;
	int ret = 0;

	if (!find(d, word, 0, &p))
		return 0;
	pthread_mutex_lock(&d->mem_lock);
	for (int i = 0; i < d->npeer_words && !ret; i++)
		if (!strcmp(d->peer_words[i].bus, p.bus)) {
			*va = d->peer_words[i].va + (AMD_WORD_AT - page);
			ret = 1;
		}
	if (!ret && d->npeer_words < AMD_PEER_WORDS) {
		uint64_t at = map_pages(d, &p, page, PAGE,
					AMD_PTE_V | AMD_PTE_SYS | AMD_PTE_R);

		if (at) {
			memcpy(d->peer_words[d->npeer_words].bus, p.bus, sizeof(p.bus));
			d->peer_words[d->npeer_words++].va = at;
			*va = at + (AMD_WORD_AT - page);
			ret = 1;
		}
	}
	pthread_mutex_unlock(&d->mem_lock);
	return ret;
}

enum rig_mapping
amd_peer_map(void *t, const struct rig_location *loc, uint64_t bytes, void **region)
{
	struct amd_dev *d = t;
	uint64_t offset, first, end, va;
	struct amd_region *r;
	struct peer p;

	if (!loc || !loc->host || !bytes || !find(d, NULL, (uintptr_t)loc->host, &p))
		return RIG_MAP_NEVER;
	offset = (uintptr_t)loc->host - p.vram;
	if (bytes > p.vram_bytes - offset)
		return RIG_MAP_NEVER;
	first = offset & ~(PAGE - 1);
	end = (offset + bytes + PAGE - 1) & ~(PAGE - 1);
	if (!(r = calloc(1, sizeof(*r))))
		return RIG_MAP_NO_ROOM;
	pthread_mutex_lock(&d->mem_lock);
	va = map_pages(d, &p, first, end - first,
		       AMD_PTE_V | AMD_PTE_SYS | AMD_PTE_R | AMD_PTE_W);
	if (!va) {
		pthread_mutex_unlock(&d->mem_lock);
		free(r);
		return RIG_MAP_NEVER;
	}
	r->kind = RIG_MEMORY_DEVICE;
	r->peer = true;
	r->offset = va - AMD_VA_PEER;
	r->peer_va = va + (offset - first);
	r->peer_pages = end - first;
	r->bytes = bytes;
	r->host = loc->host;	/* the peer's BAR window, while the peer lives */
	r->live_next = d->live;
	if (d->live)
		d->live->live_prev = r;
	d->live = r;
	pthread_mutex_unlock(&d->mem_lock);
	*region = r;
	return RIG_MAPS;
}
