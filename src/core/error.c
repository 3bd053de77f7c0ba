/* SPDX-License-Identifier: MIT */
/*
 * core/error.c: rig_why() and rig_fail(). The message lives in a
 * thread-local buffer, so no two threads ever see each other's failures.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"
#include "rig_edge.h"
#include "core/error.h"

#define WHY_BYTES 1024

static _Thread_local char why[WHY_BYTES];
/* Read by every submit (callback_refuse): initial-exec, so the read is one
 * load from the thread pointer instead of a call to __tls_get_addr (four
 * bytes of the static TLS surplus a dlopen of librig may use). */
static _Thread_local int depth __attribute__((tls_model("initial-exec")));

const char *
rig_why(void)
{
	return why;
}

int
rig_fail_at(const char *func, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = func ? snprintf(why, sizeof(why), "%s: ", func) : 0;
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

int
rig_why_set(const char *func, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(why, sizeof(why), "%s: ", func ? func : "(a driver)");
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

int
rig_fail_keep(const char *func, int code)
{
	char inner[WHY_BYTES];

	memcpy(inner, why, sizeof(inner));
	snprintf(why, sizeof(why), "%s: %.*s", func, WHY_BYTES / 2, inner);
	return code;
}

void callback_enter(void) { depth++; }
void callback_leave(void) { depth--; }
int callback_depth(void) { return depth; }
bool rig_in_callback(void) { return depth > 0; }

int
callback_refuse(const char *func)
{
	return depth ? rig_fail_at(func, RIG_EINVAL, "called from inside a callback of rig's") : 0;
}
