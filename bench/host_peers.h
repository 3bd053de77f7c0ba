/* SPDX-License-Identifier: MIT */
/*
 * bench/host_peers.h: what bench_host measures the host device against,
 * in the same run: a mutex+condvar work queue of one worker (an empty
 * job's round trip), and a pthread barrier loop that runs a kernel's
 * range in even static shares on every core, as OpenMP's
 * `parallel for schedule(static)` does (one launch per loop).
 */
#ifndef BENCH_HOST_PEERS_H
#define BENCH_HOST_PEERS_H

#include <stdint.h>

typedef void (*peer_kernel_fn)(const void *params, int64_t first, int64_t end);

struct peer_queue;
struct peer_team;

/* A queue whose worker runs fn(params, 0, 1) per job; NULL on failure. */
struct peer_queue *peer_queue_start(peer_kernel_fn fn, const void *params);
/* Post one job and wait until the worker ran it. */
void peer_queue_round_trip(struct peer_queue *q);
void peer_queue_stop(struct peer_queue *q);

/* A team of n threads (the caller among them); NULL on failure. */
struct peer_team *peer_team_start(unsigned n);
/* Run fn(params, ...) over [0, groups) in n even shares; returns when all
 * are done. */
void peer_team_launch(struct peer_team *t, peer_kernel_fn fn, const void *params,
		      int64_t groups);
void peer_team_stop(struct peer_team *t);

#endif
