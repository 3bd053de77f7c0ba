/* SPDX-License-Identifier: MIT */
/*
 * core/error.h: the calling thread's failure message and the one way to set
 * it. Every refusal in rig goes through rig_fail(), so every message reads
 * "<function>: <cause>".
 */
#ifndef CORE_ERROR_H
#define CORE_ERROR_H

#include <stdarg.h>

/* Record "<func>: <cause>" for rig_why() and return code (negative). */
int rig_fail_at(const char *func, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define rig_fail(code, ...) rig_fail_at(__func__, (code), __VA_ARGS__)
/* Record only the cause: an inner function whose public caller names
 * itself with rig_fail_keep(). */
#define rig_cause(code, ...) rig_fail_at(NULL, (code), __VA_ARGS__)

/* Keep the message an inner call already recorded, naming the outer call. */
int rig_fail_keep(const char *func, int code);

/*
 * Callback depth of this thread: rig runs a driver's make, a fill or a place
 * function with it raised, and every function that takes a lock refuses a
 * call while it is non-zero.
 */
void callback_enter(void);
void callback_leave(void);
int callback_depth(void);
/* RIG_EINVAL naming func if this thread is inside a callback of rig's. */
int callback_refuse(const char *func);

#endif
