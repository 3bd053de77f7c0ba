/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/ops.c: the device's facts, its stop and its release (the rest of
 * struct rig_ops is mem.c's, code.c's and ih.c's).
 *
 * Facts: two queues, "COMPUTE:0" {launch, fill, words} and "SDMA:0"
 * {copy}, SDMA the copy engine; completion Store (the compute queue's
 * RELEASE_MEM writes the device's word in VRAM, facts.word, which rig reads
 * through signaled); its queues wait for Store producers (queue.c: other
 * AMD GPUs' words through their BARs, peer.c, the rest through relay.c)
 * and not for Host producers, whose words are rig's, in process memory the
 * GPU does not reach (rig waits for those on the host, at once when their
 * driver wakes the word, which a relay's 50 us look would only delay: so
 * map_host and dma, which only such a relay or another PCI function would
 * need, are not built); hang_ms 2000, since no kernel bounds the GPU's
 * work; the host addresses every region (VRAM through the memory BAR);
 * alignment 256 (an entry's code is 256-aligned); cache_bytes unknown
 * (the discovery table's GC info is not read yet). events_fd is the
 * machine's interrupt source.
 *
 * Stop dequeues both queues without waiting for them (a lost queue may
 * never drain) and leaves the GPU marked clean only when no fault lost it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amd/boot/boot.h"
#include "amd/dev/dev.h"
#include "amd/pci/pci.h"

static int
facts(void *t, struct rig_facts *out, const char **fault)
{
	struct amd_dev *d = t;

	(void)fault;
	memset(out, 0, sizeof(*out));
	out->arch = d->arch;
	out->budget = d->vram_bytes - AMD_RESERVED - AMD_TOP_KEPT - amd_boot_kept_top(d);
	out->queues = d->queues;
	out->nqueues = 2;
	out->copy_engine = 1;
	out->completion = RIG_BY_STORE;
	out->waits = (struct rig_waits){ .stores = true, .hosts = false };
	out->may_block = false;
	out->hang_ms = RIG_SOME(2000);
	out->maps_host = false;
	out->host_addresses = true;
	out->alignment = 256;
	out->cache_bytes = RIG_NONE;
	out->events_fd = RIG_SOME(d->irq.fd);
	d->word_region = (struct amd_region){ .kind = RIG_MEMORY_MAPPED, .word = true,
					      .offset = AMD_WORD_AT, .bytes = 8,
					      .host = d->vram + AMD_WORD_AT };
	out->word = &d->word_region;
	out->bus = d->bus;
	out->edge = d;
	return RIG_OK;
}

static void
stop(void *t, const char *reason)
{
	struct amd_dev *d = t;

	if (atomic_exchange(&d->stopped, true))
		return;
	amd_relay_stop(d);	/* before the queues go: it writes VRAM */
	/* Clean: a close, a release, the process's exit (rig stops every
	 * device then: core/process.c) or a refused open; never a fault, a
	 * hang or a fork (a forked child stops nothing). */
	amd_dev_unboot(d, !atomic_load(&d->lost) &&
		       (!reason || strstr(reason, "closed") || strstr(reason, "released") ||
			strstr(reason, "the process exits") ||
			strstr(reason, "refused at open")));
}

/* The device's word as the GPU last wrote it (rig reads a Store word here). */
static uint64_t
signaled(void *t)
{
	return amd_dev_word(t);
}

static void
release(void *t)
{
	struct amd_dev *d = t;

	amd_peer_leave(d);	/* no other device maps it from now on */
	stop(d, NULL);
	amd_relay_fini(d);
	/* Regions rig did not free (it frees them all before release). */
	while (d->live)
		amd_mem_free(d, d->live);
	amd_mem_fini(d);
	d->m->ops->irq_close(d->m, &d->t, &d->irq);
	d->m->ops->give_back(d->m, &d->t);
	pci_hold_clear(d->bus);
	pci_function_unlock(d->lock_fd);
	free(d);
}

const struct rig_ops amd_dev_ops = {
	.facts = facts,
	.alloc = amd_mem_alloc,
	.free = amd_mem_free,
	.locate = amd_mem_locate,
	.map_peer = amd_peer_map,
	.signaled = signaled,
	.load = amd_code_load,
	.unload = amd_code_unload,
	.entry = amd_code_entry,
	.events = amd_ih_events,
	.stop = stop,
	.release = release,
};
