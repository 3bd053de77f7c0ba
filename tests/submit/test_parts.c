/* SPDX-License-Identifier: MIT */
/*
 * test_parts: every refusal of docs/submissions.md (parts, refs, make, runs, submit),
 * one test each, with its message, and nothing changed: the device ran
 * nothing and holds no more memory than before.
 */
#include "../core/common.h"

static struct polled_dev pd;
static struct rig_device *other;
static struct rig_image *img;
static struct rig_function *fn, *fn16, *other_fn;
static struct rig_buffer *a, *b, *small, *ro, *dead, *on_other;
static struct rig_submission *s;
static struct rig_polled *gone_p;	/* the driver of a closed device */

static int
fill_nothing(void *ctx, void *arg, uint64_t value)
{
	return 0;
}

static int
setup(void **state)
{
	struct rig_image *oimg;
	struct polled_dev gone;

	pd = polled_open((struct rig_polled_config){ .name = "P" });
	assert_int_equal(rig_memory_device("M-parts", &other), 0);
	assert_int_equal(rig_image_load(pd.d, "code", 4, &img), 0);
	assert_int_equal(rig_image_function(img, "k", &fn), 0);
	assert_int_equal(rig_image_function(img, "k16/16/64", &fn16), 0);
	gone = polled_open((struct rig_polled_config){ .name = "P-other" });
	assert_int_equal(rig_image_load(gone.d, "code", 4, &oimg), 0);
	assert_int_equal(rig_image_function(oimg, "k", &other_fn), 0);
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	small = buffer_new(pd.d, 6);
	assert_int_equal(rig_buffer_view(b, 0, 64, RIG_READ_ONLY, &ro), 0);
	dead = buffer_new(gone.d, 64);
	on_other = buffer_new(other, 64);
	assert_int_equal(rig_close(gone.d), 0);		/* dead is dead */
	rig_device_release(gone.d);
	gone_p = gone.p;
	*state = oimg;
	return 0;
}

static int
teardown(void **state)
{
	rig_image_release(*state);
	rig_polled_destroy(gone_p);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(small);
	rig_buffer_release(ro);
	rig_buffer_release(dead);
	rig_buffer_release(on_other);
	rig_image_release(img);
	rig_device_release(other);
	polled_close(pd);
	return 0;
}

/* Make must refuse with a message containing why; nothing is left. */
static void
refuse_make(const struct rig_part_spec *parts, size_t n,
	    const struct rig_fixed *fixed, size_t nfixed, const char *why)
{
	int64_t regions = rig_polled_live_regions(pd.p);

	s = NULL;
	assert_int_equal(rig_submission_make(pd.d, parts, n, fixed, nfixed,
					     (struct rig_keep){ 0 }, &s), RIG_EINVAL);
	assert_null(s);
	assert_why("rig_submission_make: ", why);
	assert_int_equal(rig_polled_live_regions(pd.p), regions);
	assert_int_equal(rig_polled_submits(pd.p), 0);
}

#define REFUSE1(part, why) do {					\
	struct rig_part_spec p_[] = { part };			\
	refuse_make(p_, 1, NULL, 0, why);			\
} while (0)

static void copy_one_slot(void **st) {
	REFUSE1(rig_part_copy(RIG_SLOT(2), RIG_SLOT(2)), "part 0 (copy): src and dst are one slot (2)");
}
static void copy_negative_slot(void **st) {
	REFUSE1(rig_part_copy(RIG_SLOT(-1), RIG_SLOT(0)), "part 0 (copy): src names slot -1, which is negative");
}
static void copy_dead_end(void **st) {
	REFUSE1(rig_part_copy(RIG_BUFFER(dead), RIG_SLOT(0)), "part 0 (copy): src is dead: closed");
}
static void copy_read_only_dst(void **st) {
	REFUSE1(rig_part_copy(RIG_SLOT(0), RIG_BUFFER(ro)), "part 0 (copy): dst admits only reads");
}
static void copy_lengths_differ(void **st) {
	REFUSE1(rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(small)), "part 0 (copy): src has 64 bytes and dst 6");
}
static void copy_shares_a_byte(void **st) {
	struct rig_buffer *x, *y;

	assert_int_equal(rig_buffer_view(a, 0, 8, RIG_READ_WRITE, &x), 0);
	assert_int_equal(rig_buffer_view(a, 7, 8, RIG_READ_WRITE, &y), 0);
	REFUSE1(rig_part_copy(RIG_BUFFER(x), RIG_BUFFER(y)), "part 0 (copy): src and dst share a byte");
	rig_buffer_release(x);
	rig_buffer_release(y);
}
static void copy_on_another_device(void **st) {
	REFUSE1(rig_part_copy(RIG_BUFFER(on_other), RIG_SLOT(0)), "part 0 (copy): src lies on M-parts, not P");
}
static void launch_params_negative(void **st) {
	REFUSE1(rig_part_launch(fn, -8, NULL, 0), "part 0 (launch): -8 params bytes is negative");
}
static void launch_params_too_many(void **st) {
	REFUSE1(rig_part_launch(fn, 1ll << 31, NULL, 0), "part 0 (launch): 2147483648 params bytes is above 2^31 - 32");
}
static void launch_params_fewer_than_read(void **st) {
	REFUSE1(rig_part_launch(fn16, 8, NULL, 0), "part 0 (launch): 8 params bytes, fewer than the 16 its function reads");
}
static void launch_refs_share_at(void **st) {
	struct rig_ref r[] = { RIG_READ(0, 8), RIG_WRITE(1, 8) };
	REFUSE1(rig_part_launch(fn, 16, r, 2), "part 0 (launch): refs 0 and 1 share at 8");
}
static void launch_ref_past_params(void **st) {
	struct rig_ref r[] = { RIG_READ(0, 16) };
	REFUSE1(rig_part_launch(fn, 16, r, 1), "part 0 (launch): ref 0's 8 bytes at 16 lie past the part's 16 params bytes");
}
static void launch_ref_past_function(void **st) {
	struct rig_ref r[] = { RIG_READ(0, 16) };
	REFUSE1(rig_part_launch(fn16, 32, r, 1), "part 0 (launch): ref 0's 8 bytes at 16 lie past the 16 bytes its function reads");
}
static void ref_slot_negative(void **st) {
	struct rig_ref r[] = { RIG_READ(-3, 0) };
	REFUSE1(rig_part_launch(fn, 8, r, 1), "part 0 (launch): ref 0 names slot -3, which is negative");
}
static void ref_at_negative(void **st) {
	struct rig_ref r[] = { RIG_ENTRY_REF(fn, -8) };
	REFUSE1(rig_part_launch(fn, 8, r, 1), "part 0 (launch): ref 0 is at -8, which is negative");
}
static void ref_at_unaligned(void **st) {
	struct rig_ref r[] = { RIG_WRITE(0, 4) };
	REFUSE1(rig_part_fill(fill_nothing, 16, r, 1), "part 0 (fill): ref 0 is at 4, no multiple of 8");
}
static void ref_kind_unknown(void **st) {
	struct rig_ref r[] = { { (enum rig_ref_kind)9, 0, 0, NULL } };
	REFUSE1(rig_part_fill(fill_nothing, 16, r, 1), "part 0 (fill): ref 0 has no kind (9)");
}
static void entry_ref_without_function(void **st) {
	struct rig_ref r[] = { RIG_ENTRY_REF(NULL, 0) };
	REFUSE1(rig_part_fill(fill_nothing, 8, r, 1), "part 0 (fill): ref 0 names no function");
}
static void entry_ref_other_device(void **st) {
	struct rig_ref r[] = { RIG_ENTRY_REF(other_fn, 0) };
	REFUSE1(rig_part_fill(fill_nothing, 8, r, 1), "part 0 (fill): ref 0 names a function loaded on P-other, not P");
}
static void launch_function_other_device(void **st) {
	REFUSE1(rig_part_launch(other_fn, 8, NULL, 0), "part 0 (launch): its function is loaded on P-other, not P");
}
static void launch_without_function(void **st) {
	REFUSE1(rig_part_launch(NULL, 8, NULL, 0), "part 0 (launch): it names no function");
}
static void fill_without_function(void **st) {
	REFUSE1(rig_part_fill(NULL, 8, NULL, 0), "part 0 (fill): it names no C function");
}
static void fill_params_negative(void **st) {
	REFUSE1(rig_part_fill(fill_nothing, -1, NULL, 0), "part 0 (fill): -1 params bytes is negative");
}
static void words_dead(void **st) {
	REFUSE1(rig_part_words(dead), "part 0 (words): its buffer is dead: closed");
}
static void words_not_multiple_of_four(void **st) {
	REFUSE1(rig_part_words(small), "part 0 (words): its 6 bytes are no multiple of 4");
}
static void words_unaddressed(void **st) {
	struct polled_dev q = polled_open((struct rig_polled_config){
		.name = "P-noaddr", .no_host_addresses = true });
	struct rig_buffer *w = buffer_new(q.d, 16);

	REFUSE1(rig_part_words(w), "part 0 (words): the host does not address P-noaddr's memory");
	rig_buffer_release(w);
	polled_close(q);
}
static void part_kind_unknown(void **st) {
	struct rig_part_spec p = { .kind = (enum rig_part_kind)7 };
	REFUSE1(p, "part 0 has no kind (7)");
}
static void later_part_named(void **st) {
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)),
				     rig_part_copy(RIG_SLOT(1), RIG_SLOT(1)) };
	refuse_make(p, 2, NULL, 0, "part 1 (copy): src and dst are one slot (1)");
}
static void fixed_read_write_of_read_only(void **st) {
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)) };
	struct rig_fixed f[] = { { a, RIG_READ_ONLY }, { ro, RIG_READ_WRITE } };
	refuse_make(p, 1, f, 2, "fixed 1 is fixed read-write but admits only reads");
}
static void fixed_dead(void **st) {
	struct rig_fixed f[] = { { dead, RIG_READ_ONLY } };
	refuse_make(NULL, 0, f, 1, "fixed 0 is dead: closed");
}
static void fixed_on_another_device(void **st) {
	struct rig_fixed f[] = { { on_other, RIG_READ_ONLY } };
	refuse_make(NULL, 0, f, 1, "fixed 0 lies on M-parts, not P");
}
static void no_queue_runs_it(void **st) {
	static const struct rig_queue q[] = { { "COPY:0", RIG_RUNS(RIG_COPY_PART) } };
	struct polled_dev c = polled_open((struct rig_polled_config){
		.name = "P-copy", .queues = q, .nqueues = 1, .copy_engine = 0 });
	struct rig_part_spec p[] = { rig_part_fill(fill_nothing, 8, NULL, 0) };

	assert_int_equal(rig_submission_make(c.d, p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), RIG_EINVAL);
	assert_why("rig_submission_make: part 0 (fill): the device has no queue that runs fills");
	polled_close(c);
}
static void driver_never(void **st) {
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)) };

	assert_int_equal(rig_polled_fail(pd.p, "room"), 0);
	refuse_make(p, 1, NULL, 0, "P never runs these parts (its room answers RIG_NEVER)");
}
static void lost_device(void **st) {
	struct polled_dev q = polled_open((struct rig_polled_config){ .name = "P-lost" });
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)) };

	assert_int_equal(rig_close(q.d), 0);
	assert_int_equal(rig_submission_make(q.d, p, 1, NULL, 0, (struct rig_keep){ 0 }, &s), RIG_ELOST);
	assert_why("rig_submission_make: P-lost is lost: closed");
	rig_device_release(q.d);
	rig_polled_destroy(q.p);
}

/* ---- Runs and submits ---- */

static struct rig_submission *
make(struct rig_part_spec *p, size_t n)
{
	struct rig_submission *m;

	assert_int_equal(rig_submission_make(pd.d, p, n, NULL, 0, (struct rig_keep){ 0 }, &m), 0);
	return m;
}

static void
refuse_submit(struct rig_submission *m, struct rig_buffer **bufs, size_t n,
	      const struct rig_point *waits, size_t nwaits, const char *why)
{
	struct rig_run *r;
	uint64_t before = rig_polled_submits(pd.p);

	assert_int_equal(rig_run_take(m, &r), 0);
	assert_int_equal(rig_submit(r, bufs, n, waits, nwaits, NULL), RIG_EINVAL);
	assert_why("rig_submit: ", why);
	assert_int_equal(rig_polled_submits(pd.p), before);
}

static void submit_refusals(void **st) {
	struct rig_ref r[] = { RIG_WRITE(1, 0) };
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)),
				     rig_part_launch(fn, 8, r, 1) };
	struct rig_submission *m = make(p, 2);
	struct rig_buffer *ok[] = { a, b }, *x, *y;
	struct rig_point nowhere = { NULL, 1 };
	struct rig_run *run;
	const uint32_t one[3] = { 1, 1, 1 };

	assert_int_equal(rig_submission_slots(m), 2);
	refuse_submit(m, ok, 1, NULL, 0, "1 buffers for 2 slots");
	refuse_submit(m, (struct rig_buffer *[]){ a, NULL }, 2, NULL, 0, "slot 1 has no buffer");
	refuse_submit(m, (struct rig_buffer *[]){ dead, b }, 2, NULL, 0, "slot 0's buffer is dead: closed");
	refuse_submit(m, (struct rig_buffer *[]){ on_other, b }, 2, NULL, 0, "slot 0's buffer lies on M-parts, not P");
	refuse_submit(m, (struct rig_buffer *[]){ a, ro }, 2, NULL, 0, "slot 1's buffer admits only reads, and a part writes it");
	refuse_submit(m, (struct rig_buffer *[]){ a, small }, 2, NULL, 0, "part 0 (copy): src has 64 bytes and dst 6");
	assert_int_equal(rig_buffer_view(a, 0, 8, RIG_READ_WRITE, &x), 0);
	assert_int_equal(rig_buffer_view(a, 4, 8, RIG_READ_WRITE, &y), 0);
	refuse_submit(m, (struct rig_buffer *[]){ x, y }, 2, NULL, 0, "part 0 (copy): src and dst share a byte");
	rig_buffer_release(x);
	rig_buffer_release(y);
	refuse_submit(m, ok, 2, NULL, 0, "part 1 (launch): the run holds an empty grid or group");
	assert_int_equal(rig_run_take(m, &run), 0);
	assert_int_equal(rig_run_store(run, 1, one, one, NULL, 0), 0);
	rig_run_release(run);
	refuse_submit(m, ok, 2, &nowhere, 1, "wait 0 names no device");
	/* The lone taker's run kept its block: this submit passes. */
	assert_int_equal(rig_run_take(m, &run), 0);
	assert_int_equal(rig_submit(run, ok, 2, NULL, 0, NULL), 0);
	rig_submission_release(m);
}

static void store_refusals(void **st) {
	struct rig_part_spec p[] = { rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)),
				     rig_part_launch(fn, 8, NULL, 0) };
	struct rig_submission *m = make(p, 2);
	struct rig_run *run;
	const uint32_t one[3] = { 1, 1, 1 }, empty[3] = { 1, 0, 1 };
	char bytes[16] = { 0 };

	assert_int_equal(rig_run_take(m, &run), 0);
	assert_int_equal(rig_run_store(run, 2, one, one, bytes, 8), RIG_EINVAL);
	assert_why("rig_run_store: no part 2 (the submission has 2)");
	assert_int_equal(rig_run_store(run, 0, one, one, bytes, 8), RIG_EINVAL);
	assert_why("rig_run_store: part 0 is no launch or fill: it has no block");
	assert_int_equal(rig_run_store(run, 1, one, one, bytes, 16), RIG_EINVAL);
	assert_why("rig_run_store: 16 bytes for part 1, which has 8 params bytes");
	assert_int_equal(rig_run_store(run, 1, empty, one, bytes, 8), RIG_EINVAL);
	assert_why("rig_run_store: part 1: an empty grid or group");
	assert_null(rig_run_params(run, 0));
	assert_non_null(rig_run_params(run, 1));
	rig_run_release(run);
	rig_submission_release(m);
}

static void address_refusals(void **st) {
	struct rig_fixed f[] = { { a, RIG_READ_ONLY } };
	struct rig_submission *m;
	struct rig_buffer *inside;
	uint64_t at = 0;

	assert_int_equal(rig_submission_make(pd.d, NULL, 0, f, 1, (struct rig_keep){ 0 }, &m), 0);
	assert_int_equal(rig_buffer_view(a, 8, 8, RIG_READ_ONLY, &inside), 0);
	assert_int_equal(rig_submission_address(m, inside, &at), 0);
	assert_int_equal(at, rig_buffer_address(a) + 8);
	assert_int_equal(rig_submission_address(m, b, &at), RIG_EINVAL);
	assert_why("rig_submission_address: no buffer of the submission's fixed memory holds the buffer's bytes");
	assert_int_equal(rig_submission_address(m, dead, &at), RIG_EINVAL);
	assert_why("rig_submission_address: the buffer is dead: closed");
	rig_buffer_release(inside);
	rig_submission_release(m);
}

static void function_refusals(void **st) {
	struct rig_function *f = NULL;

	assert_int_equal(rig_image_function(img, "absent", &f), RIG_EINVAL);
	assert_why("rig_image_function: no function absent");
	assert_null(f);
	assert_int_equal(rig_image_load(other, "x", 1, &img), RIG_EINVAL);
	assert_why("rig_image_load: M-parts loads no code");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_one_slot),
		cmocka_unit_test(copy_negative_slot),
		cmocka_unit_test(copy_dead_end),
		cmocka_unit_test(copy_read_only_dst),
		cmocka_unit_test(copy_lengths_differ),
		cmocka_unit_test(copy_shares_a_byte),
		cmocka_unit_test(copy_on_another_device),
		cmocka_unit_test(launch_params_negative),
		cmocka_unit_test(launch_params_too_many),
		cmocka_unit_test(launch_params_fewer_than_read),
		cmocka_unit_test(launch_refs_share_at),
		cmocka_unit_test(launch_ref_past_params),
		cmocka_unit_test(launch_ref_past_function),
		cmocka_unit_test(ref_slot_negative),
		cmocka_unit_test(ref_at_negative),
		cmocka_unit_test(ref_at_unaligned),
		cmocka_unit_test(ref_kind_unknown),
		cmocka_unit_test(entry_ref_without_function),
		cmocka_unit_test(entry_ref_other_device),
		cmocka_unit_test(launch_function_other_device),
		cmocka_unit_test(launch_without_function),
		cmocka_unit_test(fill_without_function),
		cmocka_unit_test(fill_params_negative),
		cmocka_unit_test(words_dead),
		cmocka_unit_test(words_not_multiple_of_four),
		cmocka_unit_test(words_unaddressed),
		cmocka_unit_test(part_kind_unknown),
		cmocka_unit_test(later_part_named),
		cmocka_unit_test(fixed_read_write_of_read_only),
		cmocka_unit_test(fixed_dead),
		cmocka_unit_test(fixed_on_another_device),
		cmocka_unit_test(no_queue_runs_it),
		cmocka_unit_test(driver_never),
		cmocka_unit_test(lost_device),
		cmocka_unit_test(submit_refusals),
		cmocka_unit_test(store_refusals),
		cmocka_unit_test(address_refusals),
		cmocka_unit_test(function_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
