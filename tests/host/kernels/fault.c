/* SPDX-License-Identifier: MIT */
/*
 * fault: kernels that fault as real kernels do, on the group `bad` of
 * their grid (every other group writes out[g] = g + 1): a store through
 * NULL, an integer division by zero, an illegal instruction, a stack
 * overflow; one that never returns until *release is set (a hang); and
 * stamp, whose group 0 takes the next value of a counter (the order in
 * which launches of several devices ran).
 */
#include <stdint.h>

#include "rig_host.h"

struct fault_params {
	int64_t *out;
	int64_t bad;
	int64_t zero;			/* 0, read at run time */
	volatile int64_t *release;	/* spin: returns once it is non-zero */
	int64_t *counter;		/* stamp: group 0 takes its next value */
};

static int64_t
run(const struct fault_params *p, int64_t g)
{
	p->out[g] = g + 1;
	return g == p->bad;
}

RIG_HOST_KERNEL void
null_write(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;

	for (; first < end; first++)
		if (run(p, first))
			*(volatile int64_t *)(uintptr_t)p->zero = 1;
}

RIG_HOST_KERNEL void
divide(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;
	volatile int64_t d = p->zero;

	for (; first < end; first++)
		if (run(p, first))
			p->out[first] = first / d;
}

RIG_HOST_KERNEL void
illegal(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;

	for (; first < end; first++)
		if (run(p, first))
			__builtin_trap();
}

static int64_t __attribute__((noinline))
deep(volatile int64_t *n)
{
	volatile char pad[256];

	pad[0] = (char)*n;
	*n += 1;
	return deep(n) + pad[0];
}

RIG_HOST_KERNEL void
overflow(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;
	volatile int64_t n = 0;

	for (; first < end; first++)
		if (run(p, first))
			p->out[first] = deep(&n);
}

RIG_HOST_KERNEL void
spin(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;

	for (; first < end; first++)
		if (run(p, first))
			while (!*p->release)
				;
}

RIG_HOST_KERNEL void
fine(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;

	for (; first < end; first++)
		run(p, first);
}

RIG_HOST_KERNEL void
stamp(const void *params, int64_t first, int64_t end)
{
	const struct fault_params *p = params;

	for (; first < end; first++)
		p->out[first] = first ? first + 1 : __atomic_add_fetch(p->counter, 1, __ATOMIC_SEQ_CST);
}
