/*
 * core/device.h: the objects a program holds: devices, their allocations,
 * and buffers (views of allocations).
 *
 * Lifetimes: a device lives while the program holds an open of it or any
 * allocation refers to it (refs). An allocation lives while a buffer refers
 * to it; once none does, its memory goes back to the driver as soon as its
 * last use is signaled (until then it waits in the device's limbo list).
 * A device's end (close, or an open of its name once it is lost) stops the
 * driver and returns every allocation's memory; buffers of it are then
 * dead, and say why.
 *
 * Locks, in the order they are taken: devices_lock (make, end; lookups of
 * open devices take none: devices.c); an allocation's lock (a short spin
 * lock over its stamps; two by address order; a host access marks
 * host_busy under it and lets it go),
 * then the submitter's driver lock; the device's mem_lock (its lists and
 * budget), then allocation locks only at the device's end, once nothing
 * can claim them anew.
 */
#ifndef CORE_DEVICE_H
#define CORE_DEVICE_H

#include <pthread.h>

#include "rig.h"
#include "util/spin.h"
#include "submit/stamp.h"
#include "submit/submit.h"
#include "timeline/timeline.h"

struct alloc {
	struct rig_device *d;
	struct alloc *root;		/* itself, or the allocation it maps (borrow) */
	void *region;			/* the driver's; NULL for zero bytes or once dead */
	struct rig_location loc;
	uint64_t bytes;
	struct spin lock;		/* the root's: claims and its stamps */
	_Atomic uint32_t host_busy;	/* the root's: a host access is under way (buffer.c) */
	struct stamps stamps;		/* the root's: who wrote and read each word last */
	_Atomic uint32_t refs;		/* buffers over it */
	_Atomic uint32_t holds;		/* the root's: claims and taken runs holding it */
	const char *_Atomic dead;	/* why its memory ended; NULL while live */
	void *io_file, *io_host;	/* borrowed from a file: its host map (io.c) */
	uint64_t io_bytes;
	struct alloc *prev, *next;	/* d's live list, or its limbo list */
};

struct rig_buffer {
	struct alloc *a;
	uint64_t offset;
	uint64_t length;
	enum rig_access access;
	const char *_Atomic dead;	/* "consumed" once rig_buffer_consume() ends it */
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
	struct alloc *live;		/* allocations with buffers */
	struct alloc *limbo;		/* released, waiting for their last use */
	struct rig_image *images;	/* loaded and not yet unloaded */
	struct deferred *deferred;	/* submissions let go once a value is signaled */
	_Atomic uint32_t ndeferred;
	uint64_t allocated;		/* bytes of live and limbo memory */
	uint64_t budget;		/* facts.budget, or rig_set_budget() */
	struct rig_device *next;	/* the table of open devices (RCU, devices.c) */
};

/* devices.c */
int device_open(const struct rig_opener *o, bool inline_run,
		struct rig_device **out);
void device_get(struct rig_device *d);
void device_put(struct rig_device *d);
/* RIG_ELOST with "<device> is lost: <why>" when d is lost, else 0. */
int device_check_live(const char *func, struct rig_device *d);

/* devices.c, for process.c. */
void devices_fork_prepare(void);
void devices_fork_parent(void);
/* In the child: every device lost with "forked". */
void devices_fork_child(void);
/* At exit: every open device ends (its driver stopped). */
void devices_end_all(const char *reason);

/* process.c: fork and exit (SPEC §12). */
/* Install the fork and exit handlers, once per process. */
void process_watch(void);
/* True in a child forked while rig was in use: it stops nothing. */
bool process_forked(void);

/* facts.c: the checks of seed 000 on facts read at open. */
int facts_check(const struct rig_facts *f);

/* alloc.c: allocations and their return. */
int alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	       struct alloc **out);
/* A handle on d (mapping root's memory, if root), not yet live; NULL
 * without memory. */
struct alloc *alloc_new(struct rig_device *d, uint64_t bytes, struct alloc *root);
/* Put a made allocation on d's live list, counting its bytes; RIG_ELOST
 * (a left as it was) once d is lost. */
int alloc_live(struct rig_device *d, struct alloc *a);
/* The same under d's mem_lock, d seen live. */
void alloc_live_locked(struct rig_device *d, struct alloc *a);
/* Free a handle from alloc_new() that never went live (no memory). */
void alloc_discard(struct alloc *a);
void alloc_put(struct alloc *a);
/* The submitter's reclaim hook (a grow came up short). */
bool alloc_reclaim_for_grow(struct submitter *sub);
/* Return limbo memory whose uses are all signaled: how many came back. No
 * lock held. */
size_t alloc_reclaim(struct rig_device *d);

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
/* Every use stamped on a is signaled. Under a's lock, or once no buffer
 * refers to a. */
bool alloc_idle(const struct alloc *a);

/*
 * reap.c: what a submission keeps (its images, its keep) goes only once the
 * work submitted through it is done. A job handed to the driver defers its
 * reference to the submission until its value is signaled; allocations,
 * waits and the device's end return what is due.
 */
struct rig_submission;
void defer_put(struct rig_device *d, struct rig_submission *s, uint64_t value);
/* Whether value's work is done and the device's submitter passed it. */
bool device_done_with(struct rig_device *d, uint64_t value);
/* Let go of what is due; no lock held. */
void device_reap(struct rig_device *d);
/* Count delta things that wait for d's word to move (the poller's cue). */
void reap_pending(struct rig_device *d, int delta);

/* What claims memory for a submit or a host access (submit/). */
#include "submit/claim.h"

#endif
