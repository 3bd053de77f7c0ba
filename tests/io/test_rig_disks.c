/* SPDX-License-Identifier: MIT */
/*
 * test_rig_disks: several disks side by side, as a server gives each of its
 * workers its own (bench/server.c), through rig's public API:
 *  - DISK:1 ... DISK:4 are four disks, each its own engine and loop
 *    thread; a name opens once (a second open gives the one open, its
 *    options unchanged), and each closes alone;
 *  - a disk whose value is held (its copy waits for a stalled device's
 *    write) holds none of another disk's work, and its own later work
 *    (a barrier) waits for it in order;
 *  - four workers at once, each its own host device (HOST:k) and disk,
 *    two result buffers reused round after round: every word of every
 *    file is its source's, so a host copy into a result buffer waited for
 *    the other device's copy that last read it, and each disk's copy for
 *    the host copy before it;
 *  - what two disks refuse of each other names the call and the cause and
 *    changes nothing.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rig_common.h"
#include "rig_host.h"
#include "rig_polled.h"

#define DISKS	4
#define WAIT	(60 * SECOND_NS)

static struct rig_io_opener openers[DISKS];
static char names[DISKS][16];

static struct rig_device *
disk_k(int k)
{
	struct rig_device *d = NULL;

	snprintf(names[k], sizeof(names[k]), "DISK:%d", k + 1);
	assert_int_equal(rig_disk_opener_init(&openers[k], names[k], NULL), 0);
	TRY(rig_open_io(&openers[k], &d));
	return d;
}

/* Threads of this process named name (prctl's, as /proc shows them). */
static int
threads_named(const char *name)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *t;
	int n = 0;

	assert_non_null(dir);
	while ((t = readdir(dir))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", t->d_name);
		if (!(f = fopen(path, "r")))
			continue;	/* it ended meanwhile */
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		n += !strcmp(comm, name);
	}
	closedir(dir);
	return n;
}

/* Wait (bounded, generously) until cond holds. */
#define await(cond) do {						\
	uint64_t until_ = now_ns() + WAIT;				\
	while (!(cond) && now_ns() < until_)				\
		usleep(1000);						\
	assert_true(cond);						\
} while (0)

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void
fill_words(uint32_t *p, size_t words, uint32_t seed)
{
	for (size_t i = 0; i < words; i++)
		p[i] = (uint32_t)i * 2654435761u ^ seed;
}

/* Four names, four disks, four loops; a name opens once. */
static void
test_disks_side_by_side(void **state)
{
	struct rig_disk_options deep = { .size = sizeof(deep), .depth = 8 };
	struct rig_device *d[DISKS], *again;
	struct rig_io_opener other;
	int loops = threads_named("rig-disk");

	(void)state;
	for (int k = 0; k < DISKS; k++)
		d[k] = disk_k(k);
	/* A loop names itself once it runs. */
	await(threads_named("rig-disk") == loops + DISKS);
	for (int k = 0; k < DISKS; k++) {
		assert_string_equal(rig_name(d[k]), names[k]);
		assert_non_null(io_handle(d[k]));
		for (int j = 0; j < k; j++) {
			assert_ptr_not_equal(d[j], d[k]);
			assert_ptr_not_equal(io_handle(d[j]), io_handle(d[k]));
		}
	}
	/* The open DISK:2 is given back; the other options make nothing. */
	assert_int_equal(rig_disk_opener_init(&other, "DISK:2", &deep), 0);
	TRY(rig_open_io(&other, &again));
	assert_ptr_equal(again, d[1]);
	assert_int_equal(threads_named("rig-disk"), loops + DISKS);
	rig_device_release(again);
	/* Each closes alone: the others go on. */
	TRY(rig_close(d[0]));
	rig_device_release(d[0]);
	await(threads_named("rig-disk") == loops + DISKS - 1);
	for (int k = 1; k < DISKS; k++) {
		struct rig_buffer *f;
		struct rig_point p;

		assert_null(rig_lost(d[k]));
		TRY(rig_disk_create_file(d[k], tmp_path(names[k]), 4096, &f));
		TRY(rig_disk_barrier(f, &p));
		TRY(rig_wait(p, WAIT));
		rig_buffer_release(f);
		rig_device_release(d[k]);
	}
}

/* DISK:1's copy waits for a stalled device; DISK:2's work goes by. */
static void
test_one_held_holds_no_other(void **state)
{
	enum { BYTES = 64 << 10 };
	uint32_t *want1 = malloc(BYTES), *want2 = malloc(BYTES), *got = malloc(BYTES);
	struct rig_device *d1 = disk_k(0), *d2 = disk_k(1), *p, *mem;
	struct rig_buffer *a, *b, *m, *back, *f1, *f2;
	struct rig_point after1, after2;
	struct rig_polled *pp;

	(void)state;
	/* lag 1: P commits each value as it comes, so the stall alone holds it. */
	assert_int_equal(rig_polled_create(&(struct rig_polled_config){
		.size = sizeof(struct rig_polled_config), .name = "P-HELD", .lag = 1 }, &pp), 0);
	TRY(rig_open(rig_polled_opener(pp), &p));
	TRY(rig_memory_device("M-HELD", &mem));
	fill_words(want1, BYTES / 4, 0x1111);
	fill_words(want2, BYTES / 4, 0x2222);
	TRY(rig_buffer_create(p, BYTES, RIG_MEMORY_DEVICE, &a));
	TRY(rig_buffer_create(p, BYTES, RIG_MEMORY_DEVICE, &b));
	TRY(rig_buffer_create(mem, BYTES, RIG_MEMORY_DEVICE, &m));
	TRY(rig_buffer_create(mem, BYTES, RIG_MEMORY_DEVICE, &back));
	TRY(rig_buffer_write(a, 0, want1, BYTES));
	TRY(rig_buffer_write(m, 0, want2, BYTES));
	TRY(rig_disk_create_file(d1, tmp_path("held1.bin"), BYTES, &f1));
	TRY(rig_disk_create_file(d2, tmp_path("held2.bin"), BYTES, &f2));

	rig_polled_stall(pp, true);
	TRY(rig_buffer_copy(a, b, NULL));	/* P's, held */
	TRY(rig_buffer_copy(b, f1, NULL));	/* DISK:1's, waits for P */
	TRY(rig_disk_barrier(f1, &after1));	/* DISK:1's, after it */
	TRY(rig_buffer_copy(m, f2, NULL));	/* DISK:2's */
	TRY(rig_disk_barrier(f2, &after2));
	TRY(rig_wait(after2, WAIT));
	assert_int_equal(rig_wait(after1, 0), RIG_ETIMEDOUT);
	assert_false(rig_signaled(after1));
	rig_polled_stall(pp, false);
	TRY(rig_wait(after1, WAIT));

	TRY(rig_buffer_copy(f1, back, NULL));
	TRY(rig_buffer_read(back, 0, got, BYTES));
	assert_memory_equal(got, want1, BYTES);
	TRY(rig_buffer_copy(f2, back, NULL));
	TRY(rig_buffer_read(back, 0, got, BYTES));
	assert_memory_equal(got, want2, BYTES);

	rig_buffer_release(f1);
	rig_buffer_release(f2);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(m);
	rig_buffer_release(back);
	TRY(rig_close(p));
	rig_device_release(p);
	rig_polled_destroy(pp);
	rig_device_release(mem);
	rig_device_release(d1);
	rig_device_release(d2);
	free(want1);
	free(want2);
	free(got);
}

/* ---- Four workers, each its own host device and disk ---- */

enum {
	SOURCES = 3,	/* distinct sources, so a reused result shows */
	RESULTS = 2,	/* result buffers a worker reuses */
	ROUNDS = 96,
	EVERY = 16,	/* rounds between barriers */
	SLOT = 16 << 10,
};

struct worker {
	int k;
	struct rig_device *host, *disk;
	struct rig_host_config config;
	char host_name[16];
	struct rig_buffer *src[SOURCES], *result[RESULTS], *file, *slot[ROUNDS];
	const char *path;
	int failed;
	char why[256];
};

static uint32_t
seed_of(int k, int s)
{
	return (uint32_t)(k + 1) << 24 | (uint32_t)(s + 1) << 8;
}

static int
worker_fail(struct worker *w, const char *call, int round)
{
	snprintf(w->why, sizeof(w->why), "worker %d, round %d: %s: %s", w->k, round, call,
		 rig_why());
	return w->failed = 1;
}

/* Round i: HOST:k copies source i % 3 into result i % 2, DISK:k copies that
 * result into slot i of the file; a barrier every 16 rounds. No waits. */
static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct rig_point durable = { 0 };

	for (int i = 0; i < ROUNDS; i++) {
		struct rig_buffer *r = w->result[i % RESULTS];

		if (rig_buffer_copy(w->src[i % SOURCES], r, NULL) < 0)
			return worker_fail(w, "host copy", i), NULL;
		if (rig_buffer_copy(r, w->slot[i], NULL) < 0)
			return worker_fail(w, "disk copy", i), NULL;
		if ((i + 1) % EVERY == 0 && rig_disk_barrier(w->file, &durable) < 0)
			return worker_fail(w, "rig_disk_barrier", i), NULL;
	}
	if (rig_wait(durable, WAIT) < 0)
		worker_fail(w, "rig_wait", ROUNDS);
	return NULL;
}

static void
test_workers_each_their_own(void **state)
{
	static struct worker ws[DISKS];
	uint32_t *want = malloc(SLOT), *got = malloc((size_t)ROUNDS * SLOT);
	pthread_t th[DISKS];

	(void)state;
	for (int k = 0; k < DISKS; k++) {
		struct worker *w = &ws[k];

		*w = (struct worker){ .k = k };
		snprintf(w->host_name, sizeof(w->host_name), "HOST:%d", k + 1);
		w->config = (struct rig_host_config){ .name = w->host_name, .cores = 1 };
		TRY(rig_host_open(&w->config, &w->host));
		w->disk = disk_k(k);
		for (int s = 0; s < SOURCES; s++) {
			fill_words(want, SLOT / 4, seed_of(k, s));
			TRY(rig_buffer_create(w->host, SLOT, RIG_MEMORY_DEVICE, &w->src[s]));
			TRY(rig_buffer_write(w->src[s], 0, want, SLOT));
		}
		for (int r = 0; r < RESULTS; r++)
			TRY(rig_buffer_create(w->host, SLOT, RIG_MEMORY_DEVICE, &w->result[r]));
		w->path = strdup(tmp_path(names[k]));
		TRY(rig_disk_create_file(w->disk, w->path, (size_t)ROUNDS * SLOT, &w->file));
		for (int i = 0; i < ROUNDS; i++)
			TRY(rig_buffer_view(w->file, (size_t)i * SLOT, SLOT, RIG_READ_WRITE,
					    &w->slot[i]));
	}
	for (int k = 0; k < DISKS; k++)
		assert_int_equal(pthread_create(&th[k], NULL, worker_main, &ws[k]), 0);
	for (int k = 0; k < DISKS; k++)
		assert_int_equal(pthread_join(th[k], NULL), 0);
	for (int k = 0; k < DISKS; k++) {
		struct worker *w = &ws[k];
		int fd;

		if (w->failed)
			fail_msg("%s", w->why);
		fd = open(w->path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, got, (size_t)ROUNDS * SLOT, 0), (ssize_t)ROUNDS * SLOT);
		close(fd);
		for (int i = 0; i < ROUNDS; i++) {
			fill_words(want, SLOT / 4, seed_of(k, i % SOURCES));
			if (memcmp(got + (size_t)i * (SLOT / 4), want, SLOT))
				fail_msg("worker %d: slot %d is not source %d's bytes", k, i,
					 i % SOURCES);
		}
	}
	for (int k = 0; k < DISKS; k++) {
		struct worker *w = &ws[k];

		for (int i = 0; i < ROUNDS; i++)
			rig_buffer_release(w->slot[i]);
		rig_buffer_release(w->file);
		for (int s = 0; s < SOURCES; s++)
			rig_buffer_release(w->src[s]);
		for (int r = 0; r < RESULTS; r++)
			rig_buffer_release(w->result[r]);
		assert_null(rig_lost(w->disk));
		rig_device_release(w->disk);
		rig_device_release(w->host);
		free((void *)w->path);
	}
	free(want);
	free(got);
}

/* What one disk refuses of another's files, and of a host device. */
static void
test_refusals_between_disks(void **state)
{
	struct rig_device *d1 = disk_k(0), *d2 = disk_k(1), *host;
	struct rig_host_config c = { .name = "HOST:9", .cores = 1 };
	struct rig_buffer *f1, *f2, *out = NULL;
	struct rig_io_opener o;
	struct rig_point p = { 0 };

	(void)state;
	TRY(rig_host_open(&c, &host));
	TRY(rig_disk_create_file(d1, tmp_path("r1.bin"), 4096, &f1));
	TRY(rig_disk_create_file(d2, tmp_path("r2.bin"), 4096, &f2));

	assert_refused(rig_buffer_copy(f1, f2, &p), RIG_EINVAL,
		       "rig_buffer_copy: src and dst are both files");
	assert_refused(rig_buffer_borrow(f1, d2, &out), RIG_EINVAL,
		       "rig_buffer_borrow: ", "DISK:2 does not map DISK:1's memory");
	assert_refused(rig_disk_create_file(host, tmp_path("never.bin"), 1, &out), RIG_EINVAL,
		       "rig_disk_create_file: HOST:9 is not a disk");
	assert_refused(rig_disk_opener_init(&o, "", NULL), RIG_EINVAL,
		       "rig_disk_opener_init: the name is empty");
	assert_null(out);
	assert_null(p.device);
	assert_false(exists(tmp_path("never.bin")));

	/* Nothing changed: both disks run, each holds its one file. */
	assert_int_equal(rig_allocated(d1), 4096);
	assert_int_equal(rig_allocated(d2), 4096);
	TRY(rig_disk_barrier(f1, &p));
	TRY(rig_wait(p, WAIT));
	TRY(rig_disk_barrier(f2, &p));
	TRY(rig_wait(p, WAIT));
	assert_null(rig_lost(d1));
	assert_null(rig_lost(d2));
	rig_buffer_release(f1);
	rig_buffer_release(f2);
	rig_device_release(host);
	rig_device_release(d1);
	rig_device_release(d2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disks_side_by_side),
		cmocka_unit_test(test_one_held_holds_no_other),
		cmocka_unit_test(test_workers_each_their_own),
		cmocka_unit_test(test_refusals_between_disks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
