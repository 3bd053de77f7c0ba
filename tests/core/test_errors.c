/* SPDX-License-Identifier: MIT */
/*
 * test_errors: every failure's message names the function and the cause,
 * and belongs to the thread that failed.
 */
#include <pthread.h>

#include "common.h"

static void
test_messages_name_function_and_cause(void **state)
{
	struct rig_device *m;
	struct rig_buffer *b = NULL, *v;

	assert_string_equal(rig_why(), "");
	assert_int_equal(rig_memory_device("E", &m), 0);
	assert_int_equal(rig_buffer_create(NULL, 8, RIG_MEMORY_DEVICE, &b), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_create: the device is NULL");
	assert_int_equal(rig_buffer_create(m, 8, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_view(NULL, 0, 0, RIG_READ_ONLY, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: the buffer is NULL");
	assert_int_equal(rig_buffer_view(b, 0, 8, (enum rig_access)7, &v), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_view: 7 is no access");
	assert_int_equal(rig_buffer_write(b, 0, NULL, 8), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_buffer_write: the host memory is NULL");
	assert_int_equal(rig_close(NULL), RIG_EINVAL);
	assert_string_equal(rig_why(), "rig_close: the device is NULL");
	/* A success leaves the last failure's message alone. */
	assert_int_equal(rig_buffer_write(b, 0, "12345678", 8), 0);
	assert_string_equal(rig_why(), "rig_close: the device is NULL");
	rig_buffer_release(b);
	rig_device_release(m);
}

static void *
fail_in_thread(void *arg)
{
	struct rig_buffer *b;

	rig_buffer_create(NULL, 1, RIG_MEMORY_DEVICE, &b);
	return strdup(rig_why());
}

static void
test_messages_are_per_thread(void **state)
{
	pthread_t t;
	char *theirs;

	assert_int_equal(rig_wait((struct rig_point){ 0 }, 0), RIG_EINVAL);
	assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
	pthread_join(t, (void **)&theirs);
	assert_string_equal(theirs, "rig_buffer_create: the device is NULL");
	assert_string_equal(rig_why(), "rig_wait: the point names no device");
	free(theirs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages_name_function_and_cause),
		cmocka_unit_test(test_messages_are_per_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
