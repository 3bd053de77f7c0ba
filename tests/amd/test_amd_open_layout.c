/* SPDX-License-Identifier: MIT */
/*
 * test_amd_open_layout: the opener refuses a GPU one of whose images has
 * its pinned digest but is not laid out as its format says. Every real pin
 * is well formed, so this program is built from rig's AMD sources with a
 * pin table of its own (in place of pins.c) that pins a broken copy of
 * psp_13_0_0_sos.bin by the digest the test computes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/firmware/firmware.h"
#include "fake.h"
#include "synth.h"

#define BUS "0000:03:00.0"

static char broken_digest[65];

/* GC 11.0.0's images: the sOS is the broken copy, the others the real ones. */
static struct amd_pin pins[] = {
	{ "psp_13_0_0_sos.bin", 268304, broken_digest },
	{ "smu_13_0_0.bin", 292452,
	  "be864486f66df2b1bb4fee835e750a8be16c838ae9e9a00fbaa2a3a8ab08c215" },
	{ "sdma_6_0_0.bin", 34560,
	  "0b4214961d1fa740680d5601c6140776edd49b7486f2b3589d619eb545c424fd" },
	{ "gc_11_0_0_mec.bin", 406528,
	  "1f650a7eac357a43020dc85c40d7626a4c1d1b52fefc36f89ea445ada561edd0" },
	{ "gc_11_0_0_imu.bin", 132352,
	  "493bf7818bd22b0f26be3035ab5b55f758157481a6067400b8d51b07f1afee0c" },
	{ "gc_11_0_0_rlc.bin", 185376,
	  "9c943f9b61361743a159b92a1939f3e1394064fe59406f9035f49088548d65ff" },
};
static const struct amd_pin *const images[] = {
	&pins[0], &pins[1], &pins[2], &pins[3], &pins[4], &pins[5],
};
static const struct amd_gc_set set = {
	{ 11, 0, 0 }, { 6, 0, 0 }, { 13, 0, 0 }, { 13, 0, 0 }, images, 6,
};

const struct amd_gc_set *
amd_gc_set_of(struct amd_version v)
{
	return v.major == 11 && v.minor == 0 && v.rev == 0 ? &set : NULL;
}

const struct amd_gc_set *
amd_gc_sets(size_t *n)
{
	*n = 1;
	return &set;
}

const struct amd_pin *
amd_pins(size_t *n)
{
	*n = 6;
	return pins;
}

static void
test_refuse_image_layout(void **state)
{
	const char *fw = getenv("RIG_TEST_FIRMWARE");
	char root[256], dir[300], path[400], want[700], why[700];
	static uint8_t b[268304];
	_Alignas(8) _Atomic uint64_t word = 0;
	const char *dirs[3];
	struct rig_pci_machine *m;
	struct rig_opener *o;
	struct synth s;
	void *h = NULL;
	uint32_t size;
	FILE *f;

	(void)state;
	fake_root(root);
	setenv("RIG_FIRMWARE_DIR", root, 1);
	snprintf(dir, sizeof(dir), "%s/broken", root);
	fake_mkdir(root, "broken");
	snprintf(path, sizeof(path), "%s/psp_13_0_0_sos.bin", fw);
	assert_non_null(f = fopen(path, "rb"));
	assert_int_equal(fread(b, 1, sizeof(b), f), sizeof(b));
	fclose(f);
	memcpy(&size, b, 4);
	size += 1;			/* size_bytes no longer the file's size */
	memcpy(b, &size, 4);
	amd_digest_hex(b, sizeof(b), broken_digest);
	snprintf(path, sizeof(path), "%s/psp_13_0_0_sos.bin", dir);
	assert_non_null(f = fopen(path, "wb"));
	fwrite(b, 1, sizeof(b), f);
	fclose(f);

	synth_build(&s, "11.0.0", 0);
	fake_gpu(root, &(struct fake_gpu){ .bus = BUS, .table = s.b,
					   .table_len = s.len });
	assert_int_equal(rig_pci_machine_at(root, &m), 0);
	dirs[0] = dir;
	dirs[1] = fw;
	dirs[2] = NULL;
	assert_int_equal(rig_amd_pci_gpu(m, dirs, 0, &o), 0);
	assert_int_equal(o->make(o, &word, &h, why, sizeof(why)), -EBADMSG);
	snprintf(want, sizeof(want), "AMD-PCI: %s is not laid out as its format "
		 "says: psp_13_0_0_sos.bin: size_bytes 0x41811 is not the file's "
		 "size 0x41810", path);
	assert_string_equal(why, want);
	assert_string_equal(fake_read(root, "sys/bus/pci/devices/" BUS "/enable"), "0");
	rig_amd_pci_opener_free(o);
	rig_pci_machine_release(m);
	fake_remove(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuse_image_layout),
	};
	const char *fw = getenv("RIG_TEST_FIRMWARE");

	if (!fw || !fw[0]) {	/* a TAP skip of every test, saying why */
		printf("1..0 # SKIP RIG_TEST_FIRMWARE (the real images) is not set\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
