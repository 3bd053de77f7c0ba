/* SPDX-License-Identifier: MIT */
/*
 * rig.h - run work on devices from multithreaded C programs.
 *
 * A program opens a device, allocates memory on it, and submits work; rig
 * orders that work by the memory it reads and writes, so a program never
 * names an event or a fence. Any thread may call any function.
 *
 * Every call that can fail returns 0 or a negative status (RIG_E*), and the
 * calling thread's rig_why() then holds "<function>: <cause>". A refused call
 * changes nothing. Functions defined in this header as static inline never
 * block, never make a system call and never allocate.
 *
 * NULL handles, one rule for every public function of rig's headers (this
 * one, rig_edge.h's functions, rig_disk.h, rig_polled.h, rig_amd_pci.h):
 * a NULL where a call takes a handle (a device, buffer, image, function,
 * submission, run, claim, opener, driver) or a pointer it reads or
 * writes is refused, before anything changes:
 *  - a call that returns a status returns RIG_EINVAL, and rig_why() says
 *    "<function>: the <what> is NULL" (a point's NULL device: "the point
 *    names no device");
 *  - a call that returns a value (rig_name, rig_budget, rig_buffer_length,
 *    rig_reached, rig_lost, rig_polled_ran...) returns its empty value --
 *    NULL, 0, false, or -1 where 0 is an answer (rig_cache_bytes,
 *    rig_polled_events_fd) -- and records the same message;
 *  - a call that returns nothing does nothing; a release (of NULL, as
 *    free(NULL)) records nothing, another call (rig_polled_stall,
 *    rig_memory_opener...) the same message.
 * Where a header gives NULL a meaning (a NULL out point, rig_pci_machine's
 * NULL for this machine, rig_disk_opener_init's defaults), it is no
 * refusal. A dead buffer and a lost device are handles: each call answers
 * them as its comment says (RIG_EINVAL "the buffer is dead: ...",
 * RIG_ELOST "<device> is lost: ..."). A released handle is no handle: a
 * call given one is undefined, as a use of freed memory is.
 *
 * Order follows the order in which submits land (docs/order.md): between
 * its own threads a program hands buffers over as it hands any memory.
 * RIG_LOG=error|warn|info|debug in the environment prints rig's opens,
 * losses and reclaim stalls to stderr (docs/logging.md).
 *
 * Read next: rig_edge.h (the driver contract), rig_polled.h (the test
 * driver), README.md (a tour), docs/README.md (every promise, page by
 * page), man 7 rig and one man page per function (man/).
 */
#ifndef RIG_H
#define RIG_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rig_base.h"	/* enum rig_memory, rig_fill_fn, rig_now_ns(), versions */

#ifdef __cplusplus
extern "C" {
#endif

/* Openers (rig_edge.h): a program passes one it was given to rig_open(). */
struct rig_opener;
struct rig_io_opener;

/* ---- Statuses --------------------------------------------------------- */

#define RIG_EINVAL	(-EINVAL)	/* invalid argument: nothing changed */
/* The device is lost (rig_lost() says why), or the call needs memory of a
 * lost device, or work a loss dropped; rig_why() names the device. */
#define RIG_ELOST	(-ENODEV)
#define RIG_ENOMEM	(-ENOMEM)	/* out of memory (host or device budget) */
#define RIG_ETIMEDOUT	(-ETIMEDOUT)	/* the deadline passed first */
#define RIG_EAGAIN	(-EAGAIN)	/* not now; a retry may succeed */

/*
 * rig_why() - the message of the calling thread's last failure, such as
 * "rig_buffer_create: -5 bytes is negative". Valid until the thread's next
 * failing call. Never blocks. "" if nothing failed yet.
 */
const char *rig_why(void);

/* ---- Devices ---------------------------------------------------------- */

struct rig_device;

/*
 * rig_open() - open the device an opener names, or return the one already
 * open under that name (then make is not called). rig reads the device's
 * facts once and refuses facts that break the rules of docs/drivers.md,
 * each with its own message. Any thread, but not from inside a callback
 * of rig's.
 * Returns 0 with *out set; RIG_EINVAL for a bad opener or facts, or a call
 * from a callback; the driver's negative status with its message when make
 * fails (nothing is left behind); RIG_ENOMEM. Each successful open is
 * matched by one rig_device_release().
 */
int rig_open(const struct rig_opener *opener, struct rig_device **out);

/*
 * rig_memory_device() - open (or find) a device of host memory named name
 * whose work runs before the call that submits it returns.
 */
int rig_memory_device(const char *name, struct rig_device **out);

/*
 * rig_host_device() - open (or find) "HOST", the host's cores: it loads
 * relocatable objects built with `cc -c -O2 -fPIC -ffreestanding
 * -fno-math-errno -nostdlib`, links them, and runs a launch over its grid
 * of groups split into ranges among a worker per core. A host kernel is
 * `void f(const void *params, int64_t first, int64_t end)`.
 */
int rig_host_device(struct rig_device **out);

/*
 * rig_close() - lose the device with the reason "closed", wait for the
 * driver's stop, and return its memory. Buffers on it become dead. The
 * handle stays valid, and reports the loss, until released. Blocks while
 * the device's submission thread finishes. Returns 0, or RIG_EINVAL.
 */
int rig_close(struct rig_device *d);

/*
 * rig_device_release() - give up one reference from rig_open(). The last
 * one closes the device if it is open and frees the handle once no buffer
 * refers to it. NULL is ignored.
 */
void rig_device_release(struct rig_device *d);

/* The device's name, as its opener gave it. */
const char *rig_name(const struct rig_device *d);
/* The device's architecture, such as "x86_64" or "gfx1100". */
const char *rig_arch(const struct rig_device *d);
/* The last-level cache in bytes, or -1 where the driver does not know it. */
int64_t rig_cache_bytes(const struct rig_device *d);
/* The bytes of own memory the device should hold at most (facts.budget,
 * until rig_set_budget()). */
uint64_t rig_budget(const struct rig_device *d);

/*
 * rig_set_budget() - change the bytes of own memory d may hold. Memory
 * already held stays; later allocations fit the new budget, returning
 * released memory first. Returns 0; RIG_EINVAL for a negative size;
 * RIG_ELOST for a lost device, whose budget stays as it was.
 */
int rig_set_budget(struct rig_device *d, uint64_t bytes);

/* The bytes of own memory d holds: live buffers', and released memory not
 * yet given back to the driver (its work not yet done, or kept a moment
 * for an allocation of its size to reuse). Never blocks. */
uint64_t rig_allocated(const struct rig_device *d);
/*
 * rig_lost() - why the device was lost ("closed", "forked", "no progress
 * for 50 ms", "commit failed: ...", "lost with A"), or NULL while it is
 * live. Valid while the program holds d. Never blocks.
 *
 * The loss rule for what waits on a lost device A (README, Loss): no work
 * runs on memory whose last write a loss dropped. A submit that would wait
 * for a value A's loss already dropped is refused (RIG_ELOST) and changes
 * nothing. A device B that had accepted work waiting for such a value, in
 * its queues or on the host, is lost "lost with A": that work never runs,
 * its values are dropped, and reads of what it would have written return
 * RIG_ELOST. No value of B that waited for a value of A is reached while
 * that value is dropped. A device stalled only because its queues wait
 * for a stalled A is lost with A, not for "no progress" of its own.
 */
const char *rig_lost(const struct rig_device *d);

/*
 * What rig knows of a loss: the device, the reason, and where the driver
 * could tell, the culprit (the value whose work faulted, the submission it
 * ran, the part's index in it and its queue). A device lost because its
 * queues waited for a device that was lost names that loss as its cause,
 * and so on back to the first: the chain of devices.
 */
struct rig_loss {
	const char *device;		/* the lost device's name */
	const char *reason;		/* as rig_lost() says */
	uint64_t value;			/* the value at fault; 0: unknown */
	/* The submission that value ran, for comparison only (it may have
	 * been released since); NULL: unknown, or the work of a copy. */
	const void *submission;
	int part;			/* the part's index in it; -1: unknown */
	int queue;			/* the part's queue; -1: unknown */
	const struct rig_loss *cause;	/* the loss this one followed, or NULL */
};

/*
 * rig_loss() - d's loss record, or NULL while d is live. Valid while the
 * program holds d. Never blocks.
 */
const struct rig_loss *rig_loss(const struct rig_device *d);

/* ---- Timelines and points --------------------------------------------- */

/* A value of a device's timeline: the work a submit placed. */
struct rig_point {
	struct rig_device *device;
	uint64_t value;
};

/*
 * rig_reached() - the device's word shows the value and its work completed
 * (not dropped by a loss). Never blocks.
 */
bool rig_reached(struct rig_point p);

/*
 * rig_signaled() - the value completed, or was dropped after a loss. Never
 * blocks.
 */
bool rig_signaled(struct rig_point p);

/*
 * rig_wait() - block until p is signaled or timeout_ns passes. Commits p's
 * value first, so it never sleeps on work a driver still holds; spins
 * briefly, then sleeps on a futex. A driver call that may block
 * (facts.may_block) never holds the wait past timeout_ns: the commit is
 * asked again until the driver takes it, and while the call blocks the
 * device's hang clock (hang_ms) runs. With no timeout (UINT64_MAX) it
 * may run part of p's work on the calling thread (a host launch's
 * ranges: rig_host.h). Any thread.
 * Returns 0 when p is reached; RIG_ETIMEDOUT after timeout_ns; RIG_ELOST
 * when the device was lost and p dropped; RIG_EINVAL, at once whatever
 * the timeout, for a point no submit gave (a value above the device's
 * last given one).
 */
int rig_wait(struct rig_point p, uint64_t timeout_ns);

/*
 * Waits over several points, and a descriptor for an event loop. Every
 * point passed to these must come from a submit (rig_submit(),
 * rig_buffer_copy(), rig_disk_barrier()) on a device the program still
 * holds; each is checked before anything waits. None of them adds any
 * cost to a submit: the polling thread looks at what they wait on only
 * while they wait (docs/waits.md).
 */

/*
 * rig_wait_all() - block until every one of the n points is signaled, one
 * is found dropped, or timeout_ns (for the whole call) passes. Commits
 * each point's value first, as rig_wait() does. Any thread, not from a
 * callback of rig's.
 * Returns 0 when every point is reached (n == 0: at once); RIG_ELOST when
 * a point was dropped by its device's loss (rig_why() names the point's
 * index, its device and the loss's chain; a dropped point found before
 * the wait answers at once); RIG_ETIMEDOUT, naming the first point still
 * not signaled; RIG_EINVAL for a negative count, NULL points with n > 0,
 * a point with no device, or a value no submit of its device gave.
 */
int rig_wait_all(const struct rig_point *points, size_t n, uint64_t timeout_ns);

/*
 * rig_wait_any() - block until one of the n points is signaled or
 * timeout_ns passes, and set *index to the lowest index of a signaled
 * point. Commits every point's value before it sleeps. Any thread, not
 * from a callback of rig's. Where more than one point is waited on, the
 * sleep ends at the polling thread's next look after the point is
 * signaled (a few microseconds while words move, at most 200 us).
 * Returns 0 when point *index is reached; RIG_ELOST when it was dropped
 * (*index says which; rig_why() names the loss); RIG_ETIMEDOUT (*index
 * untouched); RIG_EINVAL as rig_wait_all(), and for n == 0 or a NULL
 * index.
 */
int rig_wait_any(const struct rig_point *points, size_t n, uint64_t timeout_ns,
		 size_t *index);

/*
 * rig_point_fd() - a new eventfd (close-on-exec, non-blocking) in *fd that
 * becomes readable once every one of the n points is signaled, or once
 * one of them is dropped: add it to an epoll set, or read it with
 * io_uring, then call rig_wait_all(points, n, 0) for the answer (0 or the
 * loss) and close the descriptor. It is readable at once where that holds
 * already. Commits each point's value, so the loop never sleeps on work a
 * driver holds; the polling thread watches the points' words until then,
 * and writes rig's own copy of the eventfd, so the program may close its
 * descriptor early. That copy keeps the eventfd's file open until the
 * poller lets it go, a moment after it fired: take the descriptor out of
 * an epoll set (EPOLL_CTL_DEL) before closing it, as with any descriptor
 * another holds a copy of, or epoll reports it once more. Never blocks. Any thread, not from a callback of
 * rig's. Returns 0; RIG_EINVAL as rig_wait_all(), and for n == 0 or a
 * NULL fd; RIG_EAGAIN when the process is out of descriptors or no
 * polling thread could start; RIG_ENOMEM.
 */
int rig_point_fd(const struct rig_point *points, size_t n, int *fd);

/* ---- Buffers ---------------------------------------------------------- */

struct rig_buffer;

enum rig_access {
	RIG_READ_WRITE = 1,
	RIG_READ_ONLY,
};

/*
 * rig_buffer_create() - bytes of a device's memory of a kind
 * (RIG_MEMORY_DEVICE, _PINNED or _MAPPED). Zero bytes allocate nothing; the
 * buffer's address is then 0. Its bytes are unspecified: memory a buffer
 * of the same size and kind released may come back as its last use left
 * it, with no call to the driver (rig_buffer_release()); write what must
 * be known first. An allocation that would pass the budget, or
 * that the driver has no room for, first returns released memory, waiting
 * for its work where needed, and asks again.
 * Returns 0; RIG_EINVAL for a negative size (a size_t negative as
 * ptrdiff_t) or an unknown kind; RIG_ELOST; RIG_ENOMEM when nothing more
 * can come back (rig_why() says how much was asked, held and budgeted),
 * having changed nothing.
 */
int rig_buffer_create(struct rig_device *d, size_t bytes, enum rig_memory kind,
		      struct rig_buffer **out);

/*
 * rig_buffer_view() - a buffer over length bytes of b from offset, with an
 * access no wider than b's. Returns 0; RIG_EINVAL for a range outside b, a
 * read-write view of a read-only buffer, or a dead b.
 */
int rig_buffer_view(struct rig_buffer *b, size_t offset, size_t length,
		    enum rig_access access, struct rig_buffer **out);

/* The buffer's bytes, its access, and its device. Never block. */
size_t rig_buffer_length(const struct rig_buffer *b);
enum rig_access rig_buffer_access(const struct rig_buffer *b);
struct rig_device *rig_buffer_device(const struct rig_buffer *b);

/*
 * rig_buffer_address() - the address of b's first byte as its device's work
 * addresses it; 0 for an empty buffer.
 */
uint64_t rig_buffer_address(const struct rig_buffer *b);

/* rig_buffer_overlaps() - a and b share a 4-byte word of one allocation. */
bool rig_buffer_overlaps(const struct rig_buffer *a, const struct rig_buffer *b);

/*
 * rig_buffer_read() - copy n bytes of b from offset into host memory dst,
 * after the last write of them (it waits for that work). Returns 0;
 * RIG_EINVAL for a range outside b, a dead b, or memory the host does not
 * address; RIG_ELOST when the write it waits for was dropped.
 */
int rig_buffer_read(struct rig_buffer *b, size_t offset, void *dst, size_t n);

/*
 * rig_buffer_write() - copy n host bytes from src into b at offset, after
 * every earlier use of them. Returns as rig_buffer_read(), and RIG_EINVAL
 * for a read-only b.
 */
int rig_buffer_write(struct rig_buffer *b, size_t offset, const void *src,
		     size_t n);

/*
 * rig_buffer_copy() - submit a copy of src's bytes into dst as device work
 * on their device, ordered after the last write of src and every use of
 * dst; *out (may be NULL) is its point. One side may be a file of a disk
 * and the other memory the host addresses on any device: the disk runs
 * the copy. Returns 0; RIG_EINVAL for buffers of other lengths or devices,
 * overlapping buffers, a read-only or dead dst, two files, a file and
 * memory with no host address; RIG_ELOST.
 */
int rig_buffer_copy(struct rig_buffer *src, struct rig_buffer *dst,
		    struct rig_point *out);

/*
 * rig_buffer_borrow() - b's memory made usable on device d2: a buffer on d2
 * over the same bytes (host memory d2 maps, or a peer mapping; for a file
 * of a disk, a shared map of the file that d2 maps as host memory, undone
 * when the borrowed memory returns), ordered by the same stamps as b. Returns 0; RIG_EINVAL for a dead b or memory d2
 * does not map; RIG_ELOST; RIG_ENOMEM when d2 has no room for the mapping.
 */
int rig_buffer_borrow(struct rig_buffer *b, struct rig_device *d2,
		      struct rig_buffer **out);

/* ---- Io devices: disks -------------------------------------------------- */

/*
 * An Io device's memory is reached through calls, not addresses: a disk's
 * memory is files (rig_disk.h). Its buffers are file buffers; the host
 * reads and writes them only through copies to and from memory it
 * addresses (rig_buffer_copy), which are the disk's work, ordered by the
 * same stamps as all work, and advance the disk's timeline in value order.
 * The disk runs its I/O in an io_uring loop, or in a pool of pread/pwrite
 * threads where io_uring is denied (rig_disk.h, modes). A disk that fails
 * an I/O (an I/O error, a file that shrank behind its back) is lost with
 * the error's text, such as "read of /d/f.bin at 4096: Input/output error";
 * no copy ever shows bytes that were not read.
 */

/*
 * rig_open_io() - open the Io device an Io opener names (such as
 * rig_disk_opener), or return the one open under that name, as rig_open()
 * does. rig runs it as a driver of one queue "IO" that runs copies.
 * rig_buffer_create() and rig_submission_make() refuse it: its buffers
 * come from rig_disk_create_file() and rig_disk_of_file(). Any thread, not
 * from a callback. Returns 0; RIG_EINVAL for a bad opener, or make's
 * status with its message; RIG_ENOMEM.
 */
int rig_open_io(const struct rig_io_opener *opener, struct rig_device **out);

/*
 * rig_disk_create_file() - create the file at path (truncating one that
 * exists) with bytes zero bytes, and return a read-write buffer over it on
 * the disk. Blocks on the file system. Returns 0; RIG_EINVAL for a device
 * that is no disk, a NULL or empty path, a negative size, a call from a
 * callback, or a file the system refuses (rig_why() gives errno's text);
 * RIG_ELOST; RIG_ENOMEM. A refusal creates nothing.
 */
int rig_disk_create_file(struct rig_device *disk, const char *path, size_t bytes,
			 struct rig_buffer **out);

/*
 * rig_disk_of_file() - a buffer over the existing regular file at path, of
 * its size now, with access RIG_READ_WRITE or RIG_READ_ONLY. Returns 0;
 * RIG_EINVAL as rig_disk_create_file(), and for a missing or unreadable
 * file, a directory or another non-regular file (rig_why() names the path
 * and the cause), or RIG_READ_WRITE of a file that only opens read-only;
 * RIG_ELOST; RIG_ENOMEM.
 */
int rig_disk_of_file(struct rig_device *disk, const char *path,
		     enum rig_access access, struct rig_buffer **out);

/*
 * rig_disk_barrier() - make the written data of file's whole file durable
 * (fsync), as the disk's work, after every earlier write of the file: the
 * disk's copies into it, and other devices' work through borrowed maps of
 * it. *out (may be NULL) is its point: once reached, the data is on the
 * disk. Returns 0; RIG_EINVAL for a dead buffer or one that is no file of
 * a disk; RIG_ELOST.
 */
int rig_disk_barrier(struct rig_buffer *file, struct rig_point *out);

/* ---- Claims ----------------------------------------------------------- */

struct rig_claim;

/*
 * rig_claim_hold() - hold n buffers: while held, nothing consumes or
 * donates them (rig_buffer_consume refuses, rig_buffer_exclusive answers
 * false) and their memory stays. Every taken run holds its submission's
 * fixed memory and the buffers its parts name in the same way. Returns 0;
 * RIG_EINVAL for a dead buffer; RIG_ENOMEM.
 */
int rig_claim_hold(struct rig_buffer *const *bufs, size_t n, struct rig_claim **out);
/* Let go of a hold. NULL is ignored. */
void rig_claim_release(struct rig_claim *c);
/* Run fn(arg) under a hold of the n buffers; fn's result, or a refusal. */
int rig_claim_with(struct rig_buffer *const *bufs, size_t n,
		   int (*fn)(void *arg), void *arg);

/*
 * rig_buffer_exclusive() - true when b is the only reference to its memory
 * (no view, borrow, submission or other handle) and nothing holds it: the
 * caller may write it in place. Never blocks.
 */
bool rig_buffer_exclusive(const struct rig_buffer *b);

/*
 * rig_buffer_consume() - end b (every later use of b is refused: "the buffer
 * is dead: consumed") and return a new buffer over the same memory, whose
 * first use is ordered after every use of b: donation, an input written in
 * place as an output. Returns 0; RIG_EINVAL for a dead or held b; RIG_ENOMEM.
 * b's handle is still released with rig_buffer_release().
 */
int rig_buffer_consume(struct rig_buffer *b, struct rig_buffer **out);

/*
 * rig_buffer_release() - give up the buffer handle. Its memory returns to
 * the driver once the work submitted while it was live is done; released
 * with work in flight, it may first serve the next allocation of its size
 * and kind on its device once that work is done, or go back a few
 * milliseconds later. Never blocks. NULL is ignored.
 */
void rig_buffer_release(struct rig_buffer *b);

/* ---- Images ----------------------------------------------------------- */

struct rig_image;
struct rig_function;

/*
 * rig_image_load() - load code on a device: the driver places it itself,
 * or rig places the bytes the driver asks it to in Device memory. Returns
 * 0; RIG_EINVAL for code the driver refuses (rig_why() says why) or a
 * device that loads none; RIG_ELOST; RIG_ENOMEM.
 */
int rig_image_load(struct rig_device *d, const void *bytes, size_t len,
		   struct rig_image **out);

/*
 * rig_image_function() - the function name of an image. Returns 0;
 * RIG_EINVAL with "no function <name>" where the image has none, followed,
 * where the driver can tell, by the functions it does define (and, for C++
 * names, that they are mangled); RIG_ELOST; RIG_ENOMEM. The function lives
 * as long as its image.
 */
int rig_image_function(struct rig_image *img, const char *name,
		       struct rig_function **out);

/*
 * rig_image_symbol() - a global data object of an image, by name, as the
 * host addresses it: *host its first byte, *bytes its size (the object's
 * st_size on the host device). For tables a program fills before its
 * launches: stores made before a submit are seen by the work it submits,
 * and what a launch stored is seen once its point is reached. The address
 * lives as long as the image. Any thread; never blocks on work. Returns 0;
 * RIG_EINVAL with "no data object <name>: <what the image defines>" where
 * it has none of that name, "<name> is a function, not a data object"
 * for a function's name, or "<device>'s globals are not addressed by the
 * host" on a device without host-addressable globals (only the host
 * device has them); RIG_ELOST. See also rig_image_function().
 */
int rig_image_symbol(struct rig_image *img, const char *name, void **host,
		     size_t *bytes);

/* Give up the image; it unloads once the work submitted before is done. */
void rig_image_release(struct rig_image *img);

/* ---- Submissions ------------------------------------------------------ */

/*
 * A prepared submission is work for one device, made once and run many
 * times, from any number of threads. Its parts are ordered by the memory
 * they use (docs/order.md, rule 2); each submit orders them after other
 * work by the memory's stamps (docs/order.md, rule 3). See
 * docs/submissions.md.
 */
struct rig_submission;
struct rig_run;

/* Slots are 0 .. RIG_SLOTS_MAX - 1: rig_submission_make() refuses a part
 * that names a higher one. */
#define RIG_SLOTS_MAX	65536

/* One end of a copy: a buffer, or (buffer NULL) the buffer of a slot. */
struct rig_side {
	struct rig_buffer *buffer;
	int64_t slot;
};
#define RIG_BUFFER(b)	(RIG_LITERAL(rig_side){ (b), -1 })
#define RIG_SLOT(n)	(RIG_LITERAL(rig_side){ NULL, (int64_t)(n) })

enum rig_ref_kind {
	RIG_REF_READ = 1,	/* the work reads the slot's buffer */
	RIG_REF_WRITE,		/* reads and writes it (it must admit writes) */
	RIG_REF_UNORDERED,	/* reads and writes it, ordered by device order only */
	RIG_REF_ENTRY,		/* the value by which the device's work refers to fn */
};

/*
 * A ref places 8 bytes at params byte at when the work runs: the slot's
 * buffer address plus the offset the run stored there, or fn's entry.
 * at is a multiple of 8; two refs of a part never share an at.
 */
struct rig_ref {
	enum rig_ref_kind kind;
	int64_t slot;
	int64_t at;
	struct rig_function *fn;
};
#define RIG_READ(slot, at)	RIG_REF_OF(RIG_REF_READ, slot, at, NULL)
#define RIG_WRITE(slot, at)	RIG_REF_OF(RIG_REF_WRITE, slot, at, NULL)
#define RIG_UNORDERED(slot, at)	RIG_REF_OF(RIG_REF_UNORDERED, slot, at, NULL)
#define RIG_ENTRY_REF(fn, at)	RIG_REF_OF(RIG_REF_ENTRY, 0, at, fn)
#define RIG_REF_OF(kind, slot, at, fn) \
	(RIG_LITERAL(rig_ref){ (kind), (int64_t)(slot), (int64_t)(at), (fn) })

enum rig_part_kind {
	RIG_COPY = 1,		/* src's bytes into dst */
	RIG_LAUNCH,		/* fn over a grid of groups */
	RIG_FILL,		/* a C function the driver's submit calls */
	RIG_WORDS,		/* raw 32-bit words for the device's queue */
};

/* A part, as a program describes it; rig_part_*() fill one. */
struct rig_part_spec {
	enum rig_part_kind kind;
	struct rig_side src, dst;		/* copy */
	struct rig_function *fn;		/* launch */
	rig_fill_fn fill;			/* fill */
	int64_t params;				/* launch, fill: parameter bytes */
	const struct rig_ref *refs;		/* launch, fill */
	size_t nrefs;
	struct rig_buffer *words;		/* words */
};

/* Each starts from a zeroed spec: memset, as C and C++ both read it. */
static inline struct rig_part_spec
rig_part_copy(struct rig_side src, struct rig_side dst)
{
	struct rig_part_spec p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_COPY;
	p.src = src;
	p.dst = dst;
	return p;
}

static inline struct rig_part_spec
rig_part_launch(struct rig_function *fn, int64_t params,
		const struct rig_ref *refs, size_t nrefs)
{
	struct rig_part_spec p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_LAUNCH;
	p.fn = fn;
	p.params = params;
	p.refs = refs;
	p.nrefs = nrefs;
	return p;
}

static inline struct rig_part_spec
rig_part_fill(rig_fill_fn fill, int64_t params, const struct rig_ref *refs,
	      size_t nrefs)
{
	struct rig_part_spec p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_FILL;
	p.fill = fill;
	p.params = params;
	p.refs = refs;
	p.nrefs = nrefs;
	return p;
}

static inline struct rig_part_spec
rig_part_words(struct rig_buffer *words)
{
	struct rig_part_spec p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_WORDS;
	p.words = words;
	return p;
}

/* Fixed memory: a buffer every run uses, with the access it is used with. */
struct rig_fixed {
	struct rig_buffer *buffer;
	enum rig_access access;
};

/* What a submission keeps alive beyond memory, and how it is let go. */
struct rig_keep {
	void *value;
	void (*release)(void *value);
};

/*
 * rig_submission_make() - a submission of n parts on d, with fixed memory
 * and a keep (released through keep.release when the submission goes; its
 * zero value keeps nothing). Its slots are 0 .. (highest slot named) and
 * each submit passes one buffer per slot. Each part is placed on a queue of
 * d (docs/submissions.md, Placement) after the parts of other queues it
 * follows (docs/order.md, rule 2).
 * Returns 0; RIG_EINVAL naming the part and the rule it breaks; RIG_ELOST;
 * RIG_ENOMEM.
 */
int rig_submission_make(struct rig_device *d, const struct rig_part_spec *parts,
			size_t n, const struct rig_fixed *fixed, size_t nfixed,
			struct rig_keep keep, struct rig_submission **out);

/* The number of slots each submit of s fills. */
size_t rig_submission_slots(const struct rig_submission *s);
/* The queue (index in the device's facts) part i runs on, and the parts
 * of other queues it follows; for tests and tools. */
int rig_submission_part(const struct rig_submission *s, size_t i,
			uint32_t *queue, const uint32_t **follows,
			uint32_t *nfollows);

/*
 * rig_submission_address() - the address of b's first byte as s's device's
 * work addresses it, where b's bytes lie within a buffer of s's fixed
 * memory. RIG_EINVAL otherwise (*out untouched).
 */
int rig_submission_address(const struct rig_submission *s,
			   const struct rig_buffer *b, uint64_t *out);

/*
 * rig_submission_release() - give up s. What it keeps goes once the work
 * submitted through it is done. Runs still taken stay valid until they are
 * submitted or released.
 */
void rig_submission_release(struct rig_submission *s);

/*
 * rig_run_take() - a run of s that the calling thread alone holds for its
 * stores and its next submit: the first free run, or a new one whose bytes
 * read 0. A lone taker gets the same run every time, with its stores. A
 * submission with no launch or fill has one byteless run that every take
 * returns. Lock-free. Returns 0, or RIG_ENOMEM.
 */
int rig_run_take(struct rig_submission *s, struct rig_run **out);

/*
 * rig_run_store() - store part i's block: its grid and group of threads
 * (launch; ignored for a fill) and bytes of parameters at offset 0 of the
 * part's params. Never blocks. Returns 0, or RIG_EINVAL for a part that is
 * no launch or fill, more bytes than the part's params, an empty grid or
 * group, a group of more threads or a grid of more groups than the
 * launch's function allows (where its driver knows it: rig_edge.h, struct
 * rig_entry; the host device runs 2^62 groups at most).
 */
int rig_run_store(struct rig_run *r, size_t i, const uint32_t grid[3],
		  const uint32_t group[3], const void *params, size_t bytes);

/* The params bytes of part i in r, for stores in place; NULL for none. */
void *rig_run_params(struct rig_run *r, size_t i);

/* rig_run_release() - give back a taken run without submitting it. */
void rig_run_release(struct rig_run *r);

/*
 * rig_submit() - run r's submission with buffers[k] in slot k (nbuf must be
 * the submission's slot count) after the extra points waits, as the work of
 * the device's next value; *out (may be NULL) is its point. The submit
 * frees r, whatever it returns. Any thread; returns once the work is on the
 * device's ring, or with the driver (it does not wait for the driver's work;
 * it asks a busy driver for room again for a bounded while at most).
 * Returns 0; RIG_EINVAL naming the slot and the rule (a dead buffer, one on
 * another device, a read-only buffer in a written slot, a slot's buffer
 * the host addresses not where only copies name it...), or the wait that
 * names a value no submit gave; RIG_ELOST, also where the work would wait
 * for a value a loss dropped (the device goes on; see rig_lost() for work
 * accepted before the loss); RIG_ENOMEM.
 */
int rig_submit(struct rig_run *r, struct rig_buffer *const *buffers,
	       size_t nbuf, const struct rig_point *waits, size_t nwaits,
	       struct rig_point *out);

/* ---- Profiles ---------------------------------------------------------- */

/*
 * A profile records when each value's work ran on its device, on the host
 * clock (rig_now_ns), with the measures of its launches where the device
 * counts something, the waits that held each value back (the buffer and
 * the value it waited for), and the program's own phases (spans). One
 * profile is taken at a time in a process. RIG_PROFILE=PATH in the
 * environment takes one of every device from the first open and writes it
 * to PATH at exit (`rig trace -- PROGRAM` does so; man 1 rig).
 */
struct rig_profile;

/*
 * rig_profile_start() - time the values of devices[0..n) from their next
 * one, keeping at most max_values per device (later ones go untimed); with
 * devices NULL and n 0, every device open now and every device opened
 * while the profile is taken. Any thread, not from a callback. A submit
 * pays one predictable branch while no profile is taken.
 * Returns 0 with *out set; RIG_EINVAL for a NULL device, a bound of 0 or
 * above 16777216, or a call from a callback; RIG_ELOST for a lost device;
 * RIG_EAGAIN while another profile is taken; RIG_ENOMEM.
 */
int rig_profile_start(struct rig_device *const *devices, size_t n, size_t max_values,
		      struct rig_profile **out);

/*
 * rig_profile_stop() - time no new value and record no new span, then
 * wait until the work of every value the profile timed is over (reached,
 * or dropped and its device's driver stopped). Reads and writes of the
 * profile go on working. Returns 0; RIG_EINVAL for a stopped profile or a
 * call from a callback.
 */
int rig_profile_stop(struct rig_profile *p);

/*
 * rig_profile_times() - when the work of pt's value started and ended on
 * its device, on the host clock; a device gives no later start than the
 * previous value's end. 0 and 0 for work its driver cannot time.
 * Never waits for the work. Returns 0; RIG_EAGAIN while the value is not
 * reached; RIG_EINVAL for a device or value the profile does not time;
 * RIG_ELOST for a value a loss dropped, or whose device was lost before
 * its times were settled.
 */
int rig_profile_times(struct rig_profile *p, struct rig_point pt, uint64_t *start_ns,
		      uint64_t *end_ns);

/*
 * rig_profile_row_words() - the words of one launch's row of measures on
 * d: 3 (status, start, end) plus each counter's values, in the order the
 * device lists them; 0 for a device that measures nothing.
 */
size_t rig_profile_row_words(const struct rig_device *d);

/*
 * rig_profile_measures() - the measures of the launches of pt's value, one
 * row of rig_profile_row_words() words per launch in the order of its
 * parts, into out (nwords at least rows times that): a status (1 measured,
 * 0 not), the start and end on the host clock, then the counters' values.
 * *rows gets the launches (0 for a value with none, or a device that
 * measures nothing). Returns 0; RIG_EINVAL for too few words (the message
 * says how many); the statuses of rig_profile_times().
 */
int rig_profile_measures(struct rig_profile *p, struct rig_point pt, uint64_t *out,
			 size_t nwords, size_t *rows);

/*
 * rig_profile_write() - write the profile as Chrome trace-event JSON, which
 * Perfetto and chrome://tracing open: a process per device with a lane per
 * queue ("COMPUTE:0"; the host device's pieces too: each launch and copy
 * inside its value, each thread's range on "COMPUTE:0 worker N"), a
 * process "host" with a lane per thread for spans
 * and host waits, and a flow arrow for each wait: from the value a submit
 * waited for to the value that waited (its buffer's address range in the
 * arrow's args), and from a value to the host wait that waited for it.
 * rig_profile_write_plot() writes a gnuplot script that draws the same as
 * a PNG timeline. Values not reached yet are left out. Returns 0; RIG_EINVAL
 * for a path that cannot be written (the message names it); RIG_ENOMEM.
 */
int rig_profile_write(struct rig_profile *p, const char *path);
int rig_profile_write_plot(struct rig_profile *p, const char *path);

/* rig_profile_release() - stop the profile if it runs, then free it. */
void rig_profile_release(struct rig_profile *p);

/*
 * rig_span_begin() - begin a span named name (copied) on the calling
 * thread, inside the span it has open, if any; rig_span_end() ends the
 * innermost. Spans nest 64 deep. Outside a profile they record nothing,
 * but still nest. Any thread; a lock, never a wait.
 * Returns 0; RIG_EINVAL for a NULL name, a 65th level, or an end with no
 * span open on the thread.
 */
int rig_span_begin(const char *name);
int rig_span_end(void);

#ifdef __cplusplus
}
#endif
#endif /* RIG_H */
