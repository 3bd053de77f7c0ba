/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/ih.c: the device's events: rig's polling thread calls them when
 * the interrupt source turns readable. Each call drains the source and
 * reads the IH ring's new entries (amd-facts §6.1: 8 dwords, client [7:0],
 * source [15:8]). An EOP entry needs no decoding beyond its being one: its
 * RELEASE_MEM wrote the device's word, which rig reads through
 * ops.signaled (completion Store), and rig wakes the word's waiters once
 * the call returns RIG_OK. A VM
 * fault (§6.3: the page in src_data 0 and 1, the write bit, and
 * GCVM_L2_PROTECTION_FAULT_STATUS, whose CID [17:9] names the engine: 2
 * SDMA, else the compute queue or its shaders), an SQ error (source 239),
 * a CP error (180, 183), an SDMA packet error (255) or an overflowed ring
 * loses the device, naming the value and part whose work sat where the
 * engine stopped (queue.c) and, for a VM fault, the region and offset the
 * address falls in.
 *
 * Overflow. A full IH ring drops new entries and sets IH_RB_WPTR's
 * rb_overflow. An EOP entry carries nothing but a wake-up: dropping one
 * hides no fault, since a fault raises an entry of its own. What could
 * hide one is EOP entries filling the ring so that a fault's is dropped:
 * queue.c asks the EOP interrupt only of the last value of each commit,
 * and never while AMD_EOP_MAX (half the ring) asked are unread here, so
 * EOP entries alone never fill it, however late this call runs. An
 * overflow is then of other entries (faults, in practice): the entries
 * the ring kept are decoded first, so the first fault is the one named;
 * if none of them is a fault, the dropped ones may be, and the device is
 * lost for the overflow.
 */
#include <stdio.h>
#include <unistd.h>

#include "amd/dev/dev.h"

#define CLIENT_GRBM_CP		20
#define SRC_EOP			181
#define SRC_CP_RSVD		180
#define SRC_CP_BAD_OPCODE	183
#define SRC_SQ			239
#define SRC_SDMA_BAD		255
#define CLIENT_VM_SOC21		10
#define CLIENT_VM_SOC15		27

static int
lose(struct amd_dev *d, const char **fault)
{
	atomic_store(&d->lost, true);
	*fault = d->fault;
	return RIG_FAULT;
}

static int
vm_fault(struct amd_dev *d, const uint32_t e[8], struct rig_fault_site *site,
	 const char **fault)
{
	uint64_t va = (uint64_t)e[4] << 12 | (uint64_t)(e[5] & 0xf) << 44, offset = 0;
	uint32_t status = amd_dev_rreg(d, AMD_REG_GC_GCVM_L2_PROTECTION_FAULT_STATUS, 0);
	bool sdma = ((status >> 9) & 0x1ff) == 2;
	const struct amd_region *r = amd_mem_find(d, va, &offset);
	char where[96];

	amd_queue_culprit(d, sdma, site);
	if (r)	/* r is named, never read: it may be freed meanwhile */
		snprintf(where, sizeof(where), "region %p at offset %llu", (const void *)r,
			 (unsigned long long)offset);
	else
		snprintf(where, sizeof(where), "no region of the device");
	snprintf(d->fault, sizeof(d->fault), "VM fault at 0x%llx (%s, status 0x%x) by "
		 "the %s of value %llu part %d: %s", (unsigned long long)va,
		 e[5] & 0x20 ? "write" : "read", status, sdma ? "SDMA:0 queue" :
		 "COMPUTE:0 queue", (unsigned long long)site->value, site->part, where);
	return lose(d, fault);
}

static int
error(struct amd_dev *d, const char *what, bool sdma, const uint32_t e[8],
      struct rig_fault_site *site, const char **fault)
{
	amd_queue_culprit(d, sdma, site);
	snprintf(d->fault, sizeof(d->fault), "%s (IH source %u, data 0x%x 0x%x) on %s "
		 "in value %llu part %d", what, (e[0] >> 8) & 0xff, e[4], e[5],
		 sdma ? "SDMA:0" : "COMPUTE:0", (unsigned long long)site->value, site->part);
	return lose(d, fault);
}

/* The entries from the read pointer to wptr: RIG_OK, or the first fault's
 * loss. The read pointer goes to the GPU once, after them. */
static int
drain(struct amd_dev *d, uint32_t wptr, struct rig_fault_site *site, const char **fault)
{
	uint64_t eops = 0;
	int ret = RIG_OK;

	while (d->ih_rptr != wptr && ret == RIG_OK) {
		const _Atomic uint32_t *s = (const _Atomic uint32_t *)(d->vram + AMD_IH_AT +
								       d->ih_rptr);
		uint32_t e[8];
		uint8_t client, src;

		for (int i = 0; i < 8; i++)
			e[i] = atomic_load_explicit(&s[i], memory_order_relaxed);
		d->ih_rptr = (d->ih_rptr + 32) & (AMD_IH_BYTES - 1);
		client = e[0] & 0xff;
		src = (e[0] >> 8) & 0xff;
		if (client == CLIENT_GRBM_CP && src == SRC_EOP)
			eops++;
		else if (client == CLIENT_GRBM_CP &&
			 (src == SRC_CP_RSVD || src == SRC_CP_BAD_OPCODE))
			ret = error(d, "CP packet error", false, e, site, fault);
		else if (src == SRC_SQ)
			ret = error(d, "SQ error", false, e, site, fault);
		else if (src == SRC_SDMA_BAD)
			ret = error(d, "SDMA packet error", true, e, site, fault);
		else if (src == 0 && (client == CLIENT_VM_SOC21 || client == CLIENT_VM_SOC15))
			ret = vm_fault(d, e, site, fault);
	}
	(void)amd_dev_wreg(d, AMD_REG_OSSSYS_IH_RB_RPTR, 0, d->ih_rptr);
	/* Room for more EOP interrupts (queue.c asks at most AMD_EOP_MAX unread). */
	atomic_fetch_add_explicit(&d->eop_seen, eops, memory_order_relaxed);
	return ret;
}

int
amd_ih_events(void *t, struct rig_fault_site *site, const char **fault)
{
	struct amd_dev *d = t;
	uint64_t count;
	uint32_t wptr;
	bool overflow;
	int ret;

	(void)!read(d->irq.fd, &count, sizeof(count));
	if (atomic_load(&d->lost))
		return lose(d, fault);
	/* The flag first: entries before it was set are all in the ring. */
	overflow = amd_dev_rreg(d, AMD_REG_OSSSYS_IH_RB_WPTR, 0) & 1;
	wptr = atomic_load_explicit((_Atomic uint32_t *)(d->vram + AMD_IH_WPTR_AT),
				    memory_order_acquire) & (AMD_IH_BYTES - 1);
	if ((ret = drain(d, wptr, site, fault)) != RIG_OK || !overflow)
		return ret;
	/* Full, and the entries it kept name no fault. The EOP entries it
	 * holds are at most half of it (queue.c), so the rest was filled by
	 * entries of other sources, and those it dropped may be faults: a
	 * CP or SDMA packet error or an SQ error leaves no trace but its
	 * entry, so the device cannot go on (amdgpu skips past an overflow
	 * and goes on; it also learns of a hung queue from its scheduler's
	 * timeout, which this device has only as hang_ms). */
	snprintf(d->fault, sizeof(d->fault), "the interrupt ring overflowed: "
		 "faults may have been dropped");
	return lose(d, fault);
}
