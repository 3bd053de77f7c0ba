/* SPDX-License-Identifier: MIT */
/*
 * test_amd_discovery: the discovery parser turns a valid table of each
 * supported GC into its blocks (versions, instances, 32- and 64-bit bases,
 * GC info) and refuses each kind of broken table with a message naming
 * what is wrong. Tables are built by synth.c at run time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rig.h"
#include "amd/discovery/discovery.h"
#include "synth.h"

static struct amd_discovery table;

static uint16_t
sum(const uint8_t *b, size_t n)
{
	uint16_t s = 0;

	for (size_t i = 0; i < n; i++)
		s = (uint16_t)(s + b[i]);
	return s;
}

/* Only the binary checksum: for tables whose other sizes are broken. */
static void
fix_binary(struct synth *s)
{
	put16(s->b, 8, sum(s->b + 10, s->len - 10));
}

static void
refused(struct synth *s, const char *cause)
{
	char want[400];

	assert_int_equal(amd_discovery_parse(s->b, s->len, &table), -EPROTO);
	snprintf(want, sizeof(want), "amd_discovery_parse: %s", cause);
	assert_string_equal(rig_why(), want);
	assert_int_equal(table.nblocks, 0);
}

static void
valid(const char *gc, uint8_t major, uint8_t minor, uint8_t rev, bool wide)
{
	struct synth s;
	const struct amd_block *b;

	synth_build(&s, gc, 0);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	assert_int_equal(table.nblocks, 8);
	assert_int_equal(table.ip_version, wide ? 4 : 3);
	assert_non_null(b = amd_discovery_block(&table, GC_HWID));
	assert_int_equal(b->major, major);
	assert_int_equal(b->minor, minor);
	assert_int_equal(b->revision, rev);
	assert_int_equal(b->nbases, 4);
	assert_int_equal(b->base[1], 0xA000 | (wide ? 1ull << 32 : 0));
	assert_non_null(b = amd_discovery_block(&table, NBIF_HWID));
	/* NBIO 7.9 (GC 9's) lists 9 bases: linux's nbio_v7_9.c uses segment 8. */
	assert_int_equal(b->nbases, wide ? 9 : 6);
	assert_int_equal(b->base[5], 0x4040000 | (wide ? 1ull << 32 : 0));
	if (wide)
		assert_int_equal(b->base[8], 0x11000 | 1ull << 32);
	assert_non_null(amd_discovery_block(&table, MP0_HWID));
	assert_null(amd_discovery_block(&table, 12));	/* no VCN in these tables */
	assert_int_equal(table.gc.version_major, wide ? 2 : 1);
	assert_int_equal(table.gc.num_se, wide ? 4 : 6);
	assert_int_equal(table.gc.num_cu_per_sh, wide ? 10 : 16);
	assert_int_equal(table.gc.num_sh_per_se, wide ? 1 : 2);
}

static void test_valid_9_4_3(void **s) { (void)s; valid("9.4.3", 9, 4, 3, true); }
static void test_valid_9_5_0(void **s) { (void)s; valid("9.5.0", 9, 5, 0, true); }
static void test_valid_11_0_0(void **s) { (void)s; valid("11.0.0", 11, 0, 0, false); }
static void test_valid_11_0_2(void **s) { (void)s; valid("11.0.2", 11, 0, 2, false); }
static void test_valid_12_0_0(void **s) { (void)s; valid("12.0.0", 12, 0, 0, false); }
static void test_valid_12_0_1(void **s) { (void)s; valid("12.0.1", 12, 0, 1, false); }

static void
test_null(void **state)
{
	(void)state;
	assert_int_equal(amd_discovery_parse(NULL, 10, &table), -EINVAL);
	assert_string_equal(rig_why(), "amd_discovery_parse: bytes or out is NULL");
}

static void
test_short(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.len = 59;
	refused(&s, "59 bytes, shorter than its binary header (60)");
}

static void
test_binary_signature(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.b[0] ^= 1;
	refused(&s, "the binary signature is 0x28211406, not 0x28211407");
}

static void
test_binary_size(void **state)
{
	struct synth s;
	char want[200];

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, 10, (uint16_t)(s.len + 4));
	snprintf(want, sizeof(want), "binary_size 0x%zx is not between 60 and the "
		 "0x%zx bytes read", s.len + 4, s.len);
	refused(&s, want);
}

static void
test_binary_checksum(void **state)
{
	struct synth s;
	char want[200];
	uint16_t good;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	good = sum(s.b + 10, s.len - 10);
	s.b[s.len - 1] ^= 0x10;
	snprintf(want, sizeof(want), "the binary checksum 0x%04x is not the sum "
		 "0x%04x of bytes [10, 0x%zx)", good, (uint16_t)(good + 0x10), s.len);
	refused(&s, want);
}

static void
test_ip_offset(void **state)
{
	struct synth s;
	char want[200];

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, 12, 0);
	fix_binary(&s);
	snprintf(want, sizeof(want), "the IP discovery table at 0x0 does not fit "
		 "in the binary (0x%zx bytes)", s.len);
	refused(&s, want);
}

static void
test_ip_signature(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.b[s.ihdr] ^= 1;
	synth_fix(&s);
	refused(&s, "the IP discovery signature is 0x53445048, not 0x53445049");
}

static void
test_ip_size(void **state)
{
	struct synth s;
	char want[200];

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.ihdr + 6, 0x4000);
	fix_binary(&s);
	snprintf(want, sizeof(want), "the IP discovery table's size 0x4000 at 0x%zx "
		 "does not fit in the binary (0x%zx bytes)", s.ihdr, s.len);
	refused(&s, want);
}

static void
test_ip_checksum(void **state)
{
	struct synth s;
	char want[200];
	uint16_t size, good;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	memcpy(&size, s.b + s.ihdr + 6, 2);
	good = sum(s.b + s.ihdr, size);
	put16(s.b, 12 + 2, (uint16_t)(good + 1));
	fix_binary(&s);
	snprintf(want, sizeof(want), "the IP discovery checksum 0x%04x is not the "
		 "sum 0x%04x of its 0x%x bytes", (uint16_t)(good + 1), good, size);
	refused(&s, want);
}

static void
test_ip_version(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.ihdr + 4, 5);
	synth_fix(&s);
	refused(&s, "IP discovery version 5 is not 1 to 4");
}

static void
test_num_dies(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.ihdr + 12, 17);
	synth_fix(&s);
	refused(&s, "num_dies 17 is not 1 to 16");
}

static void
test_die_offset(void **state)
{
	struct synth s;
	char want[200];
	uint16_t size;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.ihdr + 16, 0x10);
	synth_fix(&s);
	memcpy(&size, s.b + s.ihdr + 6, 2);
	snprintf(want, sizeof(want), "die 0's header at 0x10 lies outside the IP "
		 "discovery table [0x%zx, 0x%zx)", s.ihdr + 80, s.ihdr + size);
	refused(&s, want);
}

static void
test_entry_past_end(void **state)
{
	struct synth s;
	char want[200];
	uint16_t size;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.die + 2, 9);		/* one entry more than there is */
	synth_fix(&s);
	memcpy(&size, s.b + s.ihdr + 6, 2);
	snprintf(want, sizeof(want), "die 0's IP entry 8 at 0x%zx runs past the IP "
		 "discovery table (0x%zx)", s.ihdr + size, s.ihdr + size);
	refused(&s, want);
}

static void
test_hw_id(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.entry[0], 300);
	synth_fix(&s);
	refused(&s, "die 0's IP entry 0 has hw_id 300, not below 300");
}

static void
test_instance(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.b[s.entry[0] + 2] = 44;
	synth_fix(&s);
	refused(&s, "die 0's IP entry 0 (hw_id 11) has instance 44, not below 44");
}

static void
test_too_many_bases(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.b[s.entry[1] + 3] = 17;
	synth_fix(&s);
	refused(&s, "die 0's IP entry 1 (hw_id 42) has 17 base addresses, more "
		"than 16");
}

static void
test_bases_past_end(void **state)
{
	struct synth s;
	char want[200];
	uint16_t size;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	s.b[s.entry[7] + 3] = 9;		/* HDP: 2 bases, now 9 */
	synth_fix(&s);
	memcpy(&size, s.b + s.ihdr + 6, 2);
	snprintf(want, sizeof(want), "die 0's IP entry 7 (hw_id 41) has base "
		 "addresses past the IP discovery table (0x%zx)", s.ihdr + size);
	refused(&s, want);
}

static void
test_gc_info_missing(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, 12 + 8, 0);
	fix_binary(&s);
	refused(&s, "it lacks the GC info table");
}

static void
test_gc_info_id(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "12.0.0", 0);
	put32(s.b, s.gc_info, 0x4348);
	synth_fix(&s);
	refused(&s, "the GC info table_id is 0x4348, not 0x4347");
}

static void
test_gc_info_version(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "12.0.0", 0);
	put16(s.b, s.gc_info + 4, 3);
	synth_fix(&s);
	refused(&s, "GC info version 3.0 is not 1.x or 2.x");
}

static void
test_gc_info_size(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "9.4.3", 0);
	put32(s.b, s.gc_info + 8, 40);
	synth_fix(&s);
	refused(&s, "the GC info table's size 0x28 does not hold a v2.0 table "
		"inside the binary");
}

static void
test_gc_info_checksum(void **state)
{
	struct synth s;
	char want[200];
	uint16_t good;

	(void)state;
	synth_build(&s, "12.0.1", 0);
	good = sum(s.b + s.gc_info, 88);
	put16(s.b, 12 + 8 + 2, (uint16_t)(good ^ 0x100));
	fix_binary(&s);
	snprintf(want, sizeof(want), "the GC info checksum 0x%04x is not the sum "
		 "0x%04x of its 0x58 bytes", good ^ 0x100, good);
	refused(&s, want);
}

static void
test_harvest_signature(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.2", 0);
	s.b[s.harvest + 3] ^= 0x80;
	synth_fix(&s);
	refused(&s, "the harvest signature is 0xd6524148, not 0x56524148");
}

static void
test_harvest_checksum(void **state)
{
	struct synth s;
	char want[200];
	uint16_t good;

	(void)state;
	synth_build(&s, "11.0.2", 0);
	good = sum(s.b + s.harvest, 136);
	put16(s.b, 12 + 16 + 2, (uint16_t)(good + 3));
	fix_binary(&s);
	snprintf(want, sizeof(want), "the harvest checksum 0x%04x is not the sum "
		 "0x%04x of its 136 bytes", (uint16_t)(good + 3), good);
	refused(&s, want);
}

static void
test_harvested_block_is_absent(void **state)
{
	struct synth s;

	(void)state;
	synth_build(&s, "11.0.0", 0);
	put16(s.b, s.harvest + 8, 42);		/* SDMA0 instance 0 harvested */
	synth_fix(&s);
	assert_int_equal(amd_discovery_parse(s.b, s.len, &table), 0);
	assert_null(amd_discovery_block(&table, SDMA0_HWID));
	assert_non_null(amd_discovery_block(&table, GC_HWID));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_9_4_3),
		cmocka_unit_test(test_valid_9_5_0),
		cmocka_unit_test(test_valid_11_0_0),
		cmocka_unit_test(test_valid_11_0_2),
		cmocka_unit_test(test_valid_12_0_0),
		cmocka_unit_test(test_valid_12_0_1),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_binary_signature),
		cmocka_unit_test(test_binary_size),
		cmocka_unit_test(test_binary_checksum),
		cmocka_unit_test(test_ip_offset),
		cmocka_unit_test(test_ip_signature),
		cmocka_unit_test(test_ip_size),
		cmocka_unit_test(test_ip_checksum),
		cmocka_unit_test(test_ip_version),
		cmocka_unit_test(test_num_dies),
		cmocka_unit_test(test_die_offset),
		cmocka_unit_test(test_entry_past_end),
		cmocka_unit_test(test_hw_id),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_too_many_bases),
		cmocka_unit_test(test_bases_past_end),
		cmocka_unit_test(test_gc_info_missing),
		cmocka_unit_test(test_gc_info_id),
		cmocka_unit_test(test_gc_info_version),
		cmocka_unit_test(test_gc_info_size),
		cmocka_unit_test(test_gc_info_checksum),
		cmocka_unit_test(test_harvest_signature),
		cmocka_unit_test(test_harvest_checksum),
		cmocka_unit_test(test_harvested_block_is_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
