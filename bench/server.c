/* SPDX-License-Identifier: MIT */
/*
 * server.c: a multithreaded server, on rig and in plain pthreads, in one
 * run (issue 13): what rig costs a program whose threads each turn requests
 * into work for a core and for the disk. Four worker threads serve requests
 * of S bytes. Per request, a kernel transforms the request
 * (kernels/serve.c: each 4-byte word xored with the request's key and
 * rotated, plus its index) into an S-byte result, and the result is
 * written to the worker's own file at the request's offset; after every 64
 * requests a worker makes its file durable (fsync).
 *
 *   server_4KiB, server_64KiB, server_1MiB   ns per request: the wall time
 *       of the four workers over all the requests they served, their last
 *       fsync included, over the requests; impl "pthreads" (peer) and "rig"
 *       (rig). bench/run shows rig's speed-up over pthreads, which is
 *       rig's requests per second over pthreads'.
 *
 * rig, as a new user writes it: four workers that share nothing get a
 * device each, as a CUDA program gives each worker its own stream: worker k
 * has its own host device "HOST:k" (rig_host_open, one core, run_at_submit:
 * a submit that finds it idle runs the kernel on the worker, as the
 * pthreads worker does; else its device thread runs it) and its own disk
 * "DISK:k" (rig_disk_opener_init, rig_open_io: its own io_uring and loop),
 * so one worker's fsync in flight, or its kernel waiting for its disk,
 * never holds another worker's work (each device shows its values in
 * order). On its host device the kernel runs from one prepared submission
 * whose runs the worker takes (rig_run_take, rig_run_store, rig_submit);
 * its disk copies the result into a view of the worker's file
 * (rig_buffer_copy) and fsyncs the file (rig_disk_barrier). The program
 * never waits for a request: rig orders each kernel after the copy that
 * last read its result buffer (a ring of 8 to 128 per worker: RESULTS) and each
 * copy after its kernel, by the memory they touch, across the two devices.
 * A worker waits only for its previous batch to be durable, once it has
 * submitted the next batch's barrier, so its acks lag a batch behind and at
 * most 2 x 64 of its requests are not yet durable.
 * pthreads: each thread runs serve() itself (the same object, linked in),
 * pwrite()s the result and fsync()s every 64 requests: the server a
 * program writes without a runtime.
 *
 * Each impl is checked once before its figure: after three batches per
 * worker (VERIFY_BATCHES: each slot of its file written three times, and
 * rig's result buffers in use again), every word of every worker's file
 * must be what an independent C transform of its last batch's requests
 * gives, so no figure measures broken work. (A copy that read a result
 * buffer after its next kernel wrote it would leave no trace here, since
 * a later request rewrites that slot: tests/io/test_rig_disks.c proves
 * that order, with two result buffers and a slot per round.) The
 * files (64 requests' worth per worker, 256 MiB in all at 1 MiB) lie next
 * to this program and are removed after each figure.
 */
#include <rig.h>
#include <rig_disk.h>
#include <rig_host.h>

#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WORKERS		4
#define BATCH		64	/* a worker's requests between two fsyncs */
/* Result buffers per rig worker: a kernel waits for the copy that last read
 * its buffer, results requests back. A worker has at most two batches in
 * flight (it waits for the one before the last), so with 2 x BATCH
 * buffers that copy is always durable by then and the kernel never waits
 * (so it runs at submit, on the worker: run_at_submit below). But the
 * buffers are also what the copies read: 128 of 1 MiB (128 MiB a worker)
 * leave every result in DRAM by the time its copy reads it, after the
 * fsync before it, where the pthreads worker's one buffer is in its
 * core's cache (a pwrite() from 128 rotating 1 MiB buffers ran 400-430 us
 * a MiB here against 270-310 from one). So a worker has RESULT_BYTES of
 * them, RESULTS at most and RESULTS_MIN at least: 128 up to 64 KiB, 8 at
 * 1 MiB, where a kernel waits for the copy 8 requests back; the disk
 * starts a file's writeback as its writes come in (src/io/uring.c), so
 * the fsync that copy lies behind is short. */
#define RESULTS		(2 * BATCH)
#define RESULTS_MIN	8
#define RESULT_BYTES	(8u << 20)
#define WORDS_PER_GROUP	1024	/* as in kernels/serve.c */
#define WAIT_NS		60000000000ull	/* a wait longer than this is a hang */
#define VERIFY_BATCHES	3	/* > RESULTS / BATCH: result buffers are used again */
_Static_assert(VERIFY_BATCHES * BATCH > RESULTS, "the check uses result buffers again");

/* kernels/serve.c's parameters and entry, linked in for pthreads. */
struct serve_params {
	const uint32_t *in;
	uint32_t *out;
	uint32_t key;
	uint32_t pad;
	int64_t words;
};
_Static_assert(sizeof(struct serve_params) == 32, "kernels/serve.c's layout");
void serve(const void *params, int64_t first, int64_t end);

struct server;

struct worker {
	struct server *sv;
	int id;
	int status;		/* the last call's: 0 or a negative status */
	uint64_t seq;		/* requests served: the next one's number */
	uint64_t count;		/* requests to serve in this call */
	char path[600];
	/* rig */
	struct rig_buffer *request, *result[RESULTS], *file, *slot[BATCH];
	int results;		/* result buffers in use (results_for) */
	struct rig_point durable;	/* the last barrier submitted */
	/* pthreads */
	uint32_t *in, *out;
	int fd;
};

/* One server: how it opens its files, serves one request, and ends. */
struct impl {
	const char *name;
	enum bench_role role;
	int (*open)(struct worker *w);
	int (*request)(struct worker *w);
	int (*finish)(struct worker *w);	/* makes every request durable */
	void (*close)(struct worker *w);
};

struct server {
	const struct impl *impl;
	size_t bytes;
	pthread_barrier_t start;
	struct worker w[WORKERS];
};

static const struct bench *prog;
static const uint32_t one[3] = { 1, 1, 1 };
/* Worker k's devices and what it runs on them: its own host device and
 * disk, the image loaded on that host device, and the prepared kernel. */
struct lane {
	char host_name[16], disk_name[16];
	struct rig_host_config host_config;
	struct rig_io_opener disk_opener;
	struct rig_device *host, *disk;
	struct rig_image *img;
	struct rig_submission *serve;
};
static struct lane lanes[WORKERS];

/* ---- Requests and what their results must be ---- */

static uint32_t
request_word(int worker, size_t i)
{
	return (uint32_t)i * 2654435761u ^ (uint32_t)(worker + 1) * 0x01000193u;
}

static uint32_t
key_of(int worker, uint64_t seq)
{
	return (uint32_t)seq * 0x85ebca6bu ^ (uint32_t)worker << 28;
}

/* The transform, written apart from kernels/serve.c so that it checks it. */
static uint32_t
result_word(int worker, uint64_t seq, size_t i)
{
	uint32_t x = request_word(worker, i) ^ key_of(worker, seq);

	return (x << 7 | x >> 25) + (uint32_t)i;
}

static uint32_t *
request_bytes(int worker, size_t bytes)
{
	uint32_t *in = malloc(bytes);

	for (size_t i = 0; in && i < bytes / 4; i++)
		in[i] = request_word(worker, i);
	return in;
}

/* rig's failure: the call and rig_why() in a note. */
static int
rig_failed(struct worker *w, const char *call, int ret)
{
	bench_note(prog, "rig worker %d, request %llu: %s: %s", w->id,
		   (unsigned long long)w->seq, call, rig_why());
	return ret < 0 ? ret : -EIO;
}

static int
sys_failed(struct worker *w, const char *call)
{
	int e = errno ? errno : EIO;

	bench_note(prog, "pthreads worker %d, request %llu: %s: %s", w->id,
		   (unsigned long long)w->seq, call, strerror(e));
	return -e;
}

/* ---- rig ---- */

/* How many result buffers a worker has for requests of bytes (RESULTS's
 * comment). */
static int
results_for(size_t bytes)
{
	size_t n = RESULT_BYTES / bytes;

	return n > RESULTS ? RESULTS : n < RESULTS_MIN ? RESULTS_MIN : (int)n;
}

static int
rig_open_worker(struct worker *w)
{
	size_t bytes = w->sv->bytes;
	struct lane *l = &lanes[w->id];
	uint32_t *in = request_bytes(w->id, bytes);
	int ret = in ? 0 : -ENOMEM;

	if (ret == 0 && (ret = rig_buffer_create(l->host, bytes, RIG_MEMORY_DEVICE, &w->request)) == 0)
		ret = rig_buffer_write(w->request, 0, in, bytes);
	free(in);
	w->results = results_for(bytes);
	for (int i = 0; i < w->results && ret == 0; i++)
		ret = rig_buffer_create(l->host, bytes, RIG_MEMORY_DEVICE, &w->result[i]);
	if (ret == 0)
		ret = rig_disk_create_file(l->disk, w->path, BATCH * bytes, &w->file);
	for (int i = 0; i < BATCH && ret == 0; i++)
		ret = rig_buffer_view(w->file, i * bytes, bytes, RIG_READ_WRITE, &w->slot[i]);
	return ret < 0 ? rig_failed(w, "opening", ret) : 0;
}

/* The barrier after a batch, then the wait for the batch before it. */
static int
rig_sync(struct worker *w)
{
	struct rig_point before = w->durable;
	int ret = rig_disk_barrier(w->file, &w->durable);

	if (ret < 0)
		return rig_failed(w, "rig_disk_barrier", ret);
	if (before.device && (ret = rig_wait(before, WAIT_NS)) < 0)
		return rig_failed(w, "rig_wait", ret);
	return 0;
}

static int
rig_request(struct worker *w)
{
	size_t bytes = w->sv->bytes;
	struct serve_params p = { .key = key_of(w->id, w->seq), .words = (int64_t)(bytes / 4) };
	uint32_t grid[3] = { (uint32_t)((bytes / 4 + WORDS_PER_GROUP - 1) / WORDS_PER_GROUP), 1, 1 };
	struct rig_buffer *result = w->result[w->seq % w->results];
	struct rig_run *run;
	int ret;

	if ((ret = rig_run_take(lanes[w->id].serve, &run)) < 0)
		return rig_failed(w, "rig_run_take", ret);
	if ((ret = rig_run_store(run, 0, grid, one, &p, sizeof(p))) < 0) {
		rig_run_release(run);
		return rig_failed(w, "rig_run_store", ret);
	}
	if ((ret = rig_submit(run, (struct rig_buffer *[]){ w->request, result }, 2,
			      NULL, 0, NULL)) < 0)
		return rig_failed(w, "rig_submit", ret);
	if ((ret = rig_buffer_copy(result, w->slot[w->seq % BATCH], NULL)) < 0)
		return rig_failed(w, "rig_buffer_copy", ret);
	return ++w->seq % BATCH ? 0 : rig_sync(w);
}

static int
rig_finish(struct worker *w)
{
	int ret = w->seq % BATCH ? rig_sync(w) : 0;

	if (ret == 0 && w->durable.device && (ret = rig_wait(w->durable, WAIT_NS)) < 0)
		return rig_failed(w, "rig_wait", ret);
	return ret;
}

static void
rig_close_worker(struct worker *w)
{
	for (int i = 0; i < BATCH; i++)
		rig_buffer_release(w->slot[i]);
	for (int i = 0; i < w->results; i++)
		rig_buffer_release(w->result[i]);
	rig_buffer_release(w->file);
	rig_buffer_release(w->request);
}

/* ---- pthreads ---- */

static int
plain_open(struct worker *w)
{
	size_t bytes = w->sv->bytes;

	w->in = request_bytes(w->id, bytes);
	w->out = malloc(bytes);
	if (!w->in || !w->out) {
		errno = ENOMEM;
		return sys_failed(w, "malloc");
	}
	w->fd = open(w->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0 || ftruncate(w->fd, (off_t)(BATCH * bytes)) < 0)
		return sys_failed(w, w->path);
	return 0;
}

static int
plain_request(struct worker *w)
{
	size_t bytes = w->sv->bytes;
	struct serve_params p = { w->in, w->out, key_of(w->id, w->seq), 0, (int64_t)(bytes / 4) };

	serve(&p, 0, (int64_t)((bytes / 4 + WORDS_PER_GROUP - 1) / WORDS_PER_GROUP));
	errno = 0;
	if (pwrite(w->fd, w->out, bytes, (off_t)(w->seq % BATCH * bytes)) != (ssize_t)bytes)
		return sys_failed(w, "pwrite");
	if (++w->seq % BATCH == 0 && fsync(w->fd) < 0)
		return sys_failed(w, "fsync");
	return 0;
}

static int
plain_finish(struct worker *w)
{
	return w->seq % BATCH && fsync(w->fd) < 0 ? sys_failed(w, "fsync") : 0;
}

static void
plain_close(struct worker *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->in);
	free(w->out);
}

static const struct impl impls[] = {
	{ "pthreads", BENCH_PEER, plain_open, plain_request, plain_finish, plain_close },
	{ "rig", BENCH_RIG, rig_open_worker, rig_request, rig_finish, rig_close_worker },
};

/* ---- The server ---- */

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	int ret = 0;

	pthread_barrier_wait(&w->sv->start);
	for (uint64_t i = 0; i < w->count && ret == 0; i++)
		ret = w->sv->impl->request(w);
	w->status = ret ? ret : w->sv->impl->finish(w);
	return NULL;
}

/* n requests over the workers, each ending with its requests durable. */
static int
serve_all(void *arg, uint64_t n)
{
	struct server *sv = arg;
	pthread_t th[WORKERS];
	int started = 0, ret = 0;

	if (pthread_barrier_init(&sv->start, NULL, WORKERS))
		return -ENOMEM;
	for (; started < WORKERS; started++) {
		struct worker *w = &sv->w[started];

		w->count = n / WORKERS + ((uint64_t)started < n % WORKERS);
		if (pthread_create(&th[started], NULL, worker_main, w))
			break;
	}
	if (started < WORKERS) {
		/* Workers wait at the barrier for the ones that never came. */
		bench_note(prog, "pthread_create failed");
		exit(1);
	}
	for (int i = 0; i < WORKERS; i++) {
		pthread_join(th[i], NULL);
		ret = ret ? ret : sv->w[i].status;
	}
	pthread_barrier_destroy(&sv->start);
	return ret;
}

/* Each worker's file after VERIFY_BATCHES batches from request 0: slot j
 * is request (VERIFY_BATCHES - 1) * BATCH + j. */
static int
verify(struct server *sv)
{
	size_t bytes = sv->bytes, words = bytes / 4;
	uint32_t *got = malloc(BATCH * bytes);
	size_t first = (VERIFY_BATCHES - 1) * BATCH;
	int ret = got ? serve_all(sv, WORKERS * VERIFY_BATCHES * BATCH) : -ENOMEM;

	for (int k = 0; k < WORKERS && ret == 0; k++) {
		int fd = open(sv->w[k].path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || pread(fd, got, BATCH * bytes, 0) != (ssize_t)(BATCH * bytes)) {
			bench_note(prog, "%s: cannot read back %s", sv->impl->name, sv->w[k].path);
			ret = -EIO;
		}
		for (size_t i = 0; i < BATCH * words && ret == 0; i++)
			if (got[i] != result_word(k, first + i / words, i % words)) {
				bench_note(prog, "%s, %zu-byte requests: worker %d's file has word "
					   "%zu of request %zu = 0x%08x, not 0x%08x", sv->impl->name,
					   bytes, k, i % words, first + i / words, got[i],
					   result_word(k, first + i / words, i % words));
				ret = -EPROTO;
			}
		if (fd >= 0)
			close(fd);
	}
	free(got);
	return ret;
}

static int
measure(const struct bench *b, const char *name, size_t bytes, uint64_t n,
	const struct impl *impl)
{
	struct server sv = { .impl = impl, .bytes = bytes };
	int ret = 0;

	for (int k = 0; k < WORKERS; k++) {
		struct worker *w = &sv.w[k];

		*w = (struct worker){ .sv = &sv, .id = k, .fd = -1 };
		snprintf(w->path, sizeof(w->path), "%s/bench-server-%d-%s-%d.bin",
			 BENCH_TMP, (int)getpid(), impl->name, k);
		if (ret == 0)
			ret = impl->open(w);
	}
	if (ret == 0)
		ret = verify(&sv);
	if (ret == 0)
		ret = bench_per_run(b, name, impl->name, impl->role, serve_all, &sv, n, 0);
	for (int k = 0; k < WORKERS; k++) {
		impl->close(&sv.w[k]);
		unlink(sv.w[k].path);
	}
	return ret;
}

/* Worker k's host device "HOST:k+1" of one core, its disk "DISK:k+1", and
 * the kernel loaded and prepared on that host device. */
static int
open_lane(struct lane *l, int k, const void *object, size_t len)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_function *fn;
	struct rig_part_spec part;

	snprintf(l->host_name, sizeof(l->host_name), "HOST:%d", k + 1);
	snprintf(l->disk_name, sizeof(l->disk_name), "DISK:%d", k + 1);
	l->host_config = (struct rig_host_config){ .name = l->host_name, .cores = 1,
						  .run_at_submit = 1 };
	if (rig_host_open(&l->host_config, &l->host) < 0 ||
	    rig_disk_opener_init(&l->disk_opener, l->disk_name, NULL) < 0 ||
	    rig_open_io(&l->disk_opener, &l->disk) < 0 ||
	    rig_image_load(l->host, object, len, &l->img) < 0 ||
	    rig_image_function(l->img, "serve", &fn) < 0)
		return -1;
	part = rig_part_launch(fn, sizeof(struct serve_params), refs, 2);
	return rig_submission_make(l->host, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &l->serve);
}

static int
open_rig(void)
{
	static char object[1 << 16];
	size_t len = bench_read_file(SERVE_OBJECT, object, sizeof(object));
	int ret = 0;

	if (!len) {
		bench_note(prog, "cannot read %s", SERVE_OBJECT);
		return -1;
	}
	for (int k = 0; k < WORKERS && ret == 0; k++)
		ret = open_lane(&lanes[k], k, object, len);
	return ret;
}

static void
close_rig(void)
{
	for (int k = 0; k < WORKERS; k++) {
		rig_submission_release(lanes[k].serve);
		rig_image_release(lanes[k].img);
		rig_device_release(lanes[k].disk);
		rig_device_release(lanes[k].host);
	}
}

static bool
chosen(const char *only, const char *name, const char *impl)
{
	char both[128];

	snprintf(both, sizeof(both), "%s/%s", name, impl);
	return !only || strstr(both, only);
}

int
main(int argc, char **argv)
{
	/* Requests per run: some 0.1-0.5 s of serving here, and some hundreds
	 * of milliseconds in all with --quick. */
	static const struct {
		const char *name;
		size_t bytes;
		uint64_t n, quick_n;
	} sizes[] = {
		{ "server_4KiB", 4u << 10, 16384, 2048 },
		{ "server_64KiB", 64u << 10, 4096, 1024 },
		{ "server_1MiB", 1u << 20, 512, 256 },
	};
	/* BENCH_SERVER_ONLY=TEXT measures only the figures whose
	 * "name/impl" holds TEXT ("4KiB/rig", "/rig", "pthreads"): for a
	 * profiler, which then sees one server's threads alone. */
	const char *only = getenv("BENCH_SERVER_ONLY");
	struct bench b;
	int ret;

	bench_init(&b, "bench_server", argc, argv);
	prog = &b;
	ret = open_rig();
	if (ret < 0)
		bench_note(&b, "opening the workers' host devices and disks: %s", rig_why());
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && ret == 0; i++)
		for (size_t k = 0; k < sizeof(impls) / sizeof(impls[0]) && ret == 0; k++)
			if (chosen(only, sizes[i].name, impls[k].name))
				ret = measure(&b, sizes[i].name, sizes[i].bytes,
					      bench_count(&b, sizes[i].n, sizes[i].quick_n),
					      &impls[k]);
	close_rig();
	return ret < 0 ? 1 : 0;
}
