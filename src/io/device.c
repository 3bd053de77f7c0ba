/* SPDX-License-Identifier: MIT */
/*
 * io/device.c: an Io library (a struct rig_io, rig_edge.h) as a device:
 * the driver behind rig_io_device_opener(), so an Io device goes through
 * the same pipeline as every device: stamps and claims, values, the
 * submission thread, reclaim and loss. Any Io library runs behind it; rig's
 * disk is one. Not here: buffers over files, their maps (core/io.c, which
 * reaches the library through facts.io), copies (core/copy.c).
 *
 * The device has one queue, "IO", which runs copies. Its memory is files:
 * each allocation's region is the library's file handle, with no address
 * and no host address. Its work is the copies of rig_buffer_copy() and
 * rig_disk_barrier(), and each part becomes one op of the value:
 *
 *   src is a file, dst host memory      RIG_IO_READ  (file bytes into host)
 *   src host memory, dst a file         RIG_IO_WRITE
 *   bytes 0, src and dst the same file  RIG_IO_BARRIER (rig_disk_barrier)
 *   bytes 0 otherwise                   nothing (an empty copy)
 *
 * A side is a file where its location has no host address. The library
 * starts the value's work at once and stores the value in the word once
 * that work and every earlier value's completed (in value order), so
 * submit answers RIG_COMMITTED. Where the library has submit_after, its
 * queues wait for every producer: a copy of memory another device's work
 * writes is handed to the library with its waits at once (the submitting
 * thread may then run it, with no hand-off to the submission thread), and
 * the library holds its ops until the words show them. Without it, the
 * queues wait for no producer: rig waits on the host for other devices'
 * work before it calls submit.
 *
 * A failure of the library (an I/O error, a file that shrank) stops its
 * word; it shows at the next submit (RIG_FAILED), and sooner where the
 * library has a fault_fd: it is the facts' events_fd, and events answers
 * RIG_FAULT with the library's text, so rig loses the device without
 * waiting for more work. rig's counted calls keep events (and every call
 * of the table) from running during stop or after it (rig_edge.h, ops).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_edge.h"

struct io_dev {
	const struct rig_driver *drv;	/* first: the facts' edge points here */
	const struct rig_io *io;
	void *t;			/* the library's handle */
	int event_fd;			/* our dup of the library's fault_fd, or -1 */
	struct rig_io_op *ops;		/* submit's, grown as parts need */
	size_t cap;
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
	struct io_dev *t = edge;

	for (size_t i = 0; i < n; i++)
		if (!runs(&parts[i]))
			return RIG_NEVER;
	return nwaits && !t->io->submit_after ? RIG_NEVER : RIG_FITS;
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
	/* A value a profile times goes to the library's timed submit. */
	if (times && t->io->submit_timed) {
		if (t->io->submit_timed(t->t, value, t->ops, nops, waits, nwaits, times,
					failure) != RIG_OK)
			return RIG_FAILED;
		return RIG_COMMITTED;
	}
	if ((nwaits ? t->io->submit_after(t->t, value, t->ops, nops, waits, nwaits, failure) :
		     t->io->submit(t->t, value, t->ops, nops, failure)) != RIG_OK)
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
		.waits = { .stores = t->io->submit_after != NULL,
			   .hosts = t->io->submit_after != NULL },
		.hang_ms = RIG_NONE,	/* a slow disk is no hung one */
		.alignment = 1,
		.cache_bytes = RIG_NONE,
		.events_fd = t->event_fd >= 0 ? RIG_SOME(t->event_fd) : RIG_NONE,
		.edge = t,
		.io = t->io,
		.io_handle = t->t,
	};
	return RIG_OK;
}

/* Never asked: rig refuses to allocate on a device whose facts name an Io
 * library, with its own message (a refusal here would read as the
 * device's fault, or as no room). */
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
	const char *why = NULL;
	uint64_t count;

	/* Consume what made the fd readable; nothing to read is no fault. */
	if (read(t->event_fd, &count, sizeof(count)) == sizeof(count))
		why = t->io->failure(t->t);
	if (!why)
		return RIG_OK;
	snprintf(t->fault, sizeof(t->fault), "%s", why);
	*fault = t->fault;	/* the library's value, part and queue are unknown */
	return RIG_FAULT;
}

static void
io_stop(void *h, const char *reason)
{
	struct io_dev *t = h;

	t->io->stop(t->t, reason);
}

static void
io_release(void *h)
{
	struct io_dev *t = h;

	if (t->event_fd >= 0)
		close(t->event_fd);
	free(t->ops);
	free(t);
}

/* A library with no fault_fd gets no events: events is NULL without
 * events_fd (rig_edge.h). */
#define IO_OPS	.facts = io_facts, .alloc = io_alloc, .free = io_free,	\
		.locate = io_locate, .stop = io_stop, .release = io_release
static const struct rig_ops io_ops = { IO_OPS, .events = io_events };
static const struct rig_ops io_ops_quiet = { IO_OPS };

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
	if ((ret = io->make(io, word, &t->t, why, len)) < 0)
		goto err;
	/* Our own fd: it stays valid for the poller until io_release(), while
	 * the library's may go with its last file. */
	if (io->io->fault_fd && (t->event_fd = dup(io->io->fault_fd(t->t))) < 0) {
		ret = -errno;
		snprintf(why, len, "dup of the library's fault_fd: %s", strerror(errno));
		io->io->stop(t->t, "refused at open");
		goto err;
	}
	*handle = t;
	return 0;
err:
	free(t);
	return ret;
}

void
rig_io_device_opener(const struct rig_io_opener *io, struct rig_opener *out)
{
	if (!io || !io->io || !out) {
		rig_why_set(__func__, -EINVAL, "the %s is NULL",
			    !io ? "Io opener" : !out ? "out" : "Io opener's table");
		return;
	}
	*out = (struct rig_opener){
		.name = io->name,
		.ops = io->io->fault_fd ? &io_ops : &io_ops_quiet,
		.make = io_make,
		.arg = (void *)io,
	};
}
