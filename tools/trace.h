/* SPDX-License-Identifier: MIT */
/* tools/trace.h: `rig trace` (trace.c), for rig.c's main. */
#ifndef TOOLS_TRACE_H
#define TOOLS_TRACE_H

#include <stdbool.h>

/* `rig trace -- PROGRAM ARGS...` from argv[at]: the program's status. */
int cmd_trace(int argc, char **argv, int at);

#endif
