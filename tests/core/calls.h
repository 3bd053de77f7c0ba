/* SPDX-License-Identifier: MIT */
/*
 * tests/core/calls.h: count, on the thread that sets counting, every
 * malloc, calloc, realloc and pthread_mutex_lock that rig makes: the
 * fast-path tests' check that a path allocates nothing and takes no mutex.
 * The counters interpose the functions in the test's executable, which
 * librig's calls resolve to first. A sanitizer's runtime interposes them
 * too, so under ASan or TSan nothing is defined here but SANITIZED, and
 * the test skips what it counts. Include it in one file of a program.
 */
#ifndef TESTS_CALLS_H
#define TESTS_CALLS_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
static _Thread_local bool counting;
static _Thread_local unsigned long allocs, locks;

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);

void *
malloc(size_t n)
{
	allocs += counting;
	return __libc_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
	allocs += counting;
	return __libc_calloc(n, size);
}

void *
realloc(void *p, size_t n)
{
	allocs += counting;
	return __libc_realloc(p, n);
}

static int (*real_lock)(pthread_mutex_t *);

int
pthread_mutex_lock(pthread_mutex_t *m)
{
	locks += counting;
	if (!real_lock)		/* a call before main */
		real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
	return real_lock(m);
}
#endif

#endif
