/* SPDX-License-Identifier: MIT */
/*
 * io/opener.c: a disk's life: the opener and make, the mode it runs in,
 * stop, the handle's refs, the accessors, and registered host ranges.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "io/engine.h"

int disk_submit(void *t, uint64_t value, const struct rig_io_op *ops,
		size_t nops, const char **failure);
int disk_submit_after(void *t, uint64_t value, const struct rig_io_op *ops,
		      size_t nops, const struct rig_wait *waits, size_t nwaits,
		      const char **failure);
int disk_submit_timed(void *t, uint64_t value, const struct rig_io_op *ops,
		      size_t nops, const struct rig_wait *waits, size_t nwaits,
		      struct rig_times *times, const char **failure);
static void disk_stop(void *t, const char *reason);
static int disk_make(const struct rig_io_opener *o, _Atomic uint64_t *word,
		     void **handle, char *why, size_t len);

const struct rig_io rig_disk_io = {
	.submit = disk_submit,
	.size = disk_file_size,
	.release = disk_file_release,
	.stop = disk_stop,
	.create = disk_io_create,
	.open = disk_io_open,
	.map = disk_io_map,
	.unmap = disk_io_unmap,
	.fault_fd = disk_event_fd,
	.failure = disk_failure,
	.submit_after = disk_submit_after,
	.submit_timed = disk_submit_timed,
};

const struct rig_io_opener rig_disk_opener = {
	.name = "DISK",
	.io = &rig_disk_io,
	.make = disk_make,
	.arg = NULL,
};

int
rig_disk_opener_init(struct rig_io_opener *o, const char *name,
		     const struct rig_disk_options *opt)
{
	if (!o)
		return rig_why_set(__func__, -EINVAL, "the opener is NULL");
	if (name && !name[0])
		return rig_why_set(__func__, -EINVAL, "the name is empty");
	if (opt && opt->size != sizeof(*opt))
		return rig_why_set(__func__, -EINVAL,
				   "options of %zu bytes, not sizeof(struct rig_disk_options) = %zu",
				   opt->size, sizeof(*opt));
	*o = rig_disk_opener;
	if (name)
		o->name = name;
	o->arg = (void *)opt;
	return 0;
}

/* The options make runs with: the opener's, defaults filled, checked. */
static int
options(const struct rig_io_opener *o, struct rig_disk_options *opt,
	char *why, size_t len)
{
	const char *env = getenv("RIG_DISK_MODE");

	*opt = o->arg ? *(const struct rig_disk_options *)o->arg :
			(struct rig_disk_options){ .size = sizeof(*opt) };
	if (opt->size != sizeof(*opt))
		return snprintf(why, len, "make: options of %zu bytes, not %zu",
				opt->size, sizeof(*opt)), -EINVAL;
	opt->depth = opt->depth ? opt->depth : 64;
	opt->cq_entries = opt->cq_entries ? opt->cq_entries : 2 * opt->depth;
	opt->chunk_bytes = opt->chunk_bytes ? opt->chunk_bytes : 1u << 20;
	opt->workers = opt->workers ? opt->workers : 4;
	if (opt->depth > DISK_MAX_DEPTH)
		return snprintf(why, len, "make: depth %u is over %u", opt->depth,
				DISK_MAX_DEPTH), -EINVAL;
	if (opt->cq_entries > 2 * DISK_MAX_DEPTH)
		return snprintf(why, len, "make: cq_entries %u is over %u",
				opt->cq_entries, 2 * DISK_MAX_DEPTH), -EINVAL;
	if (opt->chunk_bytes % 4096 || opt->chunk_bytes > DISK_MAX_CHUNK)
		return snprintf(why, len, "make: chunk_bytes %u is no multiple of 4096 up to %u",
				opt->chunk_bytes, DISK_MAX_CHUNK), -EINVAL;
	if (opt->workers > DISK_MAX_WORKERS)
		return snprintf(why, len, "make: %u workers are over %u", opt->workers,
				DISK_MAX_WORKERS), -EINVAL;
	if (opt->mode != RIG_DISK_AUTO && opt->mode != RIG_DISK_THREADS)
		return snprintf(why, len, "make: mode %d is no rig_disk_mode_wish",
				(int)opt->mode), -EINVAL;
	if (env && *env && strcmp(env, "auto") && strcmp(env, "threads"))
		return snprintf(why, len, "make: RIG_DISK_MODE=%s is neither auto nor threads",
				env), -EINVAL;
	if (env && !strcmp(env, "threads"))
		opt->mode = RIG_DISK_THREADS;
	return 0;
}

static void
disk_free(struct disk *d)
{
	pthread_mutex_destroy(&d->files_lock);
	jobs_fini(&d->jobs);
	close(d->event_fd);
	free(d->pieces);
	free(d);
}

void
disk_put(struct disk *d)
{
	/* acq_rel: the last put sees every file's and the loop's writes. */
	if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1)
		disk_free(d);
}

static struct disk *
disk_new(const struct rig_disk_options *opt, _Atomic uint64_t *word)
{
	struct disk *d = calloc(1, sizeof(*d));
	/* Values start after what the word holds now (rig_edge.h, openers). */
	uint64_t base = atomic_load_explicit(word, memory_order_acquire);

	if (!d || !(d->pieces = calloc(opt->depth, sizeof(*d->pieces)))) {
		free(d);
		return NULL;
	}
	d->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->event_fd < 0) {
		free(d->pieces);
		free(d);
		return NULL;
	}
	d->opt = *opt;
	d->word = word;
	atomic_init(&d->submitted, base);
	d->shown = d->cut_value = base;
	d->walk_due = true;
	feed_init(&d->feed);
	jobs_init(&d->jobs);
	atomic_init(&d->refs, 1);
	atomic_init(&d->files, 0);
	pthread_mutex_init(&d->files_lock, NULL);
	for (unsigned i = opt->depth; i-- > 0;) {
		d->pieces[i].next = d->free_pieces;
		d->free_pieces = &d->pieces[i];
	}
	return d;
}

static int
disk_make(const struct rig_io_opener *o, _Atomic uint64_t *word, void **handle,
	  char *why, size_t len)
{
	struct rig_disk_options opt;
	struct disk *d;
	int ret;

	if (!o || !word || !handle)
		return snprintf(why, len, "make: NULL %s", !o ? "opener" : !word ? "word" : "handle"),
		       -EINVAL;
	if ((ret = options(o, &opt, why, len)) < 0)
		return ret;
	if (!(d = disk_new(&opt, word)))
		return snprintf(why, len, "make: no memory for a disk of depth %u", opt.depth),
		       -ENOMEM;
	ret = opt.mode == RIG_DISK_THREADS ? -ENOSYS : uring_start(d, why, len);
	if (ret == -ENOSYS || ret == -EPERM)
		ret = pool_start(d, why, len);
	if (ret < 0)
		goto err_free;
	ret = -pthread_create(&d->loop, NULL, loop_main, d);
	if (ret < 0) {
		snprintf(why, len, "make: starting the loop thread: %s", strerror(-ret));
		goto err_backend;
	}
	*handle = d;
	return 0;
err_backend:
	pthread_mutex_lock(&d->files_lock);
	d->be->fini(d);
	d->be_state = NULL;
	pthread_mutex_unlock(&d->files_lock);
err_free:
	disk_free(d);
	return ret;
}

static void
disk_stop(void *t, const char *reason)
{
	struct disk *d = t;

	disk_fail_quiet(d, "stopped: %s", reason ? reason : "no reason given");
	/* Pairs with the acquire in the loop's halted() (and in file.c's
	 * stopped()): whoever sees stopping sees the failure text too. */
	atomic_store_explicit(&d->stopping, true, memory_order_release);
	d->be->bell(d);
	pthread_join(d->loop, NULL);
	pthread_mutex_lock(&d->files_lock);
	d->be->fini(d);
	d->be_state = NULL;
	pthread_mutex_unlock(&d->files_lock);
	/* No I/O touches host memory any more: show every value submitted
	 * (dropped ones included) so rig may free their memory. Pairs with
	 * rig's acquire loads of the word. */
	atomic_store_explicit(d->word, atomic_load(&d->submitted), memory_order_release);
	disk_put(d);
}

const char *
disk_mode(void *disk)
{
	return atomic_load_explicit(&((struct disk *)disk)->mode, memory_order_relaxed);
}

int
disk_event_fd(void *disk)
{
	return ((struct disk *)disk)->event_fd;
}

const char *
disk_failure(void *disk)
{
	return disk_failure_text(disk);
}

void
disk_stats(void *disk, struct disk_stats *out)
{
	struct disk *d = disk;

	out->pieces = atomic_load_explicit(&d->stats.pieces, memory_order_relaxed);
	out->fixed_buffers = atomic_load_explicit(&d->stats.fixed_buffers, memory_order_relaxed);
	out->fixed_files = atomic_load_explicit(&d->stats.fixed_files, memory_order_relaxed);
	out->resubmits = atomic_load_explicit(&d->stats.resubmits, memory_order_relaxed);
	out->out_of_order = atomic_load_explicit(&d->stats.out_of_order, memory_order_relaxed);
	out->busy = atomic_load_explicit(&d->stats.busy, memory_order_relaxed);
	out->joined = atomic_load_explicit(&d->stats.joined, memory_order_relaxed);
	out->kicks = atomic_load_explicit(&d->stats.kicks, memory_order_relaxed);
	out->held = atomic_load_explicit(&d->stats.held, memory_order_relaxed);
	out->max_in_flight = atomic_load_explicit(&d->stats.max_in_flight, memory_order_relaxed);
}

void
disk_fault_inject(void *disk, uint64_t nth, int err)
{
	struct disk *d = disk;

	atomic_store(&d->fault_err, err);
	atomic_store(&d->fault_nth, nth);
}

void
disk_short_inject(void *disk, uint64_t every)
{
	atomic_store_explicit(&((struct disk *)disk)->short_every, every,
			      memory_order_relaxed);
}

int
disk_host_register(void *disk, void *host, uint64_t bytes)
{
	struct disk *d = disk;
	int ret = -ENOSPC;

	if (!d || !host || !bytes || bytes > (1u << 30))
		return disk_refuse(__func__, -EINVAL, "%" PRIu64 " bytes at %p: NULL, empty or over 1 GiB",
				   bytes, host);
	pthread_mutex_lock(&d->files_lock);
	if (!d->ring_up || strcmp(disk_mode(d), "io_uring")) {
		pthread_mutex_unlock(&d->files_lock);
		return disk_refuse(__func__, -ENOTSUP, "the disk runs in the mode %s", disk_mode(d));
	}
	for (unsigned i = 0; i < DISK_BUFFER_SLOTS; i++) {
		if (d->buffer_slots & (1ull << i))
			continue;
		ret = uring_register_host(d, i, host, bytes);
		if (ret == 0) {
			d->buffer_slots |= 1ull << i;
			atomic_store_explicit(&d->ranges[i].base, (uintptr_t)host,
					      memory_order_relaxed);
			/* Pairs with the acquire in buffer_of() (loop.c): the
			 * loop sees base, and the kernel's slot, with bytes. */
			atomic_store_explicit(&d->ranges[i].bytes, bytes, memory_order_release);
			atomic_fetch_add(&d->nranges, 1);
		} else if (ret == -ENOMEM) {
			atomic_store_explicit(&d->mode, "io_uring (no registered buffers)",
					      memory_order_relaxed);
		}
		break;
	}
	pthread_mutex_unlock(&d->files_lock);
	if (ret == -ENOSPC)
		return disk_refuse(__func__, ret, "all %d slots are taken", DISK_BUFFER_SLOTS);
	if (ret < 0)
		return disk_refuse(__func__, ret, "%" PRIu64 " bytes at %p: %s%s", bytes, host,
				   strerror(-ret), ret == -ENOMEM ? " (RLIMIT_MEMLOCK)" : "");
	return 0;
}

int
disk_host_unregister(void *disk, void *host)
{
	struct disk *d = disk;
	int ret = -EINVAL;

	pthread_mutex_lock(&d->files_lock);
	for (unsigned i = 0; i < DISK_BUFFER_SLOTS; i++) {
		if (!(d->buffer_slots & (1ull << i)) ||
		    atomic_load(&d->ranges[i].base) != (uintptr_t)host)
			continue;
		atomic_store_explicit(&d->ranges[i].bytes, 0, memory_order_release);
		atomic_fetch_sub(&d->nranges, 1);
		if (d->ring_up)
			uring_unregister_host(d, i);
		d->buffer_slots &= ~(1ull << i);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&d->files_lock);
	if (ret < 0)
		return disk_refuse(__func__, ret, "%p is no registered range", host);
	return 0;
}
