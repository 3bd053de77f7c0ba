/* SPDX-License-Identifier: MIT */
/*
 * disk_speed: sequential read GB/s of a file in the page cache, through the
 * disk engine and through a plain io_uring loop with the same queue depth
 * and block size, in one run. Not a test: a tool for bench/ (the lead's
 * bench/disk). Prints one JSON object per measurement (name, n, median,
 * p99 = the slowest run, unit) and the ratio that matters.
 *
 *   disk_speed [MiB [block KiB [depth [runs [file]]]]]
 *   defaults:   256    128       32     11   <build>/tests/io/speed.bin
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "io/disk.h"

static uint64_t mib = 256, block = 128 << 10, depth = 32, runs = 11;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) the whole process used so far. */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static void
die(const char *what, int err)
{
	fprintf(stderr, "disk_speed: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The peer: QD reads of block bytes in flight, refilled as they complete. */
static double
plain_io_uring(int fd, char *host, uint64_t total)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t off = 0, done = 0;
	unsigned inflight = 0, head, n;
	double t0;
	int ret;

	if ((ret = io_uring_queue_init((unsigned)depth, &ring, 0)) < 0)
		die("io_uring_queue_init", -ret);
	t0 = now_s();
	while (done < total) {
		while (inflight < depth && off < total) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, host + off, (unsigned)block, off);
			off += block;
			inflight++;
		}
		if ((ret = io_uring_submit_and_wait(&ring, 1)) < 0 && ret != -EINTR)
			die("io_uring_submit_and_wait", -ret);
		n = 0;
		io_uring_for_each_cqe(&ring, head, cqe) {
			if (cqe->res != (int)block)
				die("a plain read came short", cqe->res < 0 ? -cqe->res : EIO);
			done += block;
			inflight--;
			n++;
		}
		io_uring_cq_advance(&ring, n);
	}
	t0 = now_s() - t0;
	io_uring_queue_exit(&ring);
	return (double)total / t0 / 1e9;
}

/* The engine: one value per block, then wait for the word. */
static double
through_disk(void *disk, _Atomic uint64_t *word, uint64_t *next, void *f,
	     char *host, uint64_t total)
{
	const char *failure;
	double t0 = now_s();

	for (uint64_t off = 0; off < total; off += block) {
		struct rig_io_op op = { RIG_IO_READ, f, off, host + off, block };

		if (rig_disk_io.submit(disk, (*next)++, &op, 1, &failure) != RIG_OK) {
			fprintf(stderr, "disk_speed: submit: %s\n", failure);
			exit(1);
		}
	}
	/* Pairs with the loop's release store of the word. */
	while (atomic_load_explicit(word, memory_order_acquire) < *next - 1) {
		if (disk_failure(disk)) {
			fprintf(stderr, "disk_speed: %s\n", disk_failure(disk));
			exit(1);
		}
		nanosleep(&(struct timespec){ 0, 500000 }, NULL);
	}
	return (double)total / (now_s() - t0) / 1e9;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
report(const char *name, double *gbs)
{
	qsort(gbs, runs, sizeof(*gbs), by_value);
	printf("{\"name\": \"%s\", \"n\": %llu, \"median\": %.3f, \"p99\": %.3f, "
	       "\"unit\": \"%s\", \"mib\": %llu, \"block_kib\": %llu, \"depth\": %llu}\n",
	       name, (unsigned long long)runs, gbs[runs / 2], gbs[0],
	       strstr(name, "(CPU)") ? "GB/cpu-s" : "GB/s",
	       (unsigned long long)mib, (unsigned long long)(block >> 10),
	       (unsigned long long)depth);
	return gbs[runs / 2];
}

struct engine {
	const char *name;
	_Atomic uint64_t word;
	uint64_t next;
	void *disk, *file;
	bool registered;
	double *gbs;
};

/* Open a disk in mode over path; register host where asked. */
static void
engine_open(struct engine *e, const char *name, enum rig_disk_mode_wish mode,
	    bool registered, const char *path, char *host, uint64_t total)
{
	struct rig_disk_options o = { .size = sizeof(o), .depth = (unsigned)depth,
				      .chunk_bytes = (unsigned)block, .mode = mode };
	struct rig_io_opener op;
	char why[512];

	e->name = name;
	atomic_init(&e->word, 0);
	e->next = 1;
	e->gbs = calloc(runs, sizeof(double));
	rig_disk_opener_init(&op, "SPEED", &o);
	if (op.make(&op, &e->word, &e->disk, why, sizeof(why)) < 0 ||
	    disk_file_open(e->disk, path, &e->file, why, sizeof(why)) < 0) {
		fprintf(stderr, "disk_speed: %s\n", why);
		exit(1);
	}
	e->registered = registered && disk_host_register(e->disk, host, total) == 0;
	if (registered && !e->registered)
		fprintf(stderr, "disk_speed: %s (measured without)\n", disk_why());
	fprintf(stderr, "disk_speed: %s runs as \"%s\"\n", name, disk_mode(e->disk));
}

static double
engine_close(struct engine *e, char *host)
{
	double med = report(e->name, e->gbs);

	if (e->registered)
		disk_host_unregister(e->disk, host);
	rig_disk_io.release(e->disk, e->file);
	rig_disk_io.stop(e->disk, "measured");
	free(e->gbs);
	return med;
}

int
main(int argc, char **argv)
{
	char path[512];
	uint64_t total;
	double *gbs, plain, disk, fixed, threads;
	struct engine e[3];
	double *cpu[4], cpu_med[4];
	char *host;
	int fd;

	if (argc > 1) mib = strtoull(argv[1], NULL, 0);
	if (argc > 2) block = strtoull(argv[2], NULL, 0) << 10;
	if (argc > 3) depth = strtoull(argv[3], NULL, 0);
	if (argc > 4) runs = strtoull(argv[4], NULL, 0);
	snprintf(path, sizeof(path), "%s", argc > 5 ? argv[5] : TEST_TMP "/speed.bin");
	total = mib << 20;
	if (!mib || !block || block % 4096 || total % block || !depth || !runs) {
		fprintf(stderr, "usage: disk_speed [MiB [block KiB (4 KiB steps) [depth [runs [file]]]]]\n");
		return 2;
	}
	gbs = calloc(runs, sizeof(*gbs));
	for (int i = 0; i < 4; i++)
		cpu[i] = calloc(runs, sizeof(double));
	if (posix_memalign((void **)&host, 4096, total))
		die("posix_memalign", ENOMEM);
	for (uint64_t i = 0; i < total; i += 8)
		*(uint64_t *)(host + i) = i * 0x9e3779b97f4a7c15ull;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || pwrite(fd, host, total, 0) != (ssize_t)total)
		die(path, errno);
	memset(host, 0, total);		/* fault the pages in before timing */

	engine_open(&e[0], "disk", RIG_DISK_AUTO, false, path, host, total);
	engine_open(&e[1], "disk, registered buffer", RIG_DISK_AUTO, true, path, host, total);
	engine_open(&e[2], "disk, threads mode", RIG_DISK_THREADS, false, path, host, total);
	/* Interleaved, so a busy moment of the machine hits every contender. */
	for (uint64_t r = 0; r < runs; r++) {
		double c0 = cpu_s();

		gbs[r] = plain_io_uring(fd, host, total);
		cpu[0][r] = (double)total / 1e9 / (cpu_s() - c0);
		for (int i = 0; i < 3; i++) {
			c0 = cpu_s();
			e[i].gbs[r] = through_disk(e[i].disk, &e[i].word, &e[i].next,
						   e[i].file, host, total);
			cpu[i + 1][r] = (double)total / 1e9 / (cpu_s() - c0);
		}
	}
	/* The same bytes per CPU-second of the whole process: what each
	 * costs, whatever else the machine runs meanwhile. */
	for (int i = 0; i < 4; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s (CPU)", i ? e[i - 1].name : "plain io_uring");
		cpu_med[i] = report(name, cpu[i]);
	}
	plain = report("plain io_uring", gbs);
	disk = engine_close(&e[0], host);
	fixed = engine_close(&e[1], host);
	threads = engine_close(&e[2], host);
	printf("{\"name\": \"ratio disk / plain io_uring\", \"value\": %.3f, "
	       "\"registered\": %.3f, \"threads\": %.3f, \"cpu\": %.3f, "
	       "\"cpu_registered\": %.3f, \"cpu_threads\": %.3f}\n",
	       disk / plain, fixed / plain, threads / plain, cpu_med[1] / cpu_med[0],
	       cpu_med[2] / cpu_med[0], cpu_med[3] / cpu_med[0]);
	for (int i = 0; i < 4; i++)
		free(cpu[i]);
	close(fd);
	unlink(path);
	free(host);
	free(gbs);
	return 0;
}
