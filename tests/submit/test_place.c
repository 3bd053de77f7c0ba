/* SPDX-License-Identifier: MIT */
/*
 * test_place: queue placement and follow lists (docs/order.md, rule 2, docs/submissions.md, Placement) on a
 * polled device with three queues:
 *   0 COMPUTE:0 runs launches and fills
 *   1 COPY:0    runs copies (the copy engine)
 *   2 GFX:0     runs launches, words and copies
 */
#include "../core/common.h"

static const struct rig_queue queues[] = {
	{ "COMPUTE:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_FILL_PART) },
	{ "COPY:0", RIG_RUNS(RIG_COPY_PART) },
	{ "GFX:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_WORDS_PART) | RIG_RUNS(RIG_COPY_PART) },
};
static struct polled_dev pd;
static struct rig_image *img;
static struct rig_function *fn;
static struct rig_buffer *x, *y, *words, *x_lo, *x_hi, *y_lo;

static int
setup(void **state)
{
	pd = polled_open((struct rig_polled_config){ .name = "Q3", .queues = queues,
						     .nqueues = 3, .copy_engine = 1 });
	assert_int_equal(rig_image_load(pd.d, "k", 1, &img), 0);
	assert_int_equal(rig_image_function(img, "k", &fn), 0);
	x = buffer_new(pd.d, 64);
	y = buffer_new(pd.d, 64);
	words = buffer_new(pd.d, 16);
	assert_int_equal(rig_buffer_view(x, 0, 32, RIG_READ_WRITE, &x_lo), 0);
	assert_int_equal(rig_buffer_view(x, 32, 32, RIG_READ_WRITE, &x_hi), 0);
	assert_int_equal(rig_buffer_view(y, 0, 32, RIG_READ_WRITE, &y_lo), 0);
	return 0;
}

static int
teardown(void **state)
{
	rig_buffer_release(x_lo);
	rig_buffer_release(x_hi);
	rig_buffer_release(y_lo);
	rig_buffer_release(x);
	rig_buffer_release(y);
	rig_buffer_release(words);
	rig_image_release(img);
	polled_close(pd);
	return 0;
}

static int
fill_nothing(void *ctx, void *arg, uint64_t value)
{
	return 0;
}

/* Part i's queue and its follow list, as a string "q:[a,b]". */
static const char *
placed(struct rig_submission *s, size_t i)
{
	static char out[64];
	const uint32_t *f;
	uint32_t q, n;
	int at;

	assert_int_equal(rig_submission_part(s, i, &q, &f, &n), 0);
	at = snprintf(out, sizeof(out), "%u:[", q);
	for (uint32_t k = 0; k < n; k++)
		at += snprintf(out + at, sizeof(out) - (size_t)at, k ? ",%u" : "%u", f[k]);
	snprintf(out + at, sizeof(out) - (size_t)at, "]");
	return out;
}

static struct rig_submission *
make(struct rig_part_spec *p, size_t n, struct rig_fixed *f, size_t nf)
{
	struct rig_submission *s;

	if (rig_submission_make(pd.d, p, n, f, nf, (struct rig_keep){ 0 }, &s))
		fail_msg("%s", rig_why());
	return s;
}

static void
test_kinds_find_their_queues(void **state)
{
	struct rig_part_spec p[] = {
		rig_part_launch(fn, 0, NULL, 0),
		rig_part_fill(fill_nothing, 0, NULL, 0),
		rig_part_copy(RIG_BUFFER(x), RIG_BUFFER(y)),
	};
	struct rig_submission *s = make(p, 3, NULL, 0);

	assert_string_equal(placed(s, 0), "0:[]");	/* first that runs launches */
	assert_string_equal(placed(s, 1), "0:[]");	/* first that runs fills */
	assert_string_equal(placed(s, 2), "1:[]");	/* follows nothing: copy engine */
	rig_submission_release(s);
}

static void
test_words_prefer_launch_and_words(void **state)
{
	struct rig_part_spec p[] = {
		rig_part_launch(fn, 0, NULL, 0),
		rig_part_words(words),
		rig_part_copy(RIG_BUFFER(x), RIG_BUFFER(y)),
	};
	struct rig_submission *s = make(p, 3, NULL, 0);

	/* Words: queue 2, the first running launches and words; they follow
	 * every earlier part. The copy follows the words (they may do what
	 * rig cannot see) and stays on their queue, which runs copies. */
	assert_string_equal(placed(s, 1), "2:[0]");
	assert_string_equal(placed(s, 2), "2:[]");
	rig_submission_release(s);
}

static void
test_copy_after_launch_goes_to_copy_engine(void **state)
{
	struct rig_ref w[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec p[] = {
		rig_part_launch(fn, 8, w, 1),			/* writes slot 0 */
		rig_part_copy(RIG_SLOT(0), RIG_BUFFER(y)),	/* reads it */
		rig_part_launch(fn, 0, NULL, 0),		/* conflicts with nothing */
	};
	struct rig_submission *s = make(p, 3, NULL, 0);

	assert_string_equal(placed(s, 1), "1:[0]");
	assert_string_equal(placed(s, 2), "0:[]");
	rig_submission_release(s);
}

static void
test_conflicts_by_words_and_slots(void **state)
{
	struct rig_ref r0[] = { RIG_READ(0, 0) }, u0[] = { RIG_UNORDERED(0, 0) };
	struct rig_part_spec p[] = {
		rig_part_copy(RIG_BUFFER(y_lo), RIG_BUFFER(x_lo)),	/* 0: writes x[0,32) */
		rig_part_launch(fn, 8, r0, 1),				/* 1: reads slot 0: follows 0 */
		rig_part_copy(RIG_BUFFER(y_lo), RIG_BUFFER(x_hi)),	/* 2: writes x[32,64): follows 1 (a slot) only */
		rig_part_launch(fn, 8, u0, 1),				/* 3: unordered: follows nothing */
		rig_part_copy(RIG_BUFFER(x_hi), RIG_BUFFER(y_lo)),	/* 4: follows 0, 1, 2 */
	};
	struct rig_submission *s = make(p, 5, NULL, 0);

	assert_string_equal(placed(s, 1), "0:[0]");
	assert_string_equal(placed(s, 2), "1:[1]");
	assert_string_equal(placed(s, 3), "0:[]");
	/* Part 4 follows 0 (which reads y_lo, that 4 writes), 1 (a slot) and
	 * 2 (which writes x_hi, that 4 reads): the last, 2, is on COPY:0,
	 * which runs copies; of the three only 1 is on another queue. */
	assert_string_equal(placed(s, 4), "1:[1]");
	rig_submission_release(s);
}

static void
test_fixed_write_orders_everything(void **state)
{
	struct rig_fixed ro[] = { { words, RIG_READ_ONLY } }, rw[] = { { words, RIG_READ_WRITE } };
	struct rig_part_spec p[] = {
		rig_part_launch(fn, 0, NULL, 0),
		rig_part_copy(RIG_BUFFER(x), RIG_BUFFER(y)),
	};
	struct rig_submission *s = make(p, 2, ro, 1);

	assert_string_equal(placed(s, 1), "1:[]");	/* two reads: no order */
	rig_submission_release(s);
	s = make(p, 2, rw, 1);
	assert_string_equal(placed(s, 1), "1:[0]");	/* a fixed write: order */
	rig_submission_release(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_find_their_queues),
		cmocka_unit_test(test_words_prefer_launch_and_words),
		cmocka_unit_test(test_copy_after_launch_goes_to_copy_engine),
		cmocka_unit_test(test_conflicts_by_words_and_slots),
		cmocka_unit_test(test_fixed_write_orders_everything),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
