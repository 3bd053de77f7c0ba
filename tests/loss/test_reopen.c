/* SPDX-License-Identifier: MIT */
/*
 * test_reopen: recovery in the same process. A device is opened, used,
 * made to fault, seen lost, released, and its name opened again, cycle
 * after cycle; the process's fds, threads and rig's word slots stay flat
 * (and the sanitizer builds find no leak). Cycles: argv[1], default 10000.
 */
#include "loss.h"

static unsigned cycles = 10000;

static void
cycle(struct rig_polled *p)
{
	struct rig_device *d = NULL;
	struct rig_buffer *a, *b;
	struct rig_point ok, bad;

	assert_int_equal(rig_open(rig_polled_opener(p), &d), 0);
	assert_null(rig_lost(d));
	a = buffer_new(d, 256);
	b = buffer_new(d, 256);
	assert_int_equal(rig_buffer_copy(a, b, &ok), 0);
	assert_int_equal(rig_wait(ok, 30 * SECOND_NS), 0);
	rig_polled_stall(p, true);
	assert_int_equal(rig_buffer_copy(b, a, &bad), 0);
	rig_polled_fault(p, bad.value, 0);
	rig_polled_stall(p, false);
	assert_int_equal(rig_wait(bad, 30 * SECOND_NS), RIG_ELOST);
	assert_non_null(rig_lost(d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(d);
	assert_false(rig_polled_open(p));
	assert_int_equal(rig_polled_live_regions(p), 0);
	rig_polled_fault(p, 0, 0);
}

static void
test_reopen_leaves_nothing(void **state)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "REOPEN" };
	int fds, threads, slots;
	struct rig_polled *p;

	assert_int_equal(rig_polled_create(&c, &p), 0);
	/* Warm up: the poller thread and its fds start once. */
	for (int i = 0; i < 10; i++)
		cycle(p);
	fds = count_entries("/proc/self/fd");
	threads = count_entries("/proc/self/task");
	slots = timeline_slots_taken();
	for (unsigned i = 0; i < cycles; i++)
		cycle(p);
	assert_int_equal(count_entries("/proc/self/fd"), fds);
	/* A joined thread may still be listed a moment: the kernel wakes its
	 * joiner (the thread id's clear, in exit_mm) before it takes the
	 * thread off /proc/self/task (exit_notify). A thread kept for good
	 * stays past await's 30 s. */
	await(count_entries("/proc/self/task") == threads);
	assert_int_equal(timeline_slots_taken(), slots);
	assert_int_equal(rig_polled_stops(p), cycles + 10);
	assert_int_equal(rig_polled_overlaps(p), 0);
	rig_polled_destroy(p);
	print_message("%u cycles: fds %d, threads %d, slots %d throughout\n",
		      cycles, fds, threads, slots);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reopen_leaves_nothing),
	};

	if (argc > 1)
		cycles = (unsigned)strtoul(argv[1], NULL, 10);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
