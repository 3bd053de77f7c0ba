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
 * Read next: rig_edge.h (the driver contract), rig_polled.h (the test
 * driver), README.md (a tour).
 */
#ifndef RIG_H
#define RIG_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig_edge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Statuses --------------------------------------------------------- */

#define RIG_EINVAL	(-EINVAL)	/* invalid argument: nothing changed */
#define RIG_ELOST	(-ENODEV)	/* the device is lost; rig_lost() says why */
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
 * facts once and refuses facts that break seed 000's rules, each with its
 * own message. Any thread, but not from inside a callback of rig's.
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
/* The bytes of own memory the device should hold at most. */
uint64_t rig_budget(const struct rig_device *d);
/* Why the device was lost, or NULL while it is live. */
const char *rig_lost(const struct rig_device *d);

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
 * briefly, then sleeps on a futex. Any thread.
 * Returns 0 when p is reached; RIG_ETIMEDOUT after timeout_ns; RIG_ELOST
 * when the device was lost and p dropped; RIG_EINVAL for a point no submit
 * gave.
 */
int rig_wait(struct rig_point p, uint64_t timeout_ns);

/* ---- Buffers ---------------------------------------------------------- */

struct rig_buffer;

enum rig_access {
	RIG_READ_WRITE = 1,
	RIG_READ_ONLY,
};

/*
 * rig_buffer_create() - bytes of a device's memory of a kind
 * (RIG_MEMORY_DEVICE, _PINNED or _MAPPED). Zero bytes allocate nothing; the
 * buffer's address is then 0. Returns 0; RIG_EINVAL for a negative size
 * (a size_t negative as ptrdiff_t) or an unknown kind; RIG_ELOST;
 * RIG_ENOMEM over the budget or when the driver has no room.
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
 * dst; *out (may be NULL) is its point. Returns 0; RIG_EINVAL for buffers
 * of other lengths or devices, overlapping buffers, a read-only or dead dst;
 * RIG_ELOST.
 */
int rig_buffer_copy(struct rig_buffer *src, struct rig_buffer *dst,
		    struct rig_point *out);

/*
 * rig_buffer_release() - give up the buffer handle. Its memory returns to
 * the driver once the work submitted while it was live is done. NULL is
 * ignored.
 */
void rig_buffer_release(struct rig_buffer *b);

#ifdef __cplusplus
}
#endif
#endif /* RIG_H */
