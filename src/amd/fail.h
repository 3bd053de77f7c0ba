/* SPDX-License-Identifier: MIT */
/*
 * amd/fail.h: how the AMD path refuses a call. It is a driver, so it
 * reaches rig only through rig_edge.h: amd_fail() records "<function>:
 * <cause>" with rig_why_set() (what amd_why() reads) and keeps the same
 * message in this thread's copy, amd_why(), which amd_cause() reads to
 * nest one refusal's cause in another's (amd/cause.c).
 */
#ifndef AMD_FAIL_H
#define AMD_FAIL_H

#include "rig_edge.h"

/* Record "<func>: <cause>" (func NULL: the cause alone) and return code. */
int amd_fail_at(const char *func, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define amd_fail(code, ...) amd_fail_at(__func__, (code), __VA_ARGS__)

/* The message amd_fail_at last recorded on this thread ("" for none). */
const char *amd_why(void);

#endif
