/* SPDX-License-Identifier: MIT */
/*
 * tools/trace.c: `rig trace -- PROGRAM ARGS...`. Runs the program with a
 * profile of every device taken (RIG_PROFILE, read by rig at the
 * program's first open, written at its exit), so that it leaves
 * PROGRAM.trace.json (Chrome trace-event JSON) in the working directory,
 * then draws PROGRAM.trace.png from the gnuplot script rig also wrote
 * (RIG_PROFILE_PLOT), where gnuplot is installed. The program's exit
 * status is the command's; 1 when the program left no trace.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

/* Run argv and return its exit status (128 + signal), or -1. */
static int
run(char *const *argv, bool quiet)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet && !freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "rig trace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int
cmd_trace(int argc, char **argv, int at)
{
	char json[4096], plot[4096], png[4096], out[4200], name[4096];
	char *gnuplot[] = { "gnuplot", "-e", out, plot, NULL };
	int status, drawn;

	if (at < argc && !strcmp(argv[at], "--"))
		at++;
	if (at >= argc) {
		fprintf(stderr, "rig: trace: which program? rig trace -- PROGRAM ARGS...\n");
		return 2;
	}
	snprintf(name, sizeof(name), "%s", argv[at]);
	snprintf(json, sizeof(json), "%s.trace.json", basename(name));
	snprintf(plot, sizeof(plot), "%s.trace.gp", basename(name));
	snprintf(png, sizeof(png), "%s.trace.png", basename(name));
	snprintf(out, sizeof(out), "out='%s'", png);
	unlink(json);
	unlink(plot);
	if (setenv("RIG_PROFILE", json, 1) < 0 || setenv("RIG_PROFILE_PLOT", plot, 1) < 0) {
		fprintf(stderr, "rig: trace: %s\n", strerror(errno));
		return 1;
	}
	status = run(argv + at, false);
	if (status < 0) {
		fprintf(stderr, "rig: trace: cannot run %s: %s\n", argv[at], strerror(errno));
		return 1;
	}
	if (!exists(json)) {
		fprintf(stderr, "rig: trace: %s left no %s (does it open a device?)\n",
			argv[at], json);
		return status ? status : 1;
	}
	fprintf(stderr, "rig: trace: wrote %s (open it in ui.perfetto.dev or chrome://tracing)\n",
		json);
	drawn = exists(plot) ? run(gnuplot, true) : -1;
	if (drawn == 0 && exists(png))
		fprintf(stderr, "rig: trace: drew %s\n", png);
	else
		fprintf(stderr, "rig: trace: no picture: %s\n", drawn == 127 ?
			"gnuplot is not installed" : "gnuplot failed");
	unlink(plot);
	return status;
}
