/* SPDX-License-Identifier: MIT */
/*
 * test_host_params: a launch's params block on the host device starts on
 * a multiple of RIG_HOST_PARAMS_ALIGN (64), so a kernel reads its vector
 * members with aligned loads: a 32-byte one with AVX's vmovaps and a
 * 64-byte one with AVX-512's, each run where the CPU has it (the address
 * check runs everywhere). Launches with other params sizes and several
 * launches in one submission get aligned blocks too. And rig_host.h's
 * RIG_HOST_KERNEL_CFLAGS are the flags the build compiles kernels with.
 */
#include "../core/common.h"
#include "rig_host.h"
#include "kernels.h"

struct aligned_params {
	uint64_t out;			/* a ref: the output buffer's address */
	int64_t pad[3];
	float v8[8] __attribute__((aligned(32)));
	float v16[16] __attribute__((aligned(64)));
};
_Static_assert(sizeof(struct aligned_params) == 128, "as the kernel lays it out");

static struct rig_device *host;
static struct rig_image *img;

static int
setup(void **state)
{
	size_t len;
	unsigned char *object = kernel_read("aligned", &len);

	assert_int_equal(rig_host_device(&host), 0);
	assert_int_equal(rig_image_load(host, object, len, &img), 0);
	free(object);
	return 0;
}

static int
teardown(void **state)
{
	rig_image_release(img);
	rig_device_release(host);
	return 0;
}

/* Launch `name` nlaunch times in one submission, with params_bytes of
 * params (at least the struct); out gets what the last one wrote. */
static void
launch(const char *name, int nlaunch, int64_t params_bytes, float out[16])
{
	struct rig_function *fn;
	struct rig_ref refs[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec parts[4];
	struct rig_buffer *buf = buffer_new(host, 64);
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;
	const uint32_t grid[3] = { 1, 1, 1 }, group[3] = { 1, 1, 1 };
	_Alignas(64) unsigned char params[256] = { 0 };
	struct aligned_params *ap = (struct aligned_params *)params;
	int i;

	assert_true(nlaunch <= 4 && params_bytes <= (int64_t)sizeof(params));
	assert_int_equal(rig_image_function(img, name, &fn), 0);
	for (i = 0; i < 16; i++)
		ap->v16[i] = (float)(i + 1);
	for (i = 0; i < 8; i++)
		ap->v8[i] = (float)(100 + i);
	for (i = 0; i < nlaunch; i++)
		parts[i] = rig_part_launch(fn, params_bytes, refs, 1);
	assert_int_equal(rig_submission_make(host, parts, (size_t)nlaunch, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	for (i = 0; i < nlaunch; i++)
		assert_int_equal(rig_run_store(r, (size_t)i, grid, group, params, (size_t)params_bytes), 0);
	assert_int_equal(rig_submit(r, &buf, 1, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_read(buf, 0, out, 64), 0);
	rig_submission_release(s);
	rig_buffer_release(buf);
}

static void
test_block_is_64_aligned(void **state)
{
	float out[16];

	launch("aligned_where", 1, sizeof(struct aligned_params), out);
	assert_true(out[0] == 0.0f);
	/* Odd sizes and several launches: each block on its own boundary. */
	launch("aligned_where", 3, sizeof(struct aligned_params) + 8, out);
	assert_true(out[0] == 0.0f);
	launch("aligned_where", 4, 200, out);
	assert_true(out[0] == 0.0f);
}

static void
test_avx_member(void **state)
{
	float out[16];

	if (!__builtin_cpu_supports("avx"))
		return;	/* no AVX here: test_block_is_64_aligned still checks */
	launch("aligned_256", 2, sizeof(struct aligned_params), out);
	for (int i = 0; i < 8; i++)
		assert_true(out[i] == (float)(100 + i));
}

static void
test_avx512_member(void **state)
{
	float out[16];

	if (!__builtin_cpu_supports("avx512f"))
		return;	/* no AVX-512 here: test_block_is_64_aligned still checks */
	launch("aligned_512", 2, sizeof(struct aligned_params), out);
	for (int i = 0; i < 16; i++)
		assert_true(out[i] == (float)(i + 1));
}

static void
test_kernel_flags(void **state)
{
	assert_string_equal(RIG_HOST_KERNEL_CFLAGS, HOST_KERNEL_CFLAGS);
	assert_int_equal(RIG_HOST_PARAMS_ALIGN, 64);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_is_64_aligned),
		cmocka_unit_test(test_avx_member),
		cmocka_unit_test(test_avx512_member),
		cmocka_unit_test(test_kernel_flags),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
