/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/peer.c: sims that share one machine and one PCI bus, as GPUs in
 * one host do. A sim made with opts.peer joins that sim's bus: its function
 * appears in the same sysfs tree (the same root, its own bus address), the
 * machine of either reaches both functions, and each sim's memory BAR sits
 * at its own bus address (its resource file says where). An engine's access
 * to a SYSTEM page (vm.c) whose bus address falls in another member's BAR0
 * reaches that sim's VRAM, as a peer-to-peer read or write over PCIe
 * reaches a GPU's BAR: the access's bus master is the engine's own sim, so
 * its bus mastering must be on, and the target answers through its BAR
 * (only the BAR0 bytes, BAR0's present size). Host memory stays each sim's
 * own (a member's host bus addresses are distinct from another's, so no
 * address reaches the wrong memory; a sim reaches only the host memory it
 * handed out).
 *
 * What is not modelled: the peer's memory-space decode bit, posted-write
 * ordering between the two links, ACS or an IOMMU between functions, a
 * peer BAR access's latency. A BAR read by a peer is as coherent as the
 * owner's own engines' accesses: relaxed atomics over the same memfd.
 *
 * Lifetime. A sim that leaves the bus (amd_sim_destroy) is unlinked under
 * the bus's lock, so no later access finds it; its VRAM mapping is kept
 * until the last member leaves, so an engine that resolved a pointer into
 * it just before reads bytes that are still mapped rather than racing the
 * unmap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

/* Each member's BAR0 and host memory at their own bus addresses. */
#define BAR0_BUS_BASE	0x7000000000ull
#define BAR0_BUS_STEP	(64ull << 30)
#define HOST_BUS_BASE	(1ull << 32)
#define HOST_BUS_STEP	(1ull << 40)

int
sim_bus_join(struct amd_sim *s, struct amd_sim *peer)
{
	struct sim_bus *b;

	if (!peer) {
		if (!(b = calloc(1, sizeof(*b))))
			return amd_fail_at(NULL, -ENOMEM, "no memory for a bus");
		pthread_mutex_init(&b->lock, NULL);
	} else {
		b = peer->pbus;
		if (strcmp(peer->root, s->root))
			return amd_fail_at(NULL, -EINVAL, "its peer's tree is under %s, not %s",
					   peer->root, s->root);
	}
	pthread_mutex_lock(&b->lock);
	if (b->nlive == SIM_BUS_SIMS || b->made == SIM_BUS_SIMS) {
		pthread_mutex_unlock(&b->lock);
		return amd_fail_at(NULL, -ENOSPC, "its peer's bus holds %d sims already",
				   SIM_BUS_SIMS);
	}
	for (int i = 0; i < b->nlive; i++)
		if (!strcmp(b->live[i]->bus, s->bus)) {
			pthread_mutex_unlock(&b->lock);
			return amd_fail_at(NULL, -EEXIST, "its peer's bus has a function %s "
					   "already", s->bus);
		}
	s->index = b->made++;
	s->bar0_bus = BAR0_BUS_BASE + (uint64_t)s->index * BAR0_BUS_STEP;
	s->next_bus = HOST_BUS_BASE + (uint64_t)s->index * HOST_BUS_STEP;
	b->live[b->nlive++] = s;
	atomic_store_explicit(&b->peers, b->nlive > 1, memory_order_release);
	s->pbus = b;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

bool
sim_bus_leave(struct amd_sim *s)
{
	struct sim_bus *b = s->pbus;
	bool last;

	if (!b)
		return true;
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->nlive; i++)
		if (b->live[i] == s) {
			b->live[i] = b->live[--b->nlive];
			break;
		}
	atomic_store_explicit(&b->peers, b->nlive > 1, memory_order_release);
	last = b->nlive == 0;
	if (!last && s->vram) {
		b->kept[b->nkept].vram = s->vram;
		b->kept[b->nkept++].bytes = s->vram_bytes;
		s->vram = NULL;		/* the bus unmaps it when the last leaves */
	}
	pthread_mutex_unlock(&b->lock);
	s->pbus = NULL;
	if (last) {
		for (int i = 0; i < b->nkept; i++)
			munmap(b->kept[i].vram, b->kept[i].bytes);
		pthread_mutex_destroy(&b->lock);
		free(b);
	}
	return last;
}

struct amd_sim *
sim_bus_find(struct amd_sim *s, const char *bus)
{
	struct sim_bus *b = s->pbus;
	struct amd_sim *found = NULL;

	if (!strcmp(s->bus, bus) || !b)
		return strcmp(s->bus, bus) ? NULL : s;
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->nlive && !found; i++)
		if (!strcmp(b->live[i]->bus, bus))
			found = b->live[i];
	pthread_mutex_unlock(&b->lock);
	return found;
}

void *
sim_bus_peer_ptr(struct amd_sim *s, uint64_t bus, size_t bytes)
{
	struct sim_bus *b = s->pbus;
	void *p = NULL;

	if (!b || !atomic_load_explicit(&b->peers, memory_order_acquire))
		return NULL;
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->nlive && !p; i++) {
		struct amd_sim *t = b->live[i];
		uint64_t bar = atomic_load_explicit(&t->bar0_now, memory_order_acquire);

		if (t != s && bus >= t->bar0_bus && bus - t->bar0_bus + bytes <= bar &&
		    bus - t->bar0_bus + bytes <= t->vram_bytes)
			p = t->vram + (bus - t->bar0_bus);
	}
	pthread_mutex_unlock(&b->lock);
	return p;
}

int
sim_bus_bar_address(struct amd_sim *s, const char *peer, int bar, uint64_t offset,
		    uint64_t bytes, uint64_t *bus)
{
	struct sim_bus *b = s->pbus;
	uint64_t base = 0, size = 0;
	bool found = false;

	if (bar != 0)
		return amd_fail(-ENOTSUP, "the sim's peers reach BAR0 only, not BAR%d", bar);
	pthread_mutex_lock(&b->lock);
	for (int i = 0; i < b->nlive && !found; i++)
		if (b->live[i] != s && !strcmp(b->live[i]->bus, peer)) {
			found = true;
			base = b->live[i]->bar0_bus;
			size = atomic_load(&b->live[i]->bar0_now);
		}
	pthread_mutex_unlock(&b->lock);
	if (!found)
		return amd_fail(-ENODEV, "%s is no peer on the bus of %s", peer, s->bus);
	if (offset > size || bytes > size - offset)
		return amd_fail(-ERANGE, "0x%llx bytes at 0x%llx are past %s's BAR0 of "
				"%llu bytes", (unsigned long long)bytes,
				(unsigned long long)offset, peer, (unsigned long long)size);
	*bus = base + offset;
	return 0;
}
