/* SPDX-License-Identifier: MIT */
/*
 * core/process.c: rig and the life of the process (docs/process.md).
 *
 * Fork: the child has one thread, the one that forked. Every device is lost
 * with "forked"; nothing is stopped, not at the child's exit either: the
 * drivers' threads, rings and hardware are the parent's. Runs that another
 * thread of the parent held stay taken. The locks a child would take are
 * held across fork() so none is copied while another thread held it.
 *
 * Exit: rig stops every device it holds, so a GPU is left clean and the
 * host device's workers end. Not in a forked child.
 */
#include <pthread.h>
#include <stdlib.h>
#include <urcu-bp.h>

#include "core/device.h"

static pthread_once_t watched = PTHREAD_ONCE_INIT;
static bool forked;		/* written only in a child with one thread */

bool
process_forked(void)
{
	return forked;
}

static void
before_fork(void)
{
	devices_fork_prepare();
	timeline_fork_prepare();
	urcu_bp_before_fork();
}

static void
after_fork_parent(void)
{
	urcu_bp_after_fork_parent();
	timeline_fork_after();
	devices_fork_parent();
}

static void
after_fork_child(void)
{
	urcu_bp_after_fork_child();
	timeline_fork_after();
	forked = true;
	poller_forget_after_fork();
	devices_fork_child();
}

static void
at_exit(void)
{
	if (!forked)
		devices_end_all("the process exits");
}

static void
watch(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atexit(at_exit);
}

void
process_watch(void)
{
	pthread_once(&watched, watch);
}
