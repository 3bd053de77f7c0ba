/* SPDX-License-Identifier: MIT */
/*
 * amd/discovery/parse.c: checks a discovery table and turns it into a
 * typed table (amd-facts §2). Checksums are linux's 16-bit sums of bytes:
 * the binary one over [10, binary_size), the IP discovery one over its
 * header's size, the GC info one over its size, the harvest one over 136
 * bytes. Every die header and IP entry must lie inside the IP discovery
 * table's size; hw_id and instance numbers stay below linux's limits.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/discovery/discovery.h"

struct cause {
	char why[256];
};

static int __attribute__((format(printf, 2, 3)))
bad(struct cause *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static uint16_t
sum16(const uint8_t *b, size_t n)
{
	uint16_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = (uint16_t)(s + b[i]);
	return s;
}

const char *
amd_hw_name(uint16_t hw_id)
{
	switch (hw_id) {
	case MP1_HWID:		return "MP1 (SMU)";
	case SMUIO_HWID:	return "SMUIO";
	case GC_HWID:		return "GC";
	case MMHUB_HWID:	return "MMHUB";
	case OSSSYS_HWID:	return "OSSSYS (IH)";
	case HDP_HWID:		return "HDP";
	case SDMA0_HWID:	return "SDMA0";
	case NBIF_HWID:		return "NBIF (NBIO)";
	case MP0_HWID:		return "MP0 (PSP)";
	}
	return "block";
}

static int
parse_ips(const uint8_t *b, size_t start, size_t off, size_t end, uint16_t die,
	  bool wide, struct amd_discovery *t, struct cause *c)
{
	struct die_header dh;

	if (off < start || off + sizeof(dh) > end)
		return bad(c, "die %u's header at 0x%zx lies outside the IP "
			   "discovery table [0x%zx, 0x%zx)", die, off, start, end);
	memcpy(&dh, b + off, sizeof(dh));
	off += sizeof(dh);
	for (unsigned i = 0; i < dh.num_ips; i++) {
		struct amd_block *k = &t->blocks[t->nblocks];
		size_t step = wide ? 8 : 4;
		struct ip_v3 ip;

		if (off + sizeof(ip) > end)
			return bad(c, "die %u's IP entry %u at 0x%zx runs past the "
				   "IP discovery table (0x%zx)", die, i, off, end);
		memcpy(&ip, b + off, sizeof(ip));
		if (ip.hw_id >= HW_ID_MAX)
			return bad(c, "die %u's IP entry %u has hw_id %u, not below "
				   "%d", die, i, ip.hw_id, HW_ID_MAX);
		if (ip.instance_number >= HWIP_MAX_INSTANCE)
			return bad(c, "die %u's IP entry %u (hw_id %u) has instance "
				   "%u, not below %d", die, i, ip.hw_id,
				   ip.instance_number, HWIP_MAX_INSTANCE);
		if (ip.num_base_address > AMD_BLOCK_BASES)
			return bad(c, "die %u's IP entry %u (hw_id %u) has %u base "
				   "addresses, more than %d", die, i, ip.hw_id,
				   ip.num_base_address, AMD_BLOCK_BASES);
		if (off + sizeof(ip) + step * ip.num_base_address > end)
			return bad(c, "die %u's IP entry %u (hw_id %u) has base "
				   "addresses past the IP discovery table (0x%zx)",
				   die, i, ip.hw_id, end);
		if (t->nblocks == AMD_BLOCKS)
			return bad(c, "more than %d IP entries", AMD_BLOCKS);
		*k = (struct amd_block){ .hw_id = ip.hw_id, .die = dh.die_id,
			.instance = ip.instance_number, .major = ip.major,
			.minor = ip.minor, .revision = ip.revision,
			.nbases = ip.num_base_address };
		for (unsigned j = 0; j < ip.num_base_address; j++) {
			uint32_t lo;

			if (wide)
				memcpy(&k->base[j], b + off + 8 + 8 * j, 8);
			else {
				memcpy(&lo, b + off + 8 + 4 * j, 4);
				k->base[j] = lo;
			}
		}
		t->nblocks++;
		off += sizeof(ip) + step * ip.num_base_address;
	}
	return 0;
}

static int
parse_ip_discovery(const uint8_t *b, const struct binary_header *bh,
		   struct amd_discovery *t, struct cause *c)
{
	const struct table_info *ti = &bh->table_list[IP_DISCOVERY];
	struct ip_discovery_header ih;
	size_t end;
	bool wide;
	int ret;

	if (!ti->offset || ti->offset + sizeof(ih) > bh->binary_size)
		return bad(c, "the IP discovery table at 0x%x does not fit in the "
			   "binary (0x%x bytes)", ti->offset, bh->binary_size);
	memcpy(&ih, b + ti->offset, sizeof(ih));
	if (ih.signature != DISCOVERY_TABLE_SIGNATURE)
		return bad(c, "the IP discovery signature is 0x%08x, not 0x%08x",
			   ih.signature, DISCOVERY_TABLE_SIGNATURE);
	if (ih.size < sizeof(ih) || ti->offset + (size_t)ih.size > bh->binary_size)
		return bad(c, "the IP discovery table's size 0x%x at 0x%x does not "
			   "fit in the binary (0x%x bytes)", ih.size, ti->offset,
			   bh->binary_size);
	if (sum16(b + ti->offset, ih.size) != ti->checksum)
		return bad(c, "the IP discovery checksum 0x%04x is not the sum "
			   "0x%04x of its 0x%x bytes", ti->checksum,
			   sum16(b + ti->offset, ih.size), ih.size);
	if (ih.version < 1 || ih.version > 4)
		return bad(c, "IP discovery version %u is not 1 to 4", ih.version);
	if (ih.num_dies < 1 || ih.num_dies > MAX_DIES)
		return bad(c, "num_dies %u is not 1 to %d", ih.num_dies, MAX_DIES);
	t->ip_version = ih.version;
	wide = ih.version >= 4 && (ih.base_addr_64_bit & 1);
	end = ti->offset + (size_t)ih.size;
	for (unsigned d = 0; d < ih.num_dies; d++) {
		ret = parse_ips(b, ti->offset + sizeof(ih), ih.die_info[d].die_offset, end,
				ih.die_info[d].die_id, wide, t, c);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
parse_gc_info(const uint8_t *b, const struct binary_header *bh,
	      struct amd_discovery *t, struct cause *c)
{
	const struct table_info *ti = &bh->table_list[GC];
	struct gpu_info_header gh;
	uint32_t body[4];

	if (!ti->offset)
		return bad(c, "it lacks the GC info table");
	if (ti->offset + sizeof(gh) > bh->binary_size)
		return bad(c, "the GC info table at 0x%x does not fit in the binary "
			   "(0x%x bytes)", ti->offset, bh->binary_size);
	memcpy(&gh, b + ti->offset, sizeof(gh));
	if (gh.table_id != GC_TABLE_ID)
		return bad(c, "the GC info table_id is 0x%x, not 0x%x", gh.table_id,
			   GC_TABLE_ID);
	if (gh.version_major != 1 && gh.version_major != 2)
		return bad(c, "GC info version %u.%u is not 1.x or 2.x",
			   gh.version_major, gh.version_minor);
	if (gh.size < (gh.version_major == 1 ? GC_INFO_V1_0_BYTES : GC_INFO_V2_0_BYTES) ||
	    ti->offset + (size_t)gh.size > bh->binary_size)
		return bad(c, "the GC info table's size 0x%x does not hold a v%u.0 "
			   "table inside the binary", gh.size, gh.version_major);
	if (sum16(b + ti->offset, gh.size) != ti->checksum)
		return bad(c, "the GC info checksum 0x%04x is not the sum 0x%04x "
			   "of its 0x%x bytes", ti->checksum,
			   sum16(b + ti->offset, gh.size), gh.size);
	memcpy(body, b + ti->offset + sizeof(gh), sizeof(body));
	t->gc.version_major = gh.version_major;
	t->gc.version_minor = gh.version_minor;
	t->gc.num_se = body[0];
	if (gh.version_major == 2) {
		t->gc.num_cu_per_sh = body[1];
		t->gc.num_sh_per_se = body[2];
	} else {
		uint32_t sa;

		memcpy(&sa, b + ti->offset + sizeof(gh) + 16 * 4, 4); /* gc_num_sa_per_se */
		t->gc.num_cu_per_sh = 2 * (body[1] + body[2]);
		t->gc.num_sh_per_se = sa;
	}
	return 0;
}

static int
parse_harvest(const uint8_t *b, const struct binary_header *bh,
	      struct amd_discovery *t, struct cause *c)
{
	const struct table_info *ti = &bh->table_list[HARVEST_INFO];
	struct harvest_table h;

	if (!ti->offset)
		return 0;
	if (ti->offset + sizeof(h) > bh->binary_size)
		return bad(c, "the harvest table at 0x%x does not fit in the binary "
			   "(0x%x bytes)", ti->offset, bh->binary_size);
	memcpy(&h, b + ti->offset, sizeof(h));
	if (h.signature != HARVEST_TABLE_SIGNATURE)
		return bad(c, "the harvest signature is 0x%08x, not 0x%08x",
			   h.signature, HARVEST_TABLE_SIGNATURE);
	if (sum16(b + ti->offset, sizeof(h)) != ti->checksum)
		return bad(c, "the harvest checksum 0x%04x is not the sum 0x%04x of "
			   "its 136 bytes", ti->checksum,
			   sum16(b + ti->offset, sizeof(h)));
	for (int i = 0; i < 32 && h.list[i].hw_id; i++)
		for (size_t k = 0; k < t->nblocks; k++)
			if (t->blocks[k].hw_id == h.list[i].hw_id &&
			    t->blocks[k].instance == h.list[i].number_instance)
				t->blocks[k].harvested = true;
	return 0;
}

static int
parse(const uint8_t *b, size_t len, struct amd_discovery *t, struct cause *c)
{
	struct binary_header bh;
	int ret;

	if (len < sizeof(bh))
		return bad(c, "%zu bytes, shorter than its binary header (60)", len);
	memcpy(&bh, b, sizeof(bh));
	if (bh.binary_signature != BINARY_SIGNATURE)
		return bad(c, "the binary signature is 0x%08x, not 0x%08x",
			   bh.binary_signature, BINARY_SIGNATURE);
	if (bh.binary_size < sizeof(bh) || bh.binary_size > len)
		return bad(c, "binary_size 0x%x is not between 60 and the 0x%zx "
			   "bytes read", bh.binary_size, len);
	if (sum16(b + 10, bh.binary_size - 10u) != bh.binary_checksum)
		return bad(c, "the binary checksum 0x%04x is not the sum 0x%04x of "
			   "bytes [10, 0x%x)", bh.binary_checksum,
			   sum16(b + 10, bh.binary_size - 10u), bh.binary_size);
	t->version_major = bh.version_major;
	t->version_minor = bh.version_minor;
	ret = parse_ip_discovery(b, &bh, t, c);
	if (ret == 0)
		ret = parse_gc_info(b, &bh, t, c);
	if (ret == 0)
		ret = parse_harvest(b, &bh, t, c);
	return ret;
}

int
amd_discovery_parse(const uint8_t *bytes, size_t len, struct amd_discovery *out)
{
	struct cause c;
	int ret;

	if (!bytes || !out)
		return amd_fail(-EINVAL, "bytes or out is NULL");
	memset(out, 0, sizeof(*out));
	ret = parse(bytes, len, out, &c);
	if (ret < 0) {
		memset(out, 0, sizeof(*out));
		return amd_fail(ret, "%s", c.why);
	}
	return 0;
}

const struct amd_block *
amd_discovery_block(const struct amd_discovery *t, uint16_t hw_id)
{
	for (size_t i = 0; i < t->nblocks; i++)
		if (t->blocks[i].hw_id == hw_id && t->blocks[i].instance == 0 &&
		    !t->blocks[i].harvested)
			return &t->blocks[i];
	return NULL;
}
