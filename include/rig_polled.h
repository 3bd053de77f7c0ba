/* SPDX-License-Identifier: MIT */
/*
 * rig_polled.h - the polled test driver: a device whose facts are
 * configurable, that runs only committed work, commits on its own every
 * `lag` values, and can be told to fail a named call, stall or fault. Tests
 * and benchmarks use it as a null device.
 *
 * Its memory is host memory. A worker thread per open device runs each
 * committed value's work in value order: it waits (polling) for the
 * producers' words the value waits for, runs its copies and byte fills
 * (launches and words run nothing), then stores the value in the word.
 * It holds 512 values at most: room answers RIG_LATER while the oldest is
 * not yet run. A value costs the driver no allocation (but one of more
 * than 4 parts or 4 waits), lock or system call while the worker keeps
 * up: the worker looks for work for up to 40 µs before it sleeps, and
 * only a commit that finds it asleep makes a system call, to wake it.
 * Any bytes load as an image; a function named "name/P/T" reads P params
 * bytes and allows T threads a group, and one named "absent" is absent.
 * Fill functions run inside submit, as rig_edge.h says. One device at a
 * time per struct rig_polled: a name opens once.
 *
 * Only rig_edge.h stands under it: a driver knows nothing of rig's core.
 */
#ifndef RIG_POLLED_H
#define RIG_POLLED_H

#include "rig_edge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a polled device is. Zero fields take the defaults named. */
struct rig_polled_config {
	size_t size;			/* sizeof(struct rig_polled_config) */
	const char *name;		/* default "POLLED" */
	unsigned lag;			/* commits on its own every lag values; default 8 */
	const struct rig_queue *queues;	/* default: one "POLLED:0" running every kind */
	size_t nqueues;
	int copy_engine;		/* used when queues is set */
	enum rig_completion completion;	/* default RIG_BY_HOST */
	struct rig_waits waits;		/* default: none (rig waits on the host) */
	struct rig_opt hang_ms;		/* default RIG_NONE */
	struct rig_opt cache_bytes;	/* default RIG_NONE */
	uint64_t budget;		/* default 1 GiB */
	uint64_t alignment;		/* default 64 */
	uint64_t start;			/* make raises the word to this value */
	bool no_host_addresses;		/* regions without host addresses */
	bool grows;			/* room answers RIG_GROW until grow is called */
	bool may_block;			/* the facts say room/submit/commit may block */
	/* Called by the worker as it starts (0) and ends (1) each value's
	 * work, for tests that log what ran when; NULL for none. */
	void (*ran)(void *arg, uint64_t value, int end);
	void *ran_arg;
	/*
	 * Profiles (rig_edge.h: submit's times, settle, measures). With
	 * stamp NULL the worker stamps each timed value's start and end with
	 * the CPU's time stamp counter (x86-64; elsewhere the host clock),
	 * and settle converts them by a correlation of the counter with
	 * rig_now_ns() taken at open and again at each settle.
	 * With stamp set, the worker writes the ticks stamp(stamp_arg,
	 * value, 0) and stamp(stamp_arg, value, 1) of a fake device clock,
	 * and settle (or a later submit, once the value's slot is needed)
	 * converts them, in value order, to stamp_origin_ns + ticks *
	 * stamp_ns_per_tick, never putting a start before the previous
	 * converted value's end nor an end before its start: tests choose
	 * the ticks, and check the conversion and its order rules exactly.
	 */
	uint64_t (*stamp)(void *arg, uint64_t value, int end);
	void *stamp_arg;
	uint64_t stamp_origin_ns;
	uint64_t stamp_ns_per_tick;	/* default 1 */
	/*
	 * The counters the device measures around each launch of a timed
	 * value (facts.counters; NULL for none, and then measures is NULL).
	 * measures writes for the launch at part i of value v the row
	 * 1, the value's start, its end, then for the counters' values in
	 * order the words v * 1000 + i * 10 + j (j counting from 0).
	 */
	const struct rig_counter *counters;
	size_t ncounters;
};

struct rig_polled;

/*
 * rig_polled_create() - a polled driver configured by c (copied). Returns
 * 0; -EINVAL for a config of another size; -ENOMEM. Every function here
 * refuses a NULL driver as rig.h says of NULL handles, and each refusal
 * sets rig_why().
 */
int rig_polled_create(const struct rig_polled_config *c, struct rig_polled **out);
/* Free p once its device has stopped (rig_close). */
void rig_polled_destroy(struct rig_polled *p);
/* The opener of p's device; valid while p lives. */
const struct rig_opener *rig_polled_opener(struct rig_polled *p);

/*
 * rig_polled_fail() - the next call named call ("make", "facts", "alloc",
 * "room", "submit", "commit", "grow") fails: make returns an error, facts
 * and alloc fault, room answers RIG_NEVER, submit and commit answer
 * RIG_FAILED with the message "injected <call> failure", grow answers
 * RIG_SHORT of 4096 bytes. -EINVAL for another name.
 */
int rig_polled_fail(struct rig_polled *p, const char *call);
/* While stalled, the worker runs nothing: the word stops. */
void rig_polled_stall(struct rig_polled *p, bool stalled);

/*
 * rig_polled_fault() - the work of value faults at its part of index part
 * (in its submission; a copy or a submission without that part faults
 * after its last). The worker runs the parts before it, then nothing more:
 * the word stays below value. The device reports the fault through its
 * interrupt source (facts.events_fd, an eventfd): ops.events answers
 * RIG_FAULT, "injected fault at part <part> of value <value>", with the
 * site (value, part, the part's queue). A value already run never faults.
 */
void rig_polled_fault(struct rig_polled *p, uint64_t value, int part);

/*
 * rig_polled_block() - while blocked, the named call ("room", "submit" or
 * "commit") blocks inside the driver when it is next called, until
 * unblocked (a call that may block, facts.may_block). -EINVAL for another
 * name.
 */
int rig_polled_block(struct rig_polled *p, const char *call, bool blocked);
/* Calls now blocked by rig_polled_block(). */
int rig_polled_blocked(struct rig_polled *p);
/* How often stop ran, and how often it ran while another call of the
 * driver was in flight (rig must keep that 0). */
uint64_t rig_polled_stops(struct rig_polled *p);
uint64_t rig_polled_overlaps(struct rig_polled *p);

/* Counters for tests: values run, commit calls, submit calls, live regions
 * and images (a leak check: both 0 once the device closed). */
/* The eventfd of the open device's interrupt source, or -1 (a test's check
 * that fds do not leak). */
int rig_polled_events_fd(struct rig_polled *p);
/* Devices made (successful makes): with rig_polled_stops(), each made
 * device stopped once. */
uint64_t rig_polled_makes(struct rig_polled *p);
uint64_t rig_polled_ran(struct rig_polled *p);
uint64_t rig_polled_commits(struct rig_polled *p);
uint64_t rig_polled_submits(struct rig_polled *p);
uint64_t rig_polled_committed(struct rig_polled *p);
uint64_t rig_polled_grows(struct rig_polled *p);
int64_t rig_polled_live_regions(struct rig_polled *p);
int64_t rig_polled_live_images(struct rig_polled *p);
/*
 * rig_polled_settles() - the values rig's settle calls named, in call
 * order (the first cap of the last 4096 calls) into values; returns the
 * number of calls made in all. rig_polled_measures_freed(): how many
 * calls of measures with NULL the device had; a later call naming a
 * freed value fails (RIG_FAILED, "measures of value V after its end"),
 * which loses the device.
 */
size_t rig_polled_settles(struct rig_polled *p, uint64_t *values, size_t cap);
uint64_t rig_polled_measures_freed(struct rig_polled *p);

/* Whether the device is open (made and not yet stopped). */
bool rig_polled_open(struct rig_polled *p);

#ifdef __cplusplus
}
#endif
#endif
