/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/nbio.c: NBIO 7.9's doorbell routing (GC 9.4.3, MI300) as a test
 * instrument. On MI300 an SDMA doorbell reaches its engine only through
 * two tables linux's nbio_v7_9_sdma_doorbell_range writes: AID 0's
 * DOORBELL0_CTRL_ENTRY_{1 + n} + 4 * AID (segment 8) maps a dword range of
 * the doorbell BAR to the AID's S2A port for instance n, and that AID's
 * S2A_DOORBELL_ENTRY_{1,2,5,6}_CTRL enables the port with the engine's
 * awid. The sim models the one SDMA queue it has (instance 0 of AID 0):
 * its doorbell is dropped, not delivered, unless AID 0's entry 1 covers
 * the queue's doorbell dword and AID 0's port 1 is enabled with linux's
 * awid, offset and awaddr and the entry's size (sim_nbio_sdma_routed), so
 * a boot that leaves the routing out loses every SDMA doorbell.
 * amd_sim_nbio_check reports the rest against linux's values, which the
 * sim never picks for the driver: BIFC_GFX_INT_MONITOR_MASK = 0x7ff,
 * BIFC_DOORBELL_ACCESS_EN_PF = 0xfffff (nbio_v7_9_init_registers,
 * enable_doorbell_aperture), and for every AID of the sim its four SDMA
 * instances' ranges (aqua_vanjaram_doorbell_index_init: instance i =
 * 4 * AID + n at dword (256 + 10 * i) * 2, 20 dwords) and ports (the
 * other AIDs' read from their stores, ext.c). Field positions: linux's
 * nbio_7_9_0 sh_mask as tinygrad's regs.py carries them. Registers are
 * read as stored (regs.c); the routing is re-read under the SDMA engine's
 * lock whenever AID 0's entry 1 or port 1 is written, so a doorbell never
 * reads more than the decode (sim.c's ring()).
 */
#include <errno.h>
#include <stdio.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

#define SDMA_PER_AID	4
#define SDMA_RANGE	20	/* dwords per instance */

/* Linux's S2A port of instance n: its entry's number, awid, range offset
 * and awaddr_31_28 (nbio_v7_9_sdma_doorbell_range). */
static const struct { unsigned entry; uint32_t awid, offset, awaddr; } ports[] = {
	{ 1, 0xe, 0xe, 0x1 }, { 2, 0x8, 0x8, 0x2 }, { 5, 0x9, 0x9, 0x8 }, { 6, 0xa, 0xa, 0x9 },
};

/* Whether S2A control value v enables instance n's port for size dwords. */
static bool
port_ok(uint32_t v, unsigned n, uint32_t size)
{
	return (v & 1) && (v >> 1 & 0x1f) == ports[n].awid &&
	       (v >> 7 & 0x3ff) == ports[n].offset && (v >> 17 & 0xff) == size &&
	       (v >> 28) == ports[n].awaddr;
}

bool
sim_nbio_sdma_routed(struct amd_sim *s, uint32_t dw)
{
	const struct sim_layout *l = &s->lay;
	uint32_t range, off, size;

	if (!l->db_ctrl_entry0)
		return true;	/* not NBIO 7.9: doorbells reach SDMA unrouted */
	range = sim_reg(s, l->db_ctrl_entry0 + 1);
	off = range & 0x3ff;
	size = range >> 10 & 0x1f;
	return size && dw >= off && dw < off + size &&
	       port_ok(sim_reg(s, l->s2a_entry0 + ports[0].entry), 0, size);
}

void
sim_nbio_write(struct amd_sim *s, uint32_t index)
{
	const struct sim_layout *l = &s->lay;

	if (!l->db_ctrl_entry0 || (index != l->db_ctrl_entry0 + 1 &&
				   index != l->s2a_entry0 + ports[0].entry))
		return;
	sim_engine_lock(&s->sdma);
	sim_engine_route(&s->sdma);
	sim_engine_unlock(&s->sdma);
}

/* AID aid's S2A control of instance n: AID 0's own register, another's
 * as written through the window (0 if never). */
static uint32_t
port_of(struct amd_sim *s, unsigned aid, unsigned n)
{
	uint32_t index = s->lay.s2a_entry0 + ports[n].entry, v = 0;

	if (aid == 0)
		return sim_reg(s, index);
	(void)sim_aid_get(s, aid, index, &v);
	return v;
}

static int
routing_check(struct amd_sim *s, unsigned aid, unsigned n, char *why, size_t len)
{
	const struct sim_layout *l = &s->lay;
	unsigned i = SDMA_PER_AID * aid + n;
	uint32_t want = (256 + 10 * i) * 2 | SDMA_RANGE << 10;
	uint32_t entry = l->db_ctrl_entry0 + 1 + i, got = sim_reg(s, entry) & 0x7fff;
	uint32_t port = port_of(s, aid, n);

	if (got != want) {
		snprintf(why, len, "AID %u SDMA instance %u: DOORBELL0_CTRL_ENTRY_%u (0x%x) "
			 "holds range 0x%x, not 0x%x (dword %u, %u dwords)", aid, n, 1 + i,
			 entry, got, want, want & 0x3ff, SDMA_RANGE);
		return -EPROTO;
	}
	if (!port_ok(port, n, SDMA_RANGE)) {
		snprintf(why, len, "AID %u SDMA instance %u: S2A_DOORBELL_ENTRY_%u_CTRL "
			 "holds 0x%x, not enabled with awid 0x%x, offset 0x%x, size %u, "
			 "awaddr 0x%x", aid, n, ports[n].entry, port, ports[n].awid,
			 ports[n].offset, SDMA_RANGE, ports[n].awaddr);
		return -EPROTO;
	}
	return 0;
}

static int
want_reg(struct amd_sim *s, const char *name, uint32_t index, uint32_t mask, uint32_t v,
	 char *why, size_t len)
{
	uint32_t got = sim_reg(s, index) & mask;

	if (got == v)
		return 0;
	snprintf(why, len, "%s (0x%x) holds 0x%x, not 0x%x", name, index, got, v);
	return -EPROTO;
}

int
amd_sim_nbio_check(struct amd_sim *s, char *why, size_t len)
{
	const struct sim_layout *l;
	int ret;

	if (!s || !why || !len)
		return amd_fail(-EINVAL, "sim or why is NULL, or len 0");
	l = &s->lay;
	if (!l->db_ctrl_entry0)
		return amd_fail(-EINVAL, "the sim's GC %s has no NBIO 7.9 to check", l->gc);
	why[0] = '\0';
	if ((ret = want_reg(s, "BIFC_GFX_INT_MONITOR_MASK", l->bifc_int_monitor, ~0u,
			    0x7ff, why, len)) < 0 ||
	    (ret = want_reg(s, "BIFC_DOORBELL_ACCESS_EN_PF", l->bifc_db_access, 0xfffff,
			    0xfffff, why, len)) < 0)
		return ret;
	for (unsigned aid = 0; aid < (l->aids > 1 ? l->aids : 1); aid++)
		for (unsigned n = 0; n < SDMA_PER_AID; n++)
			if ((ret = routing_check(s, aid, n, why, len)) < 0)
				return ret;
	return 0;
}
