/* SPDX-License-Identifier: MIT */
/*
 * stress_remote: threads sharing one machine's connection at once: each
 * allocates, writes, copies there and back through pinned memory, waits
 * and checks, on two remote devices (HOST and a memory device), while the
 * progress thread delivers the values reached. Then round trips: two
 * threads each submit a launch of one group on the one remote HOST and
 * wait for it, over and over (the agent runs it in the handler that
 * delivered it, RIG_REMOTE_HOST_INLINE), so that a waiter's polls of the
 * worker, the other thread's submits and the progress thread's
 * deliveries meet on one device's word. Under ThreadSanitizer this is the
 * remote driver's concurrency proof: requests waiting for answers,
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

#define TRIPPERS 2
#define TRIPS 400
#define TRIP_FLOATS 64

static struct rig_submission *add;
static struct rig_buffer *trip_bufs[3];

/* Round trips on the remote HOST: each launch waited for before the next. */
static void *
tripper(void *arg)
{
	long k = (long)arg;

	for (int i = 0; i < TRIPS; i++) {
		struct rig_point p;

		if (add_submit(add, trip_bufs[0], trip_bufs[1], trip_bufs[2], TRIP_FLOATS, &p) < 0 ||
		    rig_wait(p, 60ull * 1000000000) < 0) {
			fprintf(stderr, "stress_remote: tripper %ld, trip %d: %s\n", k, i, rig_why());
			return (void *)1;
		}
	}
	return NULL;
}

/* a + b = c over TRIP_FLOATS, written through pinned memory and read back
 * the same way once every round trip ended: 0, or 1. */
static long
round_trips(void)
{
	float a[TRIP_FLOATS], b[TRIP_FLOATS], c[TRIP_FLOATS];
	struct rig_buffer *pin = NULL;
	struct rig_image *img = NULL;
	pthread_t t[TRIPPERS];
	struct rig_point p;
	long bad = 0;

	for (int i = 0; i < TRIP_FLOATS; i++) {
		a[i] = (float)i;
		b[i] = (float)(2 * i);
	}
	if (add_submission(devs[0], &add, &img) < 0 ||
	    rig_buffer_create(devs[0], sizeof(a), RIG_MEMORY_PINNED, &pin) < 0)
		return fprintf(stderr, "stress_remote: add: %s\n", rig_why()), 1;
	for (int i = 0; i < 3; i++)
		if (rig_buffer_create(devs[0], sizeof(a), RIG_MEMORY_DEVICE, &trip_bufs[i]) < 0)
			return fprintf(stderr, "stress_remote: %s\n", rig_why()), 1;
	if (rig_buffer_write(pin, 0, a, sizeof(a)) < 0 || rig_buffer_copy(pin, trip_bufs[0], NULL) < 0 ||
	    rig_buffer_write(pin, 0, b, sizeof(b)) < 0 || rig_buffer_copy(pin, trip_bufs[1], NULL) < 0)
		return fprintf(stderr, "stress_remote: %s\n", rig_why()), 1;
	for (long k = 0; k < TRIPPERS; k++)
		pthread_create(&t[k], NULL, tripper, (void *)k);
	for (int k = 0; k < TRIPPERS; k++) {
		void *r;

		pthread_join(t[k], &r);
		bad |= (long)r;
	}
	if (!bad && (rig_buffer_copy(trip_bufs[2], pin, &p) < 0 || rig_wait(p, 60ull * 1000000000) < 0 ||
		     rig_buffer_read(pin, 0, c, sizeof(c)) < 0)) {
		fprintf(stderr, "stress_remote: %s\n", rig_why());
		bad = 1;
	}
	for (int i = 0; i < TRIP_FLOATS && !bad; i++)
		if (c[i] != (float)(3 * i)) {
			fprintf(stderr, "stress_remote: c[%d] is %g, not %d\n", i, c[i], 3 * i);
			bad = 1;
		}
	for (int i = 0; i < 3; i++)
		rig_buffer_release(trip_bufs[i]);
	rig_buffer_release(pin);
	rig_submission_release(add);
	rig_image_release(img);
	return bad;
}

int
main(void)
{
	struct agent_proc agent;
	struct rig_opener o[2];
	pthread_t t[THREADS];
	long bad = 0;

	signal(SIGPIPE, SIG_IGN);
	setenv("RIG_REMOTE_HOST_INLINE", "1", 1);	/* the agent's: short launches in its handler */
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
	if (!bad)
		bad = round_trips();
	for (int i = 0; i < 2; i++) {
		if (rig_close(devs[i]) < 0)
			bad = 1;
		rig_device_release(devs[i]);
	}
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	printf("%s: %d threads x %d rounds on two remote devices, %d x %d round trips on HOST\n",
	       bad ? "FAIL" : "ok", THREADS, ROUNDS, TRIPPERS, TRIPS);
	return bad ? 1 : 0;
}
