/*
 * tests/host/test_host_open.c: the host device end to end through rig's
 * public calls: rig_open(&host_opener) accepts its facts, its buffers are
 * host memory, copies run on its copy queue in the order rig gives them,
 * waits return once its word shows their value, and close stops it.
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

	check(rig_open(&host_opener, &d), "rig_open");
	assert_string_equal(rig_name(d), "HOST");
	check(rig_open(&host_opener, &again), "rig_open again");
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_copy_close),
	};

	return cmocka_run_group_tests_name("test_host_open", tests, NULL, NULL);
}
