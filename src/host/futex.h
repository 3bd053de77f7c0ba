/*
 * host/futex.h: sleeping on a 32-bit word until another thread changes it,
 * and the brief spin before such a sleep. The pool (pool.c) and the device
 * thread (exec.c) wait with these; each caller pairs its own orders.
 */
#ifndef HOST_FUTEX_H
#define HOST_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How long a waiter spins before it sleeps: about a wake-up's cost. */
#define HOST_SPIN_NS	50000u

/* Sleep while *word == expected (or until a spurious wake-up). */
static inline void
host_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

/* Wake every thread sleeping on word. */
static inline void
host_futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void
host_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * One step of a spin: pause for the first HOST_SPIN_PAUSES steps, then
 * yield, so a thread that shares this core (the one that would end the
 * wait) runs instead of waiting out the spin.
 */
#define HOST_SPIN_PAUSES	256u

static inline void
host_backoff(unsigned step)
{
	if (step < HOST_SPIN_PAUSES)
		host_relax();
	else
		sched_yield();
}

/* CLOCK_MONOTONIC in nanoseconds, the clock rig_now_ns() reads. */
static inline uint64_t
host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
