/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_copy.c: the host device's copy queue, called as rig
 * calls the driver: copies and byte fills of rows with pitches, large ones
 * split over the pool, and launches and copies ordered by follows lists
 * across the COMPUTE and COPY queues.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "host_dev.h"

/* ---- Copies and follows --------------------------------------------------- */

static void
test_follows_across_queues(void **state)
{
	static const uint32_t grid[3] = { 3, 1, 1 }, one[3] = { 1, 1, 1 };
	struct dev *d = *state;
	int64_t in[4] = { 1, -2, 30, 400 }, a[4] = { 0 }, b[4] = { 0 }, c[4] = { 0 };
	unsigned char grid2d[6][10], filled[64];
	uint32_t f0 = 0, f1 = 1, f2 = 2;
	struct counted k;
	struct rig_part p[5];
	uint64_t v;
	int i, j;

	memset(grid2d, 0, sizeof(grid2d));
	memset(filled, 0x11, sizeof(filled));
	counted_init(&k, grid);
	k.p.in = a;
	k.p.out = b;
	k.p.n = 4;
	k.p.scale = 3;
	p[0] = copy_part(in, a, sizeof(in), 1, 0, 0, -1);		/* COPY: in -> a */
	p[1] = launch_part(d->groups, &k.p, sizeof(k.p), grid, one);	/* COMPUTE: b = 3a */
	p[1].follows = &f0;
	p[1].nfollows = 1;
	p[2] = copy_part(b, c, sizeof(b), 1, 0, 0, -1);		/* COPY: b -> c */
	p[2].follows = &f1;
	p[2].nfollows = 1;
	p[3] = copy_part(NULL, grid2d, 4, 3, 0, 20, 0x5a);		/* every other row, 4 bytes */
	p[3].follows = &f2;	/* a copy naming a copy: ordered on its queue anyway */
	p[3].nfollows = 1;
	p[4] = copy_part(NULL, filled + 8, 40, 1, 0, 0, 0x22);
	v = dev_submit(d, p, 5, NULL, 0, NULL);
	wait_value(&d->word, v);
	for (i = 0; i < 4; i++)
		assert_int_equal(c[i], 3 * in[i]);
	for (i = 0; i < 6; i++)
		for (j = 0; j < 10; j++)
			assert_int_equal(grid2d[i][j], (i % 2 == 0 && j < 4) ? 0x5a : 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(filled[i], i >= 8 && i < 48 ? 0x22 : 0x11);
	counted_check(&k);
}

static void
test_large_copies_split(void **state)
{
	struct dev *d = *state;
	enum { ROWS = 4, BYTES = 3u << 20, PITCH = BYTES + 4096 };
	unsigned char *src = malloc((size_t)ROWS * PITCH), *dst = malloc((size_t)ROWS * PITCH);
	struct rig_part p[2];
	uint64_t v;
	size_t i;

	assert_non_null(src);
	assert_non_null(dst);
	for (i = 0; i < (size_t)ROWS * PITCH; i++)
		src[i] = (unsigned char)(i * 31 + 7);
	memset(dst, 0x33, (size_t)ROWS * PITCH);
	p[0] = copy_part(src, dst, BYTES, ROWS, PITCH, PITCH, -1);
	v = dev_submit(d, p, 1, NULL, 0, NULL);
	wait_value(&d->word, v);
	for (i = 0; i < (size_t)ROWS * PITCH; i++)
		if (dst[i] != (i % PITCH < BYTES ? src[i] : 0x33))
			fail_msg("copy: byte %zu is %u", i, dst[i]);
	p[0] = copy_part(NULL, dst, 9u << 20, 1, 0, 0, 0x7e);
	v = dev_submit(d, p, 1, NULL, 0, NULL);
	wait_value(&d->word, v);
	for (i = 0; i < (size_t)ROWS * PITCH; i++)
		if (dst[i] != (i < (9u << 20) ? 0x7e : i % PITCH < BYTES ? src[i] : 0x33))
			fail_msg("fill: byte %zu is %u", i, dst[i]);
	free(src);
	free(dst);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follows_across_queues),
		cmocka_unit_test(test_large_copies_split),
	};

	return cmocka_run_group_tests_name("test_host_copy", tests, setup, teardown);
}
