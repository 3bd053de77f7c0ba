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
 * Locks, in the order they are taken: devices_lock (open/close); an
 * allocation's lock (its stamps and host access; two by address order),
 * then the submitter's driver lock; the device's mem_lock (its lists and
 * budget), then allocation locks only at the device's end, once nothing
 * can claim them anew.
 */
#ifndef CORE_DEVICE_H
#define CORE_DEVICE_H

#include <pthread.h>

#include "rig.h"
#include "submit/submit.h"
#include "timeline/timeline.h"

struct alloc {
	struct rig_device *d;
	void *region;			/* the driver's; NULL for zero bytes or once dead */
	struct rig_location loc;
	uint64_t bytes;
	pthread_mutex_t lock;		/* claims: the stamps below, and host access */
	uint64_t last_write;		/* the value of d's timeline that last wrote it */
	uint64_t last_use;		/* the value that last read or wrote it */
	_Atomic uint32_t refs;		/* buffers over it */
	const char *dead;		/* why its memory ended; NULL while live */
	struct alloc *prev, *next;	/* d's live list, or its limbo list */
};

struct rig_buffer {
	struct alloc *a;
	uint64_t offset;
	uint64_t length;
	enum rig_access access;
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
	bool ended;			/* under devices_lock */
	pthread_mutex_t mem_lock;
	struct alloc *live;		/* allocations with buffers */
	struct alloc *limbo;		/* released, waiting for their last use */
	uint64_t allocated;		/* bytes of live and limbo memory */
	struct rig_device *next;	/* the open devices, by name */
};

/* devices.c */
int device_open(const struct rig_opener *o, bool inline_run,
		struct rig_device **out);
void device_get(struct rig_device *d);
void device_put(struct rig_device *d);
/* RIG_ELOST with "<device> is lost: <why>" when d is lost, else 0. */
int device_check_live(const char *func, struct rig_device *d);

/* facts.c: the checks of seed 000 on facts read at open. */
int facts_check(const struct rig_facts *f);

/* alloc.c: allocations and their return. */
int alloc_make(struct rig_device *d, uint64_t bytes, enum rig_memory kind,
	       struct alloc **out);
void alloc_put(struct alloc *a);
/* Return limbo memory whose last use is signaled. Under d->mem_lock. */
void alloc_reclaim_locked(struct rig_device *d);
/* At the device's end: free every allocation's memory, marking it dead. */
void alloc_end_all(struct rig_device *d, const char *why);

#endif
