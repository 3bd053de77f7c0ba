/* SPDX-License-Identifier: MIT */
/*
 * host/host.h: the host device, "HOST": the host's cores behind rig's
 * driver contract (rig_edge.h). The opener's make starts the device: a
 * device thread that runs values in order and a pool of workers, one per
 * online core with the device thread as the last, or as many as the
 * opener's struct rig_host_config (its arg, rig_host_open()) asks, on
 * its cores. Each make opens a new,
 * independent device; a caller that calls make itself stops the handle
 * through rig_host_opener.ops->stop, may then free its regions and unload its
 * images, and ends with rig_host_opener.ops->release.
 *
 * Facts: arch "x86_64" (or "aarch64"); queues "COMPUTE:0" (Launch, Fill)
 * and "COPY:0" (Copy, the copy engine); completion RIG_BY_HOST; waits on
 * stores and hosts (the device thread waits on any word); host addresses,
 * maps host memory; alignment HOST_ALIGN; cache_bytes the last-level cache;
 * hang_ms the config's (none by default); events_fd an eventfd that turns
 * readable once a kernel faulted (guard.h; events then loses the device
 * with the fault's site and message); may_block false.
 *
 * Commits: submit returns RIG_COMMITTED (k = 1): the device thread runs
 * each value as soon as submit publishes it. A launch over a grid of
 * g0*g1*g2 groups is split into ranges of whole groups, each range one
 * call f(params, first, end) of the entry's launch (host_range_fn).
 * The device thread runs a value's launches and copies in part order, which
 * keeps every follows list and each queue's order; large copies are split
 * over the pool. Fills are called inside submit, in part order, with a NULL
 * queue context (submit.c says why); a non-zero return fails the submit.
 */
#ifndef HOST_HOST_H
#define HOST_HOST_H

#include "rig_edge.h"

/* The alignment of every region the host device allocates. */
#define HOST_ALIGN	64

/* The opener of the host device, named "HOST", is rig_host_opener (declared
 * by rig_edge.h: rig_host_device() opens it). */

#endif
