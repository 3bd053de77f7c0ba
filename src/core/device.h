/* SPDX-License-Identifier: MIT */
/*
 * core/device.h: the objects a program holds: devices, their allocations,
 * and buffers (views of allocations).
 *
 * Lifetimes: a device lives while the program holds an open of it or any
 * allocation refers to it (refs). An allocation lives while a buffer refers
 * to it; once none does, its memory goes back to the driver as soon as its
 * last use is settled: until then it waits in the device's limbo (reclaim/),
 * where the next allocation of its size may take it back once that use is
 * settled. A device's end (close, or an open of its name once it is lost)
 * stops the driver and returns every allocation's memory; buffers of it are
 * then dead, and say why.
 *
 * Locks, in the order they are taken: devices_lock (make, end; lookups of
 * open devices take none: devices.c); a root allocation's lock (a short
 * spin lock over its stamps; two by address order; a host access marks
 * host_busy under it and lets it go), then the submitter's driver lock;
 * the device's mem_lock (its list of allocations and images), then the
 * limbo's token, and allocation locks only at the device's end, once
 * nothing can claim them anew. Nobody waits for an RCU grace period under
 * mem_lock: a release with work in flight puts its allocation in the
 * limbo inside an RCU read-side section.
 */
#ifndef CORE_DEVICE_H
#define CORE_DEVICE_H

#include <pthread.h>

#include "rig.h"
#include "rig_edge.h"
#include "reclaim/reclaim.h"
#include "util/spin.h"
#include "submit/stamp.h"
#include "submit/submit.h"
#include "timeline/timeline.h"

struct rig_buffer {
	struct alloc *a;
	uint64_t offset;
	uint64_t length;
	enum rig_access access;
	const char *_Atomic dead;	/* "consumed" once rig_buffer_consume() ends it */
};

struct alloc {
	struct rig_device *d;
	struct alloc *root;		/* itself, or the allocation it maps (borrow) */
	void *region;			/* the driver's; NULL for zero bytes or once dead */
	struct rig_location loc;
	uint64_t bytes;
	struct spin lock;		/* the root's: claims and its stamps */
	_Atomic uint32_t host_busy;	/* the root's: a host access is under way (buffer.c) */
	struct stamps stamps;		/* the root's: who wrote and read each word last */
	struct limbo_item item;		/* released: the points of its uses, in d's limbo;
					 * its key: alloc_make()'s size and kind, else 0 */
	_Atomic uint32_t refs;		/* buffers over it */
	_Atomic uint32_t holds;		/* the root's: claims and taken runs holding it */
	const char *_Atomic dead;	/* why its memory ended; NULL while live */
	void *io_file, *io_host;	/* borrowed from a file: its host map (io.c) */
	uint64_t io_bytes;
	struct alloc *prev, *next;	/* d's allocations: live, or in its limbo */
	struct rig_buffer first;	/* rig_buffer_create()'s handle (buffer.c) */
};

struct rig_device {
	char *name;
	char *arch;
	const struct rig_ops *ops;
	void *handle;
	struct rig_facts facts;
	struct timeline tl;
	struct submitter sub;
	_Atomic uint32_t refs;		/* opens and allocations */
	_Atomic uint32_t opens;		/* the program's opens */
	bool ended;			/* under devices_lock; out of the table */
	pthread_mutex_t mem_lock;
	struct alloc *allocs;		/* whose memory is d's: live, or in rc's limbo */
	struct rig_image *images;	/* loaded and not yet unloaded */
	struct reclaim rc;		/* reclaim/: limbos of memory and keeps, bytes held */
	_Atomic uint64_t budget;	/* facts.budget (devices.c), or rig_set_budget() */
	struct rig_device *next;	/* the table of open devices (RCU, devices.c) */
};

/* devices.c */
int device_open(const struct rig_opener *o, bool inline_run,
		struct rig_device **out);
void device_get(struct rig_device *d);
void device_put(struct rig_device *d);
/* RIG_ELOST with "<device> is lost: <why>" when d is lost, else 0. */
int device_check_live(const char *func, struct rig_device *d);

/* devices.c, for profiles: the open devices, referenced, cap at most. */
size_t devices_open_list(struct rig_device **out, size_t cap);
/* profile/store.c: d opened (a profile of every device times it). */
void profile_device_opened(struct rig_device *d);
/* profile/store.c: d is about to end (closed, released): a profile that
 * times it takes what its driver keeps of reached values. Called without
 * devices_lock, which profile_lock precedes. */
void profile_device_ending(struct rig_device *d);

/* devices.c, for process.c. */
void devices_fork_prepare(void);
void devices_fork_parent(void);
/* In the child: every device lost with "forked". */
void devices_fork_child(void);
/* At exit: every open device ends (its driver stopped). */
void devices_end_all(const char *reason);

/* process.c: fork and exit (docs/process.md). */
/* Install the fork and exit handlers, once per process. */
void process_watch(void);
/* True in a child forked while rig was in use: it stops nothing. */
bool process_forked(void);

/* facts.c: the checks of docs/drivers.md on facts read at open. */
int facts_check(const struct rig_facts *f);

/* alloc.c: allocations and their return. */
int alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	       struct alloc **out);
/* A handle on d (mapping root's memory, if root), not yet live; NULL
 * without memory. */
struct alloc *alloc_new(struct rig_device *d, uint64_t bytes, struct alloc *root);
/* Put a made allocation on d's list, counting its bytes; RIG_ELOST
 * (a left as it was) once d is lost. */
int alloc_live(struct rig_device *d, struct alloc *a);
/* The same under d's mem_lock, d seen live. */
void alloc_live_locked(struct rig_device *d, struct alloc *a);
/* Free a handle from alloc_new() that never went live (no memory). */
void alloc_discard(struct alloc *a);
/* Let go of a buffer's reference: the last one releases the allocation. */
void alloc_put(struct alloc *a);
#ifdef RIG_TEST_HOOKS
/* A test's window into a park (stress_park_end): when set, called between
 * the put's announcement and its second look at the loss, and under the
 * limbo's token before a put made under it. NULL in programs; absent from
 * release builds. parks_held and parks_announced count the parks made
 * each way. */
extern void (*park_window)(void);
extern _Atomic uint64_t parks_held, parks_announced;
/* The same into a borrow (stress_borrow_end): called once the second
 * device's driver made the mapping, before it is on that device's list. */
extern void (*borrow_window)(void);
/* The same into a load (stress_image_end): called once the driver loaded
 * the code, before the image is on the device's list. */
extern void (*image_window)(void);
/* The same into a submission's last put (stress_keep_end): called once it
 * found its last value not yet done, before its reference is deferred. */
extern void (*keep_window)(void);
#endif

/*
 * A host access (buffer.c) marks its allocation busy under the lock, lets
 * the lock go, waits for device work and copies, then clears the mark:
 * claims and a device's end wait for the mark to clear, with no lock held.
 */
void alloc_await_host(struct alloc *a);
/* Lock a with no host access under way (a device's end). */
void alloc_lock_quiet(struct alloc *a);

/* hold.c: add delta to the holds of a's memory. */
void alloc_hold(struct alloc *a, int delta);

/* Why b is dead: its handle consumed, or its memory ended; else NULL. */
static inline const char *buffer_dead(const struct rig_buffer *b);

/* Why a's memory ended (its own, or its root's), or NULL. */
static inline const char *
alloc_dead(const struct alloc *a)
{
	return a->dead ? a->dead : a->root->dead;
}

static inline const char *
buffer_dead(const struct rig_buffer *b)
{
	const char *why = atomic_load_explicit(&b->dead, memory_order_acquire);

	return why ? why : alloc_dead(b->a);
}
/* At the device's end: free every allocation's memory, marking it dead. */
void alloc_end_all(struct rig_device *d, const char *why);

/* owner.c: d's work of value is settled and d's submitter passed it. */
bool device_done_with(struct rig_device *d, uint64_t value);

/* What claims memory for a submit or a host access (submit/). */
#include "submit/claim.h"

#endif
