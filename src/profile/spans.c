/* SPDX-License-Identifier: MIT */
/*
 * profile/spans.c: host spans and host waits (rig.h, Profiles). A span is
 * a program's phase on the thread that begins and ends it; spans nest, up
 * to SPAN_DEPTH deep, each thread with its own stack. A host wait (rig_wait
 * and the host reads that wait for device work) is a span named for the
 * call, which the trace joins by an arrow to the value it waited for.
 *
 * The spans of a profile live in one array under profile_lock: a span
 * costs a lock, a copy of its name and, now and then, a realloc. Spans mark
 * phases, a few per step of a program, not per submit, so no lock-free log
 * earns its keep here (ck's and liburcu's queues would need a reader per
 * thread to gather them); the bound on them is the profile's max_values.
 * A profile's generation tells a span's end whether the profile it began
 * in is still the one taken.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/device.h"
#include "core/error.h"
#include "profile/profile.h"

#define SPAN_DEPTH 64

struct open_span {
	uint64_t gen;		/* the profile's generation; 0: none was taken */
	size_t index;
};

static _Thread_local struct open_span stack[SPAN_DEPTH];
static _Thread_local uint32_t depth;
static _Thread_local uint32_t tid;

uint32_t
profile_tid(void)
{
	if (!tid)
		tid = (uint32_t)syscall(SYS_gettid);
	return tid;
}

/* Under profile_lock: the generation of the profile taken now, or 0. */
static uint64_t
current_gen(void)
{
	return profile_current ? profile_generation : 0;
}

/* Under profile_lock: a new span of p, or -1 when p keeps no more. */
static ptrdiff_t
add_span(struct rig_profile *p, const char *name, uint64_t begin_ns)
{
	char *copy;

	if (p->nspan >= p->max_values) {
		p->spans_dropped++;
		return -1;
	}
	if (p->nspan == p->capspan) {
		size_t cap = p->capspan ? 2 * p->capspan : 64;
		struct profile_span *s = realloc(p->span, cap * sizeof(*s));

		if (!s)
			return -1;
		p->span = s;
		p->capspan = cap;
	}
	if (!(copy = strdup(name)))
		return -1;
	p->span[p->nspan] = (struct profile_span){ .name = copy, .begin_ns = begin_ns,
						   .tid = profile_tid(), .depth = depth };
	return (ptrdiff_t)p->nspan++;
}

int
rig_span_begin(const char *name)
{
	uint64_t now = rig_now_ns();
	ptrdiff_t at = -1;
	uint64_t gen;

	if (!name)
		return rig_fail(RIG_EINVAL, "the name is NULL");
	if (depth == SPAN_DEPTH)
		return rig_fail(RIG_EINVAL, "spans nest %d deep at most on a thread", SPAN_DEPTH);
	/* No profile: nothing to record, no lock (a start that races us
	 * misses this span, as one that came later would). */
	if (!atomic_load_explicit(&profile_taken, memory_order_relaxed)) {
		stack[depth++] = (struct open_span){ 0, 0 };
		return 0;
	}
	pthread_mutex_lock(&profile_lock);
	gen = current_gen();
	if (gen)
		at = add_span(profile_current, name, now);
	pthread_mutex_unlock(&profile_lock);
	stack[depth++] = (struct open_span){ at < 0 ? 0 : gen, at < 0 ? 0 : (size_t)at };
	return 0;
}

int
rig_span_end(void)
{
	uint64_t now = rig_now_ns();
	struct open_span o;

	if (!depth)
		return rig_fail(RIG_EINVAL, "no span is open on this thread");
	o = stack[--depth];
	if (!o.gen)
		return 0;
	pthread_mutex_lock(&profile_lock);
	if (current_gen() == o.gen)
		profile_current->span[o.index].end_ns = now;
	pthread_mutex_unlock(&profile_lock);
	return 0;
}

void
profile_host_wait_at(const char *name, uint32_t slot, uint64_t value, uint64_t begin_ns)
{
	uint64_t now = rig_now_ns();
	ptrdiff_t at;

	pthread_mutex_lock(&profile_lock);
	if (current_gen() && (at = add_span(profile_current, name, begin_ns)) >= 0) {
		profile_current->span[at].end_ns = now;
		profile_current->span[at].waited_slot = (int)slot;
		profile_current->span[at].waited_value = value;
	}
	pthread_mutex_unlock(&profile_lock);
}

void
profile_host_wait(struct rig_device *d, uint64_t value, uint64_t begin_ns)
{
	if (d->tl.slot >= 0)
		profile_host_wait_at("rig_wait", (uint32_t)d->tl.slot, value, begin_ns);
}
