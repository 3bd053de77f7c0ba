/* SPDX-License-Identifier: MIT */
/*
 * rig_base.h - what programs (rig.h) and drivers (rig_edge.h) share: the
 * kinds of a device's memory, a fill's C function, the host clock, and
 * the version of rig. Plain C11 and C++: no atomics, no compound literals
 * a C++ compiler refuses. Both rig.h and rig_edge.h include it; a program
 * need not include it itself.
 */
#ifndef RIG_BASE_H
#define RIG_BASE_H

#include <stdint.h>

/*
 * The version of rig these headers are, kept in step with meson.build's
 * project version (tests/core/test_version.c checks both, and that
 * rig_version() answers the same).
 */
#define RIG_VERSION_MAJOR	0
#define RIG_VERSION_MINOR	1
#define RIG_VERSION_PATCH	0

/* A struct rig_<tag> made of braces in a macro: a compound literal in C,
 * the same aggregate initialised in C++ (which has no compound literals). */
#ifdef __cplusplus
#define RIG_LITERAL(tag)	tag
#else
#define RIG_LITERAL(tag)	(struct tag)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of a device's memory. */
enum rig_memory {
	RIG_MEMORY_DEVICE = 1,	/* the device's own memory */
	RIG_MEMORY_PINNED,	/* page-locked host memory the device's work and the host address */
	RIG_MEMORY_MAPPED,	/* device memory the host also addresses through a window */
};

/* A fill: submit calls fn(queue context, arg, value); fn returns 0, or
 * another value for a failure, which loses the device. arg is valid only
 * during the call. */
typedef int (*rig_fill_fn)(void *queue_ctx, void *arg, uint64_t value);

/* The host clock, CLOCK_MONOTONIC in nanoseconds. Never blocks. */
uint64_t rig_now_ns(void);

/*
 * rig_version() - the version of the librig the program runs with, such
 * as "0.1.0": RIG_VERSION_MAJOR.MINOR.PATCH of the headers it was built
 * from, which may be newer than the headers the program was compiled
 * with. Never blocks. Any thread.
 */
const char *rig_version(void);

#ifdef __cplusplus
}
#endif
#endif /* RIG_BASE_H */
