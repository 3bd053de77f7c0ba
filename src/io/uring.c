/* SPDX-License-Identifier: MIT */
/*
 * io/uring.c: the io_uring backend. One ring per disk, used by the loop
 * thread alone (the bell and the registration calls are system calls on
 * the ring's fd, which the kernel serialises with the loop's).
 *
 * Completions are never dropped: the ring has IORING_FEAT_NODROP (where it
 * lacks it, depth is cut to the completion queue's size), so completions
 * that do not fit the CQ wait in the kernel's overflow list; reap empties
 * the CQ, flushes the overflow (io_uring_get_events) and empties it again,
 * and a submit that answers -EBUSY (overflow pending) is retried after a
 * reap. Each piece's user_data is the piece; BELL marks the bell's read.
 *
 * The bell: an eventfd whose 8-byte read is always armed in the ring, so a
 * loop that sleeps in io_uring_submit_and_wait() wakes when any thread
 * writes it (feed.c rings it for a sleeping loop; stop rings it).
 *
 * Writes the loop makes itself. io_uring runs a buffered write inline (in
 * the submitting thread, without blocking) only on a file system that
 * takes buffered writes without waiting (FOP_BUFFER_WASYNC: XFS, btrfs);
 * on the others (ext4, the most common) it hands every one to an io-wq
 * worker, which runs the writes to one file one after another: a wake-up
 * and a thread's hop per write, ~70 us per 4 KiB write here against ~1.2
 * us for a pwrite(). So on those file systems a write piece below
 * ASYNC_BYTES the loop makes itself (what io-wq would run, without the
 * hop): kept on `writes` until the walk that issued it ends (a bigger one
 * made alone, below, is made at once), at the next
 * reap, when the kept writes that are neighbours in one file are made in
 * one pwritev() (one system call, one inode lock and one mtime update for
 * a batch of small values behind an fsync, where a pwrite() each paid
 * those per value); each result waits on `inline_done` for that reap, so
 * it completes like any piece. Larger writes go to io-wq, where
 * several files' writes run at once, but only while another piece is in
 * flight: with nothing else in flight there is nothing to overlap, and
 * io-wq would cost two wake-ups per write (the worker's, then the loop's
 * for the completion; bench/server.c's 1 MiB requests spent ~4% of their
 * CPU time there), so the loop writes it itself too.
 *
 * Barriers the loop runs itself. IORING_OP_FSYNC always goes to an io-wq
 * worker: a wake-up of it, and one of the loop for its completion, on the
 * path from one fsync to the next (bench/server.c at 4 KiB: a file's next
 * fsync began a median 240-540 us after the last ended, against ~110 us
 * for the pthreads server that calls fsync() itself). Where nothing else
 * is in flight and the disk has one file open, there is nothing the
 * worker's fsync could overlap (the file's later writes wait for the
 * barrier: loop.c), so the loop calls fsync() itself, and its result
 * completes at the next reap like a write's. The cost: while it runs, the
 * loop takes no new values; a read of that file, which could have run
 * beside the fsync, starts after it. With two files or more open, or
 * anything in flight, the barrier goes to io-wq as before.
 *
 * Writeback started before the barrier. A buffered write only dirties the
 * page cache; left alone, a file's bytes go to the disk when its fsync
 * asks (or the kernel's flusher, seconds later), so the disk idles while
 * the writes come in and the fsync then waits for all of them (a 64 MiB
 * batch at 1 MiB in bench/server.c: an fsync of 20-60 ms after ~10 ms of
 * writes). So on a file that has had a barrier (a program that asks for
 * durability), each KICK_BYTES of writes that ended since its last
 * barrier or kick start their writeback at once, with
 * sync_file_range(SYNC_FILE_RANGE_WRITE): the disk writes while the next
 * ones are copied in, and the barrier's fsync then finds most of them
 * written and waits for the rest. It changes no result: the fsync still
 * makes every byte durable and reports any writeback's error. A file
 * never barred is left to the kernel (a program that rewrites a range
 * often and never syncs would pay a disk write each time), and fewer than
 * KICK_BYTES between barriers (4 KiB requests, 64 a barrier) start none.
 * The call is made by the loop, at the reap that completes the write; it
 * waits only where the disk's queue is full, which is where the disk is
 * busy anyway. Only here: the threads backend (pool.c) runs the writes
 * and fsyncs as they come.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "io/engine.h"

#define BELL	((uint64_t)1)	/* no piece lies at address 1 */
#define CANCEL	((uint64_t)2)	/* nor at 2 */

struct uring {
	struct io_uring ring;
	int bell_fd;
	uint64_t bell_buf;
	bool bell_armed;
	bool fixed_files;
	struct disk_piece *writes;	/* the loop's writes, not yet made */
	struct disk_piece **writes_end;
	struct disk_piece *inline_done;	/* made by the loop, results in res, */
	struct disk_piece **inline_end;	/* in the order made */
};

static struct uring *
U(struct disk *d)
{
	return d->be_state;
}

/* Submit what is queued; -EBUSY and -EAGAIN mean "reap, then again". */
static int
flush(struct disk *d, unsigned wait)
{
	int ret;

	do
		ret = io_uring_submit_and_wait(&U(d)->ring, wait);
	while (ret == -EINTR);
	return ret < 0 ? ret : 0;
}

#define ASYNC_BYTES (512u << 10)
#define KICK_BYTES (1u << 20)	/* a file's writes between writeback kicks */

/* A piece the loop ran itself (see the top): its result res (a count or
 * -errno) completes it at the next reap. */
static void
done_inline(struct disk *d, struct disk_piece *p, int64_t res)
{
	p->res = res;
	p->next = NULL;
	*U(d)->inline_end = p;
	U(d)->inline_end = &p->next;
}

/* A write the loop makes itself: kept until the next reap, when the
 * writes of one walk are made, neighbours in a file in one pwritev(). */
static void
write_inline(struct disk *d, struct disk_piece *p)
{
	p->next = NULL;
	*U(d)->writes_end = p;
	U(d)->writes_end = &p->next;
}

#define WRITEV_MAX	256	/* pieces in one pwritev(), below IOV_MAX */

/* Whether p lies before q: by file, then by offset. */
static bool
before(const struct disk_piece *p, const struct disk_piece *q)
{
	if (p->file != q->file)
		return (uintptr_t)p->file < (uintptr_t)q->file;
	return p->offset + p->done < q->offset + q->done;
}

/* Make the n writes of run, neighbours in one file (the first at at), in
 * one call, and complete each: a short count completes the pieces it
 * covers, the one it ends in with its part (the loop writes the rest),
 * and those after it with -EAGAIN (the loop issues them again). */
static void
write_run(struct disk *d, struct disk_piece **run, struct iovec *iov, int n, uint64_t at)
{
	ssize_t got = n == 1 ? pwrite(run[0]->file->fd, iov[0].iov_base, iov[0].iov_len, (off_t)at)
			     : pwritev(run[0]->file->fd, iov, n, (off_t)at);
	int64_t err = got < 0 ? -errno : 0, left = got;

	if (n > 1)
		atomic_fetch_add_explicit(&d->stats.joined, (uint64_t)n, memory_order_relaxed);
	for (int i = 0; i < n; i++) {
		int64_t len = (int64_t)iov[i].iov_len;

		if (got < 0) {
			done_inline(d, run[i], err);
		} else if (i == 0 || left > 0) {
			/* 0 for the first: nothing written (the loop fails it). */
			done_inline(d, run[i], left < len ? left : len);
			left -= left < len ? left : len;
		} else {
			done_inline(d, run[i], -EAGAIN);
		}
	}
}

/* Make the writes kept since the last reap. Their pieces are all in
 * flight at once, so none conflicts with another (loop.c): any order, or
 * one call for several, gives the same bytes. So each WRITEV_MAX of them
 * are sorted by file and offset (insertion: they come in value order, but
 * rests of short writes come back in any order), and each run of
 * neighbours is one call. */
static void
write_kept(struct disk *d)
{
	struct uring *u = U(d);
	struct disk_piece *p = u->writes, *run[WRITEV_MAX];
	struct iovec iov[WRITEV_MAX];

	u->writes = NULL;
	u->writes_end = &u->writes;
	while (p) {
		int n = 0;

		for (; p && n < WRITEV_MAX; p = p->next) {
			int i = n++;

			for (; i > 0 && before(p, run[i - 1]); i--)
				run[i] = run[i - 1];
			run[i] = p;
		}
		for (int i = 0; i < n;) {
			uint64_t at = run[i]->offset + run[i]->done, end = at;
			int k = 0;

			for (; i + k < n && run[i + k]->file == run[i]->file &&
			       run[i + k]->offset + run[i + k]->done == end; k++) {
				struct disk_piece *q = run[i + k];

				iov[k] = (struct iovec){ q->host + q->done, q->bytes - q->done };
				end += q->bytes - q->done;
			}
			write_run(d, run + i, iov, k, at);
			i += k;
		}
	}
}

/* A barrier the loop runs itself (see the top): nothing else in flight,
 * and the disk's one file. files is read relaxed: a file opened meanwhile
 * only waits for this fsync, as a value fed meanwhile does. */
static bool
sync_here(const struct disk *d, const struct disk_piece *p)
{
	return p->kind == RIG_IO_BARRIER && !d->in_flight &&
	       atomic_load_explicit(&d->files, memory_order_relaxed) == 1;
}

/* A write of p's file ended with res bytes on file: on a file that has
 * had a barrier, once KICK_BYTES of its writes since its last barrier or
 * kick are in, start their writeback (see the top). */
static void
kick_writeback(struct disk *d, const struct disk_piece *p, int64_t res)
{
	struct disk_file *f = p->file;
	uint64_t at = p->offset + p->done, end = at + (uint64_t)res;

	if (p->kind != RIG_IO_WRITE || res <= 0 || !f->barred)
		return;
	if (!f->unkicked || at < f->kick_lo)
		f->kick_lo = at;
	if (!f->unkicked || end > f->kick_hi)
		f->kick_hi = end;
	f->unkicked += (uint64_t)res;
	if (f->unkicked < KICK_BYTES)
		return;
	/* Only starts the writeback; its failure is the barrier's to report
	 * (fsync returns the error the writeback met). */
	if (sync_file_range(f->fd, (off_t)f->kick_lo, (off_t)(f->kick_hi - f->kick_lo),
			    SYNC_FILE_RANGE_WRITE) == 0)
		atomic_fetch_add_explicit(&d->stats.kicks, 1, memory_order_relaxed);
	f->unkicked = 0;
}

static int
uring_issue(struct disk *d, struct disk_piece *p)
{
	struct io_uring *ring = &U(d)->ring;
	struct io_uring_sqe *sqe;
	char *host = p->host ? p->host + p->done : NULL;
	unsigned len = p->bytes - p->done;
	uint64_t at = p->offset + p->done;
	int fd = p->file->slot >= 0 ? p->file->slot : p->file->fd;

	if (p->kind == RIG_IO_WRITE && p->file->write_inline && len < ASYNC_BYTES) {
		write_inline(d, p);
		return 0;
	}
	if (p->kind == RIG_IO_WRITE && p->file->write_inline && !d->in_flight) {
		/* A big one, alone: made now, not kept (kept, it measured
		 * ~10% slower at 1 MiB in bench/server.c). */
		ssize_t n = pwrite(p->file->fd, host, len, (off_t)at);

		done_inline(d, p, n < 0 ? -errno : n);
		return 0;
	}
	if (p->kind == RIG_IO_BARRIER) {
		p->file->barred = true;
		p->file->unkicked = 0;	/* the fsync writes them back */
	}
	if (sync_here(d, p)) {
		done_inline(d, p, fsync(p->file->fd) < 0 ? -errno : 0);
		return 0;
	}
	sqe = io_uring_get_sqe(ring);
	if (!sqe) {
		if (flush(d, 0) < 0 || !(sqe = io_uring_get_sqe(ring)))
			return -EAGAIN;
	}
	switch (p->kind) {
	case RIG_IO_READ:
		if (p->buf >= 0)
			io_uring_prep_read_fixed(sqe, fd, host, len, at, p->buf);
		else
			io_uring_prep_read(sqe, fd, host, len, at);
		break;
	case RIG_IO_WRITE:
		if (p->buf >= 0)
			io_uring_prep_write_fixed(sqe, fd, host, len, at, p->buf);
		else
			io_uring_prep_write(sqe, fd, host, len, at);
		break;
	case RIG_IO_BARRIER:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	}
	/* A big read or write of cached pages would run inline, in this
	 * thread, one piece after another: io-wq's workers move the bytes of
	 * several at once instead, while the loop goes on feeding the ring. */
	if (p->kind != RIG_IO_BARRIER && len >= ASYNC_BYTES)
		sqe->flags |= IOSQE_ASYNC;
	if (p->file->slot >= 0) {
		sqe->flags |= IOSQE_FIXED_FILE;
		if (!p->done)
			atomic_fetch_add_explicit(&d->stats.fixed_files, 1,
						  memory_order_relaxed);
	}
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)p);
	/* The kernel holds p until its CQE: pairs with the acquire in
	 * reap_cq(). TSan cannot see the rings' shared memory. */
	tsan_release(p);
	return 0;
}

static bool
arm_bell(struct disk *d)
{
	struct uring *u = U(d);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return false;
	io_uring_prep_read(sqe, u->bell_fd, &u->bell_buf, sizeof(u->bell_buf), 0);
	io_uring_sqe_set_data64(sqe, BELL);
	u->bell_armed = true;
	return true;
}

/* Hand every CQE to the loop, after the writes it made itself; returns
 * how many CQEs there were. */
static unsigned
reap_cq(struct disk *d)
{
	struct io_uring *ring = &U(d)->ring;
	struct io_uring_cqe *cqe;
	struct disk_piece *p, *next;
	unsigned head, n = 0;

	write_kept(d);
	p = U(d)->inline_done;
	U(d)->inline_done = NULL;
	U(d)->inline_end = &U(d)->inline_done;
	for (; p; p = next) {
		next = p->next;	/* loop_piece_done() may reuse it */
		kick_writeback(d, p, p->res);
		loop_piece_done(d, p, p->res);
	}

	io_uring_for_each_cqe(ring, head, cqe) {
		uint64_t tag = io_uring_cqe_get_data64(cqe);

		n++;
		if (tag == BELL) {
			U(d)->bell_armed = false;
			continue;
		}
		if (tag == CANCEL || tag == LIBURING_UDATA_TIMEOUT)
			continue;	/* how many it cancelled: theirs tell;
					 * liburing's own timeout (flush_timed) */
		/* Pairs with the release in uring_issue(). */
		tsan_acquire((void *)(uintptr_t)tag);
		kick_writeback(d, (struct disk_piece *)(uintptr_t)tag, cqe->res);
		loop_piece_done(d, (struct disk_piece *)(uintptr_t)tag, cqe->res);
	}
	io_uring_cq_advance(ring, n);
	return n;
}

/* Submit what is queued and wait for one completion, timeout_ns at most:
 * one system call where the ring has IORING_FEAT_EXT_ARG, else liburing
 * queues a timeout of its own (reap_cq() skips its CQE). */
static int
flush_timed(struct disk *d, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(timeout_ns / 1000000000u),
		.tv_nsec = (long long)(timeout_ns % 1000000000u),
	};
	struct io_uring_cqe *cqe;
	int ret;

	do
		ret = io_uring_submit_and_wait_timeout(&U(d)->ring, &cqe, 1, &ts, NULL);
	while (ret == -EINTR);
	return ret == -ETIME || ret >= 0 ? 0 : ret;
}

static int
uring_reap(struct disk *d, bool block, uint64_t timeout_ns)
{
	struct uring *u = U(d);
	bool wait;
	int ret;

	if (!u->bell_armed && !arm_bell(d)) {
		if ((ret = flush(d, 0)) < 0 && ret != -EBUSY && ret != -EAGAIN)
			return ret;
		arm_bell(d);
	}
	write_kept(d);
	wait = block && !io_uring_cq_ready(&u->ring) && !u->inline_done;
	ret = wait && timeout_ns ? flush_timed(d, timeout_ns) : flush(d, wait ? 1 : 0);
	if (ret == -EBUSY || ret == -EAGAIN) {
		atomic_fetch_add_explicit(&d->stats.busy, 1, memory_order_relaxed);
		ret = 0;	/* reap below makes room; the loop submits again */
	}
	if (ret < 0)
		return ret;
	for (;;) {
		reap_cq(d);
		if (!io_uring_cq_has_overflow(&u->ring))
			break;
		atomic_fetch_add_explicit(&d->stats.busy, 1, memory_order_relaxed);
		if ((ret = io_uring_get_events(&u->ring)) < 0 && ret != -EINTR &&
		    ret != -EBUSY && ret != -EAGAIN)
			return ret;
	}
	return 0;
}

static void
uring_bell(struct disk *d)
{
	uint64_t one = 1;

	/* Cannot fail but for a counter at its maximum, which wakes too. */
	if (write(U(d)->bell_fd, &one, sizeof(one)) < 0)
		return;
}

/* Under files_lock, after the loop ended. */
/* Cancel every request not yet running; each ends with -ECANCELED. */
static void
uring_cancel(struct disk *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&U(d)->ring);

	if (!sqe && (flush(d, 0) < 0 || !(sqe = io_uring_get_sqe(&U(d)->ring))))
		return;		/* then the pieces in flight are drained */
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(sqe, CANCEL);
}

static void
uring_fini(struct disk *d)
{
	struct uring *u = U(d);

	d->ring_up = false;
	io_uring_queue_exit(&u->ring);
	close(u->bell_fd);
	free(u);
}

/* Whether io_uring runs buffered writes to fd inline: its file system
 * takes them without waiting (FOP_BUFFER_WASYNC, which the kernel does not
 * report: known by the file system's magic). */
static bool
takes_async_writes(int fd)
{
	struct statfs fs;

	if (fstatfs(fd, &fs) < 0)
		return false;
	return fs.f_type == XFS_SUPER_MAGIC || fs.f_type == BTRFS_SUPER_MAGIC;
}

/* Under files_lock: take a free registered-file slot for f. */
static int
uring_file_add(struct disk *d, struct disk_file *f)
{
	struct uring *u = U(d);

	f->slot = -1;
	f->write_inline = !takes_async_writes(f->fd);
	f->barred = false;
	f->unkicked = f->kick_lo = f->kick_hi = 0;
	if (!d->ring_up || !u->fixed_files)
		return 0;
	for (int i = 0; i < DISK_FILE_SLOTS; i++) {
		if (d->file_slots[i / 64] & (1ull << (i % 64)))
			continue;
		if (io_uring_register_files_update(&u->ring, (unsigned)i, &f->fd, 1) != 1)
			return 0;	/* a plain fd works as well, a little slower */
		d->file_slots[i / 64] |= 1ull << (i % 64);
		f->slot = i;
		return 0;
	}
	return 0;
}

/* Under files_lock: give f's slot back (no piece of f is in flight). */
static void
uring_file_drop(struct disk *d, struct disk_file *f)
{
	int none = -1;

	if (f->slot < 0)
		return;
	if (d->ring_up)
		io_uring_register_files_update(&U(d)->ring, (unsigned)f->slot, &none, 1);
	d->file_slots[f->slot / 64] &= ~(1ull << (f->slot % 64));
	f->slot = -1;
}

int
uring_register_host(struct disk *d, unsigned slot, void *host, uint64_t bytes)
{
	struct iovec iov = { .iov_base = host, .iov_len = bytes };
	__u64 tag = 0;
	int ret;

	ret = io_uring_register_buffers_update_tag(&U(d)->ring, slot, &iov, &tag, 1);
	return ret < 0 ? ret : 0;
}

void
uring_unregister_host(struct disk *d, unsigned slot)
{
	struct iovec iov = { 0 };
	__u64 tag = 0;

	io_uring_register_buffers_update_tag(&U(d)->ring, slot, &iov, &tag, 1);
}

static const struct disk_backend uring_backend = {
	.issue = uring_issue,
	.reap = uring_reap,
	.bell = uring_bell,
	.cancel = uring_cancel,
	.fini = uring_fini,
	.file_add = uring_file_add,
	.file_drop = uring_file_drop,
};

/* Can we pin buffers? Pin DISK_PROBE_BYTES in slot 0, then let go. */
static bool
probe_buffers(struct disk *d)
{
	void *m = mmap(NULL, DISK_PROBE_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok;

	if (m == MAP_FAILED)
		return false;
	if (io_uring_register_buffers_sparse(&U(d)->ring, DISK_BUFFER_SLOTS) < 0) {
		munmap(m, DISK_PROBE_BYTES);
		return false;
	}
	ok = uring_register_host(d, 0, m, DISK_PROBE_BYTES) == 0;
	if (ok)
		uring_unregister_host(d, 0);
	munmap(m, DISK_PROBE_BYTES);
	return ok;
}

/*
 * Set up the ring. Returns 0; -ENOSYS or -EPERM where io_uring is denied,
 * and -EPERM where the locked-memory limit refuses the ring itself (the
 * caller falls back to threads); another errno with why filled.
 *
 * The ring: Linux 6.x charges a ring's own pages to RLIMIT_MEMLOCK, against
 * the locked memory of every process of the same user (a process without
 * CAP_IPC_LOCK), so io_uring_setup fails with ENOMEM under a small limit
 * or when the user's other processes hold the rest. Threads then do the
 * same work, where failing the open would leave a program no disk.
 */
int
uring_start(struct disk *d, char *why, size_t len)
{
	struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE };
	unsigned sq = d->opt.depth < d->opt.cq_entries ? d->opt.depth : d->opt.cq_entries;
	struct uring *u = calloc(1, sizeof(*u));
	int ret;

	if (!u) {
		snprintf(why, len, "make: no memory for the ring's state");
		return -ENOMEM;
	}
	p.cq_entries = d->opt.cq_entries;
	u->writes_end = &u->writes;
	u->inline_end = &u->inline_done;
	ret = io_uring_queue_init_params(sq, &u->ring, &p);
	if (ret == -ENOMEM)
		ret = -EPERM;
	if (ret < 0) {
		free(u);
		if (ret != -ENOSYS && ret != -EPERM)
			snprintf(why, len, "make: io_uring_queue_init of %u entries: %s",
				 sq, strerror(-ret));
		return ret;
	}
	if (!(p.features & IORING_FEAT_NODROP) && d->opt.depth > p.cq_entries)
		d->opt.depth = p.cq_entries;	/* so the CQ never overflows */
	u->bell_fd = eventfd(0, EFD_CLOEXEC);
	if (u->bell_fd < 0) {
		ret = -errno;
		snprintf(why, len, "make: eventfd for the loop's bell: %s", strerror(errno));
		io_uring_queue_exit(&u->ring);
		free(u);
		return ret;
	}
	d->be_state = u;
	d->be = &uring_backend;
	d->ring_up = true;
	u->fixed_files = io_uring_register_files_sparse(&u->ring, DISK_FILE_SLOTS) == 0;
	d->mode = probe_buffers(d) ? "io_uring" : "io_uring (no registered buffers)";
	return 0;
}
