/* SPDX-License-Identifier: MIT */
/*
 * test_stress_profile: profiles taken and ended while threads submit, wait
 * and mark spans. Each worker owns buffers on two polled devices (one with
 * fake stamps, so settle converts) and a memory device, and round after
 * round copies on each (one copy crosses devices through a borrowed view,
 * so its value waits for the other device's), waits for the last, and
 * brackets the round with nested spans. The main thread takes a profile
 * of every device, lets it run, reads times of the points the workers
 * publish (none may start before an earlier value of its device ends),
 * stops it, writes the trace and the picture, and releases it; and again.
 * The host device runs each worker's launch of tests/host's add (split
 * over its pool) and a copy, so its pieces (each part's times, each
 * thread's range) are kept by its device thread while the main thread
 * takes them (a read's settle) and writes a trace mid-profile.
 * Run under ThreadSanitizer and ASan+UBSan by the sanitizer builds.
 *
 * Usage: test_stress_profile [threads] [seconds] (defaults 4, 5). Threads
 * start at a barrier; the first violation stops the run with a message.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rig.h"
#include "rig_polled.h"
#include "../host/kernels.h"

#define SECOND_NS 1000000000ull
#define MAX_THREADS 16

#define HOST 3
static struct rig_device *dev[4];
static struct rig_function *add_fn;
static struct rig_image *add_img;
static struct rig_polled *polled[2];
static pthread_barrier_t start;
static _Atomic bool stop, failed;
static _Atomic uint64_t rounds;
/* The last point of each worker on device 0, for the reader. */
static _Atomic uint64_t last_value[MAX_THREADS];
/* And on the host device. */
static _Atomic uint64_t last_host[MAX_THREADS];

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, " (rig_why: %s)\n", rig_why());		\
		atomic_store(&failed, true);				\
		atomic_store(&stop, true);				\
		return NULL;						\
	}								\
} while (0)

static uint64_t
ticks(void *arg, uint64_t value, int end)
{
	(void)arg;
	return value * 10 + (end ? 25 : 0);
}

static void *
worker(void *arg)
{
	size_t me = (size_t)(uintptr_t)arg;
	struct rig_buffer *b[3][2], *view, *hb[4];
	struct rig_submission *hs;
	struct rig_point p[4];
	int ret;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			CHECK(rig_buffer_create(dev[i], 256, RIG_MEMORY_DEVICE, &b[i][j]) == 0,
			      "worker %zu: buffer", me);
	/* b[0][0]'s memory, seen from device 1: a copy there waits for 0. */
	CHECK(rig_buffer_borrow(b[0][1], dev[1], &view) == 0, "worker %zu: borrow", me);
	for (int j = 0; j < 4; j++)
		CHECK(rig_buffer_create(dev[HOST], 1024 * 4, RIG_MEMORY_DEVICE, &hb[j]) == 0,
		      "worker %zu: host buffer", me);

	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec parts[2] = {
		rig_part_launch(add_fn, sizeof(struct add_params), refs, 3),
		rig_part_copy(RIG_SLOT(2), RIG_SLOT(3)),
	};
	CHECK(rig_submission_make(dev[HOST], parts, 2, NULL, 0, (struct rig_keep){ 0 }, &hs) == 0,
	      "worker %zu: host submission", me);
	pthread_barrier_wait(&start);
	while (!atomic_load(&stop)) {
		CHECK(rig_span_begin("round") == 0, "worker %zu: span", me);
		CHECK(rig_span_begin("copies") == 0, "worker %zu: inner span", me);
		for (int i = 0; i < 3; i++)
			CHECK(rig_buffer_copy(b[i][0], b[i][1], &p[i]) == 0,
			      "worker %zu: copy on %d", me, i);
		ret = rig_buffer_copy(view, b[1][0], &p[1]);
		CHECK(ret == 0, "worker %zu: the crossing copy", me);
		{
			struct add_params ap = { .n = 1024, .per_group = 16 };
			const uint32_t grid[3] = { 64, 1, 1 }, group[3] = { 1, 1, 1 };
			struct rig_run *r;

			CHECK(rig_run_take(hs, &r) == 0 &&
			      rig_run_store(r, 0, grid, group, &ap, sizeof(ap)) == 0 &&
			      rig_submit(r, hb, 4, NULL, 0, &p[HOST]) == 0,
			      "worker %zu: host launch", me);
		}
		CHECK(rig_span_end() == 0, "worker %zu: span end", me);
		for (int i = 0; i < 4; i++)
			CHECK(rig_wait(p[i], 30 * SECOND_NS) == 0, "worker %zu: wait %d", me, i);
		atomic_store(&last_value[me], p[0].value);
		atomic_store(&last_host[me], p[HOST].value);
		CHECK(rig_span_end() == 0, "worker %zu: span end", me);
		atomic_fetch_add(&rounds, 1);
	}
	rig_buffer_release(view);
	rig_submission_release(hs);
	for (int j = 0; j < 4; j++)
		rig_buffer_release(hb[j]);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			rig_buffer_release(b[i][j]);
	return NULL;
}

/* One profile: taken, read while it runs, stopped, written, released. */
static bool
one_profile(int threads, const char *json, const char *plot)
{
	struct rig_profile *prof;
	uint64_t s, e;

	if (rig_profile_start(NULL, 0, 1 << 14, &prof) < 0) {
		fprintf(stderr, "start: %s\n", rig_why());
		return false;
	}
	for (int k = 0; k < 20 && !atomic_load(&stop); k++) {
		usleep(2000);
		/* Mid-profile: the host's pieces taken while it keeps more. */
		if (k == 10 && rig_profile_write(prof, json) < 0) {
			fprintf(stderr, "write while taken: %s\n", rig_why());
			return false;
		}
		for (int t = 0; t < 2 * threads; t++) {
			struct rig_point pt = t < threads ?
				(struct rig_point){ dev[0], atomic_load(&last_value[t]) } :
				(struct rig_point){ dev[HOST], atomic_load(&last_host[t - threads]) };
			int ret = rig_profile_times(prof, pt, &s, &e);

			/* Before the profile (EINVAL), or timed. */
			if (ret == 0 && e < s) {
				fprintf(stderr, "value %llu ends before it starts\n",
					(unsigned long long)pt.value);
				return false;
			}
			if (ret < 0 && ret != RIG_EINVAL) {
				fprintf(stderr, "times: %s\n", rig_why());
				return false;
			}
		}
	}
	if (rig_profile_stop(prof) < 0 || rig_profile_write(prof, json) < 0 ||
	    rig_profile_write_plot(prof, plot) < 0) {
		fprintf(stderr, "stop or write: %s\n", rig_why());
		return false;
	}
	rig_profile_release(prof);
	return true;
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	int seconds = argc > 2 ? atoi(argv[2]) : 5;
	struct rig_polled_config c[2] = {
		{ .size = sizeof(c[0]), .name = "P-stress-0", .lag = 4 },
		{ .size = sizeof(c[1]), .name = "P-stress-1", .lag = 4, .stamp = ticks },
	};
	char json[] = "/tmp/rig-stress-profile-XXXXXX";
	char plot[sizeof(json) + 4];
	pthread_t th[MAX_THREADS];
	uint64_t end, profiles = 0;
	int fd;

	if (threads < 1 || threads > MAX_THREADS || seconds < 1) {
		fprintf(stderr, "usage: test_stress_profile [threads 1..%d] [seconds]\n", MAX_THREADS);
		return 2;
	}
	if ((fd = mkstemp(json)) < 0)
		return 1;
	close(fd);
	snprintf(plot, sizeof(plot), "%s.gp", json);
	for (int i = 0; i < 2; i++)
		if (rig_polled_create(&c[i], &polled[i]) || rig_open(rig_polled_opener(polled[i]), &dev[i])) {
			fprintf(stderr, "open: %s\n", rig_why());
			return 1;
		}
	if (rig_memory_device("M-stress-profile", &dev[2]) || rig_host_device(&dev[HOST]))
		return 1;
	{
		size_t len;
		unsigned char *object = kernel_read("add", &len);

		if (rig_image_load(dev[HOST], object, len, &add_img) ||
		    rig_image_function(add_img, "add", &add_fn)) {
			fprintf(stderr, "add: %s\n", rig_why());
			return 1;
		}
		free(object);
	}
	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
	pthread_barrier_wait(&start);
	end = rig_now_ns() + (uint64_t)seconds * SECOND_NS;
	while (!atomic_load(&stop) && rig_now_ns() < end) {
		if (!one_profile(threads, json, plot)) {
			atomic_store(&failed, true);
			break;
		}
		profiles++;
	}
	atomic_store(&stop, true);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	rig_image_release(add_img);
	for (int i = 0; i < 4; i++) {
		if (i != HOST)
			rig_close(dev[i]);
		rig_device_release(dev[i]);
	}
	for (int i = 0; i < 2; i++)
		rig_polled_destroy(polled[i]);
	unlink(json);
	unlink(plot);
	printf("%d threads, %llu rounds, %llu profiles: %s\n", threads,
	       (unsigned long long)atomic_load(&rounds), (unsigned long long)profiles,
	       atomic_load(&failed) ? "FAILED" : "ok");
	return atomic_load(&failed) || !profiles || !atomic_load(&rounds);
}
