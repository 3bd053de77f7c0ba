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
	const struct profile_span *span; /* B */
	const struct profile_arrow *arrow; /* s/f: a device wait; NULL: a host wait */
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

#endif
