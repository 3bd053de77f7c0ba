/* SPDX-License-Identifier: MIT */
/*
 * util/futex.h: the two futex calls rig sleeps and wakes with (a short
 * spin's pause is Concurrency Kit's ck_pr_stall()). Private (FUTEX_PRIVATE_FLAG): rig's words are never
 * shared between processes.
 */
#ifndef UTIL_FUTEX_H
#define UTIL_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while *addr == expected, at most timeout_ns (UINT64_MAX: no limit). */
static inline void
futex_wait(_Atomic uint32_t *addr, uint32_t expected, uint64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;

	if (timeout_ns != UINT64_MAX) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
		ts.tv_nsec = (long)(timeout_ns % 1000000000u);
		tp = &ts;
	}
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, tp,
		NULL, 0);
}

/* Wake every thread sleeping on addr. */
static inline void
futex_wake_all(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
		NULL, 0);
}

#endif
