/* SPDX-License-Identifier: MIT */
/*
 * rig_disk.h - the disk: an Io device (rig_edge.h, "Io devices") whose
 * memory is files, run by one io_uring loop per disk.
 *
 * This header is the disk library's public face: its opener and the options
 * a program may give it. rig's core runs it as a device: rig_open_io(),
 * the buffers over files (rig_disk_create_file, rig_disk_of_file) and
 * rig_disk_barrier() are in rig.h ("Io devices: disks"). Nothing here
 * blocks; none is a system call.
 *
 * A disk runs in one of three modes, chosen when it opens and reported by
 * name ("io_uring", "io_uring (no registered buffers)", "threads"):
 *  - io_uring: reads, writes and fsyncs go through an io_uring ring, with
 *    registered files, and registered buffers for host memory registered
 *    with the disk; reads and writes of 512 KiB or more go to io_uring's
 *    workers (IOSQE_ASYNC), which move several at once;
 *  - io_uring (no registered buffers): the same, where the locked-memory
 *    limit (RLIMIT_MEMLOCK, without CAP_IPC_LOCK) refuses to pin buffers;
 *  - threads: a pool of pread/pwrite/fsync threads, where io_uring_setup is
 *    denied (ENOSYS: an old kernel or a seccomp filter; EPERM: a policy),
 *    where the locked-memory limit refuses the ring itself (ENOMEM: Linux
 *    6.x charges a ring's pages to RLIMIT_MEMLOCK, counted across a user's
 *    processes), or where asked (RIG_DISK_THREADS below, or RIG_DISK_MODE=threads in
 *    the environment).
 */
#ifndef RIG_DISK_H
#define RIG_DISK_H

#include "rig_edge.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rig_disk_mode_wish {
	RIG_DISK_AUTO = 0,	/* io_uring where allowed, else threads */
	RIG_DISK_THREADS,	/* the pread/pwrite pool, even where io_uring works */
};

/* How a disk runs. Zero fields take the defaults named. */
struct rig_disk_options {
	size_t size;		/* sizeof(struct rig_disk_options) */
	unsigned depth;		/* pieces of I/O in flight at most; default 64, at most 4096 */
	unsigned cq_entries;	/* io_uring completion queue entries; default 2 x depth */
	unsigned chunk_bytes;	/* reads and writes are cut into pieces this big;
				 * a multiple of 4096, default 1 MiB, at most 64 MiB */
	unsigned workers;	/* threads of the threads mode; default 4, at most 64 */
	enum rig_disk_mode_wish mode;
};

/*
 * The opener named "DISK", with the default options. Its make opens a new,
 * independent disk each call (its own ring and loop thread), also while
 * earlier ones are not stopped; make takes no lock of rig's.
 */
extern const struct rig_io_opener rig_disk_opener;

/*
 * rig_disk_opener_init() - fill *o as an opener of a disk named name (NULL:
 * "DISK") with the options opt (NULL: the defaults). o keeps the pointers:
 * name and opt must live as long as o. Returns 0; -EINVAL for a NULL o, an
 * empty name, or opt's size not sizeof(struct rig_disk_options), with
 * rig_why() saying which (rig.h). make checks the values.
 */
int rig_disk_opener_init(struct rig_io_opener *o, const char *name,
			 const struct rig_disk_options *opt);

#ifdef __cplusplus
}
#endif
#endif /* RIG_DISK_H */
