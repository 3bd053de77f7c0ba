/* SPDX-License-Identifier: MIT */
/*
 * test_buffer: buffers on the memory and polled devices: kinds, empty
 * buffers, views, overlaps at word granularity, host reads and writes
 * ordered after device work, and every refusal with its message and no
 * change of state.
 */
#include "common.h"

static struct polled_dev pd;

static int
open_polled(void **state)
{
	pd = polled_open((struct rig_polled_config){ .name = "B" });
	return 0;
}

static int
close_polled(void **state)
{
	polled_close(pd);
	return 0;
}

static void
test_kinds_and_empty(void **state)
{
	struct rig_buffer *b[3], *e;
	enum rig_memory kinds[] = { RIG_MEMORY_DEVICE, RIG_MEMORY_PINNED, RIG_MEMORY_MAPPED };

	for (int i = 0; i < 3; i++) {
		assert_int_equal(rig_buffer_create(pd.d, 100, kinds[i], &b[i]), 0);
		assert_int_equal(rig_buffer_length(b[i]), 100);
		assert_int_equal(rig_buffer_access(b[i]), RIG_READ_WRITE);
		assert_ptr_equal(rig_buffer_device(b[i]), pd.d);
		assert_int_equal(rig_buffer_address(b[i]) % 64, 0);
		assert_true(rig_buffer_address(b[i]) != 0);
	}
	assert_int_equal(rig_polled_live_regions(pd.p), 3);
	assert_int_equal(rig_buffer_create(pd.d, 0, RIG_MEMORY_DEVICE, &e), 0);
	assert_int_equal(rig_buffer_address(e), 0);
	assert_int_equal(rig_buffer_length(e), 0);
	assert_int_equal(rig_polled_live_regions(pd.p), 3);	/* no memory */
	rig_buffer_release(e);
	for (int i = 0; i < 3; i++)
		rig_buffer_release(b[i]);
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
}

static void
test_negative_size_refused(void **state)
{
	struct rig_buffer *b = NULL;

	assert_int_equal(rig_buffer_create(pd.d, (size_t)-5, RIG_MEMORY_DEVICE, &b), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_create: -5 bytes is negative");
	assert_null(b);
	assert_int_equal(rig_buffer_create(pd.d, 8, (enum rig_memory)9, &b), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_create: 9 is no memory kind");
	assert_null(b);
	/* The checks come in this order, the first failing one named. */
	assert_int_equal(rig_buffer_create(pd.d, (size_t)-5, (enum rig_memory)9, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_create: the out is NULL");
	assert_int_equal(rig_buffer_create(pd.d, (size_t)-5, (enum rig_memory)9, &b), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_create: -5 bytes is negative");
	assert_null(b);
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
}

static void
test_over_budget_refused(void **state)
{
	struct rig_buffer *b = NULL;

	assert_int_equal(rig_buffer_create(pd.d, (size_t)2 << 30, RIG_MEMORY_DEVICE, &b), RIG_ENOMEM);
	assert_why("rig_buffer_create: ", "2147483648 bytes asked, B holds 0 of its budget 1073741824");
	assert_null(b);
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
}

static void
test_views(void **state)
{
	struct rig_buffer *b = buffer_new(pd.d, 64), *v = NULL, *ro, *w;
	uint8_t bytes[64], back[8];

	for (int i = 0; i < 64; i++)
		bytes[i] = (uint8_t)i;
	assert_int_equal(rig_buffer_write(b, 0, bytes, 64), 0);
	assert_int_equal(rig_buffer_view(b, 8, 8, RIG_READ_ONLY, &ro), 0);
	assert_int_equal(rig_buffer_address(ro), rig_buffer_address(b) + 8);
	assert_int_equal(rig_buffer_read(ro, 0, back, 8), 0);
	assert_memory_equal(back, bytes + 8, 8);

	/* Out of range, a widened access, a write through read-only. */
	assert_int_equal(rig_buffer_view(b, 60, 8, RIG_READ_WRITE, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: bytes 60..68 lie outside the buffer's 64");
	assert_int_equal(rig_buffer_view(b, (size_t)-1, 8, RIG_READ_WRITE, &v), RIG_EINVAL);
	assert_why("rig_buffer_view: ", "is negative");
	assert_int_equal(rig_buffer_view(ro, 0, 4, RIG_READ_WRITE, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: a read-write view of a read-only buffer");
	assert_null(v);
	assert_int_equal(rig_buffer_write(ro, 0, bytes, 4), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_write: the buffer is read-only");
	assert_int_equal(rig_buffer_read(ro, 4, back, 8), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_read: bytes 4..12 lie outside the buffer's 8");
	/* Nothing changed. */
	assert_int_equal(rig_buffer_read(b, 8, back, 8), 0);
	assert_memory_equal(back, bytes + 8, 8);

	assert_int_equal(rig_buffer_view(b, 16, 16, RIG_READ_WRITE, &w), 0);
	assert_int_equal(rig_buffer_write(w, 0, "sixteen bytes..", 16), 0);
	assert_int_equal(rig_buffer_read(b, 16, back, 8), 0);
	assert_memory_equal(back, "sixteen ", 8);
	rig_buffer_release(ro);
	rig_buffer_release(w);
	rig_buffer_release(b);
}

static void
test_overlaps_by_word(void **state)
{
	struct rig_buffer *b = buffer_new(pd.d, 64), *c = buffer_new(pd.d, 64);
	struct rig_buffer *v0, *v2, *v4, *e;

	assert_int_equal(rig_buffer_view(b, 0, 2, RIG_READ_WRITE, &v0), 0);
	assert_int_equal(rig_buffer_view(b, 2, 2, RIG_READ_WRITE, &v2), 0);
	assert_int_equal(rig_buffer_view(b, 4, 4, RIG_READ_WRITE, &v4), 0);
	assert_int_equal(rig_buffer_view(b, 4, 0, RIG_READ_WRITE, &e), 0);
	assert_true(rig_buffer_overlaps(v0, v2));	/* one word: bytes 0..3 */
	assert_false(rig_buffer_overlaps(v2, v4));
	assert_true(rig_buffer_overlaps(b, v4));
	assert_false(rig_buffer_overlaps(b, c));	/* two allocations */
	assert_false(rig_buffer_overlaps(e, b));	/* empty */
	rig_buffer_release(v0);
	rig_buffer_release(v2);
	rig_buffer_release(v4);
	rig_buffer_release(e);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
test_host_access_ordered_after_copies(void **state)
{
	struct rig_buffer *a = buffer_new(pd.d, 4096), *b = buffer_new(pd.d, 4096);
	uint32_t x[1024], y[1024];

	rig_polled_stall(pd.p, true);
	for (uint32_t round = 0; round < 20; round++) {
		for (int i = 0; i < 1024; i++)
			x[i] = round * 7919u + (uint32_t)i;
		/* The write waits for the copy of the round before (it read
		 * a); the read below waits for this round's copy. */
		assert_int_equal(rig_buffer_write(a, 0, x, sizeof(x)), 0);
		assert_int_equal(rig_buffer_copy(a, b, NULL), 0);
		rig_polled_stall(pd.p, false);
		assert_int_equal(rig_buffer_read(b, 0, y, sizeof(y)), 0);
		assert_memory_equal(x, y, sizeof(x));
	}
	rig_buffer_release(a);
	rig_buffer_release(b);
}

static void
test_copy_refusals(void **state)
{
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 32);
	struct rig_buffer *h, *ro;
	struct rig_device *m;
	struct rig_buffer *mb;
	uint64_t before = rig_polled_submits(pd.p);

	assert_int_equal(rig_buffer_copy(a, b, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_copy: src has 64 bytes and dst 32");
	assert_int_equal(rig_buffer_view(a, 16, 32, RIG_READ_WRITE, &h), 0);
	assert_int_equal(rig_buffer_view(a, 0, 32, RIG_READ_WRITE, &ro), 0);
	assert_int_equal(rig_buffer_copy(h, ro, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_copy: src and dst share memory");
	rig_buffer_release(ro);
	assert_int_equal(rig_buffer_view(b, 0, 32, RIG_READ_ONLY, &ro), 0);
	assert_int_equal(rig_buffer_copy(h, ro, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_copy: dst is read-only");
	assert_int_equal(rig_memory_device("M-b", &m), 0);
	mb = buffer_new(m, 32);
	assert_int_equal(rig_buffer_copy(h, mb, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_copy: src lies on B and dst on M-b");
	assert_int_equal(rig_buffer_copy(NULL, mb, NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_copy: the buffer is NULL");
	assert_int_equal(rig_polled_submits(pd.p), before);	/* nothing ran */
	rig_buffer_release(mb);
	rig_device_release(m);
	rig_buffer_release(h);
	rig_buffer_release(ro);
	rig_buffer_release(a);
	rig_buffer_release(b);
}

static void
test_unaddressed_memory_refused(void **state)
{
	struct polled_dev q = polled_open((struct rig_polled_config){
		.name = "B-noaddr", .no_host_addresses = true });
	struct rig_buffer *b = buffer_new(q.d, 16);
	char x[16];

	assert_int_equal(rig_buffer_read(b, 0, x, 16), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_read: the host does not address B-noaddr's memory");
	rig_buffer_release(b);
	polled_close(q);
}

static void
test_dead_after_close(void **state)
{
	struct polled_dev q = polled_open((struct rig_polled_config){ .name = "B-dead" });
	struct rig_buffer *b = buffer_new(q.d, 16), *v;
	char x[16];

	assert_int_equal(rig_close(q.d), 0);
	assert_int_equal(rig_polled_live_regions(q.p), 0);	/* returned at close */
	assert_int_equal(rig_buffer_read(b, 0, x, 16), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_read: the buffer is dead: closed");
	assert_int_equal(rig_buffer_view(b, 0, 4, RIG_READ_ONLY, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: the buffer is dead: closed");
	rig_buffer_release(b);
	rig_device_release(q.d);
	rig_polled_destroy(q.p);
}

static void
test_release_waits_for_last_use(void **state)
{
	struct rig_buffer *a = buffer_new(pd.d, 1 << 16), *b = buffer_new(pd.d, 1 << 16);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	/* The copy has not run: its memory stays with the device. */
	assert_int_equal(rig_polled_live_regions(pd.p), 2);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	/* The next allocation takes it back. */
	rig_buffer_release(buffer_new(pd.d, 8));
	assert_int_equal(rig_polled_live_regions(pd.p), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_and_empty),
		cmocka_unit_test(test_negative_size_refused),
		cmocka_unit_test(test_over_budget_refused),
		cmocka_unit_test(test_views),
		cmocka_unit_test(test_overlaps_by_word),
		cmocka_unit_test(test_host_access_ordered_after_copies),
		cmocka_unit_test(test_copy_refusals),
		cmocka_unit_test(test_unaddressed_memory_refused),
		cmocka_unit_test(test_dead_after_close),
		cmocka_unit_test(test_release_waits_for_last_use),
	};

	return cmocka_run_group_tests(tests, open_polled, close_polled);
}
