/* SPDX-License-Identifier: MIT */
/*
 * stress_remote_disk: threads sharing one remote disk (`rig agent
 * --disk-root`) at once: each creates its own file, writes it from its
 * memory, reads it back into other memory, waits and checks, and releases
 * it, while other threads do the same and the progress thread delivers
 * the values reached. Under ThreadSanitizer this is the remote disk's
 * concurrency proof: file requests from many threads (one at a time on
 * the connection), the Io device's submits and their registrations,
 * releases of files from any thread beside submits, the handle's count.
 * Usage: stress_remote_disk [THREADS [ROUNDS]].
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_proc.h"
#include "rig.h"
#include "rig_remote.h"

#define BYTES (256 << 10)

static struct rig_device *disk, *mem;
static pthread_barrier_t start;
static int rounds = 16;

static void *
worker(void *arg)
{
	long k = (long)arg;
	uint32_t *x = malloc(BYTES), *y = malloc(BYTES);
	char path[64];
	long bad = 0;

	pthread_barrier_wait(&start);
	for (int r = 0; r < rounds && !bad; r++) {
		struct rig_buffer *in = NULL, *out = NULL, *file = NULL;
		struct rig_point p;

		snprintf(path, sizeof(path), "stress-%ld-%d.bin", k, r % 3);
		for (uint32_t i = 0; i < BYTES / 4; i++)
			x[i] = (uint32_t)(k << 24 | r << 16) ^ i;
		if (rig_buffer_create(mem, BYTES, RIG_MEMORY_DEVICE, &in) < 0 ||
		    rig_buffer_create(mem, BYTES, RIG_MEMORY_DEVICE, &out) < 0 ||
		    rig_disk_create_file(disk, path, BYTES, &file) < 0 ||
		    rig_buffer_write(in, 0, x, BYTES) < 0 || rig_buffer_copy(in, file, NULL) < 0 ||
		    rig_buffer_copy(file, out, &p) < 0 || rig_wait(p, 60ull * 1000000000) < 0 ||
		    rig_buffer_read(out, 0, y, BYTES) < 0) {
			fprintf(stderr, "stress_remote_disk: thread %ld: %s\n", k, rig_why());
			bad = 1;
		} else if (memcmp(x, y, BYTES)) {
			fprintf(stderr, "stress_remote_disk: thread %ld round %d: bytes differ\n", k, r);
			bad = 1;
		}
		rig_buffer_release(file);
		rig_buffer_release(in);
		rig_buffer_release(out);
	}
	free(x);
	free(y);
	return (void *)bad;
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	const char *extra[] = { "--disk-root", NULL, NULL };
	char key_path[128], root[128], cmd[200];
	struct agent_proc agent;
	struct rig_io_opener o;
	pthread_t t[64];
	long bad = 0;

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (threads < 1 || threads > 64 || rounds < 1)
		return fprintf(stderr, "usage: stress_remote_disk [THREADS 1-64 [ROUNDS]]\n"), 2;
	signal(SIGPIPE, SIG_IGN);
	snprintf(key_path, sizeof(key_path), "/tmp/rig-stress-rdisk-%d", (int)getpid());
	snprintf(root, sizeof(root), "/tmp/rig-stress-rdisk-root-%d", (int)getpid());
	key_write(key_path, "stress_remote_disk's shared key 0123\n", 0600);
	if (mkdir(root, 0700) < 0)
		return perror(root), 1;
	extra[1] = root;
	if (!agent_start(&agent, key_path, "127.0.0.1:0", extra))
		return fprintf(stderr, "stress_remote_disk: no agent\n"), 1;
	if (rig_remote_disk_opener(agent.where, "DISK", key_path, &o) < 0 ||
	    rig_open_io(&o, &disk) < 0 || rig_memory_device("stress-mem", &mem) < 0)
		return fprintf(stderr, "stress_remote_disk: %s\n", rig_why()), 1;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (long k = 0; k < threads; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	for (int k = 0; k < threads; k++) {
		void *r;

		pthread_join(t[k], &r);
		bad |= (long)r;
	}
	if (rig_close(disk) < 0)
		bad = 1;
	rig_device_release(disk);
	rig_device_release(mem);
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		bad = 1;
	printf("%s: %d threads x %d rounds on one remote disk\n", bad ? "FAIL" : "ok", threads,
	       rounds);
	return bad ? 1 : 0;
}
