/* SPDX-License-Identifier: MIT */
/*
 * util/log.h: rig's log, to stderr, one line each, off unless RIG_LOG asks
 * (docs/logging.md). RIG_LOG is read once, when librig loads, before any
 * thread of the program's can call rig: util_log_level is then constant,
 * so a check is one load and one predictable branch, and no lock.
 *
 * Levels: error (a device lost for a fault), warn (a refused open, a
 * reclaim that stalled or ran out), info (opens, closes and other
 * deliberate ends), debug (what rig did on the way: an open that found the
 * device open, each reclaim wait). Never called on a submit's fast path.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

enum util_log_level {
	UTIL_LOG_OFF = 0,
	UTIL_LOG_ERROR,
	UTIL_LOG_WARN,
	UTIL_LOG_INFO,
	UTIL_LOG_DEBUG,
};

/* Set once at load (log.c); read-only afterwards. */
extern int util_log_level;

/* Write "rig: <level>: <message>\n" to stderr in one write(2). */
void util_log_write(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define util_log_on(level)	__builtin_expect(util_log_level >= (level), 0)
#define util_log(level, ...) do {					\
	if (util_log_on(level))						\
		util_log_write((level), __VA_ARGS__);			\
} while (0)

#endif
