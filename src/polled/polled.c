/*
 * polled/polled.c: the polled test driver (rig_polled.h). Written against
 * rig_edge.h only.
 *
 * submit queues a value's work (its copies and the waits it was given) and
 * answers RIG_OK; commit moves the committed mark; the driver commits on
 * its own once lag values wait uncommitted. The worker thread runs the
 * committed values in order and stores each in the word, so the word is
 * always the last committed value whose work (and every earlier value's)
 * completed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rig_polled.h"

enum call { CALL_NONE, CALL_MAKE, CALL_FACTS, CALL_ALLOC, CALL_ROOM,
	    CALL_SUBMIT, CALL_COMMIT, CALL_GROW };
static const char *const call_names[] = {
	[CALL_MAKE] = "make", [CALL_FACTS] = "facts", [CALL_ALLOC] = "alloc",
	[CALL_ROOM] = "room", [CALL_SUBMIT] = "submit", [CALL_COMMIT] = "commit",
	[CALL_GROW] = "grow",
};

/* A part the worker runs (a copy), or only passes (its index may fault). */
struct pstep {
	int index;		/* in the submission */
	uint32_t queue;
	bool is_copy;
	struct rig_copy copy;
};

struct pjob {
	uint64_t value;
	struct pjob *next;
	size_t nsteps, nwaits;
	struct pstep *steps;
	struct rig_wait *waits;
};

struct pdev {
	const struct rig_driver *drv;	/* first: the facts' edge points here */
	struct rig_polled *p;
	_Atomic uint64_t *word;
	pthread_mutex_t lock;		/* the list below and committed */
	pthread_cond_t cond;
	struct pjob *head, *tail;
	uint64_t committed;
	bool stopping;
	pthread_t worker;
	char failure[64];
	int efd;			/* the interrupt source: an eventfd */
	_Atomic bool faulted;		/* the worker met the injected fault */
	struct rig_fault_site site;	/* where (written before faulted) */
	char fault_text[96];
};

struct rig_polled {
	struct rig_polled_config c;
	struct rig_opener opener;
	struct rig_queue queue;		/* the default one */
	struct pdev *_Atomic dev;
	_Atomic int fail;
	_Atomic bool stalled;
	_Atomic uint64_t ran, commits, submits, grows;
	bool grown;			/* room and grow run one at a time */
	_Atomic int64_t live, images;
	_Atomic uint64_t fault_value;	/* rig_polled_fault(); 0: none */
	_Atomic int fault_part;
	_Atomic unsigned block_mask;	/* rig_polled_block(): 1 << call */
	_Atomic int blocked;
	_Atomic int in_call;		/* calls of rig's in the driver now */
	_Atomic uint64_t stops, overlaps, makes;
	/* The control calls (stall, committed...) look at dev under it, so
	 * the device's release never frees what one still uses. */
	pthread_mutex_t ctl_lock;
};

struct pregion {
	void *host;
	uint64_t bytes;
	bool mapped;		/* map_host: memory that is not ours to free */
};

/* Consume an injected failure of call; true if there was one. */
static bool
failing(struct rig_polled *p, enum call call)
{
	int want = call;

	return atomic_compare_exchange_strong(&p->fail, &want, CALL_NONE);
}

/* Every call of rig's into the driver, for the overlap check of stop. */
static void
enter(struct rig_polled *p)
{
	atomic_fetch_add(&p->in_call, 1);
}

static void
leave(struct rig_polled *p)
{
	atomic_fetch_sub(&p->in_call, 1);
}

static void nap(void);

/* A call rig_polled_block() holds: block until released. */
static void
maybe_block(struct rig_polled *p, enum call call)
{
	if (!(atomic_load(&p->block_mask) & (1u << call)))
		return;
	atomic_fetch_add(&p->blocked, 1);
	while (atomic_load(&p->block_mask) & (1u << call))
		nap();
	atomic_fetch_sub(&p->blocked, 1);
}

static const char *
injected(struct pdev *d, enum call call)
{
	snprintf(d->failure, sizeof(d->failure), "injected %s failure",
		 call_names[call]);
	return d->failure;
}

/* ---- The worker ---- */

static void
nap(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

/* Poll each producer word until it shows its value (or we stop). */
static bool
await_producers(struct pdev *d, struct pjob *j)
{
	for (size_t i = 0; i < j->nwaits; i++)
		while (atomic_load_explicit(j->waits[i].word, memory_order_acquire) <
		       j->waits[i].value) {
			if (__atomic_load_n(&d->stopping, __ATOMIC_ACQUIRE))
				return false;
			nap();
		}
	return true;
}

/* The device's addresses are host addresses, whatever the host is told. */
static void
run_copy(const struct rig_copy *c)
{
	char *src = (char *)(uintptr_t)c->src.at.address + c->src.offset;
	char *dst = (char *)(uintptr_t)c->dst.at.address + c->dst.offset;

	for (uint64_t r = 0; r < c->rows; r++) {
		if (c->fill >= 0)
			memset(dst + r * c->dst_pitch, c->fill, c->bytes);
		else
			memmove(dst + r * c->dst_pitch, src + r * c->src_pitch, c->bytes);
	}
}

static void
job_free(struct pjob *j)
{
	free(j->steps);
	free(j->waits);
	free(j);
}

/* Run j's steps; false if it met the injected fault (then nothing more
 * runs on this device, and its interrupt source says why). */
static bool
run_steps(struct pdev *d, struct pjob *j)
{
	int part = atomic_load(&d->p->fault_part);
	bool faults = atomic_load(&d->p->fault_value) == j->value;
	uint32_t queue = j->nsteps ? j->steps[j->nsteps - 1].queue : 0;
	uint64_t one = 1;

	for (size_t i = 0; i < j->nsteps; i++) {
		if (faults && j->steps[i].index >= part) {
			queue = j->steps[i].queue;
			break;
		}
		if (j->steps[i].is_copy)
			run_copy(&j->steps[i].copy);
	}
	if (!faults)
		return true;
	d->site = (struct rig_fault_site){ j->value, part, (int)queue };
	snprintf(d->fault_text, sizeof(d->fault_text),
		 "injected fault at part %d of value %llu", part,
		 (unsigned long long)j->value);
	atomic_store(&d->faulted, true);
	if (write(d->efd, &one, sizeof(one)) < 0)
		perror("polled: eventfd");
	return false;
}

/* Under d->lock: the next job if it may run now, else NULL. */
static struct pjob *
next_runnable(struct pdev *d)
{
	struct pjob *j = d->head;

	if (!j || j->value > d->committed || atomic_load(&d->p->stalled) ||
	    atomic_load(&d->faulted))
		return NULL;
	d->head = j->next;
	if (!d->head)
		d->tail = NULL;
	return j;
}

static void *
worker(void *arg)
{
	struct pdev *d = arg;
	struct pjob *j;

	pthread_mutex_lock(&d->lock);
	while (!d->stopping) {
		if (!(j = next_runnable(d))) {
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		pthread_mutex_unlock(&d->lock);
		if (await_producers(d, j)) {
			if (d->p->c.ran)
				d->p->c.ran(d->p->c.ran_arg, j->value, 0);
			if (run_steps(d, j)) {
				if (d->p->c.ran)
					d->p->c.ran(d->p->c.ran_arg, j->value, 1);
				/* Pairs with rig's acquire load of the word. */
				atomic_store_explicit(d->word, j->value,
						      memory_order_release);
				atomic_fetch_add(&d->p->ran, 1);
			}
		}
		job_free(j);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* ---- The five C functions ---- */

static int
polled_room(void *edge, struct rig_part *parts, size_t n, size_t nwaits)
{
	struct pdev *d = edge;
	const struct rig_polled_config *c = &d->p->c;
	int r = RIG_FITS;

	enter(d->p);
	maybe_block(d->p, CALL_ROOM);
	if (failing(d->p, CALL_ROOM))
		r = RIG_NEVER;
	else if (c->grows && !d->p->grown)
		r = RIG_GROW;
	for (size_t i = 0; i < n && r == RIG_FITS; i++) {
		if (parts[i].kind < RIG_WORDS_PART || parts[i].kind > RIG_LAUNCH_PART ||
		    parts[i].queue >= c->nqueues ||
		    !(c->queues[parts[i].queue].runs & RIG_RUNS(parts[i].kind)))
			r = RIG_NEVER;
	}
	leave(d->p);
	return r;
}

static struct pjob *
job_make(uint64_t value, struct rig_part *parts, size_t n,
	 const struct rig_wait *waits, size_t nwaits)
{
	struct pjob *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->value = value;
	j->steps = calloc(n ? n : 1, sizeof(*j->steps));
	j->waits = calloc(nwaits ? nwaits : 1, sizeof(*j->waits));
	if (!j->steps || !j->waits) {
		job_free(j);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct pstep *st = &j->steps[j->nsteps++];

		st->index = (int)i;
		st->queue = parts[i].queue;
		st->is_copy = parts[i].kind == RIG_COPY_PART;
		if (st->is_copy)
			st->copy = parts[i].u.copy;
	}
	if (nwaits)
		memcpy(j->waits, waits, nwaits * sizeof(*waits));
	j->nwaits = nwaits;
	return j;
}

/* Fills run inside submit, with their argument valid only then. */
static int
run_fills(struct pdev *d, uint64_t value, struct rig_part *parts, size_t n,
	  const char **failure)
{
	for (size_t i = 0; i < n; i++) {
		int r;

		if (parts[i].kind != RIG_FILL_PART)
			continue;
		r = parts[i].u.fill.fn(NULL, parts[i].u.fill.arg, value);
		if (r) {
			snprintf(d->failure, sizeof(d->failure),
				 "fill of part %zu returned %d", i, r);
			*failure = d->failure;
			return RIG_FAILED;
		}
	}
	return RIG_OK;
}

static int
submit_work(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	      const struct rig_wait *waits, size_t nwaits,
	      struct rig_times *times, const char **failure)
{
	struct pdev *d = edge;
	struct pjob *j;

	atomic_fetch_add(&d->p->submits, 1);
	maybe_block(d->p, CALL_SUBMIT);
	if (failing(d->p, CALL_SUBMIT)) {
		*failure = injected(d, CALL_SUBMIT);
		return RIG_FAILED;
	}
	if (run_fills(d, value, parts, n, failure) != RIG_OK)
		return RIG_FAILED;
	if (!(j = job_make(value, parts, n, waits, nwaits))) {
		*failure = "no memory to queue the work";
		return RIG_FAILED;
	}
	if (times)
		*times = (struct rig_times){ 0, 0 };
	pthread_mutex_lock(&d->lock);
	if (d->tail)
		d->tail->next = j;
	else
		d->head = j;
	d->tail = j;
	if (value - d->committed >= d->p->c.lag) {
		d->committed = value;
		pthread_cond_signal(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return RIG_OK;
}

static int
commit_work(void *edge, uint64_t value, const char **failure)
{
	struct pdev *d = edge;

	atomic_fetch_add(&d->p->commits, 1);
	maybe_block(d->p, CALL_COMMIT);
	if (failing(d->p, CALL_COMMIT)) {
		*failure = injected(d, CALL_COMMIT);
		return RIG_FAILED;
	}
	pthread_mutex_lock(&d->lock);
	if (value > d->committed) {
		d->committed = value;
		pthread_cond_signal(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
	return RIG_OK;
}

/* submit and commit, counted for the overlap check of stop. */
static int
polled_submit(void *edge, uint64_t value, struct rig_part *parts, size_t n,
	      const struct rig_wait *waits, size_t nwaits,
	      struct rig_times *times, const char **failure)
{
	struct pdev *d = edge;
	int r;

	enter(d->p);
	r = submit_work(edge, value, parts, n, waits, nwaits, times, failure);
	leave(d->p);
	return r;
}

static int
polled_commit(void *edge, uint64_t value, const char **failure)
{
	struct pdev *d = edge;
	int r;

	enter(d->p);
	r = commit_work(edge, value, failure);
	leave(d->p);
	return r;
}

static const struct rig_driver polled_driver = {
	.room = polled_room,
	.submit = polled_submit,
	.commit = polled_commit,
};

/* ---- The other operations ---- */

static int
polled_facts(void *t, struct rig_facts *f, const char **fault)
{
	struct pdev *d = t;
	const struct rig_polled_config *c = &d->p->c;

	if (failing(d->p, CALL_FACTS)) {
		*fault = injected(d, CALL_FACTS);
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

	if (failing(d->p, CALL_ALLOC)) {
		*fault = injected(d, CALL_ALLOC);
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
	memset(r->host, 0, bytes);
	atomic_fetch_add(&d->p->live, 1);
	*region = r;
	return RIG_OK;
}

static void
polled_free(void *t, void *region)
{
	struct pdev *d = t;
	struct pregion *r = region;

	enter(d->p);
	if (!r->mapped)
		free(r->host);
	free(r);
	atomic_fetch_sub(&d->p->live, 1);
	leave(d->p);
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

	enter(d->p);
	if (read(d->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("polled: eventfd");
	leave(d->p);
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
	struct pjob *j, *next;

	atomic_fetch_add(&d->p->stops, 1);
	if (atomic_load(&d->p->in_call))
		atomic_fetch_add(&d->p->overlaps, 1);

	pthread_mutex_lock(&d->lock);
	__atomic_store_n(&d->stopping, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->worker, NULL);
	for (j = d->head; j; j = next) {
		next = j->next;
		job_free(j);
	}
	d->head = d->tail = NULL;
}

static void
polled_release(void *t)
{
	struct pdev *d = t;

	/* Out of the control calls' sight first. */
	pthread_mutex_lock(&d->p->ctl_lock);
	atomic_store(&d->p->dev, NULL);
	pthread_mutex_unlock(&d->p->ctl_lock);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	close(d->efd);
	free(d);
}

static int
polled_grow(void *t, struct rig_part *parts, size_t nparts, size_t nwaits,
	    uint64_t *bytes)
{
	struct pdev *d = t;

	atomic_fetch_add(&d->p->grows, 1);
	if (failing(d->p, CALL_GROW)) {
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

	enter(d->p);
	free(image);
	atomic_fetch_sub(&d->p->images, 1);
	leave(d->p);
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

	if (failing(p, CALL_MAKE)) {
		snprintf(why, why_len, "injected make failure");
		return -EIO;
	}
	if (!(d = calloc(1, sizeof(*d)))) {
		snprintf(why, why_len, "no memory for the device's state");
		return -ENOMEM;
	}
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
	d->committed = atomic_load(word);
	d->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	if (d->efd < 0 || pthread_create(&d->worker, NULL, worker, d) != 0) {
		pthread_mutex_unlock(&p->ctl_lock);
		if (d->efd >= 0)
			close(d->efd);
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
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

int
rig_polled_create(const struct rig_polled_config *c, struct rig_polled **out)
{
	struct rig_polled *p;

	if (!c || c->size != sizeof(*c) || !out)
		return -EINVAL;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
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
	return &p->opener;
}

int
rig_polled_fail(struct rig_polled *p, const char *call)
{
	for (int i = CALL_MAKE; i <= CALL_GROW; i++)
		if (call && !strcmp(call, call_names[i])) {
			atomic_store(&p->fail, i);
			return 0;
		}
	return -EINVAL;
}

void
rig_polled_stall(struct rig_polled *p, bool stalled)
{
	struct pdev *d;

	atomic_store(&p->stalled, stalled);
	pthread_mutex_lock(&p->ctl_lock);
	d = atomic_load(&p->dev);
	if (d && !stalled) {
		pthread_mutex_lock(&d->lock);
		pthread_cond_broadcast(&d->cond);
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&p->ctl_lock);
}

uint64_t rig_polled_ran(struct rig_polled *p) { return atomic_load(&p->ran); }
uint64_t rig_polled_commits(struct rig_polled *p) { return atomic_load(&p->commits); }
uint64_t rig_polled_submits(struct rig_polled *p) { return atomic_load(&p->submits); }
uint64_t rig_polled_grows(struct rig_polled *p) { return atomic_load(&p->grows); }
int64_t rig_polled_live_regions(struct rig_polled *p) { return atomic_load(&p->live); }
int64_t rig_polled_live_images(struct rig_polled *p) { return atomic_load(&p->images); }
bool rig_polled_open(struct rig_polled *p) { return atomic_load(&p->dev) != NULL; }

uint64_t
rig_polled_committed(struct rig_polled *p)
{
	struct pdev *d;
	uint64_t c = 0;

	pthread_mutex_lock(&p->ctl_lock);
	d = atomic_load(&p->dev);
	if (d) {
		pthread_mutex_lock(&d->lock);
		c = d->committed;
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_unlock(&p->ctl_lock);
	return c;
}

void
rig_polled_fault(struct rig_polled *p, uint64_t value, int part)
{
	atomic_store(&p->fault_part, part);
	atomic_store(&p->fault_value, value);
}

int
rig_polled_block(struct rig_polled *p, const char *call, bool blocked)
{
	for (int i = CALL_ROOM; i <= CALL_COMMIT; i++)
		if (call && !strcmp(call, call_names[i])) {
			if (blocked)
				atomic_fetch_or(&p->block_mask, 1u << i);
			else
				atomic_fetch_and(&p->block_mask, ~(1u << i));
			return 0;
		}
	return -EINVAL;
}

int rig_polled_blocked(struct rig_polled *p) { return atomic_load(&p->blocked); }
uint64_t rig_polled_stops(struct rig_polled *p) { return atomic_load(&p->stops); }
uint64_t rig_polled_makes(struct rig_polled *p) { return atomic_load(&p->makes); }
uint64_t rig_polled_overlaps(struct rig_polled *p) { return atomic_load(&p->overlaps); }

int
rig_polled_events_fd(struct rig_polled *p)
{
	struct pdev *d;
	int fd;

	pthread_mutex_lock(&p->ctl_lock);
	d = atomic_load(&p->dev);
	fd = d ? d->efd : -1;
	pthread_mutex_unlock(&p->ctl_lock);
	return fd;
}
