/* SPDX-License-Identifier: MIT */
/*
 * profile/trace.h: a profile's events, gathered and sorted by lane and
 * time, for the JSON writer (trace.c) and the picture (plot.c).
 */
#ifndef PROFILE_TRACE_H
#define PROFILE_TRACE_H

#include "profile/profile.h"

#define TRACE_HOST_PID 1
#define TRACE_DEVICE_PID 2	/* device i of the profile: pid 2 + i */
/* A device's lanes: queue q's is q + 1; the range of its thread w on
 * queue q (rig_piece.worker) is TRACE_WORKER_LANES * (q + 1) + w. */
#define TRACE_WORKER_LANES 10000

struct trace_event {
	char ph;			/* 'X' a value, 'B'/'E' a span, 's'/'f' a flow */
	int pid;
	uint32_t tid;			/* a device's queue + 1, or a host thread's id */
	uint64_t ts, dur;		/* ns on the host clock */
	size_t seq;			/* gathering order: ties keep it */
	uint64_t value;			/* X: the value; s/f: the producer's */
	uint64_t id;			/* s/f: the flow */
	int producer;			/* f: the producer's device index */
	const struct profile_rec *rec;	/* X */
	/* B: its span's name (the profile's copy, which lives as long as
	 * it) and whether it is a host wait; copied, not pointed to, since
	 * other threads' spans grow the span array once profile_lock is
	 * released, while a profile still taken is written. */
	const char *span_name;
	bool span_wait;
	const struct profile_arrow *arrow; /* s/f: a device wait; NULL: a host wait */
	bool is_piece;			/* X: a piece of the value (rig_piece), not the value */
	struct rig_piece piece;
};

struct trace {
	struct trace_event *e;
	size_t n, cap;
	uint64_t origin;		/* the first time: ts 0 */
	uint64_t flows;
	bool failed;
};

/* Gather p's events; 0 or RIG_ENOMEM. The caller frees t->e. */
int trace_gather(struct trace *t, struct rig_profile *p);

/* The name of a device's lane tid ("COMPUTE:0", "COMPUTE:0 worker 1"). */
void trace_lane_name(const struct rig_device *d, uint32_t tid, char *buf, size_t len);

#endif
