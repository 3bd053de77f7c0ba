/* SPDX-License-Identifier: MIT */
/*
 * tests/host/idle.h: a random pause between two pieces of work, for the
 * tests of the host device's waits (spin.h): none, a yield, or 0.1-0.5 ms,
 * longer than a waiter's spin, so that it falls asleep and the next piece
 * of work must wake it. Shared by test_host_driver.c and test_host_pool.c.
 */
#ifndef TESTS_HOST_IDLE_H
#define TESTS_HOST_IDLE_H

#include <sched.h>
#include <stdlib.h>
#include <time.h>

static inline void
idle_pause(unsigned *seed)
{
	switch (rand_r(seed) % 4) {
	case 0:
		break;
	case 1:
		sched_yield();
		break;
	default:
		nanosleep(&(struct timespec){ .tv_nsec = 100000 + rand_r(seed) % 400000 }, NULL);
	}
}

#endif
