/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/pins.c: the pin table. Every image the supported GC versions
 * boot with (docs/amd.md: psp sOS, smu, sdma, gc mec and rlc, imu from GC 11,
 * pfp and me from GC 12), named for the versions of amd-facts §0.2, with its
 * size and BLAKE2b-256 digest in linux-firmware 20250410 (the
 * SHA-BLAKE2B-256 file beside ../shared/firmware/amdgpu). GC 9.5.0 is booted
 * but that release holds none of its images, so its set is empty and an
 * open of one is refused. Not pinned although the release has them:
 * gc_11_0_X_{pfp,me}.bin (the GC 11 boot does not load them) and
 * gc_9_4_3_sjt_mec.bin.
 */
#include <stddef.h>

#include "amd/firmware/firmware.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct amd_pin pins[] = {
	/* GC 9.4.3 */
	{ "psp_13_0_6_sos.bin", 782944,
	  "34d9bd6aa0167f685ff948033529aa61c2b09bacbb33c4ae9a4c7c5134e0639a" },
	{ "smu_13_0_6.bin", 3748,
	  "1402d6bc695bb2a7234c46ab4f6a936962980ff3ad6b244f1b7ab5a4c421bd0d" },
	{ "sdma_4_4_2.bin", 34304,
	  "e8c4d91be67d1e924b40a072682705bf4b838f09e793aa4e3916fcff2ae42fd9" },
	{ "gc_9_4_3_mec.bin", 268736,
	  "8d59e17e380cd9be295d94d29fdf20932c5f4a81a2bf1bc1315e6856d5cd23ab" },
	{ "gc_9_4_3_rlc.bin", 38708,
	  "4d660ad4fc76ceaa0cd2d66ba3a7259afadd9cd281f1236b792cf6805d29d098" },
	/* GC 11.0.0 */
	{ "psp_13_0_0_sos.bin", 268304,
	  "602553ba08bada23ae5580d9f78a480c3898fbb3c433dde64e99796b08d25a15" },
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
	/* GC 11.0.2 */
	{ "psp_13_0_7_sos.bin", 248496,
	  "60286de7949de035c7c438fc00e43d0219b68effe87327af4f7ccfa001b8f659" },
	{ "smu_13_0_7.bin", 287080,
	  "4cc32d59703d2716be04b8ab30dfb3c5050b0b9eecaaa1b7bcb6b24ba3382ca6" },
	{ "sdma_6_0_2.bin", 34560,
	  "b868fec367deb3d8100e2efb7693023b0b6b6fcd8ffca09c453934d42bb91bd2" },
	{ "gc_11_0_2_mec.bin", 406528,
	  "9569cc1b72b3b9e2ffc6c398e6800c853c62974133cad677c5398f7ea5949e81" },
	{ "gc_11_0_2_imu.bin", 132352,
	  "5ada64386c344a47d9867d0c3c38e02a96f00f535f3f0e4cfd6703739a3ff7e0" },
	{ "gc_11_0_2_rlc.bin", 178848,
	  "98418cc76bc8de4fa8e3f748a672e70a86a7dd8ba1c39b5bb3b8f29c46f9bce7" },
	/* GC 12.0.0 */
	{ "psp_14_0_2_sos.bin", 421216,
	  "cb66c8422492482ba1819556ee72c550372ad76ba9105cc2ba9f1b2144f33579" },
	{ "smu_14_0_2.bin", 333236,
	  "7a0a404a4fbef8d11a88a2b86eafe880dbd8b932431f33ed59777bec97b4811f" },
	{ "sdma_7_0_0.bin", 45824,
	  "ae6e9621ed50370897d1f98d594f05976ad2ee5c7c63147d912ffd5fca1b55d8" },
	{ "gc_12_0_0_pfp.bin", 351696,
	  "4fb5985096e955af94468f02123a8d7c607c5602a22cbdf3dca4f2b0ec4b28c3" },
	{ "gc_12_0_0_me.bin", 422656,
	  "be75eb3382bfa519c332d60f61397ad52a664c2ae91e01d7a2f161b02450c9ab" },
	{ "gc_12_0_0_mec.bin", 447456,
	  "dea8c497ed951d12082150532f5ab22c411dcaadfa4a14b9684bb6959c829756" },
	{ "gc_12_0_0_imu.bin", 132352,
	  "0a0e64945ab445e06acd0e9c4b68a1149e086756748ae814b8816d92d1d17169" },
	{ "gc_12_0_0_rlc.bin", 150704,
	  "66f56aff8a7f0a85eddc652284c8b03f4efef6574d241561945949471bad9e82" },
	/* GC 12.0.1 */
	{ "psp_14_0_3_sos.bin", 435632,
	  "12d3b337a7bca6e2a1fcb2504a8d03874fe92d3ccfb6f626b88c85d31114437e" },
	{ "smu_14_0_3.bin", 333236,
	  "e7644a6f646ed3ed82e4d93997907305ea701406762e26dac2bdc5bb476105ed" },
	{ "sdma_7_0_1.bin", 46336,
	  "d594ab90b7a6f17c716f061c902179921243fa71bb16f518515722404977c70b" },
	{ "gc_12_0_1_pfp.bin", 351696,
	  "cec8e3ea5da985ed05beb52c915fe69eb8541775ba469aca6e3b390f169d6db9" },
	{ "gc_12_0_1_me.bin", 422656,
	  "4cae427f28e8867981ba9146186c1f5cdd39450c9ec0c7f70e72992ca3390c6f" },
	{ "gc_12_0_1_mec.bin", 447456,
	  "751b436495aa329423c1d7c86a4dbe0eab206f07f19ec3ec49f7d27fdcbf9951" },
	{ "gc_12_0_1_imu.bin", 132352,
	  "61b8995879773d7738dbf7c8d8377c455e754d0aea270e6c003b0eba7b1e7b4e" },
	{ "gc_12_0_1_rlc.bin", 150848,
	  "facd943921bce257c6c57b82d33bba6b092fad02cb337703e230b1ea314604ce" },
};

static const struct amd_pin *const gc_9_4_3[] = {
	&pins[0], &pins[1], &pins[2], &pins[3], &pins[4],
};
static const struct amd_pin *const gc_11_0_0[] = {
	&pins[5], &pins[6], &pins[7], &pins[8], &pins[9], &pins[10],
};
static const struct amd_pin *const gc_11_0_2[] = {
	&pins[11], &pins[12], &pins[13], &pins[14], &pins[15], &pins[16],
};
static const struct amd_pin *const gc_12_0_0[] = {
	&pins[17], &pins[18], &pins[19], &pins[20], &pins[21], &pins[22], &pins[23], &pins[24],
};
static const struct amd_pin *const gc_12_0_1[] = {
	&pins[25], &pins[26], &pins[27], &pins[28], &pins[29], &pins[30], &pins[31], &pins[32],
};

#define V(a, b, c) { a, b, c }
static const struct amd_gc_set sets[] = {
	{ V(9, 4, 3), V(4, 4, 2), V(13, 0, 6), V(13, 0, 6), gc_9_4_3, ARRAY_SIZE(gc_9_4_3) },
	/* MI350: sub-block versions from tinygrad only (amd-facts §0.2, UNVERIFIED) */
	{ V(9, 5, 0), V(4, 4, 4), V(13, 0, 14), V(13, 0, 12), NULL, 0 },
	{ V(11, 0, 0), V(6, 0, 0), V(13, 0, 0), V(13, 0, 0), gc_11_0_0, ARRAY_SIZE(gc_11_0_0) },
	{ V(11, 0, 2), V(6, 0, 2), V(13, 0, 7), V(13, 0, 7), gc_11_0_2, ARRAY_SIZE(gc_11_0_2) },
	{ V(12, 0, 0), V(7, 0, 0), V(14, 0, 2), V(14, 0, 2), gc_12_0_0, ARRAY_SIZE(gc_12_0_0) },
	{ V(12, 0, 1), V(7, 0, 1), V(14, 0, 3), V(14, 0, 3), gc_12_0_1, ARRAY_SIZE(gc_12_0_1) },
};

const struct amd_gc_set *
amd_gc_set_of(struct amd_version v)
{
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++)
		if (sets[i].gc.major == v.major && sets[i].gc.minor == v.minor &&
		    sets[i].gc.rev == v.rev)
			return &sets[i];
	return NULL;
}

const struct amd_gc_set *
amd_gc_sets(size_t *n)
{
	*n = ARRAY_SIZE(sets);
	return sets;
}

const struct amd_pin *
amd_pins(size_t *n)
{
	*n = ARRAY_SIZE(pins);
	return pins;
}
