/* SPDX-License-Identifier: MIT */
/*
 * amd/regs/resolve.c: a GPU's registers at their dword indices, from the
 * tables (tables.c) and its discovery table's bases, once at open: every
 * later access names an enum amd_reg and reads one array slot. A GPU
 * with several XCCs (GC instances, amd-facts §2.4) keeps each XCC's GC
 * segment bases too: XCC x's register is its base of the register's
 * segment plus the offset, as linux's SOC15_REG_OFFSET(GC, inst, reg).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/regs/regs.h"

/* The blocks whose registers the path programs; SMUIO only where listed. */
static const uint16_t blocks[] = {
	GC_HWID, SDMA0_HWID, MMHUB_HWID, NBIF_HWID, OSSSYS_HWID, HDP_HWID,
	MP0_HWID, MP1_HWID, SMUIO_HWID,
};

const struct amd_reg_table *
amd_reg_table_of(uint16_t hw_id, uint8_t major, uint8_t minor, uint8_t rev)
{
	for (size_t k = 0; k < amd_reg_ntables; k++) {
		const struct amd_reg_table *t = &amd_reg_tables[k];

		for (size_t v = 0; t->hw_id == hw_id && v < t->nversions; v++)
			if (t->versions[v].major == major &&
			    t->versions[v].minor == minor && t->versions[v].rev == rev)
				return t;
	}
	return NULL;
}

/* "1.8.0, 1.8.1 and 3.0.0": the versions tables serve for hw_id. */
static void
served(uint16_t hw_id, char *buf, size_t len)
{
	size_t at = 0, n = 0, total = 0;

	for (size_t k = 0; k < amd_reg_ntables; k++)
		if (amd_reg_tables[k].hw_id == hw_id)
			total += amd_reg_tables[k].nversions;
	buf[0] = '\0';
	for (size_t k = 0; k < amd_reg_ntables; k++) {
		const struct amd_reg_table *t = &amd_reg_tables[k];

		for (size_t v = 0; t->hw_id == hw_id && v < t->nversions; v++) {
			n++;
			if (at < len)
				at += (size_t)snprintf(buf + at, len - at, "%s%u.%u.%u",
					n == 1 ? "" : n == total ? " and " : ", ",
					t->versions[v].major, t->versions[v].minor,
					t->versions[v].rev);
		}
	}
}

uint64_t
amd_regs_xcc(const struct amd_regs *g, unsigned xcc, enum amd_reg r)
{
	unsigned seg = g->gc_segment[r];	/* 0: not GC's */

	if (xcc == 0)
		return g->index[r];
	if (xcc >= g->xccs || seg == 0 || g->index[r] == AMD_REG_NONE)
		return AMD_REG_NONE;
	return g->index[r] - g->xcc_base[0][seg - 1] + g->xcc_base[xcc][seg - 1];
}

/* The segments GC's registers use: one more than the largest. */
static unsigned
gc_segments(const struct amd_reg_table *tab)
{
	unsigned n = 0;

	for (size_t r = 0; r < tab->nregs; r++)
		if (tab->regs[r].segment + 1u > n)
			n = tab->regs[r].segment + 1u;
	return n;
}

/* XCC 0 (instance 0, g0) and every other unharvested GC instance, in
 * instance order, with their bases. */
static int
xccs(const struct amd_discovery *t, const struct amd_block *g0,
     const struct amd_reg_table *tab, struct amd_regs *out)
{
	unsigned need = gc_segments(tab);

	out->xccs = 0;
	for (unsigned inst = 0; inst < 256; inst++) {
		for (size_t i = 0; i < t->nblocks; i++) {
			const struct amd_block *b = &t->blocks[i];
			unsigned x = out->xccs;	/* <= inst */

			if (b->hw_id != GC_HWID || b->instance != inst || b->harvested)
				continue;
			/* x <= inst, so this bounds the count too. */
			if (inst >= AMD_XCCS)
				return amd_fail(-ENOTSUP, "GC instance %u is unharvested: "
						"XCC_DOORBELL_FENCE fences GC instances "
						"(XCCs) 0 to %u only", inst, AMD_XCCS - 1);
			if (b->major != g0->major || b->minor != g0->minor ||
			    b->revision != g0->revision)
				return amd_fail(-EPROTO, "GC instance %u is %u.%u.%u, "
						"instance 0 %u.%u.%u", inst, b->major,
						b->minor, b->revision, g0->major,
						g0->minor, g0->revision);
			if (b->nbases < need)
				return amd_fail(-EPROTO, "GC instance %u has %u base%s; "
						"GC's registers use %u segments", inst,
						b->nbases, b->nbases == 1 ? "" : "s", need);
			out->xcc_instance[x] = (uint8_t)inst;
			out->xcc_die[x] = b->die;
			for (unsigned k = 0; k < b->nbases; k++)
				out->xcc_base[x][k] = b->base[k] & 0x3FFFFFFF;
			out->xccs++;
			break;
		}
	}
	return 0;
}

int
amd_regs_resolve(const struct amd_discovery *t, struct amd_regs *out)
{
	char versions[200];

	memset(out->table, 0, sizeof(out->table));
	memset(out->xcc_base, 0, sizeof(out->xcc_base));
	memset(out->gc_segment, 0, sizeof(out->gc_segment));
	out->xccs = 0;
	for (size_t r = 0; r < AMD_REG_COUNT; r++)
		out->index[r] = AMD_REG_NONE;
	for (size_t k = 0; k < sizeof(blocks) / sizeof(blocks[0]); k++) {
		const struct amd_block *b = amd_discovery_block(t, blocks[k]);
		const struct amd_reg_table *tab;

		if (!b)
			continue;
		tab = amd_reg_table_of(b->hw_id, b->major, b->minor, b->revision);
		if (!tab) {
			served(b->hw_id, versions, sizeof(versions));
			return amd_fail(-ENOTSUP, "%s %u.%u.%u has no register table "
					"(rig holds %s tables for %s)",
					amd_hw_name(b->hw_id), b->major, b->minor,
					b->revision, amd_hw_name(b->hw_id), versions);
		}
		for (size_t r = 0; r < tab->nregs; r++) {
			const struct amd_reg_def *d = &tab->regs[r];

			if (d->segment >= b->nbases)
				return amd_fail(-EPROTO, "%s %s is in segment %u, but "
						"the discovery table gives %s %u.%u.%u "
						"%u base%s",
						amd_hw_name(b->hw_id),
						amd_reg_names[d->reg], d->segment,
						amd_hw_name(b->hw_id), b->major, b->minor,
						b->revision, b->nbases,
						b->nbases == 1 ? "" : "s");
			out->index[d->reg] = (b->base[d->segment] & 0x3FFFFFFF) +
					     d->offset;
			if (b->hw_id == GC_HWID)
				out->gc_segment[d->reg] = (uint8_t)(d->segment + 1);
		}
		out->table[b->hw_id] = tab;
		if (b->hw_id == GC_HWID) {
			int ret = xccs(t, b, tab, out);

			if (ret < 0)
				return ret;
		}
	}
	return 0;
}
