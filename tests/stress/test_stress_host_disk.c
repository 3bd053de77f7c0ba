/* SPDX-License-Identifier: MIT */
/*
 * test_stress_host_disk: the host device and the disk waiting for each
 * other's words, as bench/server.c makes them, under many threads. Each
 * thread, per round: writes a pattern into its request (a host write,
 * after the copy that last read it), copies it on the host device into
 * one of RESULTS result buffers (after the disk's copy that last read that
 * buffer: a wait on the disk's word that the host device's thread holds),
 * and
 * copies the result into a slot of its own file on the disk (after the
 * host's copy: a wait the disk's loop holds); every BATCH rounds a barrier,
 * then a wait for the barrier before (its writes after an fsync in flight
 * are held while other threads' go on). Slots are reused every SLOTS
 * rounds, so writes follow the fsync of the same bytes.
 *
 * What must hold: at the end each slot of each file holds the pattern of
 * the last round that wrote it (read back with pread), and each barrier
 * point is reached; a copy that ran before its producer, or a result
 * overwritten before the disk read it, leaves another pattern there.
 *
 * Usage: test_stress_host_disk [threads] [rounds per thread] (4, 2000).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "rig_disk.h"

#define THREADS_MAX	16
#define BYTES		4096
#define RESULTS		4
#define BATCH		16
#define SLOTS		48
#define WAIT_NS		60000000000ull

static struct rig_device *host, *disk;
static int nthreads = 4, rounds = 2000;
static pthread_barrier_t start;
static char dir[512];

struct worker {
	int id;
	pthread_t thread;
	char path[600];
	struct rig_buffer *request, *result[RESULTS], *file, *slot[SLOTS];
	uint32_t pattern[BYTES / 4];
	const char *failed;		/* the call that failed, or NULL */
	char why[256];
};

static struct worker w[THREADS_MAX];

static uint32_t
word_of(int id, int round, size_t i)
{
	return (uint32_t)id << 28 ^ (uint32_t)round << 10 ^ (uint32_t)i;
}

static bool
failed(struct worker *k, const char *call, int ret)
{
	if (ret >= 0)
		return false;
	k->failed = call;
	snprintf(k->why, sizeof(k->why), "%s", rig_why());
	return true;
}

static void *
run(void *arg)
{
	struct worker *k = arg;
	struct rig_point durable = { 0 }, before;

	pthread_barrier_wait(&start);
	for (int r = 0; r < rounds; r++) {
		struct rig_buffer *res = k->result[r % RESULTS];

		for (size_t i = 0; i < BYTES / 4; i++)
			k->pattern[i] = word_of(k->id, r, i);
		if (failed(k, "rig_buffer_write", rig_buffer_write(k->request, 0, k->pattern, BYTES)) ||
		    failed(k, "rig_buffer_copy (host)", rig_buffer_copy(k->request, res, NULL)) ||
		    failed(k, "rig_buffer_copy (disk)", rig_buffer_copy(res, k->slot[r % SLOTS], NULL)))
			return NULL;
		if ((r + 1) % BATCH)
			continue;
		before = durable;
		if (failed(k, "rig_disk_barrier", rig_disk_barrier(k->file, &durable)) ||
		    (before.device && failed(k, "rig_wait", rig_wait(before, WAIT_NS))))
			return NULL;
	}
	if (!failed(k, "rig_disk_barrier", rig_disk_barrier(k->file, &durable)))
		failed(k, "rig_wait", rig_wait(durable, WAIT_NS));
	return NULL;
}

static int
open_worker(struct worker *k)
{
	int ret = rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &k->request);

	for (int i = 0; i < RESULTS && ret == 0; i++)
		ret = rig_buffer_create(host, BYTES, RIG_MEMORY_DEVICE, &k->result[i]);
	snprintf(k->path, sizeof(k->path), "%s/w%d.bin", dir, k->id);
	if (ret == 0)
		ret = rig_disk_create_file(disk, k->path, SLOTS * BYTES, &k->file);
	for (int i = 0; i < SLOTS && ret == 0; i++)
		ret = rig_buffer_view(k->file, (size_t)i * BYTES, BYTES, RIG_READ_WRITE, &k->slot[i]);
	if (ret < 0)
		fprintf(stderr, "opening worker %d: %s\n", k->id, rig_why());
	return ret;
}

/* Slot s of k's file holds the last round r < rounds with r % SLOTS == s. */
static int
check_file(struct worker *k)
{
	uint32_t *got = malloc(SLOTS * BYTES);
	int fd = open(k->path, O_RDONLY | O_CLOEXEC), bad = 0;

	if (!got || fd < 0 || pread(fd, got, SLOTS * BYTES, 0) != SLOTS * BYTES) {
		fprintf(stderr, "worker %d: cannot read back %s\n", k->id, k->path);
		bad = 1;
	}
	for (int s = 0; s < SLOTS && !bad && s < rounds; s++) {
		int r = (rounds - 1 - s) / SLOTS * SLOTS + s;

		for (size_t i = 0; i < BYTES / 4 && !bad; i++)
			if (got[(size_t)s * BYTES / 4 + i] != word_of(k->id, r, i)) {
				fprintf(stderr, "worker %d: slot %d word %zu is 0x%08x, not round %d's 0x%08x\n",
					k->id, s, i, got[(size_t)s * BYTES / 4 + i], r, word_of(k->id, r, i));
				bad = 1;
			}
	}
	if (fd >= 0)
		close(fd);
	free(got);
	return bad;
}

static void
close_worker(struct worker *k)
{
	for (int i = 0; i < SLOTS; i++)
		rig_buffer_release(k->slot[i]);
	for (int i = 0; i < RESULTS; i++)
		rig_buffer_release(k->result[i]);
	rig_buffer_release(k->file);
	rig_buffer_release(k->request);
	unlink(k->path);
}

int
main(int argc, char **argv)
{
	int bad = 0;

	if (argc > 1)
		nthreads = atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (nthreads < 1 || nthreads > THREADS_MAX || rounds < 1) {
		fprintf(stderr, "usage: test_stress_host_disk [threads 1..%d] [rounds]\n", THREADS_MAX);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/stress-host-disk-XXXXXX", TEST_TMP);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (rig_host_device(&host) < 0 || rig_open_io(&rig_disk_opener, &disk) < 0) {
		fprintf(stderr, "opening the host device and the disk: %s\n", rig_why());
		return 1;
	}
	for (int i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (open_worker(&w[i]) < 0)
			return 1;
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < nthreads; i++) {
		if (w[i].failed) {
			fprintf(stderr, "worker %d: %s: %s\n", i, w[i].failed, w[i].why);
			bad = 1;
		} else {
			bad |= check_file(&w[i]);
		}
		close_worker(&w[i]);
	}
	rig_device_release(disk);
	rig_device_release(host);
	rmdir(dir);
	printf("%d threads x %d rounds: %s\n", nthreads, rounds, bad ? "FAILED" : "every slot holds its last round");
	return bad;
}
