/* SPDX-License-Identifier: MIT */
/*
 * test_profile: the time rules of profiles (rig_edge.h: submit's pair of
 * times, settle, measures), with the polled driver's fake stamps, whose
 * ticks this test chooses: settle is called in value order, whoever reads
 * first; the conversion is exact and never puts a start before the
 * previous value's end (nor an end before its start); a lost device's
 * values get no settle call after the loss; measures rows have 3 + n words
 * in the order of the counters, and each value with a launch gets one
 * measures(NULL) after its last read. And each refusal of the API.
 */
#include "../loss/loss.h"

#define ORIGIN_NS 1000000ull
#define NS_PER_TICK 3ull

/* Ticks that overlap and run backwards now and then, so both clamps act. */
static uint64_t
ticks(void *arg, uint64_t value, int end)
{
	uint64_t start = value * 100 + (value % 3) * 70;

	(void)arg;
	if (!end)
		return start;
	return value % 4 == 0 ? start - 10 : start + (value % 4) * 20;
}

static struct rig_polled_config
stamped(const char *name)
{
	return (struct rig_polled_config){ .name = name, .stamp = ticks,
		.stamp_origin_ns = ORIGIN_NS, .stamp_ns_per_tick = NS_PER_TICK };
}

/* The times the seed's rules give, in value order from first. */
struct model { uint64_t last_end; unsigned start_clamps, end_clamps; };

static void
expect(struct model *m, uint64_t v, uint64_t *start, uint64_t *end)
{
	*start = ORIGIN_NS + ticks(NULL, v, 0) * NS_PER_TICK;
	*end = ORIGIN_NS + ticks(NULL, v, 1) * NS_PER_TICK;
	if (*start < m->last_end) {
		*start = m->last_end;
		m->start_clamps++;
	}
	if (*end < *start) {
		*end = *start;
		m->end_clamps++;
	}
	m->last_end = *end;
}

#define N 24

static void
submit_n(struct rig_device *d, struct rig_point *pts, size_t n)
{
	struct rig_buffer *a = buffer_new(d, 64), *b = buffer_new(d, 64), *c = buffer_new(d, 64);
	struct rig_submission *s = three_copies(d, a, b, c);

	for (size_t i = 0; i < n; i++)
		pts[i] = run_once(s);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

static void
assert_settles_in_order(struct rig_polled *p, size_t *count)
{
	uint64_t log[4096];
	size_t n = rig_polled_settles(p, log, 4096);

	for (size_t i = 1; i < n; i++)
		if (log[i] < log[i - 1])
			fail_msg("settle call %zu named value %llu after value %llu", i,
				 (unsigned long long)log[i], (unsigned long long)log[i - 1]);
	*count = n;
}

/* Read the values in reverse: the first read settles every earlier value
 * first, in order, and the times follow the model exactly. */
static void
settle_in_value_order(void **state)
{
	struct polled_dev pd = polled_open(stamped("P-order"));
	struct rig_profile *prof = NULL;
	struct rig_point pts[N];
	struct model m = { 0 };
	uint64_t start[N], end[N];
	size_t calls;

	(void)state;
	assert_int_equal(rig_profile_start(&pd.d, 1, 1024, &prof), 0);
	submit_n(pd.d, pts, N);
	assert_int_equal(rig_wait(pts[N - 1], 30 * SECOND_NS), 0);
	for (size_t i = N; i-- > 0;)
		assert_int_equal(rig_profile_times(prof, pts[i], &start[i], &end[i]), 0);
	assert_settles_in_order(pd.p, &calls);
	assert_true(calls >= N);
	for (size_t i = 0; i < N; i++) {
		uint64_t s, e;

		expect(&m, pts[i].value, &s, &e);
		if (start[i] != s || end[i] != e)
			fail_msg("value %llu: times %llu..%llu, expected %llu..%llu",
				 (unsigned long long)pts[i].value, (unsigned long long)start[i],
				 (unsigned long long)end[i], (unsigned long long)s,
				 (unsigned long long)e);
		if (i)
			assert_true(start[i] >= end[i - 1]);
	}
	/* The ticks made both rules act, so the test can fail. */
	assert_true(m.start_clamps > 0);
	assert_true(m.end_clamps > 0);
	rig_profile_release(prof);
	polled_close(pd);
}

/* Values read before a loss were settled; after it, no settle call. */
static void
lost_gets_no_settle(void **state)
{
	struct polled_dev pd = polled_open(stamped("P-lost"));
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64),
			  *c = buffer_new(pd.d, 64);
	struct rig_submission *s = three_copies(pd.d, a, b, c);
	struct rig_profile *prof = NULL;
	struct rig_point pts[6], bad;
	uint64_t t0, t1;
	size_t before, after;

	(void)state;
	assert_int_equal(rig_profile_start(&pd.d, 1, 64, &prof), 0);
	for (size_t i = 0; i < 6; i++)
		pts[i] = run_once(s);
	assert_int_equal(rig_wait(pts[5], 30 * SECOND_NS), 0);
	assert_int_equal(rig_profile_times(prof, pts[1], &t0, &t1), 0);
	assert_settles_in_order(pd.p, &before);
	assert_int_equal(before, 2);	/* values 1 and 2, in order */
	rig_polled_stall(pd.p, true);
	bad = run_once(s);
	rig_polled_fault(pd.p, bad.value, 1);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(bad, 30 * SECOND_NS), RIG_ELOST);
	await(rig_polled_stops(pd.p) == 1);
	/* Reached before the loss, never settled: no times, no call. */
	assert_int_equal(rig_profile_times(prof, pts[4], &t0, &t1), RIG_ELOST);
	assert_why("rig_profile_times: ", "lost before they were settled");
	/* Dropped by the loss. */
	assert_int_equal(rig_profile_times(prof, bad, &t0, &t1), RIG_ELOST);
	assert_why("rig_profile_times: ", "was dropped");
	/* Settled before the loss: its times stay readable. */
	assert_int_equal(rig_profile_times(prof, pts[0], &t0, &t1), 0);
	assert_true(t1 >= t0 && t0 >= ORIGIN_NS);
	assert_int_equal(rig_profile_stop(prof), 0);
	assert_settles_in_order(pd.p, &after);
	assert_int_equal(after, before);
	rig_profile_release(prof);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	polled_close(pd);
}

static const struct rig_counter counters[] = { { "cycles", 1 }, { "lanes", 2 } };

/* Rows of 3 + n words, in part order; NULL once per value, after the last
 * read; a value without a launch has no row and no call. */
static void
measures_rows(void **state)
{
	struct rig_polled_config c = stamped("P-measures");
	struct polled_dev pd;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_buffer *a, *b;
	struct rig_submission *s, *copies;
	struct rig_profile *prof = NULL;
	struct rig_point pts[3], plain;
	const uint32_t one[3] = { 1, 1, 1 };
	uint64_t out[2 * 6 + 1], t0, t1;
	size_t rows = 99;

	(void)state;
	c.counters = counters;
	c.ncounters = 2;
	pd = polled_open(c);
	assert_int_equal(rig_profile_row_words(pd.d), 6);
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	assert_int_equal(rig_image_load(pd.d, "code", 4, &img), 0);
	assert_int_equal(rig_image_function(img, "k", &fn), 0);
	struct rig_part_spec parts[4] = {
		rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(b)),
		rig_part_launch(fn, 0, NULL, 0),
		rig_part_copy(RIG_BUFFER(b), RIG_BUFFER(a)),
		rig_part_launch(fn, 0, NULL, 0),
	};
	assert_int_equal(rig_submission_make(pd.d, parts, 4, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_submission_make(pd.d, parts, 1, NULL, 0, (struct rig_keep){ 0 }, &copies), 0);
	assert_int_equal(rig_profile_start(NULL, 0, 64, &prof), 0);
	for (size_t i = 0; i < 3; i++) {
		struct rig_run *r;

		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_run_store(r, 1, one, one, NULL, 0), 0);
		assert_int_equal(rig_run_store(r, 3, one, one, NULL, 0), 0);
		assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &pts[i]), 0);
	}
	plain = run_once(copies);
	assert_int_equal(rig_wait(plain, 30 * SECOND_NS), 0);
	assert_int_equal(rig_profile_measures(prof, pts[0], out, 11, &rows), RIG_EINVAL);
	assert_why("rig_profile_measures: ", "2 launches of 6 words each: 12 words, not 11");
	assert_int_equal(rows, 99);
	for (int read = 0; read < 2; read++)
		for (size_t i = 0; i < 3; i++) {
			uint64_t v = pts[i].value;

			out[12] = 0xdead;
			assert_int_equal(rig_profile_measures(prof, pts[i], out, 13, &rows), 0);
			assert_int_equal(rows, 2);
			assert_int_equal(rig_profile_times(prof, pts[i], &t0, &t1), 0);
			for (size_t l = 0; l < 2; l++) {
				uint64_t part = 1 + 2 * l, *row = out + 6 * l;
				uint64_t want[6] = { 1, t0, t1, v * 1000 + part * 10,
						     v * 1000 + part * 10, v * 1000 + part * 10 + 1 };

				for (size_t w = 0; w < 6; w++)
					if (row[w] != want[w])
						fail_msg("value %llu row %zu word %zu: %llu, expected %llu",
							 (unsigned long long)v, l, w,
							 (unsigned long long)row[w],
							 (unsigned long long)want[w]);
			}
			assert_int_equal(out[12], 0xdead);	/* nothing past the rows */
		}
	assert_int_equal(rig_profile_measures(prof, plain, out, 13, &rows), 0);
	assert_int_equal(rows, 0);
	assert_int_equal(rig_polled_measures_freed(pd.p), 0);
	rig_profile_release(prof);
	assert_int_equal(rig_polled_measures_freed(pd.p), 3);
	assert_null(rig_lost(pd.d));	/* no call named a freed value */
	rig_submission_release(s);
	rig_submission_release(copies);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

/* Without a stamp function the polled worker stamps the CPU's counter,
 * and settle converts it to host times inside the profile's span. */
static void
host_clock_times(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "P-host" });
	struct rig_profile *prof = NULL;
	struct rig_point pts[8];
	uint64_t t0 = rig_now_ns(), s, e, last = 0;

	(void)state;
	assert_int_equal(rig_profile_start(&pd.d, 1, 8, &prof), 0);
	submit_n(pd.d, pts, 8);
	assert_int_equal(rig_profile_stop(prof), 0);
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(rig_profile_times(prof, pts[i], &s, &e), 0);
		assert_true(s >= t0 && e >= s && s >= last && e <= rig_now_ns());
		last = e;
	}
	{
		size_t calls;

		assert_settles_in_order(pd.p, &calls);
		assert_true(calls >= 1);
	}
	rig_profile_release(prof);
	polled_close(pd);
}

static void
refusals(void **state)
{
	struct polled_dev pd = polled_open(stamped("P-refuse")), other =
		polled_open((struct rig_polled_config){ .name = "P-other" });
	struct rig_profile *prof = NULL, *second = NULL;
	struct rig_device *none[1] = { NULL };
	struct rig_point p, far;
	uint64_t s, e;
	size_t rows;

	(void)state;
	assert_int_equal(rig_profile_start(&pd.d, 1, 8, NULL), RIG_EINVAL);
	assert_why("rig_profile_start: out is NULL");
	assert_int_equal(rig_profile_start(&pd.d, 1, 0, &prof), RIG_EINVAL);
	assert_why("rig_profile_start: a bound of 0 values keeps nothing");
	assert_int_equal(rig_profile_start(&pd.d, 1, (size_t)-3, &prof), RIG_EINVAL);
	assert_why("rig_profile_start: -3 values is negative");
	assert_int_equal(rig_profile_start(none, 1, 8, &prof), RIG_EINVAL);
	assert_why("rig_profile_start: device 0 is NULL");
	assert_int_equal(rig_profile_start(NULL, 1, 8, &prof), RIG_EINVAL);
	assert_why("rig_profile_start: the devices array is NULL");
	assert_null(prof);
	assert_int_equal(rig_profile_start(&pd.d, 1, 8, &prof), 0);
	assert_int_equal(rig_profile_start(&other.d, 1, 8, &second), RIG_EAGAIN);
	assert_why("rig_profile_start: a profile is taken already");
	assert_null(second);
	rig_polled_stall(pd.p, true);
	submit_n(pd.d, &p, 1);
	assert_int_equal(rig_profile_times(prof, p, &s, &e), RIG_EAGAIN);
	assert_why("rig_profile_times: value ", "is not reached yet");
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	assert_int_equal(rig_profile_times(NULL, p, &s, &e), RIG_EINVAL);
	assert_why("rig_profile_times: the profile is NULL");
	assert_int_equal(rig_profile_times(prof, p, NULL, &e), RIG_EINVAL);
	assert_why("rig_profile_times: the start_ns is NULL");
	assert_int_equal(rig_profile_times(prof, (struct rig_point){ 0 }, &s, &e), RIG_EINVAL);
	assert_why("rig_profile_times: the point names no device");
	submit_n(other.d, &far, 1);
	assert_int_equal(rig_wait(far, 30 * SECOND_NS), 0);
	assert_int_equal(rig_profile_times(prof, far, &s, &e), RIG_EINVAL);
	assert_why("rig_profile_times: the profile does not time P-other");
	far = (struct rig_point){ pd.d, p.value - 1 };
	assert_int_equal(rig_profile_times(prof, far, &s, &e), RIG_EINVAL);
	assert_why("rig_profile_times: the profile timed no value");
	assert_int_equal(rig_profile_measures(prof, p, NULL, 0, NULL), RIG_EINVAL);
	assert_why("rig_profile_measures: rows is NULL");
	assert_int_equal(rig_profile_measures(prof, p, NULL, 0, &rows), 0);
	assert_int_equal(rows, 0);	/* P-refuse measures nothing */
	assert_int_equal(rig_profile_write(prof, "/nonexistent-dir/x.json"), RIG_EINVAL);
	assert_why("rig_profile_write: /nonexistent-dir/x.json: No such file or directory");
	assert_int_equal(rig_profile_write(prof, NULL), RIG_EINVAL);
	assert_why("rig_profile_write: the path is NULL");
	assert_int_equal(rig_profile_write_plot(NULL, "x.gp"), RIG_EINVAL);
	assert_why("rig_profile_write_plot: the profile is NULL");
	assert_int_equal(rig_span_end(), RIG_EINVAL);
	assert_why("rig_span_end: no span is open on this thread");
	assert_int_equal(rig_span_begin(NULL), RIG_EINVAL);
	assert_why("rig_span_begin: the name is NULL");
	for (int i = 0; i < 64; i++)
		assert_int_equal(rig_span_begin("deep"), 0);
	assert_int_equal(rig_span_begin("too deep"), RIG_EINVAL);
	assert_why("rig_span_begin: spans nest 64 deep at most on a thread");
	for (int i = 0; i < 64; i++)
		assert_int_equal(rig_span_end(), 0);
	assert_int_equal(rig_profile_stop(prof), 0);
	assert_int_equal(rig_profile_stop(prof), RIG_EINVAL);
	assert_why("rig_profile_stop: the profile is stopped already");
	assert_int_equal(rig_profile_stop(NULL), RIG_EINVAL);
	assert_why("rig_profile_stop: the profile is NULL");
	assert_int_equal(rig_profile_row_words(NULL), 0);
	assert_why("rig_profile_row_words: the device is NULL");
	/* A second profile, once the first stopped; then none. */
	assert_int_equal(rig_profile_start(&other.d, 1, 8, &second), 0);
	rig_profile_release(second);
	rig_profile_release(prof);
	rig_profile_release(NULL);
	polled_close(pd);
	polled_close(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settle_in_value_order),
		cmocka_unit_test(lost_gets_no_settle),
		cmocka_unit_test(measures_rows),
		cmocka_unit_test(host_clock_times),
		cmocka_unit_test(refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
