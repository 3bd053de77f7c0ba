/* SPDX-License-Identifier: MIT */
/*
 * io/disk.h: the disk engine's calls, for its tests and benchmarks. rig's
 * core never includes it: it runs the disk through its Io table alone
 * (rig_disk_io, rig_edge.h's struct rig_io), as it would any Io library,
 * and the disk knows nothing of the core: only rig_edge.h stands under it.
 *
 * For a newcomer
 * --------------
 * A disk is an Io device whose memory is files. rig_disk_opener's make
 * (rig_disk.h) opens one, given the address of its timeline word, and hands
 * back a handle: the `void *disk` below. The handle's table is rig_disk_io
 * (struct rig_io of rig_edge.h):
 *
 *   submit(disk, value, ops, n, &failure)  the work of one value: reads of
 *       file bytes into host memory, writes of host bytes into a file,
 *       barriers (fsync). Returns at once (RIG_OK), or RIG_FAILED, which
 *       fails the disk. Values follow one another (b + 1, b + 2, ...).
 *   size(disk, file, &bytes)   the file's extent (fixed when made).
 *   release(disk, file)        the file's handle ends; the file closes once
 *       its I/O, its maps and every value that names it have ended
 *       (release is deferred, never refused).
 *   stop(disk, reason)         ends the disk: see "Stop" below.
 *   create, open, map, unmap   disk_file_create, disk_file_open,
 *       disk_file_map, disk_file_unmap below, with the table's messages.
 *   fault_fd, failure          disk_event_fd, disk_failure below.
 *
 * One thread per disk, the loop (loop.c), runs the work: it takes the
 * values from a lock-free queue that any thread feeds (feed.c), cuts each
 * read and write into pieces of chunk_bytes, issues up to `depth` pieces at
 * once through io_uring (uring.c) or a thread pool (pool.c), resubmits the
 * rest of a short read or write, and stores each value in the word (release)
 * once its work and every earlier value's work completed, whatever order the
 * completions came in.
 *
 * Order. Work runs as if each op ran alone, one after another in value
 * order: the loop issues ops in order and holds back a piece that touches
 * bytes of a file or of host memory that an earlier piece still in flight
 * writes (or reads, where the new piece writes). A barrier waits for the
 * writes before it to its file and holds back the writes after it. So a
 * read of what an earlier value wrote sees it, with no wait from rig.
 *
 * Faults. A value whose op the disk refuses at submit (a read or write past
 * the file's extent, a write to a file opened read-only, a bad kind, a value
 * out of order), and a piece whose I/O fails or ends early (a read at end of
 * file: the file shrank behind the disk's back) fail the disk: the word
 * stops where it was, disk_failure() says why (such as "read of f.bin at
 * 4096: Input/output error"), and every later submit answers RIG_FAILED
 * with that text. No zeroes stand in for bytes that were not read.
 *
 * Stop. stop(disk, reason) returns promptly with I/O in flight: the loop
 * drops the values it has not started, cancels the pieces the kernel (or
 * the pool) has not started, waits for those already running (at most
 * depth pieces of chunk_bytes) and ends. Then no I/O touches host
 * memory any more, and stop stores the last submitted value in the word
 * (the values it dropped show as signaled, as docs/drivers.md allows after a loss;
 * rig may free their memory). After stop only size, release, and the
 * files' disk_file_map/disk_file_unmap may be called; the handle's memory
 * goes with its last file.
 *
 * Threads. submit: one thread at a time in practice (rig's submission
 * thread), though the feed takes any number of threads at once. size,
 * release, the disk_file_* calls and the accessors: any thread, any time.
 * stop: once, with no submit running.
 *
 * Usage
 *   _Atomic uint64_t word = 0;  void *disk, *f;  const char *why;
 *   char msg[256];
 *   rig_disk_opener.make(&rig_disk_opener, &word, &disk, msg, sizeof msg);
 *   disk_file_create(disk, "data.bin", 1 << 20, &f, msg, sizeof msg);
 *   struct rig_io_op op = { RIG_IO_WRITE, f, 0, host, 4096 };
 *   rig_disk_io.submit(disk, 1, &op, 1, &why);       value 1
 *   while (atomic_load_explicit(&word, memory_order_acquire) < 1)
 *           ;                                         or sleep
 *   rig_disk_io.release(disk, f);
 *   rig_disk_io.stop(disk, "done");
 */
#ifndef IO_DISK_H
#define IO_DISK_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "rig_disk.h"

/* The disk's Io table: submit, size, release, stop (above). */
extern const struct rig_io rig_disk_io;

/*
 * disk_file_create() - create the file at path, or truncate it, with bytes
 * zero bytes, opened for reading and writing, as memory of the disk.
 * Any thread. Blocks on the file system. Returns 0 with *file set; -EINVAL
 * for a NULL argument or a disk that stopped; the errno of open or
 * ftruncate otherwise. why gets "disk_file_create: <path>: <cause>".
 */
int disk_file_create(void *disk, const char *path, uint64_t bytes,
		     void **file, char *why, size_t len);

/*
 * disk_file_open() - open the existing regular file at path as memory of
 * the disk; its extent is its size now. Opened for reading and writing, or
 * read-only where only reading is allowed (writes to it are then refused at
 * submit). Any thread. Returns 0; -ENOENT for a missing file, -EISDIR for a
 * directory, -EINVAL for another non-regular file, the errno of open or
 * fstat otherwise; why gets "disk_file_open: <path>: <errno's text>".
 */
int disk_file_open(void *disk, const char *path, void **file, char *why,
		   size_t len);

/*
 * disk_file_map() - map bytes of the file from offset into host memory
 * (shared: the host's stores are the file's bytes; coherent with the disk's
 * reads and writes through the page cache). Any thread; also after stop.
 * The map keeps the file open until disk_file_unmap(). Returns 0 with *host
 * set; -EINVAL for zero bytes or a range past the file's extent; the errno
 * of mmap. disk_why() names the call and the cause.
 */
int disk_file_map(void *file, uint64_t offset, uint64_t bytes, void **host);
/* Undo disk_file_map(file, offset, bytes, &host). Returns 0 or -EINVAL. */
int disk_file_unmap(void *file, void *host, uint64_t bytes);

/* The file was opened read-only (disk_file_open found writing refused):
 * writes to it fail the disk, and its maps are read-only. Any thread. */
bool disk_file_read_only(void *file);

/*
 * disk_host_register() - pin bytes of host memory from host for the disk's
 * reads and writes (io_uring's registered buffers): pieces that lie inside
 * it skip the kernel's page pinning. A hint: work is correct without it.
 * Any thread. The range stays registered until disk_host_unregister(),
 * which the caller calls only once no submitted op uses the range. Returns
 * 0; -ENOTSUP in the threads and no-registered-buffers modes; -ENOMEM
 * where the locked-memory limit refuses (the disk then runs in the
 * no-registered-buffers mode); -ENOSPC when all 64 slots are taken;
 * -EINVAL for a NULL host, zero bytes or more than 1 GiB. disk_why() names
 * the cause. Measured (disk_speed, page-cache reads of 128 KiB into a 256
 * MiB buffer of 4 KiB pages): registered was 0.8x unregistered, since the
 * kernel then copies page by page through a bvec (and 4 KiB reads showed
 * no gain either). It pays where the kernel would pin pages per op, as
 * with O_DIRECT, which the disk does not use today.
 */
int disk_host_register(void *disk, void *host, uint64_t bytes);
/* Unregister a range registered at host. Returns 0 or -EINVAL (unknown). */
int disk_host_unregister(void *disk, void *host);

/* "io_uring", "io_uring (no registered buffers)" or "threads". Any thread. */
const char *disk_mode(void *disk);

/*
 * disk_event_fd() - the disk's eventfd: it becomes readable (a count of 1)
 * when the disk fails, once disk_failure() has its text, so a poller learns
 * of a failure without a submit. A stop (or a failure after another) does
 * not write it. The disk owns the fd and
 * closes it with the handle's memory; a caller that outlives the handle
 * dup()s it. Reading it consumes the count. Any thread.
 */
int disk_event_fd(void *disk);

/* The text of the disk's failure (or of its stop), NULL while it runs well.
 * Any thread; the text lives as long as the handle. */
const char *disk_failure(void *disk);

/* The calling thread's last disk_* refusal: "<call>: <cause>". */
const char *disk_why(void);

/* What the loop did. Counters; read at any time from any thread. */
struct disk_stats {
	uint64_t pieces;	/* pieces of I/O issued (not counting resubmits) */
	uint64_t fixed_buffers;	/* of them, through registered buffers */
	uint64_t fixed_files;	/* of them, through registered files */
	uint64_t resubmits;	/* rests of short reads and writes issued again */
	uint64_t out_of_order;	/* values completed before an earlier one */
	uint64_t busy;		/* times the ring said -EBUSY or its CQ overflowed */
	uint64_t held;		/* times a piece waited for an earlier conflicting one */
	uint64_t max_in_flight;	/* most pieces in flight at once */
	uint64_t joined;	/* writes the loop made with others in one pwritev */
	uint64_t kicks;		/* writebacks started before a barrier (uring.c) */
};
void disk_stats(void *disk, struct disk_stats *out);

/*
 * disk_fault_inject() - a test switch: the nth piece of I/O to complete from
 * now on (1: the next) completes with -err instead of its result. It runs
 * through the same path as a real failure. Any thread.
 */
void disk_fault_inject(void *disk, uint64_t nth, int err);

/*
 * disk_short_inject() - a test switch: from now on every nth read or write
 * to complete reports half the bytes it moved (0: never), as a short
 * transfer would; the loop then issues the rest again, through the same
 * path as a real short read or write. Any thread.
 */
void disk_short_inject(void *disk, uint64_t every);

#endif
