/* SPDX-License-Identifier: MIT */
/*
 * util/log.c: reading RIG_LOG once, and writing a line (log.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

int util_log_level;

static const char *const names[] = {
	[UTIL_LOG_ERROR] = "error", [UTIL_LOG_WARN] = "warn",
	[UTIL_LOG_INFO] = "info", [UTIL_LOG_DEBUG] = "debug",
};

/* Before main and before any thread: the level never changes after. */
__attribute__((constructor)) static void
log_init(void)
{
	const char *v = getenv("RIG_LOG");

	if (!v || !v[0])
		return;
	for (int l = UTIL_LOG_ERROR; l <= UTIL_LOG_DEBUG; l++)
		if (!strcmp(v, names[l])) {
			util_log_level = l;
			return;
		}
	util_log_level = UTIL_LOG_WARN;
	util_log_write(UTIL_LOG_WARN, "RIG_LOG=%s is none of error, warn, info, debug: "
		       "logging at warn", v);
}

void
util_log_write(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n, m;

	n = snprintf(line, sizeof(line), "rig: %s: ", names[level]);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m < (int)(sizeof(line) - (size_t)n - 1) ? m : (int)(sizeof(line) - (size_t)n - 2);
	/* One line: a newline inside a driver's message would split it. */
	for (char *c = line; c < line + n; c++)
		if (*c == '\n')
			*c = ' ';
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
