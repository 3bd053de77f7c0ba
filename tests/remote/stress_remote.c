/* SPDX-License-Identifier: MIT */
/*
 * stress_remote: threads sharing one machine's connection at once: each
 * allocates, writes, copies there and back through pinned memory, waits
 * and checks, on two remote devices (HOST and a memory device), while the
 * progress thread delivers the values reached. Under ThreadSanitizer this
 * is the remote driver's concurrency proof: requests waiting for answers,
 * submits from rig's submission threads, deliveries, frees.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_proc.h"
#include "common.h"

#define THREADS 4
#define ROUNDS 24
#define BYTES (256 << 10)

static struct rig_device *devs[2];
static char key_path[128];

static void *
worker(void *arg)
{
	long k = (long)arg;
	struct rig_device *d = devs[k % 2];
	uint32_t *x = malloc(BYTES), *y = malloc(BYTES);
	long bad = 0;

	for (int r = 0; r < ROUNDS && !bad; r++) {
		struct rig_buffer *in = NULL, *dev = NULL, *out = NULL;
		struct rig_point p;

		for (uint32_t i = 0; i < BYTES / 4; i++)
			x[i] = (uint32_t)(k << 24 | r << 16) ^ i;
		if (rig_buffer_create(d, BYTES, RIG_MEMORY_PINNED, &in) < 0 ||
		    rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &dev) < 0 ||
		    rig_buffer_create(d, BYTES, RIG_MEMORY_PINNED, &out) < 0 ||
		    rig_buffer_write(in, 0, x, BYTES) < 0 || rig_buffer_copy(in, dev, NULL) < 0 ||
		    rig_buffer_copy(dev, out, &p) < 0 || rig_wait(p, 60ull * 1000000000) < 0 ||
		    rig_buffer_read(out, 0, y, BYTES) < 0) {
			fprintf(stderr, "stress_remote: thread %ld: %s\n", k, rig_why());
			bad = 1;
		} else if (memcmp(x, y, BYTES)) {
			fprintf(stderr, "stress_remote: thread %ld round %d: bytes differ\n", k, r);
			bad = 1;
		}
		rig_buffer_release(in);
		rig_buffer_release(dev);
		rig_buffer_release(out);
	}
	free(x);
	free(y);
	return (void *)bad;
}

int
main(void)
{
	struct agent_proc agent;
	struct rig_opener o[2];
	pthread_t t[THREADS];
	long bad = 0;

	signal(SIGPIPE, SIG_IGN);
	snprintf(key_path, sizeof(key_path), "/tmp/rig-stress-remote-%d", (int)getpid());
	key_write(key_path, "stress_remote's shared key 0123456\n", 0600);
	if (!agent_start(&agent, key_path, "127.0.0.1:0", NULL))
		return fprintf(stderr, "stress_remote: no agent\n"), 1;
	if (rig_remote_opener(agent.where, "HOST", key_path, &o[0]) < 0 ||
	    rig_remote_opener(agent.where, "MEM", key_path, &o[1]) < 0 ||
	    rig_open(&o[0], &devs[0]) < 0 || rig_open(&o[1], &devs[1]) < 0)
		return fprintf(stderr, "stress_remote: %s\n", rig_why()), 1;
	for (long k = 0; k < THREADS; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	for (int k = 0; k < THREADS; k++) {
		void *r;

		pthread_join(t[k], &r);
		bad |= (long)r;
	}
	for (int i = 0; i < 2; i++) {
		if (rig_close(devs[i]) < 0)
			bad = 1;
		rig_device_release(devs[i]);
	}
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	printf("%s: %d threads x %d rounds on two remote devices\n", bad ? "FAIL" : "ok",
	       THREADS, ROUNDS);
	return bad ? 1 : 0;
}
