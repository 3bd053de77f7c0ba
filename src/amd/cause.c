/* SPDX-License-Identifier: MIT */
/*
 * amd/cause.c: nesting one refusal's cause in another's message. rig_why()
 * reads "<function>: <cause>"; an outer call keeps the cause, says more and
 * names itself. The cause is copied first: rig_fail writes over rig_why().
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "rig.h"
#include "amd/amd.h"

const char *
amd_cause(void)
{
	const char *w = rig_why(), *colon = strstr(w, ": ");

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
	char inner[512];

	amd_cause_copy(inner, sizeof(inner));
	return rig_fail_at(func, code, "%s%s", prefix, inner);
}
