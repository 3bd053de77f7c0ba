/* SPDX-License-Identifier: MIT */
/*
 * log_prog: what test_log.py runs with RIG_LOG set. It opens a memory
 * device (an open), has a polled device refuse its make (a refused open),
 * faults a polled device's value (a loss with its culprit), closes a
 * device (a deliberate end), makes an allocation wait 30 ms for released
 * memory's work (a reclaim stall), and asks for more than a budget (out of
 * memory). It prints nothing itself on stderr; rig's log lines are all
 * there is. Exit 0 when every call answered as expected.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "rig.h"
#include "rig_polled.h"

#define SECOND_NS 1000000000ull
#define CHECK(c) do { if (!(c)) { printf("log_prog: %s failed: %s\n", #c, rig_why()); return 1; } } while (0)

static struct rig_polled *
polled(const char *name, uint64_t budget)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = name, .budget = budget };
	struct rig_polled *p = NULL;

	rig_polled_create(&c, &p);
	return p;
}

static void *
unstall(void *p)
{
	/* Well past the 10 ms a reclaim wait is logged after, so the log line
	 * comes even when this process is descheduled between pthread_create
	 * and the wait (30 ms was not enough once under ASan at load 20). */
	struct timespec t = { 0, 200 * 1000 * 1000 };

	nanosleep(&t, NULL);
	rig_polled_stall(p, false);
	return NULL;
}

int
main(void)
{
	struct rig_polled *refuse = polled("LOG-REFUSED", 0), *faulty = polled("LOG-FAULTY", 0);
	struct rig_polled *tight = polled("LOG-TIGHT", 8192);
	struct rig_device *m, *d, *t;
	struct rig_buffer *a, *b, *c;
	struct rig_point p;
	pthread_t th;

	CHECK(rig_memory_device("LOG-M", &m) == 0);
	rig_polled_fail(refuse, "make");
	CHECK(rig_open(rig_polled_opener(refuse), &d) < 0);

	CHECK(rig_open(rig_polled_opener(faulty), &d) == 0);
	CHECK(rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &a) == 0);
	CHECK(rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &b) == 0);
	CHECK(rig_buffer_copy(a, b, &p) == 0);
	rig_polled_fault(faulty, p.value + 1, 0);
	CHECK(rig_buffer_copy(b, a, &p) == 0);
	CHECK(rig_wait(p, 5 * SECOND_NS) == RIG_ELOST);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(d);

	/* A budget of 8 KiB: the second 8 KiB buffer waits for the first's
	 * copy, which the stalled worker runs 200 ms later. */
	CHECK(rig_open(rig_polled_opener(tight), &t) == 0);
	CHECK(rig_buffer_create(t, 8192, RIG_MEMORY_DEVICE, &a) == 0);
	rig_polled_stall(tight, true);
	CHECK(rig_buffer_view(a, 0, 4096, RIG_READ_WRITE, &b) == 0);
	CHECK(rig_buffer_view(a, 4096, 4096, RIG_READ_WRITE, &c) == 0);
	CHECK(rig_buffer_copy(b, c, &p) == 0);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(a);
	pthread_create(&th, NULL, unstall, tight);
	CHECK(rig_buffer_create(t, 8192, RIG_MEMORY_DEVICE, &a) == 0);
	pthread_join(th, NULL);
	CHECK(rig_buffer_create(t, 8192, RIG_MEMORY_DEVICE, &b) == RIG_ENOMEM);
	rig_buffer_release(a);
	CHECK(rig_close(t) == 0);
	rig_device_release(t);
	rig_device_release(m);
	rig_polled_destroy(refuse);
	rig_polled_destroy(faulty);
	rig_polled_destroy(tight);
	printf("log_prog: ok\n");
	return 0;
}
