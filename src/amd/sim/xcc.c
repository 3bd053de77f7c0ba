/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/xcc.c: GC 9.4.3's XCCs as a test instrument. XCC k > 0 keeps
 * its GC registers at its own bases (table.c), past BAR5, so a driver
 * reaches them through the RSMU pair as tinygrad reaches MI300's
 * (amd-facts §2.4); its CP_MEC_CNTL is its MEC's gate (mec.c). What the
 * sim checks of each XCC is what amd-facts says a full boot writes
 * (§3.5, §3.6, §3.8, §3.10 steps 2, 6-8; with several AIDs, the XCC's
 * AID's NBIO in slave mode, ext.c); the values below are the
 * facts', with fields at linux's gc_9_4_3 sh_mask positions (regs.py).
 * The sim never decides a value: a driver that wrote another is named.
 */
#include <errno.h>
#include <stdio.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

unsigned
sim_xcc_of(const struct amd_sim *s, uint32_t index)
{
	unsigned x = index / SIM_XCC_STRIDE;

	return x >= 1 && x < s->lay.xccs ? x : 0;
}

/* One register's value against the facts' under mask: 0, or -EPROTO. */
static int
want(struct amd_sim *s, unsigned x, const char *name, uint32_t index, uint32_t mask,
     uint32_t v, char *why, size_t len)
{
	uint32_t got = sim_reg(s, index);

	if ((got & mask) == v)
		return 0;
	snprintf(why, len, "XCC %u: %s (0x%x) holds 0x%x, not 0x%x under mask 0x%x", x,
		 name, index, got, v, mask);
	return -EPROTO;
}

int
amd_sim_xcc_check(struct amd_sim *s, unsigned xcc, char *why, size_t len)
{
	const struct sim_xcc *c, *c0;
	uint32_t mask = 0;
	int ret;

	if (!s || !why || !len)
		return amd_fail(-EINVAL, "sim or why is NULL, or len 0");
	if (xcc >= s->lay.xccs || s->lay.ver[0][0] != 9)
		return amd_fail(-EINVAL, "XCC %u: the sim's GC %s has %u XCC%s to check", xcc,
				s->lay.gc, s->lay.ver[0][0] == 9 ? s->lay.xccs : 0,
				s->lay.xccs == 1 ? "" : "s");
	c = &s->lay.xcc[xcc];
	c0 = &s->lay.xcc[0];
	why[0] = '\0';
	for (unsigned x = 0; x < s->lay.xccs; x++)
		mask |= 1u << x;
	/* §3.10 step 2: context 0 enabled, on XCC 0's root (the one set of
	 * tables); step 6's golden and fields; the doorbell range. */
	if ((ret = want(s, xcc, "GCVM_CONTEXT0_CNTL", c->vm_cntl, 1, 1, why, len)) < 0 ||
	    (ret = want(s, xcc, "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32", c->vm_base_lo,
			~0u, sim_reg(s, c0->vm_base_lo) | 1, why, len)) < 0 ||
	    (ret = want(s, xcc, "GB_ADDR_CONFIG", c->gb_addr_config, ~0u, 0x2a114042u,
			why, len)) < 0 ||
	    (ret = want(s, xcc, "TCP_UTCL1_CNTL2 spare", c->tcp_utcl1_cntl2, 0xff, 1,
			why, len)) < 0 ||
	    (ret = want(s, xcc, "GRBM_CNTL read_timeout", c->grbm_cntl, 0xff, 0xff,
			why, len)) < 0 ||
	    (ret = want(s, xcc, "SH_MEM_CONFIG", c->sh_mem_config, ~0u,
			3u << 3 | 1u << 8 | 1u << 12, why, len)) < 0 ||
	    (ret = want(s, xcc, "SH_MEM_BASES", c->sh_mem_bases, ~0u, 1u << 16 | 2u,
			why, len)) < 0 ||
	    (ret = want(s, xcc, "CP_MEC_DOORBELL_RANGE_LOWER", c->db_lower, ~0u,
			0x100 * xcc, why, len)) < 0 ||
	    (ret = want(s, xcc, "CP_MEC_DOORBELL_RANGE_UPPER", c->db_upper, ~0u,
			0x100 * xcc + 0xf8, why, len)) < 0 ||
	    (ret = want(s, xcc, "NBIO's XCC_DOORBELL_FENCE", s->lay.xcc_fence, 0xff,
			0xffu & ~mask, why, len)) < 0)
		return ret;
	/* NBIO 7.9 on its AID, if not AID 0: shub_slv_mode (bit 16, linux's
	 * nbio_v7_9_init_registers through the PCIE_INDEX2 window, ext.c). */
	if (sim_xcc_die(&s->lay, xcc)) {
		unsigned aid = sim_xcc_die(&s->lay, xcc);
		uint32_t v = 0;

		if (amd_sim_aid_reg(s, aid, s->lay.xcc_fence, &v) < 0 || !(v & 1u << 16)) {
			snprintf(why, len, "XCC %u: AID %u's XCC_DOORBELL_FENCE (0x%x) holds "
				 "0x%x, not shub_slv_mode (bit 16)", xcc, aid,
				 s->lay.xcc_fence, v);
			return -EPROTO;
		}
	}
	if (!sim_mec_xcc_runs(s, xcc)) {
		snprintf(why, len, "XCC %u: its MEC is halted (CP_MEC_CNTL 0x%x)", xcc,
			 sim_reg(s, c->mec_cntl));
		return -EPROTO;
	}
	pthread_mutex_lock(&s->mp_lock);
	ret = s->lay.xccs > 1 && s->mp->spatial_mode != 1 ? -EPROTO : 0;
	if (ret)
		snprintf(why, len, "XCC %u: of %u XCCs, but the sOS was asked for no "
			 "single partition (SRIOV_SPATIAL_PART mode %u)", xcc, s->lay.xccs,
			 s->mp->spatial_mode);
	pthread_mutex_unlock(&s->mp_lock);
	return ret;
}
