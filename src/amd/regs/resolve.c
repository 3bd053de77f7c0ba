/* SPDX-License-Identifier: MIT */
/*
 * amd/regs/resolve.c: a GPU's registers at their dword indices, from the
 * tables (tables.c) and its discovery table's bases, once at open: every
 * later access names an enum amd_reg and reads one array slot.
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

int
amd_regs_resolve(const struct amd_discovery *t, struct amd_regs *out)
{
	char versions[200];

	memset(out->table, 0, sizeof(out->table));
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
						"the discovery table gives %s %u base%s",
						amd_hw_name(b->hw_id),
						amd_reg_names[d->reg], d->segment,
						amd_hw_name(b->hw_id), b->nbases,
						b->nbases == 1 ? "" : "s");
			out->index[d->reg] = (b->base[d->segment] & 0x3FFFFFFF) +
					     d->offset;
		}
		out->table[b->hw_id] = tab;
	}
	return 0;
}
