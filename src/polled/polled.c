/* SPDX-License-Identifier: MIT */
/*
 * polled/polled.c: the polled test driver (rig_polled.h): its opener, facts,
 * memory, code and controls. Written against rig_edge.h only.
 *
 * The values' way through the device (room, submit, commit and the worker
 * that runs them) is queue.c's; the state both share is polled.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "polled/polled.h"

static const char *const call_names[] = {
	[CALL_MAKE] = "make", [CALL_FACTS] = "facts", [CALL_ALLOC] = "alloc",
	[CALL_ROOM] = "room", [CALL_SUBMIT] = "submit", [CALL_COMMIT] = "commit",
	[CALL_GROW] = "grow",
};

struct pregion {
	void *host;
	uint64_t bytes;
	bool mapped;		/* map_host: memory that is not ours to free */
};

const char *
polled_injected(struct pdev *d, enum call call)
{
	snprintf(d->failure, sizeof(d->failure), "injected %s failure",
		 call_names[call]);
	return d->failure;
}

/* ---- The other operations ---- */

static int
polled_facts(void *t, struct rig_facts *f, const char **fault)
{
	struct pdev *d = t;
	const struct rig_polled_config *c = &d->p->c;

	if (polled_failing(d->p, CALL_FACTS)) {
		*fault = polled_injected(d, CALL_FACTS);
		return RIG_FAULT;
	}
	*f = (struct rig_facts){
		.arch = "polled",
		.budget = c->budget,
		.queues = c->queues,
		.nqueues = c->nqueues,
		.copy_engine = c->copy_engine,
		.completion = c->completion,
		.waits = c->waits,
		.may_block = c->may_block,
		.hang_ms = c->hang_ms,
		.events_fd = RIG_SOME(d->efd),
		.maps_host = true,
		.host_addresses = !c->no_host_addresses,
		.alignment = c->alignment,
		.cache_bytes = c->cache_bytes,
		.counters = c->ncounters ? c->counters : NULL,
		.ncounters = c->counters ? c->ncounters : 0,
		.edge = d,
	};
	return RIG_OK;
}

static int
polled_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	     const char **fault)
{
	struct pdev *d = t;
	uint64_t align = d->p->c.alignment < 16 ? 16 : d->p->c.alignment;
	struct pregion *r;

	if (polled_failing(d->p, CALL_ALLOC)) {
		*fault = polled_injected(d, CALL_ALLOC);
		return RIG_FAULT;
	}
	if (!(r = malloc(sizeof(*r))))
		return RIG_NO_ROOM;
	r->bytes = bytes;
	r->mapped = false;
	r->host = aligned_alloc(align, (bytes + align - 1) & ~(align - 1));
	if (!r->host) {
		free(r);
		return RIG_NO_ROOM;
	}
	/* Not zeroed: a new buffer's bytes are unspecified (rig.h), and
	 * zeroing 4 KiB cost an allocation that found no reusable memory
	 * more than the rest of its create and release (bench_reclaim). */
	atomic_fetch_add(&d->p->live, 1);
	*region = r;
	return RIG_OK;
}

static void
polled_free(void *t, void *region)
{
	struct pdev *d = t;
	struct pregion *r = region;

	polled_enter(d->p);
	if (!r->mapped)
		free(r->host);
	free(r);
	atomic_fetch_sub(&d->p->live, 1);
	polled_leave(d->p);
}

static enum rig_mapping
polled_map_host(void *t, void *host, uint64_t bytes, void **region)
{
	struct pdev *d = t;
	struct pregion *r = malloc(sizeof(*r));

	if (!r)
		return RIG_MAP_NO_ROOM;
	*r = (struct pregion){ .host = host, .bytes = bytes, .mapped = true };
	atomic_fetch_add(&d->p->live, 1);
	*region = r;
	return RIG_MAPS;
}

static void
polled_locate(void *t, void *region, struct rig_location *out)
{
	struct pdev *d = t;
	struct pregion *r = region;

	*out = (struct rig_location){
		.has_address = true,
		.address = (uintptr_t)r->host,
		.host = d->p->c.no_host_addresses ? NULL : r->host,
		.handle = (uintptr_t)r,
	};
}

/* The interrupt source fired: the injected fault, or nothing. */
static int
polled_events(void *t, struct rig_fault_site *site, const char **fault)
{
	struct pdev *d = t;
	uint64_t n;

	polled_enter(d->p);
	if (read(d->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("polled: eventfd");
	polled_leave(d->p);
	if (!atomic_load(&d->faulted))
		return RIG_OK;
	*site = d->site;
	*fault = d->fault_text;
	return RIG_FAULT;
}

static void
polled_stop(void *t, const char *reason)
{
	struct pdev *d = t;

	atomic_fetch_add(&d->p->stops, 1);
	if (atomic_load(&d->p->in_call) || atomic_load(&d->p->c_calls))
		atomic_fetch_add(&d->p->overlaps, 1);
	polled_queue_stop(d);
}

static void
polled_release(void *t)
{
	struct pdev *d = t;

	/* Out of the control calls' sight first. */
	pthread_mutex_lock(&d->p->ctl_lock);
	atomic_store(&d->p->dev, NULL);
	pthread_mutex_unlock(&d->p->ctl_lock);
	close(d->efd);
	free(d);
}

static int
polled_grow(void *t, struct rig_part *parts, size_t nparts, size_t nwaits,
	    uint64_t *bytes)
{
	struct pdev *d = t;

	atomic_fetch_add(&d->p->grows, 1);
	if (polled_failing(d->p, CALL_GROW)) {
		*bytes = 4096;
		return RIG_SHORT;
	}
	d->p->grown = true;
	return RIG_GROWN;
}

/* Code: any bytes load; a function's name may give its limits as
 * "name/params/threads". Launches run nothing. */
static int
polled_load(void *t, const void *bytes, size_t len, struct rig_code *out,
	    const char **fault)
{
	struct pdev *d = t;

	*out = (struct rig_code){ .loaded = true, .image = malloc(1) };
	if (!out->image) {
		*fault = "no memory for the image";
		return RIG_FAULT;
	}
	atomic_fetch_add(&d->p->images, 1);
	return RIG_OK;
}

static void
polled_unload(void *t, void *image)
{
	struct pdev *d = t;

	polled_enter(d->p);
	free(image);
	atomic_fetch_sub(&d->p->images, 1);
	polled_leave(d->p);
}

static int
polled_entry(void *t, void *image, const char *name, struct rig_entry *out,
	     uint64_t *bytes)
{
	long long params = -1, threads = -1;
	const char *limits = strchr(name, '/');
	uint64_t h = 1469598103934665603ull;

	if (!strcmp(name, "absent"))
		return RIG_ABSENT;
	if (limits)
		sscanf(limits, "/%lld/%lld", &params, &threads);
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	*out = (struct rig_entry){
		.code = h, .launch = 1,
		.params = params >= 0 ? RIG_SOME(params) : RIG_NONE,
		.threads = threads >= 0 ? RIG_SOME(threads) : RIG_NONE,
	};
	return RIG_ENTRY;
}

static const struct rig_ops polled_ops = {
	.facts = polled_facts,
	.alloc = polled_alloc,
	.free = polled_free,
	.locate = polled_locate,
	.map_host = polled_map_host,
	.load = polled_load,
	.unload = polled_unload,
	.entry = polled_entry,
	.grow = polled_grow,
	.events = polled_events,
	.stop = polled_stop,
	.release = polled_release,
};

static int
polled_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	    char *why, size_t why_len)
{
	struct rig_polled *p = o->arg;
	struct pdev *d;
	uint64_t w;

	if (polled_failing(p, CALL_MAKE)) {
		snprintf(why, why_len, "injected make failure");
		return -EIO;
	}
	/* Aligned: its groups of fields have cache lines of their own. */
	if (!(d = aligned_alloc(alignof(struct pdev), sizeof(*d)))) {
		snprintf(why, why_len, "no memory for the device's state");
		return -ENOMEM;
	}
	memset(d, 0, sizeof(*d));
	/* Under ctl_lock: the control calls see no device, or a whole one. */
	pthread_mutex_lock(&p->ctl_lock);
	if (atomic_load(&p->dev)) {
		pthread_mutex_unlock(&p->ctl_lock);
		free(d);
		snprintf(why, why_len, "a name opens once, and %s is open", o->name);
		return -EBUSY;
	}
	d->drv = &polled_driver;
	d->p = p;
	d->word = word;
	/* make may raise the word, never lower it. */
	w = atomic_load(word);
	if (p->c.start > w)
		atomic_store(word, p->c.start);
	d->base = atomic_load(word);
	polled_stamps_table(d);	/* d->drv: settle and measures as configured */
	d->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->efd < 0 || polled_queue_start(d) != 0) {
		pthread_mutex_unlock(&p->ctl_lock);
		if (d->efd >= 0)
			close(d->efd);
		snprintf(why, why_len, "no %s for the worker",
			 d->efd < 0 ? "eventfd" : "thread");
		free(d);
		return -EAGAIN;
	}
	atomic_store(&p->dev, d);
	pthread_mutex_unlock(&p->ctl_lock);
	atomic_fetch_add(&p->makes, 1);
	*handle = d;
	return 0;
}

/* ---- Control ---- */

/* rig.h's rule for a NULL handle: the call does nothing, answers its empty
 * value, and rig_why() says so. */
static bool
null_polled(const char *func, const struct rig_polled *p)
{
	if (p)
		return false;
	rig_why_set(func, -EINVAL, "the polled driver is NULL");
	return true;
}

int
rig_polled_create(const struct rig_polled_config *c, struct rig_polled **out)
{
	struct rig_polled *p;

	if (!c || !out)
		return rig_why_set(__func__, -EINVAL, "the %s is NULL", !c ? "config" : "out");
	if (c->size != sizeof(*c))
		return rig_why_set(__func__, -EINVAL,
				   "a config of %zu bytes, not sizeof(struct rig_polled_config) = %zu",
				   c->size, sizeof(*c));
	if (!(p = aligned_alloc(alignof(struct rig_polled), sizeof(*p))))
		return rig_why_set(__func__, -ENOMEM, "no memory for the driver");
	memset(p, 0, sizeof(*p));
	p->c = *c;
	pthread_mutex_init(&p->ctl_lock, NULL);
	if (!p->c.name)
		p->c.name = "POLLED";
	if (!p->c.lag)
		p->c.lag = 8;
	if (!p->c.queues) {
		p->queue = (struct rig_queue){ "POLLED:0",
			RIG_RUNS(RIG_WORDS_PART) | RIG_RUNS(RIG_FILL_PART) |
			RIG_RUNS(RIG_COPY_PART) | RIG_RUNS(RIG_LAUNCH_PART) };
		p->c.queues = &p->queue;
		p->c.nqueues = 1;
		p->c.copy_engine = 0;
	}
	if (!p->c.completion)
		p->c.completion = RIG_BY_HOST;
	if (!p->c.budget)
		p->c.budget = 1ull << 30;
	if (!p->c.alignment)
		p->c.alignment = 64;
	if (!p->c.stamp_ns_per_tick)
		p->c.stamp_ns_per_tick = 1;
	p->opener = (struct rig_opener){ p->c.name, &polled_ops, polled_make, p };
	*out = p;
	return 0;
}

void
rig_polled_destroy(struct rig_polled *p)
{
	if (p)
		pthread_mutex_destroy(&p->ctl_lock);
	free(p);
}

const struct rig_opener *
rig_polled_opener(struct rig_polled *p)
{
	return null_polled(__func__, p) ? NULL : &p->opener;
}

int
rig_polled_fail(struct rig_polled *p, const char *call)
{
	if (null_polled(__func__, p))
		return -EINVAL;
	if (!call)
		return rig_why_set(__func__, -EINVAL, "the call is NULL");
	for (int i = CALL_MAKE; i <= CALL_GROW; i++)
		if (!strcmp(call, call_names[i])) {
			atomic_store(&p->fail, i);
			return 0;
		}
	return rig_why_set(__func__, -EINVAL, "\"%s\" is no call it fails", call);
}

void
rig_polled_stall(struct rig_polled *p, bool stalled)
{
	if (null_polled(__func__, p))
		return;
	/* A stalled worker looks again on its own (queue.c): no wake-up. */
	atomic_store(&p->stalled, stalled);
}

uint64_t
rig_polled_ran(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->ran);
}

uint64_t
rig_polled_commits(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->commits);
}

uint64_t
rig_polled_submits(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->submits);
}

uint64_t
rig_polled_grows(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->grows);
}

int64_t
rig_polled_live_regions(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->live);
}

int64_t
rig_polled_live_images(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->images);
}

bool
rig_polled_open(struct rig_polled *p)
{
	return !null_polled(__func__, p) && atomic_load(&p->dev) != NULL;
}

uint64_t
rig_polled_committed(struct rig_polled *p)
{
	struct pdev *d;
	uint64_t c = 0;

	if (null_polled(__func__, p))
		return 0;
	pthread_mutex_lock(&p->ctl_lock);
	d = atomic_load(&p->dev);
	if (d)
		c = atomic_load(&d->committed);
	pthread_mutex_unlock(&p->ctl_lock);
	return c;
}

void
rig_polled_fault(struct rig_polled *p, uint64_t value, int part)
{
	if (null_polled(__func__, p))
		return;
	atomic_store(&p->fault_part, part);
	atomic_store(&p->fault_value, value);
}

int
rig_polled_block(struct rig_polled *p, const char *call, bool blocked)
{
	if (null_polled(__func__, p))
		return -EINVAL;
	if (!call)
		return rig_why_set(__func__, -EINVAL, "the call is NULL");
	for (int i = CALL_ROOM; i <= CALL_COMMIT; i++)
		if (!strcmp(call, call_names[i])) {
			if (blocked)
				atomic_fetch_or(&p->block_mask, 1u << i);
			else
				atomic_fetch_and(&p->block_mask, ~(1u << i));
			return 0;
		}
	return rig_why_set(__func__, -EINVAL, "\"%s\" is no call it blocks", call);
}

int
rig_polled_blocked(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->blocked);
}

uint64_t
rig_polled_stops(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->stops);
}

uint64_t
rig_polled_makes(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->makes);
}

uint64_t
rig_polled_overlaps(struct rig_polled *p)
{
	return null_polled(__func__, p) ? 0 : atomic_load(&p->overlaps);
}

int
rig_polled_events_fd(struct rig_polled *p)
{
	struct pdev *d;
	int fd;

	if (null_polled(__func__, p))
		return -1;
	pthread_mutex_lock(&p->ctl_lock);
	d = atomic_load(&p->dev);
	fd = d ? d->efd : -1;
	pthread_mutex_unlock(&p->ctl_lock);
	return fd;
}
