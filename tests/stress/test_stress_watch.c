/* SPDX-License-Identifier: MIT */
/*
 * test_stress_watch: many threads wait over sets of points at once
 * (rig_wait_any, rig_wait_all, rig_point_fd) while the polling thread fires
 * and retires their watches (timeline/fd.c). Each thread owns buffers on
 * two polled devices and, round after round, copies on both, then waits:
 *  - any: the index it answers is reached;
 *  - all: both are reached;
 *  - fd: once readable, both are signaled and rig_wait_all(.., 0) is 0;
 *  - a wait of 1 us that may time out (its watch is cancelled while the
 *    poller may be firing it), or an fd closed before it fires.
 * The last device's close must leave no waiter counted and no region held.
 *
 * Usage: test_stress_watch [threads] [seconds] (defaults 6, 5). Threads
 * start at a barrier; the first violation stops the run with a message.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rig.h"
#include "rig_polled.h"

#define SECOND_NS 1000000000ull

static struct rig_device *devices[2];
static struct rig_polled *polled[2];
static pthread_barrier_t start;
static _Atomic bool stop, failed;
static _Atomic uint64_t rounds, fires;
static uint64_t deadline_ns;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (rig_why: %s)\n", rig_why());		\
		atomic_store(&failed, true);				\
		atomic_store(&stop, true);				\
		return NULL;						\
	}								\
} while (0)

static void *
worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	struct rig_buffer *b[2][2];

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			if (rig_buffer_create(devices[i], 64, RIG_MEMORY_DEVICE, &b[i][k])) {
				fprintf(stderr, "create: %s\n", rig_why());
				atomic_store(&failed, true);
				return NULL;
			}
	pthread_barrier_wait(&start);
	while (!atomic_load(&stop)) {
		struct rig_point p[2];
		struct pollfd pf;
		size_t i = 9;
		int ret, fd;

		for (int d = 0; d < 2; d++)
			CHECK(rig_buffer_copy(b[d][0], b[d][1], &p[d]) == 0, "copy");
		switch (rand_r(&seed) % 5) {
		case 0:
			ret = rig_wait_any(p, 2, UINT64_MAX, &i);
			CHECK(ret == 0 && i < 2 && rig_reached(p[i]),
			      "any: %d, index %zu", ret, i);
			break;
		case 1:
			ret = rig_wait_all(p, 2, UINT64_MAX);
			CHECK(ret == 0 && rig_reached(p[0]) && rig_reached(p[1]), "all: %d", ret);
			break;
		case 2:
			CHECK(rig_point_fd(p, 2, &fd) == 0, "fd");
			pf = (struct pollfd){ .fd = fd, .events = POLLIN };
			CHECK(poll(&pf, 1, -1) == 1, "fd not readable");
			CHECK(rig_signaled(p[0]) && rig_signaled(p[1]),
			      "fd readable before its points were signaled");
			CHECK(rig_wait_all(p, 2, 0) == 0, "all after fd");
			close(fd);
			atomic_fetch_add(&fires, 1);
			break;
		case 3:
			ret = rig_wait_any(p, 2, 1000, &i);
			CHECK(ret == 0 || ret == RIG_ETIMEDOUT, "any 1 us: %d", ret);
			CHECK(ret || rig_reached(p[i]), "any 1 us: not reached");
			break;
		default:
			CHECK(rig_point_fd(p, 2, &fd) == 0, "fd");
			close(fd);	/* closed before it fires */
			break;
		}
		atomic_fetch_add(&rounds, 1);
		if (rig_now_ns() > deadline_ns)
			atomic_store(&stop, true);
	}
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < 2; k++)
			rig_buffer_release(b[d][k]);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 6;
	int seconds = argc > 2 ? atoi(argv[2]) : 5;
	pthread_t t[n];

	for (int i = 0; i < 2; i++) {
		struct rig_polled_config c = { .size = sizeof(c), .lag = i ? 5 : 1000,
					       .name = i ? "WATCH-B" : "WATCH-A" };

		if (rig_polled_create(&c, &polled[i]) ||
		    rig_open(rig_polled_opener(polled[i]), &devices[i])) {
			fprintf(stderr, "open: %s\n", rig_why());
			return 1;
		}
	}
	deadline_ns = rig_now_ns() + (uint64_t)seconds * SECOND_NS;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		rig_close(devices[i]);
		rig_device_release(devices[i]);
		if (rig_polled_live_regions(polled[i])) {
			fprintf(stderr, "polled %d holds regions after close\n", i);
			atomic_store(&failed, true);
		}
		rig_polled_destroy(polled[i]);
	}
	printf("%llu rounds, %llu fds fired, %s\n", (unsigned long long)rounds,
	       (unsigned long long)fires, failed ? "FAILED" : "ok");
	return failed || !rounds || !fires;
}
