/* SPDX-License-Identifier: MIT */
/*
 * profile/profile.h: profiles (rig.h, Profiles) as the rest of rig sees
 * them. A profile keeps, for each device it times, one record per value
 * from the first value drawn once it was attached (base) up to its bound:
 * the pair of times the driver writes (rig_edge.h), the queues the value's
 * parts ran on, its launches, and the waits its stamps gave (arrows). A
 * record is written once, by the submit that drew its value, before the
 * job is published; the driver writes the pair before the word shows the
 * value, or in settle (store.c calls it, in value order, under the
 * driver lock). Readers look at a record only once its value is reached.
 * A driver with pieces (the host device) hands each value's over at its
 * settle, into pieces, so they outlive the device.
 *
 * The submit path's share is one branch on the submitter's prof pointer
 * (submitting.c): NULL while no profile is taken.
 *
 * Files: store.c (start, stop, attach, settle, times, measures), note.c
 * (a submit's record), spans.c (host spans, host waits), trace.c (the
 * trace-event JSON), plot.c (the gnuplot picture), env.c (RIG_PROFILE).
 */
#ifndef PROFILE_PROFILE_H
#define PROFILE_PROFILE_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rig.h"
#include "rig_edge.h"

struct rig_device;
struct rig_submission;
struct claim_arrow;
struct waitset;
struct job;

#define PROFILE_ARROWS 4	/* waits a record names, at most */

/* A wait a value's stamps gave: the producer's point and the bytes. */
struct profile_arrow {
	uint32_t slot;			/* the producer's word slot */
	uint64_t value;
	uint64_t lo, hi;		/* the buffer's addresses [lo, hi) */
};

/*
 * A value's record, written by its submit. Its pair of times lies in an
 * array of its own (profile_dev.times), which only the driver writes, so
 * the driver's stores never take the line the next submits write; its
 * arrows in a third, touched only by a submit that waited for something.
 */
struct profile_rec {
	_Atomic uint64_t value;		/* 0 until the submit wrote the rest */
	uint32_t queues;		/* bit q: a part ran on queue q (< 32) */
	uint32_t nlaunch;
	uint32_t narrows;
};

/* A piece of a value's work (rig_edge.h: pieces), read at its settle. */
struct profile_piece {
	uint64_t value;
	struct rig_piece piece;
};

struct profile_dev {
	struct rig_device *d;		/* a reference of the profile's */
	int slot;			/* d's word slot (stamps name it), kept past d's end */
	uint64_t base;			/* the first value it may time */
	uint64_t n;			/* records: values base .. base + n - 1 */
	struct profile_rec *rec;
	struct rig_times *times;	/* n pairs, one per record */
	struct profile_arrow *arrows;	/* n * PROFILE_ARROWS */
	uint64_t settle_next;		/* the next record to settle (driver lock) */
	uint64_t last;			/* at stop: the last value it may have timed */
	bool measured;			/* the device has measures (facts.counters) */
	struct profile_piece *pieces;	/* in value order; under the driver lock */
	size_t npieces, cappieces;
	size_t row_words;		/* 3 + the sum of its counters' values */
};

/* A host span or a host wait, on the thread that made it. */
struct profile_span {
	const char *name;		/* the profile's copy */
	uint64_t begin_ns, end_ns;	/* end 0 while open */
	uint32_t tid;
	uint32_t depth;
	int waited_slot;		/* a host wait: the point it waited for */
	uint64_t waited_value;		/* 0 for a span */
};

struct rig_profile {
	size_t max_values;
	bool all;			/* every device, also those opened later */
	bool stopped;
	uint64_t start_ns, stop_ns;
	struct profile_dev **dev;	/* each its own allocation; under profile_lock */
	size_t ndev, capdev;
	struct profile_span *span;	/* under profile_lock */
	size_t nspan, capspan;
	uint64_t spans_dropped;
};

/* The profile taken now, spans and all-devices attach (under profile_lock). */
extern pthread_mutex_t profile_lock;
extern struct rig_profile *profile_current;
extern uint64_t profile_generation;	/* bumped by each start */
/* Whether a profile is taken: rig_wait's and host reads' one branch. */
extern _Atomic bool profile_taken;

/* note.c: in a profiled submit, after claim_draw() gave v, before the
 * publish: fill v's record (if it is kept) and point job->times at it. */
void profile_note(struct rig_device *d, uint64_t v, uint32_t queues, uint32_t nlaunch,
		  const struct waitset *ws, const struct claim_arrow *arrows,
		  size_t narrows, struct job *job);
/* The queues (a bit each) and the launches of s's parts. */
void profile_parts(const struct rig_submission *s, uint32_t *queues, uint32_t *nlaunch);

/* store.c: rig_profile_start() without RIG_PROFILE's look (env.c). */
int profile_start(struct rig_device *const *devices, size_t n, size_t max_values,
		  struct rig_profile **out);
/* store.c, for devices.c: d opened (the env profile, an all-devices one). */
void profile_device_opened(struct rig_device *d);
/* store.c: settle the records of pd up to value v (reached), and take
 * their pieces from a driver with pieces. 0 or RIG_ELOST. */
int profile_settle_upto(struct profile_dev *pd, uint64_t v);
/* The record of value v in pd, or NULL when pd keeps none for it. */
struct profile_rec *profile_rec_of(struct profile_dev *pd, uint64_t v);
/* A record's pair and arrows. */
static inline struct rig_times *
profile_times(const struct profile_dev *pd, const struct profile_rec *rec)
{
	return &pd->times[rec - pd->rec];
}
static inline struct profile_arrow *
profile_arrows(const struct profile_dev *pd, const struct profile_rec *rec)
{
	return &pd->arrows[(size_t)(rec - pd->rec) * PROFILE_ARROWS];
}

/* spans.c: a host wait of the calling thread on (d, value) from begin_ns;
 * and one named name (a host read or write) on the point (slot, value). */
void profile_host_wait(struct rig_device *d, uint64_t value, uint64_t begin_ns);
void profile_host_wait_at(const char *name, uint32_t slot, uint64_t value, uint64_t begin_ns);
/* spans.c: the calling thread's id, as lanes name it. */
uint32_t profile_tid(void);

/* env.c: the profile RIG_PROFILE asks for, started at the first open. */
void profile_env_once(void);

#endif
