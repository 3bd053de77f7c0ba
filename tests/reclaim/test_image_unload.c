/* SPDX-License-Identifier: MIT */
/*
 * test_image_unload: an image unloads only once the work submitted before
 * its release is done; a device's end unloads what is left.
 */
#include <time.h>

#include "../core/common.h"

static void
test_unloads_after_its_work(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "IU" });
	struct rig_buffer *b = buffer_new(pd.d, 64);
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part;
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;
	const uint32_t one[3] = { 1, 1, 1 };

	assert_int_equal(rig_image_load(pd.d, "code", 4, &img), 0);
	assert_int_equal(rig_image_function(img, "k", &fn), 0);
	part = rig_part_launch(fn, 8, &ref, 1);
	assert_int_equal(rig_submission_make(pd.d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, one, one, NULL, 0), 0);
	assert_int_equal(rig_submit(r, &b, 1, NULL, 0, &p), 0);
	rig_image_release(img);
	rig_submission_release(s);
	assert_int_equal(rig_polled_live_images(pd.p), 1);	/* its work is stalled */
	/* The submission thread has handed the work over, but the image
	 * stays until it ran. */
	for (int i = 0; i < 100 && rig_polled_submits(pd.p) < 1; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_int_equal(rig_polled_live_images(pd.p), 1);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	/* The wait, or the submission thread if it comes later, lets it go
	 * (30 s: a bound only a hung rig reaches, not a loaded machine's
	 * pause before that thread's next turn). */
	for (int i = 0; i < 30000 && rig_polled_live_images(pd.p); i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	assert_int_equal(rig_polled_live_images(pd.p), 0);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_device_end_unloads(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "IU2" });
	struct rig_image *img;

	assert_int_equal(rig_image_load(pd.d, "code", 4, &img), 0);
	assert_int_equal(rig_polled_live_images(pd.p), 1);
	assert_int_equal(rig_close(pd.d), 0);
	assert_int_equal(rig_polled_live_images(pd.p), 0);
	rig_image_release(img);		/* after the end: nothing to unload */
	rig_device_release(pd.d);
	rig_polled_destroy(pd.p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unloads_after_its_work),
		cmocka_unit_test(test_device_end_unloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
