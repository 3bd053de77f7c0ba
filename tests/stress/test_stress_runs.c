/* SPDX-License-Identifier: MIT */
/*
 * test_stress_runs: a submission's runs given back while the program
 * releases it (submit/runs.c: the cached run keeps its reference until
 * the release takes it back). Each round makes a submission; its threads
 * take and give back runs through it (the cache and the free stack, a
 * lone taker's hand-over and contended ones), then each takes two runs
 * and meets the others at a barrier; the main thread then releases the
 * submission while the threads submit through their runs and give them
 * back, racing the release for the cache. Every submission must go once
 * its values are done: each holds the image its launch names, so the
 * image unloads only once no submission is left (a submission the cache
 * kept alive keeps it loaded). Under ThreadSanitizer, the hand-over of
 * the reference and of the run's stores is checked as well.
 *
 * Usage: test_stress_runs [threads] [seconds] (default 6, 3).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig.h"
#include "rig_polled.h"

#define MAX_THREADS 32
#define WARM 16				/* takes and give backs before the barrier */
#define WAIT_NS 10000000000ull

static struct rig_device *d;
static struct rig_polled *p;
static struct rig_image *img;
static struct rig_function *fn;
static struct rig_buffer *buf;
static struct rig_submission *s;
static pthread_barrier_t taken, released;
static int nthreads;
static _Atomic bool failed;
static _Atomic uint64_t submits;
static const uint32_t one[3] = { 1, 1, 1 };

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (%s)\n", rig_why());			\
		atomic_store(&failed, true);				\
	}								\
} while (0)

/* Submit r with params (tag, i) and give it back; its point in *last. */
static void
submit_run(struct rig_run *r, uint64_t tag, uint64_t i, struct rig_point *last)
{
	uint64_t params[2] = { tag, i };

	CHECK(rig_run_store(r, 0, one, one, params, sizeof(params)) == 0, "store");
	CHECK(rig_submit(r, &buf, 1, NULL, 0, last) == 0, "submit");
	atomic_fetch_add(&submits, 1);
}

static void *
worker(void *arg)
{
	uint64_t tag = (uint64_t)(intptr_t)arg + 1;
	struct rig_point last = { 0 };
	struct rig_run *r, *two[2];

	for (uint64_t i = 0; i < WARM && !atomic_load(&failed); i++) {
		CHECK(rig_run_take(s, &r) == 0, "take");
		submit_run(r, tag, i, &last);
	}
	CHECK(rig_run_take(s, &two[0]) == 0 && rig_run_take(s, &two[1]) == 0, "take two");
	pthread_barrier_wait(&taken);
	/* The release runs now, on the main thread. */
	submit_run(two[0], tag, WARM, &last);
	rig_run_release(two[1]);	/* back with no submit */
	pthread_barrier_wait(&released);
	if (last.device)
		CHECK(rig_wait(last, WAIT_NS) == 0, "wait");
	return NULL;
}

static int
setup(void)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "RUNS", .lag = 4 };

	if (rig_polled_create(&c, &p) || rig_open(rig_polled_opener(p), &d) ||
	    rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &buf)) {
		fprintf(stderr, "setup: %s\n", rig_why());
		return -1;
	}
	return 0;
}

/* One round's submission, over a fresh image: only it holds the image
 * once the round releases its own. */
static int
make_round(void)
{
	struct rig_ref refs[] = { RIG_WRITE(0, 0) };
	struct rig_part_spec part;

	if (rig_image_load(d, "k", 1, &img) || rig_image_function(img, "k", &fn))
		return -1;
	part = rig_part_launch(fn, 16, refs, 1);
	if (rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s))
		return -1;
	rig_image_release(img);		/* the submission holds it now */
	return 0;
}

/* The round's image unloads once the submission went and its values are
 * done (the workers waited for theirs). */
static bool
image_gone(void)
{
	uint64_t until = rig_now_ns() + WAIT_NS;

	while (rig_polled_live_images(p) != 0) {
		if (rig_now_ns() > until)
			return false;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return true;
}

int
main(int argc, char **argv)
{
	int seconds = argc > 2 ? atoi(argv[2]) : 3, rounds = 0;
	pthread_t t[MAX_THREADS];
	uint64_t deadline;

	nthreads = argc > 1 ? atoi(argv[1]) : 6;
	nthreads = nthreads < 1 ? 1 : nthreads > MAX_THREADS ? MAX_THREADS : nthreads;
	if (setup())
		return 1;
	deadline = rig_now_ns() + (uint64_t)seconds * 1000000000u;
	while ((rounds == 0 || rig_now_ns() < deadline) && !atomic_load(&failed)) {
		if (make_round()) {
			fprintf(stderr, "round: %s\n", rig_why());
			return 1;
		}
		pthread_barrier_init(&taken, NULL, (unsigned)nthreads + 1);
		pthread_barrier_init(&released, NULL, (unsigned)nthreads + 1);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
		pthread_barrier_wait(&taken);
		rig_submission_release(s);	/* races the workers' give backs */
		pthread_barrier_wait(&released);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&taken);
		pthread_barrier_destroy(&released);
		CHECK(image_gone(), "round %d: the image stays loaded: a submission was kept", rounds);
		rounds++;
	}
	rig_buffer_release(buf);
	rig_close(d);
	rig_device_release(d);
	rig_polled_destroy(p);
	printf("%d rounds, %llu submits, %s\n", rounds, (unsigned long long)submits,
	       failed ? "FAILED" : "ok");
	return failed;
}
