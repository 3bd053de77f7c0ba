/* SPDX-License-Identifier: MIT */
/*
 * io/engine.h: the disk's private structures, shared by the disk's files
 * in io/. Not for the core, which reaches the disk only through its Io
 * table (rig_disk_io, rig_edge.h); tests read io/disk.h.
 *
 *   feed.c    the queue from submitters to the loop (liburcu's wfcqueue)
 *   submit.c  checks a value's ops and feeds them (the table's submit)
 *   jobs.c    the cache of job memory (a small value's submit allocates none)
 *   loop.c    the loop thread: order, pieces, hazards, the word
 *   uring.c   the io_uring backend      pool.c  the threads backend
 *   file.c    files: create, open, size, release, map
 *   opener.c  make, stop, modes, accessors    fail.c  messages
 * Beside them, device.c runs any Io library (the disk is one) as a device;
 * it knows nothing of the disk.
 */
#ifndef IO_ENGINE_H
#define IO_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/disk.h"
#include "io/feed.h"
#include "io/jobs.h"
#include "util/tsan.h"

#define DISK_FILE_SLOTS		256	/* registered files per ring */
#define DISK_BUFFER_SLOTS	64	/* registered host ranges per ring */
#define DISK_PROBE_BYTES	(1u << 20) /* pinned once at make to learn the mode */
#define DISK_MAX_DEPTH		4096
#define DISK_MAX_CHUNK		(64u << 20)
#define DISK_MAX_WORKERS	64
#define DISK_FILE_MAGIC		0x6469736b66696c65ull	/* "diskfile" */

_Static_assert(DISK_MAX_CHUNK <= (1u << 30), "a piece's length fits io_uring's u32");
_Static_assert(DISK_BUFFER_SLOTS <= 64, "the slot mask is one uint64_t");

struct disk;

/* A file of the disk. refs: the handle's, one per op of a queued value,
 * one per map; the last one closes it (file_put). */
struct disk_file {
	uint64_t magic;
	struct disk *disk;
	int fd;
	int slot;			/* registered file index, or -1 */
	bool read_only;
	bool write_inline;		/* uring.c: its file system runs buffered
					 * writes in io_uring's workers only */
	/* uring.c, the loop's: whether a barrier of the file was issued, and
	 * the bytes written since its last writeback kick or barrier, and the
	 * range they lie in. */
	bool barred;
	uint64_t unkicked, kick_lo, kick_hi;
	uint64_t bytes;			/* the extent, fixed at create or open */
	_Atomic uint64_t refs;
	char path[];
};

/* The work of one value: the node the feed carries, then the loop's. */
struct disk_job {
	struct feed_node node;		/* first: the feed links jobs by it */
	ck_stack_entry_t entry;		/* the job cache's link (jobs.c) */
	bool cached;			/* its memory is the cache's, not malloc's */
	uint64_t value;
	struct disk_job *later;		/* the loop's list, in value order */
	struct disk_job *pending;	/* the next job with ops left to cut */
	size_t op;			/* the next op to cut into pieces */
	uint64_t cut;			/* bytes of ops[op] already cut */
	uint32_t in_flight;		/* pieces not yet completed */
	const struct rig_wait *waits;	/* its ops start once these words show */
	size_t nwaits;
	size_t waited;			/* waits the loop saw shown */
	bool ready;			/* all waits shown (or dropped): may start */
	struct rig_times *times;	/* a profile's pair (submit_timed), or NULL */
	uint64_t started_ns;		/* its first piece went (the loop's) */
	size_t nops;
	struct rig_io_op ops[];		/* then the waits */
};

/* A piece of I/O in flight: one read, write or fsync. */
struct disk_piece {
	struct disk_job *job;		/* NULL: free */
	struct disk_file *file;
	enum rig_io_op_kind kind;
	int buf;			/* registered buffer index, or -1 */
	uint64_t offset;		/* of the whole piece in the file */
	char *host;
	uint32_t bytes;
	uint32_t done;			/* bytes already moved (short I/O) */
	int64_t res;			/* pool.c: the result of the last call */
	struct disk_piece *next;	/* the free list, or a backend's list */
};

/*
 * A backend runs pieces. The loop alone calls issue and reap; any thread
 * calls bell. issue queues one piece (0, or -EAGAIN when it must reap
 * first); reap hands each finished piece to loop_piece_done(), sleeping
 * first when block is set until a piece finishes or the bell rings, or
 * for timeout_ns at most where that is not 0, and returns 0 or a negative
 * errno (which fails the disk). cancel (the loop,
 * once, at stop) asks that pieces not yet started end at once with
 * -ECANCELED; pieces already running end as they will. fini runs under
 * files_lock once the loop ended; the caller then clears be_state.
 */
struct disk_backend {
	int (*issue)(struct disk *d, struct disk_piece *p);
	int (*reap)(struct disk *d, bool block, uint64_t timeout_ns);
	void (*bell)(struct disk *d);
	void (*cancel)(struct disk *d);
	void (*fini)(struct disk *d);
	int (*file_add)(struct disk *d, struct disk_file *f);
	void (*file_drop)(struct disk *d, struct disk_file *f);
};

/* A registered host range: bytes == 0 marks the slot free. The loop reads
 * base after an acquire load of bytes (pairs with the release in
 * disk_host_register()). */
struct disk_range {
	_Atomic uintptr_t base;
	_Atomic uint64_t bytes;
};

/* What is in flight, coarsely (loop.c's may_conflict): bounds of every
 * piece's host bytes and file bytes, and counts of writes and barriers. */
struct disk_box {
	uintptr_t host_lo, host_hi;
	uint64_t file_lo, file_hi;
	unsigned writes, barriers;
};

struct disk {
	struct rig_disk_options opt;
	_Atomic uint64_t *word;
	const struct disk_backend *be;
	void *be_state;
	const char *_Atomic mode;	/* one of the three names (rig_disk.h) */

	/* submit's side */
	_Atomic uint64_t submitted;	/* the last value fed */
	struct feed feed;
	struct job_cache jobs;		/* job memory, taken here, given back by the loop */
	/* The word the loop sleeps on (loop.c, sleep_on_word), or NULL: a
	 * submit that finds the loop asleep wakes it there too. */
	const _Atomic uint64_t *_Atomic sleep_word;

	/* the loop's own */
	pthread_t loop;
	struct disk_job *first, *last;	/* values fed, not yet in the word */
	struct disk_job *cursor;	/* the first job with ops left to cut (or
					 * not ready): the list of them, through
					 * each job's pending, in value order */
	struct disk_job *pending_last;	/* the last of that list */
	const struct rig_wait *blocked;	/* the cursor's wait whose word is behind */
	bool walk_due;			/* something changed since the last issue
					 * walk (loop.c, issue_some) */
	unsigned wait_step;		/* looks at it since it blocked */
	uint64_t shown;			/* the value last stored in the word */
	uint64_t timed_end;		/* the last end a profile's pair got */
	uint64_t cut_value;		/* every value up to it arrived (was fed) */
	struct disk_piece *pieces;	/* depth of them */
	struct disk_piece *free_pieces;
	struct disk_piece *again;	/* rests of short I/O to issue first */
	unsigned in_flight;
	struct disk_box box;
	bool cancelled;			/* cancel was called (at stop) */

	_Atomic bool stopping;
	_Atomic uint64_t refs;		/* the handle's, one per file */
	_Atomic unsigned files;		/* files open (uring.c: an fsync inline) */

	/* failure: 0 none, 1 being written, 2 written (text in failure) */
	_Atomic int failed;
	char failure[320];
	int event_fd;			/* an eventfd, written once by disk_fail()
					 * (not by a stop's disk_fail_quiet()) */

	pthread_mutex_t files_lock;	/* slot masks, ring teardown */
	uint64_t file_slots[DISK_FILE_SLOTS / 64];
	uint64_t buffer_slots;
	bool ring_up;
	struct disk_range ranges[DISK_BUFFER_SLOTS];
	_Atomic unsigned nranges;

	_Atomic uint64_t fault_nth;	/* disk_fault_inject(): countdown */
	_Atomic int fault_err;
	_Atomic uint64_t short_every;	/* disk_short_inject() */
	uint64_t short_count;		/* the loop's */

	struct {
		_Atomic uint64_t pieces, fixed_buffers, fixed_files, resubmits,
			out_of_order, busy, held, max_in_flight, joined, kicks;
	} stats;
};

/* fail.c */
bool disk_fail(struct disk *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool disk_fail_quiet(struct disk *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool disk_has_failed(struct disk *d);
const char *disk_failure_text(struct disk *d);
int disk_refuse(const char *call, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *disk_op_name(enum rig_io_op_kind kind);

/* loop.c */
void *loop_main(void *arg);
void loop_piece_done(struct disk *d, struct disk_piece *p, int64_t res);

/* file.c */
void file_get(struct disk_file *f);
void file_put(struct disk_file *f);
bool file_of(struct disk *d, const void *file);
/* The table's calls on files (rig_disk_io, rig_edge.h's struct rig_io). */
int disk_file_size(void *t, void *file, uint64_t *bytes);
void disk_file_release(void *t, void *file);
int disk_io_create(void *t, const char *path, uint64_t bytes, void **file,
		   char *why, size_t len);
int disk_io_open(void *t, const char *path, bool write, void **file,
		 char *why, size_t len);
int disk_io_map(void *file, uint64_t offset, uint64_t bytes, void **host,
		char *why, size_t len);
void disk_io_unmap(void *file, void *host, uint64_t bytes);

/* opener.c */
void disk_put(struct disk *d);

/* the backends */
int uring_start(struct disk *d, char *why, size_t len);
int pool_start(struct disk *d, char *why, size_t len);
int uring_register_host(struct disk *d, unsigned slot, void *host,
			uint64_t bytes);
void uring_unregister_host(struct disk *d, unsigned slot);

#endif
