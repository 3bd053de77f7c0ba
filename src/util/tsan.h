/* SPDX-License-Identifier: MIT */
/*
 * util/tsan.h: ThreadSanitizer annotations for the hand-offs it cannot
 * see: Concurrency Kit's inline asm (a spin lock, a stack), liburcu's
 * uninstrumented code (the disk's queue, RCU), and io_uring's shared rings
 * (the kernel carries a piece from the disk's loop to the completion it
 * reaps). A tsan_release(obj) before the hand-off pairs with a
 * tsan_acquire(obj) after it. RIG_TSAN is defined in a TSan build;
 * nothing here costs anything outside one.
 */
#ifndef UTIL_TSAN_H
#define UTIL_TSAN_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RIG_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define RIG_TSAN 1
#endif
#ifdef RIG_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(a)	__tsan_acquire(a)
#define tsan_release(a)	__tsan_release(a)
#else
#define tsan_acquire(a)	((void)(a))
#define tsan_release(a)	((void)(a))
#endif

#endif
