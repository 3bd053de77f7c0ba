/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_open.c: the host device end to end through rig's
 * public calls: rig_open(&rig_host_opener) accepts its facts, its buffers are
 * host memory, copies run on its copy queue in the order rig gives them,
 * waits return once its word shows their value, and close stops it; an
 * object compiled by the test build loads as an image whose function runs
 * as a launch of a prepared submission, after a copy it follows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rig.h"
#include "host/host.h"
#include "kernels.h"

#define SECOND_NS	1000000000ull

static void
check(int ret, const char *what)
{
	if (ret != 0)
		fail_msg("%s: %d %s", what, ret, rig_why());
}

static void
test_open_copy_close(void **state)
{
	enum { BYTES = 3u << 20 };
	struct rig_buffer *a, *b, *c;
	struct rig_device *d, *again;
	struct rig_point p;
	unsigned char *in = malloc(BYTES), *out = malloc(BYTES);
	size_t i;
	int round;

	check(rig_open(&rig_host_opener, &d), "rig_open");
	assert_string_equal(rig_name(d), "HOST");
	check(rig_open(&rig_host_opener, &again), "rig_open again");
	assert_ptr_equal(again, d);
	rig_device_release(again);
	check(rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a), "create a");
	check(rig_buffer_create(d, BYTES, RIG_MEMORY_PINNED, &b), "create b");
	check(rig_buffer_create(d, BYTES, RIG_MEMORY_MAPPED, &c), "create c");
	assert_int_equal(rig_buffer_address(a) % 64, 0);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < BYTES; i++)
			in[i] = (unsigned char)(i * 13 + (size_t)round);
		check(rig_buffer_write(a, 0, in, BYTES), "write a");
		check(rig_buffer_copy(a, b, NULL), "copy a to b");
		check(rig_buffer_copy(b, c, &p), "copy b to c");
		check(rig_wait(p, 10 * SECOND_NS), "wait for c");
		check(rig_buffer_read(c, 0, out, BYTES), "read c");
		assert_memory_equal(in, out, BYTES);
	}
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	check(rig_close(d), "rig_close");
	rig_device_release(d);
	free(in);
	free(out);
}

static void
test_image_launch_after_copy(void **state)
{
	enum { N = 100000, PER_GROUP = 1000 };
	static const uint32_t grid[3] = { (N + PER_GROUP - 1) / PER_GROUP, 1, 1 }, one[3] = { 1, 1, 1 };
	const struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec parts[2];
	struct rig_buffer *buf[4];
	struct rig_submission *s;
	struct rig_function *fn;
	struct rig_image *img;
	struct rig_device *d;
	struct rig_run *run;
	struct rig_point p;
	const uint32_t *follows;
	uint32_t queue, nfollows;
	float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));
	unsigned char *obj;
	size_t len;
	int i, round;

	check(rig_open(&rig_host_opener, &d), "rig_open");
	assert_int_equal(rig_image_load(d, "junk", 4, &img), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "not an ELF object"));
	obj = kernel_read("add", &len);
	check(rig_image_load(d, obj, len, &img), "rig_image_load");
	free(obj);
	assert_int_equal(rig_image_function(img, "no_such", &fn), RIG_EINVAL);
	check(rig_image_function(img, "add", &fn), "rig_image_function");
	for (i = 0; i < 4; i++)
		check(rig_buffer_create(d, N * sizeof(float), RIG_MEMORY_DEVICE, &buf[i]), "create");
	/* slot 3 -> slot 0 on the copy queue, then c = a + b, which follows it. */
	parts[0] = rig_part_copy(RIG_SLOT(3), RIG_SLOT(0));
	parts[1] = rig_part_launch(fn, sizeof(struct add_params), refs, 3);
	check(rig_submission_make(d, parts, 2, NULL, 0, (struct rig_keep){ 0 }, &s), "make");
	check(rig_submission_part(s, 0, &queue, &follows, &nfollows), "part 0");
	assert_int_equal(queue, 1);
	check(rig_submission_part(s, 1, &queue, &follows, &nfollows), "part 1");
	assert_int_equal(queue, 0);
	assert_int_equal(nfollows, 1);
	assert_int_equal(follows[0], 0);
	for (round = 0; round < 10; round++) {
		struct add_params params = { NULL, NULL, NULL, N, PER_GROUP };	/* refs: offsets 0 */
		struct rig_buffer *slots[4] = { buf[0], buf[1], buf[2], buf[3] };

		for (i = 0; i < N; i++) {
			a[i] = (float)(i + round);
			b[i] = 0.25f * (float)i;
		}
		check(rig_buffer_write(buf[3], 0, a, N * sizeof(float)), "write a");
		check(rig_buffer_write(buf[1], 0, b, N * sizeof(float)), "write b");
		check(rig_run_take(s, &run), "take");
		check(rig_run_store(run, 1, grid, one, &params, sizeof(params)), "store");
		check(rig_submit(run, slots, 4, NULL, 0, &p), "submit");
		check(rig_wait(p, 10 * SECOND_NS), "wait");
		check(rig_buffer_read(buf[2], 0, c, N * sizeof(float)), "read c");
		for (i = 0; i < N; i++)
			if (c[i] != a[i] + b[i])
				fail_msg("round %d: c[%d] = %g, expected %g", round, i, c[i], a[i] + b[i]);
	}
	rig_submission_release(s);
	for (i = 0; i < 4; i++)
		rig_buffer_release(buf[i]);
	rig_image_release(img);
	check(rig_close(d), "rig_close");
	rig_device_release(d);
	free(a);
	free(b);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_copy_close),
		cmocka_unit_test(test_image_launch_after_copy),
	};

	return cmocka_run_group_tests_name("test_host_open", tests, NULL, NULL);
}
