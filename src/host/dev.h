/* SPDX-License-Identifier: MIT */
/*
 * host/dev.h: the host device's state, shared by its files: the opener and
 * facts (host.c), memory (region.c), code (code.c), the producer side of
 * the value ring (submit.c), the device thread that runs it (exec.c) and
 * the copy engine (copy.c). Nothing outside src/host includes it.
 *
 * The ring. Value v's work lives in slot v % HOST_RING. submit (rig calls
 * it one at a time: the one producer) fills the slot of the next value and
 * publishes it (`published`, release); the device thread (the one
 * consumer) runs published values in order, writes the word, and frees the
 * slot by advancing `done` (release). A slot is refilled only once
 * done >= v - HOST_RING: room answers RIG_LATER before that. Each side
 * keeps the other's counter as it last read it (pub_seen, done_seen) and
 * reads the shared one again only when its copy says wait, so a stream of
 * values moves those cache lines once per catch-up, not once per value.
 *
 * Waking: after each publish submit bumps pub_ec, an event count
 * (util/ec.h) the device thread sleeps on once its spin is spent (exec.c).
 * The bump is one plain increment while the thread is awake; it makes a
 * system call only when the thread has flagged the count to sleep.
 *
 * A value run at submit (here.c, run_at_submit) is never published: the
 * submitter runs it while done shows the value before it, then writes the
 * word and done itself; the device thread skips what done shows before
 * each published value it runs.
 *
 *                    submit (producer)   device thread (consumer)
 *   published        writes (release)    reads (acquire)
 *   pub_ec           bumps (ec_sp)       waits
 *   done             reads (acquire)     writes (release)
 *   ring[v]          fills while free    reads from publish to done
 */
#ifndef HOST_DEV_H
#define HOST_DEV_H

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ck_ec.h>

#include "rig_edge.h"
#include "host/guard.h"
#include "host/pool.h"
#include "host/spin.h"

#define HOST_RING	256	/* values in flight at most */
/* The most groups one launch may run: keeps index arithmetic in int64_t
 * (entry tells rig, which refuses a grid of more at rig_run_store). */
#define HOST_MAX_GROUPS	((uint64_t)1 << 62)
_Static_assert((HOST_RING & (HOST_RING - 1)) == 0, "HOST_RING is a power of two");

/* The queues: facts.queues' indices. */
#define HOST_COMPUTE	0
#define HOST_COPY	1

/* One copy, with both ends as host addresses. */
struct host_copy {
	unsigned char *src, *dst;
	uint64_t bytes, rows, src_pitch, dst_pitch;
	int fill;
};

/* One part as the device thread runs it; fills ran in submit. */
struct host_op {
	enum rig_kind kind;
	int part;				/* its index in the submission */
	union {
		struct {
			host_range_fn fn;
			const char *name;	/* the kernel's, for a fault's message */
			const void *params;	/* a copy in the job's arena */
			int64_t groups;
		} launch;
		struct host_copy copy;
	} u;
};

/* One value's work: a ring slot, one cache line. Its arena holds waits,
 * ops and params. */
struct host_job {
	alignas(64) uint64_t value;
	struct rig_times *times;	/* NULL unless a profile is taken */
	const struct rig_wait *waits;
	size_t nwaits;
	const struct host_op *ops;
	size_t nops;
	unsigned char *arena;
	size_t arena_bytes;
};
_Static_assert(sizeof(struct host_job) == 64, "a ring slot is one cache line");

/* A profiled value's pieces (pieces.c), filled by the device thread. */
struct host_pieces_of {
	uint64_t value;
	size_t n;
	struct rig_piece piece[];
};

/* The pieces kept until rig frees them: blocks in value order. */
struct host_pieces {
	pthread_mutex_t lock;
	struct host_pieces_of **of;		/* NULL: freed (a hole) */
	uint64_t *value;			/* of[i]'s value, kept past its free */
	size_t head;				/* of[0..head) are freed */
	size_t n, cap, live;
};

/* A message kept for the device's life (fault and failure strings). */
struct host_msg {
	struct host_msg *next;
	char text[];
};

struct host_dev {
	const struct rig_driver *driver;	/* first: rig reads it through edge */
	_Atomic uint64_t *word;
	struct host_pool *pool;
	pthread_t thread;			/* the device thread (exec.c) */
	uint64_t base;				/* the word's value at make */
	uint64_t budget;
	int64_t cache_bytes;			/* 0: unknown */
	int64_t hang_ms;			/* 0: no hang clock (the opener's) */
	bool pinned;				/* opened on a set of cores: no waiter runs its work */
	bool run_at_submit;			/* the opener's: an idle device's submit runs the value (here.c) */
	char name[32];				/* the opener's, such as "HOST:1" */
	int events_fd;				/* an eventfd: readable once a kernel faulted */
	/* The device thread's (exec.c), on lines of its own: the thread
	 * writes it as each launch begins and ends (sigsetjmp, armed), and
	 * submit reads the fields above for every value. */
	alignas(64) struct host_guard guard;

	/* A kernel's fault, written by the device thread before it sets
	 * fault_ready (release) and writes events_fd; read by events. */
	alignas(64) _Atomic bool fault_ready;
	struct rig_fault_site fault_site;
	char fault_text[320];
	struct host_job ring[HOST_RING];

	/* Written by submit alone (rig's one caller at a time). */
	uint64_t submitted;			/* the last value submit took */
	uint64_t done_seen;			/* done, as submit last read it */
	/* The parts room last found runnable (NULL: none since the last
	 * submit): submit, called next with them, need not ask again. */
	const struct rig_part *room_parts;
	size_t room_nparts, room_nwaits;
	size_t room_need;			/* their arena's bytes (submit.c, arena_need) */
	bool room_fills;			/* one of them is a fill */
	bool failed;
	char failure[192];			/* lives as long as the device */

	pthread_mutex_t msg_lock;		/* guards msgs */
	struct host_msg *msgs;

	struct host_pieces pieces;		/* a profile's (pieces.c) */
	struct rig_times *ranges;		/* the device thread's: a launch's, per runner */

	/* Written by submit (and stop), read by the device thread. */
	alignas(64) _Atomic uint64_t published;	/* the last value in the ring */
	struct ck_ec32 pub_ec;			/* bumped after each publish, and at stop */
	_Atomic bool stop;			/* set seq_cst: assist.c reads it after its count */

	/* Waiters' calls of ops.assist in flight (assist.c). */
	alignas(64) _Atomic unsigned assists;

	/* The device thread's (done is read by submit). */
	alignas(64) _Atomic uint64_t done;	/* the last value run */
	uint64_t pub_seen;			/* published, as the thread last read it */
	struct host_spin pub_spin;		/* its waits for a publish */
	struct host_spin word_spin;		/* its waits for other devices' words */
};

/* The driver's tables (host.c, submit.c). */
extern const struct rig_driver host_driver;
extern const struct rig_ops host_ops;

/* The five C functions (submit.c). */
int host_room(void *edge, struct rig_part *parts, size_t nparts, size_t nwaits);
int host_submit(void *edge, uint64_t value, struct rig_part *parts, size_t nparts,
		const struct rig_wait *waits, size_t nwaits, struct rig_times *times,
		const char **failure);
int host_commit(void *edge, uint64_t value, const char **failure);

/* Memory ops (region.c). */
int host_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	       const char **fault);
void host_free(void *t, void *region);
void host_locate(void *t, void *region, struct rig_location *out);
enum rig_mapping host_map_host(void *t, void *host, uint64_t bytes, void **region);
enum rig_mapping host_map_peer(void *t, const struct rig_location *peer,
			       uint64_t bytes, void **region);
enum rig_mapping host_dma(void *t, void *region, struct rig_dma *out);

/* Code ops (code.c). */
int host_load(void *t, const void *bytes, size_t len, struct rig_code *out,
	      const char **fault);
void host_unload(void *t, void *image);
int host_entry(void *t, void *image, const char *name, struct rig_entry *out,
	       uint64_t *bytes);
int host_symbol(void *t, void *image, const char *name, void **host,
		uint64_t *bytes);
void host_absent(void *t, void *image, const char *name, bool data,
		 char *buf, size_t len);

/* The device thread (exec.c): start it, or wake it after a publish. */
int host_exec_start(struct host_dev *d, const cpu_set_t *cores, char *why, size_t why_len);
void host_exec_wake(struct host_dev *d);

/* Stop the device thread, dropping what it has not run; raise the word. */
void host_exec_stop(struct host_dev *d);

/* The copy engine (copy.c): run one copy, split over the pool when large. */
void host_copy_run(struct host_pool *pool, const struct host_copy *c);

/* A profile's pieces (pieces.c): a block for job's (NULL: no memory), a
 * part's times and its threads' ranges (a launch's: one per runner),
 * the block kept before the word shows the value; the driver's op; the
 * store's start and end (at make and stop). */
struct host_pieces_of *host_pieces_new(const struct host_dev *d, const struct host_job *job);
void host_pieces_add(const struct host_dev *d, struct host_pieces_of *pc, const struct host_op *op,
		     uint64_t start, uint64_t end, const struct rig_times *ranges);
void host_pieces_keep(struct host_dev *d, struct host_pieces_of *pc);
int host_pieces(void *edge, uint64_t value, struct rig_piece *out, size_t cap, size_t *n,
		const char **failure);
void host_pieces_init(struct host_dev *d);
void host_pieces_fini(struct host_dev *d);

/* ops.assist (assist.c), and the wait of stop for the calls in flight;
 * this thread's guard for running kernels (a waiter's, or a submitter's:
 * here.c), NULL where it cannot have one. */
int host_assist(void *t, uint64_t value, bool run, uint64_t *stay_ns);
void host_assist_drain(struct host_dev *d);
struct host_guard *host_thread_guard(void);

/* A kernel's fault, kept for events (exec.c). */
void host_report_fault(struct host_dev *d, const struct host_job *job, const struct host_op *op,
		       const struct host_fault *f);

/* Run value's job, just encoded in its slot, on the submitting thread
 * where the device is idle (here.c); false: publish it as usual. */
bool host_run_here(struct host_dev *d, struct host_job *job, uint64_t value);

/* Keep a message for the device's life; a static fallback on no memory. */
const char *host_keep(struct host_dev *d, const char *text);

#endif
