/* SPDX-License-Identifier: MIT */
/*
 * disk.c: sequential read of a file in the page cache into host memory,
 * through rig's disk (rig_open_io, a file buffer, rig_buffer_copy of one
 * block at a time into a memory device's buffer, one rig_wait at the end),
 * against a plain io_uring loop with the same queue depth and block size,
 * in the same run.
 *
 *   disk_seq_read   GB/s of file bytes read: impl "io_uring" (peer) and
 *                   "rig-disk" (rig); bench/run shows rig / io_uring.
 *
 * The file (256 MiB, also with --quick: a smaller one measures the start of
 * the pipeline more than its pace) is written next to this program
 * and read once before the figures, so both read the page cache. Blocks of
 * 1 MiB (the disk's default chunk_bytes), 32 in flight: the disk's
 * chunk_bytes and depth. The disk hands reads this big to io_uring's
 * workers (IOSQE_ASYNC), which move several at once; the plain loop reads
 * each inline, as a program's first loop would. Each impl reads
 * the whole file once before its timed runs: the first io_uring pass into
 * a host buffer is many times slower (0.2-0.6 GB/s here, through the disk
 * engine alone too), and bench_per_run()'s warm-up covers a tenth of it.
 */
#include <rig.h>
#include <rig_disk.h>

#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK		(1u << 20)
#define DEPTH		32u
#define WAIT_NS		60000000000ull	/* a wait longer than this is a hang */

static const struct bench *prog;
static uint64_t nblocks;

struct plain {
	int fd;
	char *host;
	struct io_uring ring;
};

/* The peer: DEPTH reads of BLOCK bytes in flight, refilled as they end;
 * n blocks from the file's start. */
static int
plain_read(void *arg, uint64_t n)
{
	struct plain *p = arg;
	struct io_uring_cqe *cqe;
	uint64_t issued = 0, done = 0;
	unsigned head, seen;
	int ret;

	while (done < n) {
		while (issued < n && issued - done < DEPTH) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
			uint64_t off = (issued % nblocks) * BLOCK;

			io_uring_prep_read(sqe, p->fd, p->host + off, BLOCK, off);
			issued++;
		}
		if ((ret = io_uring_submit_and_wait(&p->ring, 1)) < 0 && ret != -EINTR)
			return ret;
		seen = 0;
		io_uring_for_each_cqe(&p->ring, head, cqe) {
			if (cqe->res != (int)BLOCK) {
				bench_note(prog, "a plain read ended with %d", cqe->res);
				return -EIO;
			}
			done++;
			seen++;
		}
		io_uring_cq_advance(&p->ring, seen);
	}
	return 0;
}

struct through_rig {
	struct rig_buffer **file, **host;	/* a view per block */
};

/* rig: a copy per block into the host buffer, then one wait. */
static int
rig_read(void *arg, uint64_t n)
{
	struct through_rig *r = arg;
	struct rig_point p = { 0 };

	for (uint64_t i = 0; i < n; i++)
		if (rig_buffer_copy(r->file[i % nblocks], r->host[i % nblocks], &p) < 0) {
			bench_note(prog, "rig_buffer_copy: %s", rig_why());
			return -1;
		}
	if (rig_wait(p, WAIT_NS) < 0) {
		bench_note(prog, "rig_wait: %s", rig_why());
		return -1;
	}
	return 0;
}

/* The file, written with pwrite, then read once into the page cache. */
static int
make_file(const char *path, char *host, uint64_t bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	for (uint64_t i = 0; i < bytes; i++)
		host[i] = (char)(i * 131 >> 7);
	if (fd < 0 || pwrite(fd, host, bytes, 0) != (ssize_t)bytes ||
	    pread(fd, host, bytes, 0) != (ssize_t)bytes) {
		bench_note(prog, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
measure_rig(const struct bench *b, const char *path, uint64_t bytes)
{
	struct rig_disk_options opt = { .size = sizeof(opt), .depth = DEPTH,
					.chunk_bytes = BLOCK };
	struct through_rig r = { calloc(nblocks, sizeof(void *)),
				 calloc(nblocks, sizeof(void *)) };
	struct rig_buffer *file = NULL, *host = NULL;
	struct rig_device *disk = NULL, *mem = NULL;
	struct rig_io_opener o;
	int ret = -1;

	rig_disk_opener_init(&o, "BENCH-DISK", &opt);
	if (!r.file || !r.host || rig_open_io(&o, &disk) < 0 ||
	    rig_memory_device("BENCH-M", &mem) < 0 ||
	    rig_disk_of_file(disk, path, RIG_READ_ONLY, &file) < 0 ||
	    rig_buffer_create(mem, bytes, RIG_MEMORY_DEVICE, &host) < 0) {
		bench_note(b, "setting up rig's disk: %s", rig_why());
		goto out;
	}
	for (uint64_t i = 0; i < nblocks; i++)
		if (rig_buffer_view(file, i * BLOCK, BLOCK, RIG_READ_ONLY, &r.file[i]) < 0 ||
		    rig_buffer_view(host, i * BLOCK, BLOCK, RIG_READ_WRITE, &r.host[i]) < 0) {
			bench_note(b, "rig_buffer_view: %s", rig_why());
			goto out;
		}
	if ((ret = rig_read(&r, nblocks)) == 0)
		ret = bench_per_run(b, "disk_seq_read", "rig-disk", BENCH_RIG, rig_read, &r,
				    nblocks, BLOCK);
out:
	for (uint64_t i = 0; i < nblocks; i++) {
		rig_buffer_release(r.file ? r.file[i] : NULL);
		rig_buffer_release(r.host ? r.host[i] : NULL);
	}
	free(r.file);
	free(r.host);
	rig_buffer_release(file);
	rig_buffer_release(host);
	rig_device_release(disk);
	rig_device_release(mem);
	return ret;
}

int
main(int argc, char **argv)
{
	struct bench b;
	struct plain p;
	char path[600];
	uint64_t bytes;
	int ret;

	bench_init(&b, "bench_rig_disk", argc, argv);
	prog = &b;
	bytes = bench_count(&b, 256u << 20, 256u << 20);
	nblocks = bytes / BLOCK;
	snprintf(path, sizeof(path), "%s/bench-disk-%d.bin", BENCH_TMP, (int)getpid());
	if (!(p.host = malloc(bytes)) || (p.fd = make_file(path, p.host, bytes)) < 0)
		return 1;
	if ((ret = io_uring_queue_init(DEPTH, &p.ring, 0)) < 0) {
		bench_note(&b, "io_uring_queue_init: %s: no io_uring peer here", strerror(-ret));
		unlink(path);
		return BENCH_SKIP;
	}
	ret = plain_read(&p, nblocks);
	if (ret == 0)
		ret = bench_per_run(&b, "disk_seq_read", "io_uring", BENCH_PEER, plain_read, &p,
				    nblocks, BLOCK);
	io_uring_queue_exit(&p.ring);
	close(p.fd);
	free(p.host);
	if (ret == 0)
		ret = measure_rig(&b, path, bytes);
	unlink(path);
	return ret < 0 ? 1 : 0;
}
