/* SPDX-License-Identifier: MIT */
/*
 * test_poller: the polling thread (docs/threads.md). With nobody waiting
 * it sleeps: it does not wake while the process idles. It returns released
 * memory once its work completes, with no call of the program's to drive
 * it. A driver's interrupt source wakes it (the fault tests lose devices
 * through one); here a device whose word moves wakes its waiter.
 */
#include <stdio.h>
#include <sys/types.h>

#include "loss.h"

/* The poller thread's voluntary context switches, or -1 if none runs. */
static long
poller_switches(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	long n = -1;

	assert_non_null(d);
	while (n < 0 && (e = readdir(d))) {
		char path[300], name[32] = "", line[128];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (!fgets(name, sizeof(name), f) || strncmp(name, "rig-poller", 10)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
				break;
		fclose(f);
	}
	closedir(d);
	return n;
}

static void
test_idle_poller_sleeps(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "PO1" });
	struct rig_buffer *a = buffer_new(pd.d, 64), *b = buffer_new(pd.d, 64);
	struct rig_point p;
	long before, after;

	/* A wait long enough to sleep starts the poller. */
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	assert_int_equal(rig_wait(p, 5 * MS_NS), RIG_ETIMEDOUT);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	await(poller_switches() >= 0);
	sleep_ms(50);			/* it finishes what it was at */
	before = poller_switches();
	sleep_ms(300);
	after = poller_switches();
	/* Awake every 1 to 200 us it would switch thousands of times. */
	if (after - before > 2)
		fail_msg("the idle poller woke %ld times in 300 ms", after - before);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

/*
 * Released memory that the next allocation reuses: the limbo fills and
 * empties with every round, and the poller is cued once for the stream
 * (reclaim/limbo.h, watching). Once the stream ends and what it left went
 * back, the poller sleeps again: an idle process spends no CPU.
 */
static void
test_poller_sleeps_after_reuse(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "PO3" });
	struct rig_buffer *src = buffer_new(pd.d, 4096), *b;
	struct rig_point p = { 0 };
	long before, after;

	for (int i = 0; i < 2000; i++) {
		assert_int_equal(rig_buffer_create(pd.d, 4096, RIG_MEMORY_DEVICE, &b), 0);
		assert_int_equal(rig_buffer_copy(src, b, &p), 0);
		rig_buffer_release(b);
	}
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	/* What was kept for reuse goes back once idle LIMBO_AGE_NS (2 ms). */
	await(rig_allocated(pd.d) == 4096);
	await(poller_switches() >= 0);
	sleep_ms(50);			/* it finishes what it was at */
	before = poller_switches();
	sleep_ms(300);
	after = poller_switches();
	/* Cued every 1 ms for a limbo still watched, it would switch ~300
	 * times. */
	if (after - before > 2)
		fail_msg("the poller woke %ld times in 300 ms after the stream", after - before);
	rig_buffer_release(src);
	polled_close(pd);
}

static void
test_released_memory_returns_by_itself(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "PO2" });
	struct rig_buffer *a = buffer_new(pd.d, 4096), *b = buffer_new(pd.d, 4096);
	struct rig_point p;

	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	rig_buffer_release(b);		/* its copy is in flight: it waits */
	assert_int_equal(rig_polled_live_regions(pd.p), 2);
	assert_int_equal(rig_allocated(pd.d), 8192);
	rig_polled_stall(pd.p, false);
	/* No call of ours from here: the poller sees the word move. */
	/* The region goes back, then its bytes leave the count: both. */
	await(rig_polled_live_regions(pd.p) == 1 && rig_allocated(pd.d) == 4096);
	assert_true(rig_reached(p));
	rig_buffer_release(a);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_poller_sleeps),
		cmocka_unit_test(test_released_memory_returns_by_itself),
		cmocka_unit_test(test_poller_sleeps_after_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
