/* SPDX-License-Identifier: MIT */
/*
 * rig_edge.h - the contract between rig and the drivers that run its devices.
 *
 * A driver is the library that runs one kind of hardware for rig. It fills a
 * struct rig_ops (allocate and map memory, load code, grow queues, stop) and a
 * struct rig_driver (the five C functions that run work: room, submit,
 * commit, settle, measures), and hands rig an opener. A driver includes this
 * header and never rig.h or anything of rig's core.
 *
 * Every function a driver implements returns one of the constants below.
 * rig calls the five C functions one at a time for each device, with room
 * before each submit; the table of other operations may be called from any
 * thread, and a driver says in its facts (may_block) whether room, submit and
 * commit may block.
 *
 * A device reports progress in its timeline word: eight bytes that hold the
 * last committed value v such that the work of every value up to v has
 * completed. Only the driver writes it, and it never moves backwards.
 *
 * While rig is 1.x a minor release may change these structures: a driver
 * outside rig pins the exact rig version it builds against.
 */
#ifndef RIG_EDGE_H
#define RIG_EDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig_base.h"

/*
 * RIG_ATOMIC(T): an atomic T, C11's _Atomic(T). In C++, std::atomic<T>,
 * the type C++23's <stdatomic.h> names _Atomic(T): for the 64-bit words
 * rig shares with drivers it has the same size, alignment and lock-free
 * representation (asserted below), so a driver may be written in either.
 */
#ifdef __cplusplus
#include <atomic>
#define RIG_ATOMIC(T)	std::atomic<T>
static_assert(sizeof(std::atomic<uint64_t>) == 8 &&
	      alignof(std::atomic<uint64_t>) == 8 &&
	      std::atomic<uint64_t>::is_always_lock_free,
	      "a timeline word is a lock-free 8-byte atomic in C and C++");
#else
#include <stdalign.h>
#include <stdatomic.h>
#define RIG_ATOMIC(T)	_Atomic(T)
_Static_assert(sizeof(_Atomic(uint64_t)) == 8 && alignof(_Atomic(uint64_t)) == 8,
	       "a timeline word is an 8-byte atomic");
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status constants ------------------------------------------------- */

/* room's answers. */
#define RIG_FITS	0	/* the parts and waits fit the queues now */
#define RIG_LATER	1	/* they fit once one of the device's values is reached */
#define RIG_GROW	2	/* they fit once the queues grow (rig_ops.grow) */
#define RIG_NEVER	3	/* they never fit, or name work the device does not run */

/* submit's, commit's, settle's and measures' answers, and the ops'. */
#define RIG_OK		0	/* done */
#define RIG_COMMITTED	1	/* submit: every value up to its own is committed */
#define RIG_FAILED	(-1)	/* failed: the device is lost; *failure says why */

/* The ops' answers beyond RIG_OK (rig_ops). */
#define RIG_FAULT	(-2)	/* the device faulted (Driver.Fault): it is lost */
#define RIG_NO_ROOM	(-3)	/* no room now: rig returns memory and asks again */

/* Bytes of scratch each part of a submission carries for room and submit. */
#define RIG_SCRATCH	64

/* The number of timeline words in the process (rig_words). */
#define RIG_WORD_SLOTS	4096

/* ---- Facts ------------------------------------------------------------ */

/* An optional integer: .some false is OCaml's None. */
struct rig_opt {
	bool some;
	int64_t value;
};
#define RIG_SOME(v)	(RIG_LITERAL(rig_opt){ true, (int64_t)(v) })
#define RIG_NONE	(RIG_LITERAL(rig_opt){ false, 0 })

/* The kinds of a device's memory: enum rig_memory (rig_base.h). */

/* A driver's answer to a request to map memory (map_host, map_peer). */
enum rig_mapping {
	RIG_MAPS = 1,		/* the region over the memory is in *region */
	RIG_MAP_NEVER,		/* the device does not map this memory, now or later */
	RIG_MAP_NO_ROOM,	/* no room now: rig may return memory and ask once more */
};

/* The work of a part. 0 is no kind: room answers RIG_NEVER for it. */
enum rig_kind {
	RIG_WORDS_PART = 1,	/* 32-bit words placed on the queue */
	RIG_FILL_PART,		/* a C function called with the queue's context */
	RIG_COPY_PART,		/* a copy of rows of bytes, or a fill with a byte */
	RIG_LAUNCH_PART,	/* a function of an image run over a grid of groups */
};
/* The bit of a kind in rig_queue.runs. */
#define RIG_RUNS(kind)	(1u << (kind))

/* A device's queue. rig places each part on one, by the rules of docs/drivers.md. */
struct rig_queue {
	const char *name;	/* such as "COMPUTE:0": its lane in a profile */
	unsigned runs;		/* RIG_RUNS() of each kind the queue runs */
};

/* How a device's word advances. */
enum rig_completion {
	RIG_BY_STORE = 1,	/* a store a queue runs writes the word */
	RIG_BY_HOST,		/* the host writes it (a handler, or submit/commit) */
};

/* The producers a device's queues wait for; rig waits on the host for others. */
struct rig_waits {
	bool stores;		/* its queues wait for a RIG_BY_STORE producer */
	bool hosts;		/* its queues wait for a RIG_BY_HOST producer */
};

/* What compiled code needs from a device: a record its ABI library declares
 * under a key (the key's address names the record's type). */
struct rig_capability {
	const void *key;
	const void *record;
};

/* A counter the device measures around each launch of a timed value. */
struct rig_counter {
	const char *name;
	int values;		/* how many values it has, at least 1 */
};

/*
 * The facts of a device, read once when it opens. A region is the driver's
 * own object for memory it allocated, opaque to rig (void *). rig refuses an
 * open whose copy_engine names no queue or one that does not run copies,
 * whose hang_ms or cache_bytes is below 1, whose alignment is no power of
 * two, whose edge is NULL or whose edge's first member is NULL.
 */
struct rig_facts {
	const char *arch;		/* such as "gfx1100" or "x86_64" */
	uint64_t budget;		/* bytes of own memory the device should hold at most */
	const struct rig_queue *queues;	/* the device's queues */
	size_t nqueues;
	int copy_engine;		/* index of the copy engine's queue, or -1 for none */
	enum rig_completion completion;	/* how the word advances */
	struct rig_waits waits;		/* producers its queues wait for */
	bool may_block;			/* room/submit/commit may block: rig counts them */
	struct rig_opt hang_ms;		/* lost after this long without progress; NONE: never */
	bool maps_host;			/* map_host maps page-aligned host memory */
	bool host_addresses;		/* the host addresses every region (location.host) */
	uint64_t alignment;		/* a power of two every region's addresses are a multiple of */
	struct rig_opt cache_bytes;	/* last-level cache bytes, NONE where unknown */
	const struct rig_counter *counters; /* NULL iff none; then measures is NULL */
	size_t ncounters;
	struct rig_capability capability; /* the ABI record */
	void *word;			/* the region of the timeline word; NULL: the one make got */
	struct rig_opt events_fd;	/* an fd the polling thread watches (its interrupt
					 * source): readable means call ops.events; NONE: none */
	const char *bus;		/* PCI bus address such as "0000:03:00.0", or NULL */
	void *edge;			/* the C state; its first member points to struct rig_driver */
	const struct rig_io *io;	/* an Io device's library (rig_io_device_opener), NULL
					 * for others: its regions are the library's files */
	void *io_handle;		/* the handle io's calls take; NULL without io */
};

/* ---- Memory ----------------------------------------------------------- */

/* Where a region lies. */
struct rig_location {
	bool has_address;	/* false for memory named by its handle only */
	uint64_t address;	/* the address the device's work uses */
	void *host;		/* the host address of its first byte, or NULL */
	uintptr_t handle;	/* the driver's object: a buffer object, a CUdeviceptr... */
};

/* How another PCI function reaches a region by DMA. */
struct rig_bus_range {
	uint64_t address;	/* a multiple of 4096 */
	uint64_t bytes;		/* a multiple of 4096 */
};
struct rig_dma {
	bool is_dmabuf;
	struct rig_bus_range *ranges;	/* bus ranges in order (malloc'd; rig frees) */
	size_t nranges;
	int fd;			/* a new close-on-exec dma-buf the caller owns */
	uint64_t offset;	/* the region's first byte in fd */
};

/* ---- Code ------------------------------------------------------------- */

/*
 * A binary a driver took. Either the driver placed it (loaded, image set),
 * or it asks for place_bytes of Device memory: rig allocates a region of at
 * least that many bytes and calls place(), which returns the image and the
 * bytes (at most place_bytes) that rig copies to the region's start. place
 * calls nothing that may block or fault, and the driver makes nothing on the
 * device before place is called. free_place releases what load kept for a
 * place() that will never be called.
 */
struct rig_code {
	bool loaded;
	void *image;
	uint64_t place_bytes;
	int (*place)(void *ctx, void *region, void **image,
		     const void **bytes, size_t *nbytes);
	void (*free_place)(void *ctx);
	void *ctx;
};

/* A function of an image, as a driver names it. */
struct rig_entry {
	uint64_t code;		/* what compiled code names it by (a descriptor or code address) */
	uintptr_t launch;	/* what submit reads to launch it; 0 for no Launch queue */
	struct rig_opt params;	/* parameter bytes it reads from byte 0, NONE if unknown */
	struct rig_opt threads;	/* most threads a group may have, NONE if unknown */
	struct rig_opt groups;	/* most groups a grid may have, NONE if unknown */
};

/* entry's answers. */
#define RIG_ENTRY	0	/* the function is in *out */
#define RIG_ABSENT	1	/* the image has no function of that name */
#define RIG_NO_MEMORY	2	/* no memory for its launches (*bytes): rig reclaims and asks again */

/* symbol's answers (RIG_ABSENT as entry's). */
#define RIG_SYMBOL	0	/* the global is at *host, *bytes long */
#define RIG_CODE_NAME	3	/* the name is a function's, not data's */

/* The most bytes absent() may write, its NUL included. */
#define RIG_ABSENT_BYTES	512

/* grow's answers. */
#define RIG_GROWN	0	/* the growth is made; the next room puts it in the queues */
#define RIG_SHORT	1	/* no memory for the *bytes it takes: rig reclaims and asks again */

/* ---- Parts and the five C functions ------------------------------------ */

/* One end of a copy: a region's location and a byte offset into it. */
struct rig_span {
	struct rig_location at;
	uint64_t offset;
};

/* A copy of rows rows of bytes bytes each, or, with fill >= 0, a fill of dst
 * with the byte fill (src unused). */
struct rig_copy {
	struct rig_span src, dst;
	uint64_t bytes;
	uint64_t rows;
	uint64_t src_pitch, dst_pitch;
	int fill;
};

/* A launch: entry.launch of the function, its grid and group, params bytes
 * with refs placed. */
struct rig_launch {
	uintptr_t launch;
	uint64_t code;
	uint32_t grid[3];
	uint32_t group[3];
	uint32_t shared_bytes;
	const void *params;
	uint32_t params_bytes;
};

/* A fill: submit calls fn (rig_fill_fn, rig_base.h) with arg. */
struct rig_fill {
	rig_fill_fn fn;
	void *arg;
	uint32_t arg_bytes;
};

/* Words: 32-bit words of host memory for the queue. */
struct rig_words_part {
	const uint32_t *words;
	size_t count;
};

/* The work of a part, by its kind. */
union rig_work {
	struct rig_copy copy;
	struct rig_launch launch;
	struct rig_fill fill;
	struct rig_words_part words;
};

/*
 * A part of a submission as a driver sees it: its kind, the index of its
 * queue in facts.queues, the indices of earlier parts of other queues it
 * starts after, and RIG_SCRATCH bytes that room and submit may keep between
 * calls (a call finds what an earlier call on the same submission left).
 * The work's fields may differ from one call to the next.
 */
struct rig_part {
	enum rig_kind kind;
	uint32_t queue;
	const uint32_t *follows;
	uint32_t nfollows;
	union rig_work u;
	alignas(16) unsigned char scratch[RIG_SCRATCH];
};

/* A producer's value a submit waits for: a word of rig_words (or a driver's
 * own word) and the value it must show. */
struct rig_wait {
	const RIG_ATOMIC(uint64_t) *word;
	uint64_t value;
	enum rig_completion producer;
};

/* A value's start and end on the host clock (rig_now_ns), 0 if untimed. */
struct rig_times {
	uint64_t start_ns;
	uint64_t end_ns;
};

/*
 * Profiles: how a driver times a value. While a profile is taken, rig
 * gives submit a pair (times) for each value it times, and NULL for the
 * others; the pair lives until settle of the value returned, and rig gives
 * it to no other value meanwhile.
 *  - A driver whose host code sees the work start and end (the memory and
 *    host devices, the polled device by default, the disk's loop) writes
 *    the pair with rig_now_ns() before its store of the value in the word,
 *    and has no settle.
 *  - A driver whose device's work writes the word itself (completion
 *    RIG_BY_STORE) has that work stamp the device's clock into the
 *    driver's own memory, at the value's start and at its end, and
 *    converts the stamps in settle (or in a later submit, once the
 *    value's work completed and its stamps' memory is needed again), in
 *    value order, from a correlation of the device's clock with the
 *    host's that its interface states (a pair of reads, one of each
 *    clock, taken at open and again as it drifts). It never puts a start
 *    before the end it converted last, nor an end before its start.
 *    settle reads no more than memory and one clock: it never waits.
 *  - An AMD queue will do so with RELEASE_MEM packets of the PM4 queue
 *    (EVENT_INDEX end-of-pipe, DATA_SEL 64-bit GPU clock counter): one
 *    before the value's first packet, with the wait for the queue's earlier
 *    work (so it stamps when the value may start), and one after its last,
 *    before the RELEASE_MEM that stores the word, each into a 16-byte slot
 *    of a ring the driver keeps, indexed by value. SDMA queues stamp with
 *    their TIMESTAMP packet. Settle converts with the GPU clock's rate
 *    (the SMU's reference clock) and an offset taken at open (a read of
 *    the RLC's GPU clock count beside rig_now_ns()). Not built yet: the
 *    AMD driver writes no pair today (src/amd keeps settle NULL, and its
 *    values read 0, 0).
 *  - measures, where facts list counters, writes each launch's row from
 *    the same stamps (its status, start and end) and the counters read
 *    around it, and frees what it kept of a value at measures(v, NULL).
 *  - pieces, optional (NULL: none), reports the pieces of a timed value's
 *    work inside its pair: each part's own start and end on its queue,
 *    and the ranges of a part that the device's threads ran (worker >= 0),
 *    all on the host clock and inside the value's pair. Given out and cap,
 *    once the word shows v, it writes up to cap of v's pieces in part
 *    order (a part first, then its ranges by worker) and sets *n to how
 *    many v has (a caller with too small a cap calls again); given NULL,
 *    it frees what it kept of v, and later calls do not name v. rig reads
 *    them at v's settle (after settle where there is one; in value order,
 *    under the same one-at-a-time rule), keeps them in the profile, and
 *    calls it with NULL at once; also when a device ends (closed,
 *    released) while a profile times it. Never after the device's loss:
 *    a driver frees what is left when it is released. Only the host
 *    device has it: its launches, its threads' ranges and its copies.
 * The polled driver's fake stamps (rig_polled.h) exercise the second way
 * exactly; tests/profile checks every driver's values never overlap.
 */

/* One piece of a timed value's work (rig_driver.pieces). */
struct rig_piece {
	enum rig_kind kind;	/* the part's kind */
	uint32_t part;		/* its index in the submission */
	uint32_t queue;		/* the facts.queues index it ran on */
	int32_t worker;		/* -1: the part itself; else the thread that ran a range of it */
	uint64_t start_ns;	/* on the host clock (rig_now_ns) */
	uint64_t end_ns;
};

/*
 * The five C functions, called with the facts' edge, one at a time per
 * device. A RIG_FAILED sets *failure to a message that lives as long as the
 * device.
 *
 * room(edge, parts, n, nwaits): RIG_FITS, RIG_LATER, RIG_GROW or RIG_NEVER.
 * submit(edge, value, parts, n, waits, nwaits, times, failure): encodes the
 *   parts as the work of value (given b+1, b+2, ... in order) after the
 *   waits; RIG_COMMITTED, RIG_OK or RIG_FAILED. times is NULL unless a
 *   profile is taken.
 * commit(edge, v, failure): lets the work up to v run; RIG_OK or RIG_FAILED.
 * settle(edge, v, failure): writes v's times if not yet; NULL if submit does.
 * measures(edge, v, out, failure): v's launch measures into out, or frees
 *   them when out is NULL; NULL for a device with no counters.
 * pieces(edge, v, out, cap, n, failure): v's pieces (its parts and their
 *   threads' ranges) into out, or frees them when out is NULL; optional.
 */
struct rig_driver {
	int (*room)(void *edge, struct rig_part *parts, size_t nparts,
		    size_t nwaits);
	int (*submit)(void *edge, uint64_t value, struct rig_part *parts,
		      size_t nparts, const struct rig_wait *waits,
		      size_t nwaits, struct rig_times *times,
		      const char **failure);
	int (*commit)(void *edge, uint64_t value, const char **failure);
	int (*settle)(void *edge, uint64_t value, const char **failure);
	int (*measures)(void *edge, uint64_t value, uint64_t *out,
			const char **failure);
	/* Optional, NULL for none (Profiles above). */
	int (*pieces)(void *edge, uint64_t value, struct rig_piece *out,
		      size_t cap, size_t *n, const char **failure);
};

/* ---- The driver's other operations ------------------------------------ */

/* Where a fault happened, as far as the driver can tell (ops.events). */
struct rig_fault_site {
	uint64_t value;		/* the value whose work faulted; 0: unknown */
	int part;		/* the part's index in its submission; -1: unknown */
	int queue;		/* the queue it ran on; -1: unknown */
};

/*
 * The table of a driver's other operations (OCaml's Driver module), called
 * with the handle make returned. Those that return an int answer RIG_OK, or
 * RIG_FAULT with *fault set to a message that lives as long as the device
 * (the device is then lost), or the answers their comment names.
 *
 * facts: the device's facts, read once at open.
 * alloc: a region of bytes of a memory kind; RIG_NO_ROOM when full.
 * free: frees a region.
 * locate: where a region lies.
 * map_host: maps bytes of host memory at host (page-aligned) as a region.
 * map_peer: maps a region of another device (its location) as a region.
 * load: takes a binary (struct rig_code); RIG_FAULT for one it refuses.
 * unload: unloads an image.
 * entry: names a function: RIG_ENTRY, RIG_ABSENT or RIG_NO_MEMORY.
 * symbol: an image's global data object by name, as the host addresses
 *   it: RIG_SYMBOL with *host and *bytes set (valid while the image lives),
 *   RIG_ABSENT, or RIG_CODE_NAME where the name is a function's. NULL where
 *   the device's globals are not host-addressable (rig_image_symbol()
 *   then refuses). Called as entry is.
 * absent: after entry (data false) or symbol (data true) answered
 *   RIG_ABSENT for name, writes into buf (len bytes, at most
 *   RIG_ABSENT_BYTES, NUL-terminated) what the image defines instead, as a
 *   clause rig appends to its refusal after ": " -- "it defines add,
 *   scale", and what to do where the names show it (a C++ name mangled).
 *   Writes "" to add nothing. Never fails and calls nothing that blocks.
 *   NULL: the refusal names the asked name only.
 * grow: grows the queues for parts and nwaits: RIG_GROWN or RIG_SHORT.
 * signaled: reads a word of the driver's own (NULL if the word is rig's).
 * dma: how another PCI function reaches a region; RIG_MAP_NEVER if it can't.
 * events: called by rig's polling thread when facts.events_fd is readable;
 *   consumes what made it readable. RIG_OK (the word may have moved: rig
 *   wakes its waiters), or RIG_FAULT with *fault and *site set (site's
 *   fields start unknown), which loses the device. NULL without events_fd.
 *   Called from one thread at a time, concurrently with the C functions.
 * stop: stops the device's work, with the reason it was lost. rig calls it
 *   soon after the loss, from the device's submission thread, once no call
 *   of the driver is in flight (room, submit and commit, even those that
 *   block, and every operation here), and raises the word to the last value
 *   it gave submit. Afterwards rig returns the remaining regions (free) and
 *   images (unload), which must still work, then calls release.
 * release: frees the handle; nothing of the device is used after it. May
 *   be NULL where stop leaves nothing to free.
 */
/*
 * assist (optional, NULL for none; the last of the table): lends the
 * driver a thread that waits for value, so that the work it waits for runs
 * on it rather than the thread sleeping through the work's end (a woken
 * sleeper takes microseconds to run again; a thread that ran the last of
 * the work returns at once). rig calls it from a wait on value (rig_wait
 * and rig's own waits), between its looks while it stays awake, and only
 * where nothing can end the wait before its device's own hang clock would
 * (no timeout, or one longer than twice hang_ms): a kernel run on the
 * waiter's thread holds it to its end. With run false, a look that costs
 * no system call and takes nothing: RIG_ASSIST_READY where the driver
 * has work running now for value or an earlier one that this thread could
 * join, else RIG_ASSIST_NONE. With run true: joins that work and runs
 * parts of it on the calling thread until none is left to take (or value
 * is reached), containing its faults as on the driver's own threads and
 * ending at once when stop interrupts it; RIG_ASSIST_RAN with *stay_ns
 * the time in which the rest (others' parts still running) should end,
 * so that the waiter stays awake that long, or RIG_ASSIST_NONE where it
 * ran nothing. Any thread but the driver's own; never blocks on others'
 * work; safe against stop (it then answers RIG_ASSIST_NONE).
 */
#define RIG_ASSIST_NONE		0	/* nothing to run on this thread now */
#define RIG_ASSIST_READY	1	/* run false: there is work to join */
#define RIG_ASSIST_RAN		2	/* run true: it ran some; *stay_ns set */

struct rig_ops {
	int (*facts)(void *t, struct rig_facts *out, const char **fault);
	int (*alloc)(void *t, uint64_t bytes, enum rig_memory kind,
		     void **region, const char **fault);
	void (*free)(void *t, void *region);
	void (*locate)(void *t, void *region, struct rig_location *out);
	enum rig_mapping (*map_host)(void *t, void *host, uint64_t bytes,
				     void **region);
	enum rig_mapping (*map_peer)(void *t, const struct rig_location *peer,
				     uint64_t bytes, void **region);
	int (*load)(void *t, const void *bytes, size_t len,
		    struct rig_code *out, const char **fault);
	void (*unload)(void *t, void *image);
	int (*entry)(void *t, void *image, const char *name,
		     struct rig_entry *out, uint64_t *bytes);
	int (*grow)(void *t, struct rig_part *parts, size_t nparts,
		    size_t nwaits, uint64_t *bytes);
	uint64_t (*signaled)(void *t);
	enum rig_mapping (*dma)(void *t, void *region, struct rig_dma *out);
	int (*events)(void *t, struct rig_fault_site *site, const char **fault);
	void (*stop)(void *t, const char *reason);
	void (*release)(void *t);
	/* Later additions, last so that older tables still initialise. */
	int (*symbol)(void *t, void *image, const char *name, void **host,
		      uint64_t *bytes);
	void (*absent)(void *t, void *image, const char *name, bool data,
		       char *buf, size_t len);
	int (*assist)(void *t, uint64_t value, bool run, uint64_t *stay_ns);
};

/* ---- Io devices --------------------------------------------------------- */

/*
 * The table of an Io library (docs/io.md): memory the host reads and
 * writes through calls, such as files. A file is the library's object for
 * one extent of that memory. rig runs a library as a device of its own
 * (rig_io_device_opener below): the device's memory is the library's files,
 * and its work the copies between a file and memory the host addresses,
 * each handed to submit as the ops of a value.
 */
enum rig_io_op_kind {
	RIG_IO_READ = 1,	/* file bytes at offset into host */
	RIG_IO_WRITE,		/* host bytes into the file at offset */
	RIG_IO_BARRIER,		/* written data made durable */
};
struct rig_io_op {
	enum rig_io_op_kind kind;
	void *file;
	uint64_t offset;
	void *host;
	uint64_t bytes;
};

/*
 * The calls, with the handle make returned (t). why, where a call takes
 * it, gets the cause naming the path, such as "data.bin: No such file or
 * directory", and the call returns a negative errno.
 *
 * submit(t, value, ops, n, failure): the work of value (given b+1, b+2, ...
 *   in order); the library starts it and stores value in the word make was
 *   given once that work and every earlier value's completed. RIG_OK, or
 *   RIG_FAILED with *failure (the device is lost). Never blocks on I/O.
 * size(t, file, bytes): the file's extent; 0 or a negative errno.
 * release(t, file): the file's handle ends (its I/O in flight ends first).
 * stop(t, reason): ends the library's work; called once, with no other
 *   call of t in flight. Afterwards only size, release, map and unmap.
 *
 * Optional (NULL: the library has none of it):
 * create(t, path, bytes, file, why, len), open(t, path, write, file, why,
 *   len): a file by path: a new one of bytes zero bytes (an existing one
 *   is truncated), or the existing one, opened for writing where write is
 *   set (-EROFS where it opens for reading only), else for reading at
 *   least. Both or neither; rig_disk_create_file() and rig_disk_of_file()
 *   refuse a device without them.
 * map(file, offset, bytes, host, why, len): maps bytes of the file from
 *   offset into host memory, shared: the host's stores are the file's
 *   bytes, coherent with the library's own I/O. unmap(file, host, bytes)
 *   undoes it. They take no t: they work for as long as the file or a map
 *   of it lives, also after stop (a map keeps its file). Both or neither;
 *   rig_buffer_borrow() refuses the files of a device without them.
 * fault_fd(t): an fd that turns readable once the library failed, so
 *   that rig loses the device at once rather than at its next submit;
 *   failure(t): the failure's text, NULL while the library runs well.
 *   Both or neither.
 * submit_after(t, value, ops, n, waits, nwaits, failure): as submit, and
 *   the value's ops start only once each wait's word shows its value (an
 *   acquire load: what the producer wrote before its store is visible to
 *   the ops). Never blocks: the library watches the words itself. With
 *   it, the device's queues wait for every producer (facts.waits) and
 *   rig hands it the waits of a copy on another device's work; without
 *   it, rig waits for them on the host before it calls submit.
 */
struct rig_io {
	int (*submit)(void *t, uint64_t value, const struct rig_io_op *ops,
		      size_t nops, const char **failure);
	int (*size)(void *t, void *file, uint64_t *bytes);
	void (*release)(void *t, void *file);
	void (*stop)(void *t, const char *reason);
	int (*create)(void *t, const char *path, uint64_t bytes, void **file,
		      char *why, size_t len);
	int (*open)(void *t, const char *path, bool write, void **file,
		    char *why, size_t len);
	int (*map)(void *file, uint64_t offset, uint64_t bytes, void **host,
		   char *why, size_t len);
	void (*unmap)(void *file, void *host, uint64_t bytes);
	int (*fault_fd)(void *t);
	const char *(*failure)(void *t);
	int (*submit_after)(void *t, uint64_t value, const struct rig_io_op *ops,
			    size_t nops, const struct rig_wait *waits,
			    size_t nwaits, const char **failure);
	/*
	 * Profiles. Optional: submit_timed(t, value, ops, n, waits, nwaits,
	 * times, failure): as submit_after (as submit where nwaits is 0),
	 * and the library writes into *times when the value's first op
	 * started and its last completed, on the host clock (rig_now_ns),
	 * never a start before the previous value's end, before its store
	 * of the value in the word. rig calls it for a value a profile
	 * times; without it, such a value gets no times (0, 0).
	 */
	int (*submit_timed)(void *t, uint64_t value, const struct rig_io_op *ops,
			    size_t nops, const struct rig_wait *waits,
			    size_t nwaits, struct rig_times *times,
			    const char **failure);
};

/* ---- Openers ----------------------------------------------------------- */

/*
 * An opener names a device (without a machine suffix) and carries its driver
 * and make. Making an opener does no I/O. make(opener, word, &handle, why,
 * why_len) opens a device whose timeline word lies at word, and returns 0,
 * or a negative errno with why filled. A make that may take a lock returns
 * -EINVAL, having opened nothing, when called from inside one of rig's
 * callbacks (the caller's thread holds a lock). The values of a device start
 * after the value its word holds when make returns; make may raise that
 * value, never lower it. A caller that calls make itself owns the handle and
 * stops it, and gives it 8 bytes of host memory aligned to 8.
 */
struct rig_opener {
	const char *name;
	const struct rig_ops *ops;
	int (*make)(const struct rig_opener *o, RIG_ATOMIC(uint64_t) *word,
		    void **handle, char *why, size_t why_len);
	void *arg;		/* the driver's configuration for make */
};

/* An opener of an Io device. */
struct rig_io_opener {
	const char *name;
	const struct rig_io *io;
	int (*make)(const struct rig_io_opener *o, RIG_ATOMIC(uint64_t) *word,
		    void **handle, char *why, size_t why_len);
	void *arg;
};

/* ---- What rig's own drivers define for rig ----------------------------- */

/*
 * rig's core opens these devices by itself (rig.h: rig_host_device(),
 * rig_memory_device(), rig_open_io()), and knows them only by these names:
 * their drivers define them, behind this contract like any other driver.
 */

/* The opener of the host device, "HOST": the host's cores (src/host/). */
extern const struct rig_opener rig_host_opener;

/* Fill *out as an opener of a device of host memory named name, whose
 * submit runs the work before it returns (src/host/memory.c). name must
 * outlive *out. Never blocks. */
void rig_memory_opener(const char *name, struct rig_opener *out);

/*
 * rig_io_device_opener() - fill *out as an opener of a device that runs
 * the Io library io opens (src/io/device.c): one queue, "IO", that runs
 * copies between a file and memory the host addresses, a barrier (a copy
 * of 0 bytes from a file to itself), and nothing else; its facts name the
 * library (facts.io, facts.io_handle), and its events are the library's
 * fault_fd. *io must outlive *out. Never blocks.
 */
void rig_io_device_opener(const struct rig_io_opener *io, struct rig_opener *out);

/* ---- What rig defines for drivers ------------------------------------- */

/*
 * The functions below and the opener fill-ins above refuse a NULL as rig.h
 * says of NULL handles: rig_memory_opener() and rig_io_device_opener()
 * fill nothing, rig_word_wake() and rig_code_sync() do nothing, and
 * rig_word_sleep() answers false at once.
 */

/* The process-wide array of timeline words; each open device has one. */
extern RIG_ATOMIC(uint64_t) rig_words[RIG_WORD_SLOTS];

/* The host clock: rig_now_ns() (rig_base.h). */

/*
 * rig_word_wake() - wake the threads that sleep in a wait on word, now.
 * A driver whose host code stores its device's timeline word (completion
 * RIG_BY_HOST, or a handler) calls it after each store. Without the call
 * a sleeping waiter wakes when rig's polling thread next looks at the
 * word (1-200 us later); with it, at once. Optional: rig's polling thread
 * still watches every word that someone waits on. Any thread; never
 * blocks; a system call only when a thread sleeps on the word, one
 * locked increment otherwise. A word outside rig_words is left alone.
 */
void rig_word_wake(const RIG_ATOMIC(uint64_t) *word);

/*
 * rig_word_sleep() - sleep until word shows value (an acquire load), for
 * timeout_ns at most. A driver whose queues wait for another device's word
 * on the host calls it between its looks, in place of a timed sleep: a
 * producer that calls rig_word_wake() (or rig's polling thread, for a word
 * someone waits on through rig) ends the sleep at once. Returns true when
 * the word shows value. Any thread; blocks (a futex wait) for timeout_ns at
 * most; for a word outside rig_words, a plain sleep of timeout_ns.
 */
bool rig_word_sleep(const RIG_ATOMIC(uint64_t) *word, uint64_t value, uint64_t timeout_ns);

/*
 * rig_code_sync() - make code bytes written through one mapping visible to
 * instruction fetch of the host before they run: the driver of a device
 * whose code the host runs calls it after it writes code.
 */
void rig_code_sync(void *addr, size_t bytes);

/*
 * rig_why_set() - record "<func>: <cause>" as the calling thread's last
 * failure, the message rig.h's rig_why() reads, and return code: how a
 * driver's own public functions (rig_polled.h, rig_disk.h) refuse a call
 * the way rig's do. Any thread; never blocks.
 */
int rig_why_set(const char *func, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * rig_in_callback() - whether the calling thread runs inside one of rig's
 * callbacks (a driver's make, a fill, a place function), where it holds a
 * lock of rig's: a driver function that may take a lock of its own refuses
 * such a call (-EINVAL, having changed nothing) rather than risk a
 * deadlock. Any thread; never blocks.
 */
bool rig_in_callback(void);

#ifdef __cplusplus
}
#endif
#endif /* RIG_EDGE_H */
