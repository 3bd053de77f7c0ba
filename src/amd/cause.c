/* SPDX-License-Identifier: MIT */
/*
 * amd/cause.c: the AMD path's refusals (amd/fail.h) and nesting one
 * refusal's cause in another's message. amd_why() reads "<function>:
 * <cause>"; an outer call keeps the cause, says more and names itself. The
 * cause is copied first: amd_fail writes over amd_why().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/fail.h"

static _Thread_local char why[768];

int
amd_fail_at(const char *func, int code, const char *fmt, ...)
{
	va_list ap;
	int n = func ? snprintf(why, sizeof(why), "%s: ", func) : 0;

	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	/* amd_why() then reads the same message: rig_why_set() prefixes func */
	if (func)
		rig_why_set(func, code, "%s", why + n);
	else
		rig_why_set("(the AMD path)", code, "%s", why);
	return code;
}

const char *
amd_why(void)
{
	return why;
}

const char *
amd_cause(void)
{
	const char *w = amd_why(), *colon = strstr(w, ": ");

	if (!colon)
		return w;
	for (const char *p = w; p < colon; p++)
		if (*p == ' ' || *p == '/')
			return w;
	return colon + 2;
}

void
amd_cause_copy(char *buf, size_t len)
{
	snprintf(buf, len, "%s", amd_cause());
}

int
amd_rewrap(const char *func, int code, const char *prefix)
{
	char inner[768];

	amd_cause_copy(inner, sizeof(inner));
	return amd_fail_at(func, code, "%s%s", prefix, inner);
}
