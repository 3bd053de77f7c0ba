/*
 * core/io.c: rig_open_io(), an adapter that makes an Io library (a struct
 * rig_io, rig_edge.h) look like a driver, so an Io device goes through the
 * same pipeline as every device: stamps and claims, values, the submission
 * thread, reclaim and loss. Not here: buffers over files and barriers
 * (files.c), copies (copy.c), borrowing (borrow.c).
 *
 * The adapter's device has one queue, "IO", which runs copies. Its memory
 * is files: each allocation's region is the library's file handle, with no
 * address and no host address. Its work is the copies of rig_buffer_copy()
 * and rig_disk_barrier(), and each part becomes one op of the value:
 *
 *   src is a file, dst host memory      RIG_IO_READ  (file bytes into host)
 *   src host memory, dst a file         RIG_IO_WRITE
 *   bytes 0, src and dst the same file  RIG_IO_BARRIER (rig_disk_barrier)
 *   bytes 0 otherwise                   nothing (an empty copy)
 *
 * A side is a file where its location has no host address. The library
 * starts the value's work at once and stores the value in the word once
 * that work and every earlier value's completed (in value order), so the
 * adapter's submit answers RIG_COMMITTED. Its queues wait for no producer:
 * rig waits on the host for other devices' work before it calls submit.
 *
 * A failure of the library (an I/O error, a file that shrank) stops its
 * word; it shows at the next submit (RIG_FAILED), and sooner where the
 * library has an eventfd (rig's disk): it is the facts' events_fd, and
 * events answers RIG_FAULT with the library's text, so rig loses the
 * device without waiting for more work.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/io.h"
#include "io/disk.h"

struct io_dev {
	const struct rig_driver *drv;	/* first: the facts' edge points here */
	const struct rig_io *io;
	void *t;			/* the library's handle */
	int event_fd;			/* our dup of the disk's eventfd, or -1 */
	struct rig_io_op *ops;		/* submit's, grown as parts need */
	size_t cap;
	pthread_mutex_t lock;		/* events against stop */
	bool stopped;
	char fault[320];		/* events' message */
};

static const struct rig_queue io_queues[] = {
	{ .name = "IO", .runs = RIG_RUNS(RIG_COPY_PART) },
};

static bool
is_file(const struct rig_span *s)
{
	return !s->at.host && s->at.handle;
}

static bool
is_barrier(const struct rig_copy *c)
{
	return !c->bytes && is_file(&c->src) && c->src.at.handle == c->dst.at.handle;
}

/* A part the library runs: a copy of one row between a file and host
 * memory, a barrier, or nothing at all. */
static bool
runs(const struct rig_part *p)
{
	const struct rig_copy *c = &p->u.copy;

	if (p->kind != RIG_COPY_PART || c->fill >= 0)
		return false;
	if (!c->bytes)
		return true;
	return c->rows == 1 && is_file(&c->src) != is_file(&c->dst) &&
	       (c->src.at.host || c->dst.at.host);
}

static int
io_room(void *edge, struct rig_part *parts, size_t n, size_t nwaits)
{
	for (size_t i = 0; i < n; i++)
		if (!runs(&parts[i]))
			return RIG_NEVER;
	return nwaits ? RIG_NEVER : RIG_FITS;
}

/* The op of one copy; false for an empty copy that does nothing. */
static bool
op_of(const struct rig_copy *c, struct rig_io_op *op)
{
	if (is_barrier(c)) {
		*op = (struct rig_io_op){ RIG_IO_BARRIER, (void *)c->src.at.handle, 0, NULL, 0 };
		return true;
	}
	if (!c->bytes)
		return false;
	if (is_file(&c->src))
		*op = (struct rig_io_op){ RIG_IO_READ, (void *)c->src.at.handle, c->src.offset,
					  (char *)c->dst.at.host + c->dst.offset, c->bytes };
	else
		*op = (struct rig_io_op){ RIG_IO_WRITE, (void *)c->dst.at.handle, c->dst.offset,
					  (char *)c->src.at.host + c->src.offset, c->bytes };
	return true;
}

static int
io_submit(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	  const struct rig_wait *waits, size_t nwaits,
	  struct rig_times *times, const char **failure)
{
	struct io_dev *t = edge;
	size_t nops = 0;

	if (n > t->cap) {
		struct rig_io_op *ops = realloc(t->ops, n * sizeof(*ops));

		if (!ops) {
			*failure = "submit: no memory for the ops of a value";
			return RIG_FAILED;
		}
		t->ops = ops;
		t->cap = n;
	}
	for (size_t i = 0; i < n; i++)
		nops += op_of(&parts[i].u.copy, &t->ops[nops]);
	/* RIG_OK from the library: the work is going and the word will show
	 * the value, with no commit from rig. */
	if (t->io->submit(t->t, value, t->ops, nops, failure) != RIG_OK)
		return RIG_FAILED;
	return RIG_COMMITTED;
}

static int
io_commit(void *edge, uint64_t value, const char **failure)
{
	return RIG_OK;		/* never asked: submit answers RIG_COMMITTED */
}

static const struct rig_driver io_driver = {
	.room = io_room,
	.submit = io_submit,
	.commit = io_commit,
};

static int
io_facts(void *h, struct rig_facts *f, const char **fault)
{
	struct io_dev *t = h;

	*f = (struct rig_facts){
		.arch = "files",
		/* Files take no memory of the host's: no budget holds them
		 * back (rig_allocated() still counts their bytes). */
		.budget = UINT64_MAX,
		.queues = io_queues,
		.nqueues = 1,
		.copy_engine = 0,
		.completion = RIG_BY_HOST,
		.hang_ms = RIG_NONE,	/* a slow disk is no hung one */
		.alignment = 1,
		.cache_bytes = RIG_NONE,
		.events_fd = t->event_fd >= 0 ? RIG_SOME(t->event_fd) : RIG_NONE,
		.edge = t,
	};
	return RIG_OK;
}

/* Never asked: alloc_make() refuses Io devices with its own message (a
 * refusal here would read as the device's fault, or as no room). */
static int
io_alloc(void *h, uint64_t bytes, enum rig_memory kind, void **region,
	 const char **fault)
{
	return RIG_NO_ROOM;
}

static void
io_free(void *h, void *region)
{
	struct io_dev *t = h;

	t->io->release(t->t, region);
}

static void
io_locate(void *h, void *region, struct rig_location *out)
{
	*out = (struct rig_location){ .has_address = false, .host = NULL,
				      .handle = (uintptr_t)region };
}

static int
io_events(void *h, struct rig_fault_site *site, const char **fault)
{
	struct io_dev *t = h;
	uint64_t count;
	const char *why = NULL;

	pthread_mutex_lock(&t->lock);
	/* Consume what made the fd readable; nothing to read is no fault. */
	if (read(t->event_fd, &count, sizeof(count)) == sizeof(count) && !t->stopped)
		why = disk_failure(t->t);
	if (why)
		snprintf(t->fault, sizeof(t->fault), "%s", why);
	pthread_mutex_unlock(&t->lock);
	if (!why)
		return RIG_OK;
	*fault = t->fault;	/* the library's value, part and queue are unknown */
	return RIG_FAULT;
}

static void
io_stop(void *h, const char *reason)
{
	struct io_dev *t = h;

	/* Under the lock: events reads the library no more once it stops
	 * (the handle may go with its last file). */
	pthread_mutex_lock(&t->lock);
	t->stopped = true;
	pthread_mutex_unlock(&t->lock);
	t->io->stop(t->t, reason);
}

static void
io_release(void *h)
{
	struct io_dev *t = h;

	if (t->event_fd >= 0)
		close(t->event_fd);
	pthread_mutex_destroy(&t->lock);
	free(t->ops);
	free(t);
}

static const struct rig_ops io_ops = {
	.facts = io_facts,
	.alloc = io_alloc,
	.free = io_free,
	.locate = io_locate,
	.events = io_events,
	.stop = io_stop,
	.release = io_release,
};

/* The same for a library with no eventfd: events is NULL without
 * events_fd (rig_edge.h). */
static const struct rig_ops io_ops_quiet = {
	.facts = io_facts,
	.alloc = io_alloc,
	.free = io_free,
	.locate = io_locate,
	.stop = io_stop,
	.release = io_release,
};

/* The rig_opener's make: the Io library's make, wrapped. */
static int
io_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	char *why, size_t len)
{
	const struct rig_io_opener *io = o->arg;
	struct io_dev *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return snprintf(why, len, "no memory for the device"), -ENOMEM;
	t->drv = &io_driver;
	t->io = io->io;
	t->event_fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	if ((ret = io->make(io, word, &t->t, why, len)) < 0)
		goto err;
	/* Our own fd: it stays valid for the poller until io_release(), while
	 * the disk's goes with its last file. */
	if (io->io == &rig_disk_io && (t->event_fd = dup(disk_event_fd(t->t))) < 0) {
		ret = -errno;
		snprintf(why, len, "dup of the disk's eventfd: %s", strerror(errno));
		io->io->stop(t->t, "refused at open");
		goto err;
	}
	*handle = t;
	return 0;
err:
	pthread_mutex_destroy(&t->lock);
	free(t);
	return ret;
}

int
rig_open_io(const struct rig_io_opener *o, struct rig_device **out)
{
	struct rig_opener adapter;
	int ret;

	if (!o || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !o ? "opener" : "out");
	if (!o->name || !o->name[0])
		return rig_fail(RIG_EINVAL, "the opener has no name");
	if (!o->io || !o->make || !o->io->submit || !o->io->size ||
	    !o->io->release || !o->io->stop)
		return rig_fail(RIG_EINVAL, "opener %s lacks %s", o->name,
				!o->make ? "make" : "an Io table with submit, size, release and stop");
	adapter = (struct rig_opener){ .name = o->name,
				       .ops = o->io == &rig_disk_io ? &io_ops : &io_ops_quiet,
				       .make = io_make, .arg = (void *)o };
	ret = device_open(&adapter, false, out);
	return ret < 0 ? rig_fail_keep(__func__, ret) : 0;
}

bool
io_device(const struct rig_device *d)
{
	return d->ops == &io_ops || d->ops == &io_ops_quiet;
}

bool
io_is_disk(const struct rig_device *d)
{
	return d->ops == &io_ops;	/* the table of rig's disk (rig_open_io) */
}

void *
io_disk(const struct rig_device *d)
{
	const struct io_dev *t = d->handle;

	return io_is_disk(d) && !rig_lost(d) ? t->t : NULL;
}

/* The engine's message without its call's name ("disk_file_open: "). */
static const char *
cause_of(const char *why)
{
	const char *colon = strchr(why, ':');

	return colon && colon[1] == ' ' ? colon + 2 : why;
}

/* Under t->lock, not stopped: open the file at path, read-only where
 * access asks no more, and learn its size. */
static int
open_file(struct io_dev *t, const char *path, enum rig_access access,
	  void **file, uint64_t *bytes, char *why, size_t len)
{
	int ret = disk_file_open(t->t, path, file, why, len);

	if (ret < 0)
		return ret;
	if (access == RIG_READ_WRITE && disk_file_read_only(*file)) {
		snprintf(why, len, "open: %s: opening it for writing was refused (ask for RIG_READ_ONLY)",
			 path);
		ret = -EACCES;
	} else if ((ret = t->io->size(t->t, *file, bytes)) < 0)
		snprintf(why, len, "%s", disk_why());
	if (ret < 0)
		t->io->release(t->t, *file);
	return ret;
}

int
io_file_make(struct rig_device *d, const char *path, bool create,
	     enum rig_access access, void **file, uint64_t *bytes)
{
	struct io_dev *t = d->handle;
	char why[512] = "no reason given";
	int ret;

	/* Under t->lock: a stop that started waits for the file, and once
	 * stopped the disk (whose handle may go with its last file) is
	 * asked nothing more. */
	pthread_mutex_lock(&t->lock);
	if (t->stopped) {	/* stop follows the loss: this is RIG_ELOST */
		pthread_mutex_unlock(&t->lock);
		return device_check_live(NULL, d);
	}
	if (create)
		ret = disk_file_create(t->t, path, *bytes, file, why, sizeof(why));
	else
		ret = open_file(t, path, access, file, bytes, why, sizeof(why));
	pthread_mutex_unlock(&t->lock);
	if (ret < 0)
		/* A file that cannot be had is an invalid argument (the
		 * message says why), unless memory ran out. */
		ret = rig_cause(ret == -ENOMEM ? RIG_ENOMEM : RIG_EINVAL, "%s", cause_of(why));
	return ret;
}

int
io_map(struct alloc *root, struct alloc *a)
{
	void *host;
	int ret;

	/* Under root's lock: the disk's end returns the file (and marks it
	 * dead) under it; a map once made keeps the file open itself. */
	spin_lock(&root->lock);
	ret = alloc_dead(root) ? -1 : disk_file_map(root->region, 0, root->bytes, &host);
	spin_unlock(&root->lock);
	if (ret < 0)
		return rig_cause(RIG_EINVAL, "%s", alloc_dead(root) ?
				 "the file's disk is lost" : disk_why());
	a->io_file = root->region;
	a->io_host = host;
	a->io_bytes = root->bytes;
	return 0;
}

void
io_unmap(struct alloc *a)
{
	if (!a->io_host)
		return;
	/* Fails only for arguments io_map() made right. */
	disk_file_unmap(a->io_file, a->io_host, a->io_bytes);
	a->io_host = NULL;
}
