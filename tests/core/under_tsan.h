/* SPDX-License-Identifier: MIT */
/*
 * tests/core/under_tsan.h: UNDER_TSAN, 1 in a ThreadSanitizer build (gcc's
 * macro, or clang's feature test): tests that time or count what TSan
 * slows or intercepts ask it. Its own header for tests that do not take
 * common.h (they test rig's internals without the public API's helpers).
 */
#ifndef TESTS_CORE_UNDER_TSAN_H
#define TESTS_CORE_UNDER_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#endif
