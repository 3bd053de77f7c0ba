/* SPDX-License-Identifier: MIT */
/*
 * test_host_symbol: an image's names through rig's calls. A function the
 * object lacks is refused with the functions it has (and, for a C++ object
 * without extern "C", its mangled name); rig_image_symbol() reaches a
 * kernel's globals, a table the host fills before a launch and a count the
 * kernel leaves, and refuses NULLs, absent names (listing the data objects),
 * functions' names and devices whose globals the host cannot address.
 */
#include "../core/common.h"

struct globals_params {
	uint64_t out;		/* ref 0 */
};

static struct rig_device *host;

static struct rig_image *
load(const char *name)
{
	static char object[1 << 16];
	char path[512];
	struct rig_image *img;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s.o", HOST_KERNELS, name);
	f = fopen(path, "rb");
	len = f ? fread(object, 1, sizeof(object), f) : 0;
	if (f)
		fclose(f);
	assert_true(len > 0);
	assert_int_equal(rig_image_load(host, object, len, &img), 0);
	return img;
}

static int
setup(void **state)
{
	assert_int_equal(rig_host_device(&host), 0);
	return 0;
}

static int
teardown(void **state)
{
	rig_device_release(host);
	return 0;
}

static void
test_absent_function_lists_the_defined(void **state)
{
	struct rig_image *img = load("globals");
	struct rig_function *fn = NULL;

	assert_int_equal(rig_image_function(img, "weigh", &fn), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_image_function: no function weigh: "
			    "the object defines clear_count, weigh_table");
	assert_null(fn);
	assert_int_equal(rig_image_function(img, "table", &fn), RIG_EINVAL);
	assert_why("no function table: table is a data object (rig_image_symbol() reaches it)",
		   "the object defines clear_count, weigh_table");
	assert_null(fn);
	assert_int_equal(rig_image_function(img, "weigh_table", &fn), 0);
	rig_image_release(img);
}

static void
test_mangled_name_is_pointed_out(void **state)
{
	struct rig_image *img = load("mangled");
	struct rig_function *fn = NULL;

	assert_int_equal(rig_image_function(img, "saxpy", &fn), RIG_EINVAL);
	assert_why("rig_image_function: no function saxpy: the object defines _Z5saxpyPKvll",
		   "_Z5saxpyPKvll is C++'s mangled name for saxpy", "extern \"C\"",
		   "RIG_HOST_KERNEL");
	assert_int_equal(rig_image_function(img, "scale", &fn), RIG_EINVAL);
	assert_why("no function scale: the object defines _Z5saxpyPKvll",
		   "the _Z names are C++ names, mangled", "extern \"C\"");
	assert_null(fn);
	/* The mangled name itself is a function like any other. */
	assert_int_equal(rig_image_function(img, "_Z5saxpyPKvll", &fn), 0);
	rig_image_release(img);
}

/* Launch fn over n groups writing out; wait for it. */
static void
launch(struct rig_function *fn, struct rig_buffer *out, uint32_t n)
{
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part = rig_part_launch(fn, sizeof(struct globals_params), &ref, 1);
	const uint32_t grid[3] = { n, 1, 1 }, group[3] = { 4, 1, 1 };
	struct globals_params params = { 0 };
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;

	assert_int_equal(rig_submission_make(host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, grid, group, &params, sizeof(params)), 0);
	assert_int_equal(rig_submit(r, &out, 1, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	rig_submission_release(s);
}

static void
test_host_fills_a_table(void **state)
{
	struct rig_image *img = load("globals");
	struct rig_buffer *out = buffer_new(host, 256 * sizeof(int64_t));
	struct rig_function *weigh, *clear;
	int64_t *table, *count, got[256];
	const int64_t *weights;
	size_t bytes = 0;

	assert_int_equal(rig_image_function(img, "weigh_table", &weigh), 0);
	assert_int_equal(rig_image_function(img, "clear_count", &clear), 0);
	assert_int_equal(rig_image_symbol(img, "table", (void **)&table, &bytes), 0);
	assert_int_equal(bytes, 64 * sizeof(int64_t));
	assert_int_equal(rig_image_symbol(img, "groups_run", (void **)&count, &bytes), 0);
	assert_int_equal(bytes, sizeof(int64_t));
	assert_int_equal(rig_image_symbol(img, "weights", (void **)&weights, &bytes), 0);
	assert_int_equal(bytes, 4 * sizeof(int64_t));
	assert_int_equal(weights[3], 4);
	for (int round = 1; round <= 3; round++) {
		for (int i = 0; i < 64; i++)
			table[i] = 1000 * round + i;
		launch(clear, out, 1);
		launch(weigh, out, 256);
		assert_int_equal(rig_buffer_read(out, 0, got, sizeof(got)), 0);
		for (int i = 0; i < 256; i++)
			if (got[i] != (1000 * round + (i & 63)) * ((i & 3) + 1))
				fail_msg("round %d: out[%d] is %lld", round, i, (long long)got[i]);
		/* The kernel's count lives on between launches: the host reads it. */
		assert_int_equal(__atomic_load_n(count, __ATOMIC_RELAXED), 256);
	}
	rig_buffer_release(out);
	rig_image_release(img);
}

static void
test_symbol_refusals(void **state)
{
	struct rig_image *img = load("globals");
	void *sentinel = (void *)&sentinel, *at = sentinel;
	size_t bytes = 77;
	struct polled_dev pd;
	struct rig_image *pimg;
	const struct {
		struct rig_image *img;
		const char *name;
		void **host;
		size_t *bytes;
		const char *why;
	} nulls[] = {
		{ NULL, "table", &at, &bytes, "rig_image_symbol: the image is NULL" },
		{ img, NULL, &at, &bytes, "rig_image_symbol: the name is NULL" },
		{ img, "table", NULL, &bytes, "rig_image_symbol: the host is NULL" },
		{ img, "table", &at, NULL, "rig_image_symbol: the bytes is NULL" },
	};

	for (size_t i = 0; i < sizeof(nulls) / sizeof(*nulls); i++) {
		assert_int_equal(rig_image_symbol(nulls[i].img, nulls[i].name, nulls[i].host,
						  nulls[i].bytes), RIG_EINVAL);
		assert_string_equal(rig_why(), nulls[i].why);
	}
	assert_int_equal(rig_image_symbol(img, "tabel", &at, &bytes), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_image_symbol: no data object tabel: "
			    "the object defines groups_run, table, weights");
	assert_int_equal(rig_image_symbol(img, "weigh_table", &at, &bytes), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_image_symbol: weigh_table is a function, "
			    "not a data object (rig_image_function() names it)");
	assert_ptr_equal(at, sentinel);
	assert_int_equal(bytes, 77);
	rig_image_release(img);

	img = load("mangled");
	assert_int_equal(rig_image_symbol(img, "table", &at, &bytes), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_image_symbol: no data object table: "
			    "the object defines no global data objects");
	rig_image_release(img);

	/* A device whose globals the host does not address, then a lost one. */
	pd = polled_open((struct rig_polled_config){ .name = "P-symbol" });
	assert_int_equal(rig_image_load(pd.d, "code", 4, &pimg), 0);
	assert_int_equal(rig_image_symbol(pimg, "table", &at, &bytes), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_image_symbol: P-symbol's globals are not addressed by the host");
	rig_image_release(pimg);
	polled_close(pd);
	assert_ptr_equal(at, sentinel);
	assert_int_equal(bytes, 77);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent_function_lists_the_defined),
		cmocka_unit_test(test_mangled_name_is_pointed_out),
		cmocka_unit_test(test_host_fills_a_table),
		cmocka_unit_test(test_symbol_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
