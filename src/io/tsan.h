/*
 * io/tsan.h: ThreadSanitizer annotations for the hand-offs it cannot see
 * in the disk: io_uring's shared rings (the kernel carries a piece from
 * the loop to the completion it reaps), and liburcu's queue (feed.c),
 * whose code lies in an uninstrumented library. A tsan_release(obj)
 * before the hand-off pairs with a tsan_acquire(obj) after it. Nothing
 * outside a TSan build.
 */
#ifndef IO_TSAN_H
#define IO_TSAN_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DISK_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define DISK_TSAN 1
#endif
#ifdef DISK_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(a)	__tsan_acquire(a)
#define tsan_release(a)	__tsan_release(a)
#else
#define tsan_acquire(a)	((void)(a))
#define tsan_release(a)	((void)(a))
#endif

#endif
