/* SPDX-License-Identifier: MIT */
/*
 * 14-handoff: order follows the order in which submits land, so a program
 * hands a buffer between its own threads as it hands any memory. A worker
 * thread submits device work that writes a buffer, then hands the buffer
 * to a writer thread through the program's own flag (a release store after
 * its submit returned). The writer takes it (an acquire load) and submits
 * work that reads it: that read lands after the worker's write, so rig
 * orders it after the write. Without the flag the writer's submit could
 * land first, and read the buffer before the worker's work wrote it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "rig.h"

#define ROUNDS 200
#define FLOATS 4096

static struct rig_device *host;
static struct rig_buffer *staging, *result[2], *out;
static _Atomic int handed = -1;		/* the round whose result is handed over */
static _Atomic int taken = -1;		/* the round the writer is done with */

static void *
worker(void *arg)
{
	float block[FLOATS];

	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		while (atomic_load_explicit(&taken, memory_order_acquire) < r - 2)
			sched_yield();	/* result[r % 2] is the writer's until it took round r - 2 */
		for (int i = 0; i < FLOATS; i++)
			block[i] = (float)r + (float)i / FLOATS;
		if (rig_buffer_write(staging, 0, block, sizeof(block)) < 0 ||
		    rig_buffer_copy(staging, result[r % 2], NULL) < 0) {	/* device work writes it */
			fprintf(stderr, "14-handoff: %s\n", rig_why());
			return (void *)1;
		}
		/* The hand-off: after the submit returned, as for any memory. */
		atomic_store_explicit(&handed, r, memory_order_release);
	}
	return NULL;
}

static void *
writer(void *arg)
{
	float block[FLOATS];

	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		while (atomic_load_explicit(&handed, memory_order_acquire) < r)
			sched_yield();
		/* This submit lands after the worker's: it reads what that wrote. */
		if (rig_buffer_copy(result[r % 2], out, NULL) < 0 ||
		    rig_buffer_read(out, 0, block, sizeof(block)) < 0) {
			fprintf(stderr, "14-handoff: %s\n", rig_why());
			return (void *)1;
		}
		atomic_store_explicit(&taken, r, memory_order_release);
		for (int i = 0; i < FLOATS; i++)
			if (block[i] != (float)r + (float)i / FLOATS) {
				fprintf(stderr, "14-handoff: round %d float %d is %g\n", r, i, block[i]);
				return (void *)1;
			}
	}
	return NULL;
}

int
main(void)
{
	pthread_t w, o;
	void *rw, *ro;

	if (rig_host_device(&host) < 0 ||
	    rig_buffer_create(host, FLOATS * 4, RIG_MEMORY_DEVICE, &staging) < 0 ||
	    rig_buffer_create(host, FLOATS * 4, RIG_MEMORY_DEVICE, &result[0]) < 0 ||
	    rig_buffer_create(host, FLOATS * 4, RIG_MEMORY_DEVICE, &result[1]) < 0 ||
	    rig_buffer_create(host, FLOATS * 4, RIG_MEMORY_DEVICE, &out) < 0) {
		fprintf(stderr, "14-handoff: %s\n", rig_why());
		return 1;
	}
	pthread_create(&w, NULL, worker, NULL);
	pthread_create(&o, NULL, writer, NULL);
	pthread_join(w, &rw);
	pthread_join(o, &ro);
	rig_buffer_release(staging);
	rig_buffer_release(result[0]);
	rig_buffer_release(result[1]);
	rig_buffer_release(out);
	rig_device_release(host);
	if (rw || ro)
		return 1;
	printf("14-handoff: %d rounds handed from worker to writer, every float as written\n", ROUNDS);
	return 0;
}
