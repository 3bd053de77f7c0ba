/* SPDX-License-Identifier: MIT */
/*
 * remote/driver.c: the remote driver behind rig_edge.h, and
 * rig_remote_opener(). A device of another machine: its facts are the
 * agent's device's, with no bus, completion Host and a word of the
 * driver's own (struct rdev.word), which the progress thread (client.c)
 * raises as the agent reports values reached and rig reads through
 * signaled. Its Device memory is the agent's; its Pinned memory is this
 * process's, registered with UCX for the agent's puts and gets. submit
 * encodes the value's parts (launch parameters and the copies' ends) into
 * a batch that commit sends (or submit itself, every 32 values): one
 * active message for a burst of values; the agent runs each on arrival.
 * A loss, from the agent or of the connection, turns the events fd
 * readable so rig loses the device at once, and fails later submits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rig_remote.h"
#include "remote/client.h"

enum rregion_kind { RR_BUFFER, RR_PIN, RR_WORD };

struct rregion {
	enum rregion_kind kind;
	uint64_t id;		/* the agent's buffer or pin */
	uint64_t address;	/* BUFFER: the agent's address of it */
	uint64_t bytes;
	void *host;		/* PIN: this process's memory */
	ucp_mem_h memh;		/* PIN: its registration */
	struct conn *conn;	/* the connection its id belongs to (PIN: registered on) */
	RIG_ATOMIC(uint64_t) word;	/* WORD: the device's own word */
};

struct rimage {
	uint64_t id;
	struct conn *conn;	/* the connection its id belongs to */
};

struct rdev {
	const struct rig_driver *driver;	/* first: rig_edge.h's rule */
	struct machine *m;
	struct conn *conn;		/* the connection it opened on: ids are its */
	uint32_t id;
	uint64_t base;			/* the word given to make at open */
	RIG_ATOMIC(uint64_t) *given;	/* rig's word */
	struct rregion *word;		/* the driver's own */
	int efd;
	_Atomic(const char *) failure;
	char failbuf[320];
	atomic_bool listed;		/* in m->devs */
	/* The SUBMITs encoded and not yet sent (the submission thread's
	 * alone: rig calls submit and commit one at a time). */
	uint8_t *batch;
	size_t batch_len, batch_cap;
	unsigned batch_n;
	/* The last value given to submit (rig's numbering): a word that
	 * shows it leaves a waiter nothing to progress the worker for. */
	_Atomic uint64_t submitted;
	char arch[64];
	char qnames[REMOTE_QUEUES_MAX][64];
	struct rig_queue queues[REMOTE_QUEUES_MAX];
	size_t nqueues;
	int copy_engine;
	uint64_t budget, alignment;
	int64_t cache_bytes;
	struct rdev *next;
};

static pthread_mutex_t openers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct remote_opener *openers;

/* ---- Deliveries from the progress thread (client.c), under m->lock ---- */

uint32_t
rdev_id(const struct rdev *d)
{
	return d->id;
}

struct conn *
rdev_conn(const struct rdev *d)
{
	return d->conn;
}

struct rdev *
rdev_next(const struct rdev *d)
{
	return d->next;
}

void
rdev_reached(struct rdev *d, uint64_t seq)
{
	uint64_t v = d->base + seq;

	atomic_store_explicit(&d->word->word, v, memory_order_release);
	/* rig's word too, so that other devices' queues and sleepers see it
	 * at once rather than at their next read through signaled. */
	for (uint64_t cur = atomic_load(d->given); cur < v &&
	     !atomic_compare_exchange_weak(d->given, &cur, v);)
		;
	rig_word_wake(d->given);
}

void
rdev_lose(struct rdev *d, const char *why)
{
	uint64_t one = 1;
	const char *expect = NULL;

	/* The first reason stays: failbuf is written once, before it is
	 * published. */
	if (atomic_load(&d->failure))
		return;
	snprintf(d->failbuf, sizeof(d->failbuf), "%s", why);
	if (atomic_compare_exchange_strong(&d->failure, &expect, d->failbuf))
		(void)!write(d->efd, &one, sizeof(one));
}

/* ---- The other operations ---- */

static int
remote_facts(void *t, struct rig_facts *f, const char **fault)
{
	struct rdev *d = t;

	*f = (struct rig_facts){
		.arch = d->arch,
		.budget = d->budget,
		.queues = d->queues,
		.nqueues = d->nqueues,
		.copy_engine = d->copy_engine,
		.completion = RIG_BY_HOST,
		.waits = { false, false },
		.may_block = false,
		.hang_ms = RIG_NONE,	/* the heartbeat bounds it (client.c) */
		.maps_host = false,
		.host_addresses = false,
		.alignment = d->alignment,
		.cache_bytes = d->cache_bytes > 0 ? RIG_SOME(d->cache_bytes) : RIG_NONE,
		.word = d->word,
		.events_fd = RIG_SOME(d->efd),
		.bus = NULL,
		.edge = d,
	};
	return RIG_OK;
}

static const char *
failure_or(struct rdev *d, const char *why)
{
	const char *f = atomic_load(&d->failure);

	return f ? f : why;
}

/* The device's connection is gone (broken, or replaced by a new one). */
static bool
stale(struct rdev *d)
{
	return !d->conn || machine_conn(d->m) != d->conn;
}

static int
pin_alloc(struct rdev *d, uint64_t bytes, struct rregion *r, const char **fault)
{
	struct conn *c = stale(d) ? NULL : d->conn;
	ucp_mem_map_params_t mp;
	struct remote_msg req = { .type = REMOTE_PIN }, ans;
	void *rkey = NULL;
	size_t rkey_len = 0;
	uint8_t *keep = NULL;
	char why[256];

	if (!c) {
		*fault = failure_or(d, "connection lost");
		return RIG_FAULT;
	}
	if (posix_memalign(&r->host, 4096, bytes ? bytes : 1))
		return RIG_NO_ROOM;
	mp = (ucp_mem_map_params_t){
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		.address = r->host, .length = bytes ? bytes : 1,
	};
	if (ucp_mem_map(c->link.ctx, &mp, &r->memh) != UCS_OK) {
		free(r->host);
		return RIG_NO_ROOM;
	}
	if (ucp_rkey_pack(c->link.ctx, r->memh, &rkey, &rkey_len) != UCS_OK ||
	    rkey_len > REMOTE_RKEY_MAX) {
		ucp_mem_unmap(c->link.ctx, r->memh);
		free(r->host);
		return RIG_NO_ROOM;
	}
	req.u.pin.address = (uintptr_t)r->host;
	req.u.pin.bytes = bytes;
	req.u.pin.rkey = (struct remote_bytes){ rkey, (uint32_t)rkey_len };
	if (machine_call(d->m, &req, &ans, &keep, why, sizeof(why)) < 0) {
		ucp_rkey_buffer_release(rkey);
		ucp_mem_unmap(c->link.ctx, r->memh);
		free(r->host);
		return RIG_NO_ROOM;
	}
	ucp_rkey_buffer_release(rkey);
	r->id = ans.u.handle;
	r->conn = c;
	free(keep);
	return RIG_OK;
}

static int
remote_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
	     const char **fault)
{
	struct rdev *d = t;
	struct rregion *r = calloc(1, sizeof(*r));
	struct remote_msg req = { .type = REMOTE_ALLOC }, ans;
	uint8_t *keep = NULL;
	char why[256];
	int ret;

	if (!r)
		return RIG_NO_ROOM;
	if (stale(d)) {
		free(r);
		*fault = failure_or(d, "connection lost");
		return RIG_FAULT;
	}
	r->bytes = bytes;
	if (kind == RIG_MEMORY_PINNED) {
		r->kind = RR_PIN;
		if ((ret = pin_alloc(d, bytes, r, fault)) != RIG_OK) {
			free(r);
			return ret;
		}
		*region = r;
		return RIG_OK;
	}
	r->kind = RR_BUFFER;
	req.u.alloc.dev = d->id;
	req.u.alloc.kind = kind;
	req.u.alloc.bytes = bytes;
	if (machine_call(d->m, &req, &ans, &keep, why, sizeof(why)) < 0) {
		free(r);
		if (!machine_conn(d->m) || atomic_load(&d->failure)) {
			*fault = failure_or(d, "connection lost");
			return RIG_FAULT;
		}
		return RIG_NO_ROOM;	/* the agent's device is full: rig reclaims */
	}
	r->id = ans.u.alloced.id;
	r->address = ans.u.alloced.address;
	r->conn = d->conn;
	free(keep);
	*region = r;
	return RIG_OK;
}

static void
remote_free(void *t, void *region)
{
	struct rdev *d = t;
	struct rregion *r = region;
	struct remote_msg m = { .type = r->kind == RR_PIN ? REMOTE_UNPIN : REMOTE_FREE };
	char why[200];

	/* An id means something only on its own connection: after a
	 * reconnect it may name another device's object. */
	if (r->kind != RR_WORD && r->conn && machine_conn(d->m) == r->conn) {
		m.u.handle = r->id;
		(void)machine_send(d->m, &m, why, sizeof(why));
	}
	if (r->kind == RR_PIN) {
		ucp_mem_unmap(r->conn->link.ctx, r->memh);
		free(r->host);
	}
	if (r == d->word)
		d->word = NULL;	/* freed here, not again at release */
	free(r);
}

static void
remote_locate(void *t, void *region, struct rig_location *out)
{
	struct rregion *r = region;

	*out = (struct rig_location){
		.has_address = r->kind == RR_BUFFER,
		.address = r->kind == RR_BUFFER ? r->address : 0,
		.host = r->kind == RR_PIN ? r->host : r->kind == RR_WORD ? (void *)&r->word : NULL,
		.handle = (uintptr_t)r,
	};
}

static enum rig_mapping
remote_map_host(void *t, void *host, uint64_t bytes, void **region)
{
	return RIG_MAP_NEVER;
}

static enum rig_mapping
remote_map_peer(void *t, const struct rig_location *peer, uint64_t bytes, void **region)
{
	return RIG_MAP_NEVER;
}

static int
remote_load(void *t, const void *bytes, size_t len, struct rig_code *out,
	    const char **fault)
{
	struct rdev *d = t;
	struct remote_msg req = { .type = REMOTE_LOAD }, ans;
	struct rimage *img = malloc(sizeof(*img));
	uint8_t *keep = NULL;
	char why[256];

	if (!img) {
		*fault = "no memory for an image";
		return RIG_FAULT;
	}
	if (stale(d)) {
		free(img);
		*fault = failure_or(d, "connection lost");
		return RIG_FAULT;
	}
	if (len > REMOTE_IMAGE_MAX) {
		free(img);
		snprintf(d->failbuf, sizeof(d->failbuf), "an image of %zu bytes passes the wire's %u",
			 len, REMOTE_IMAGE_MAX);
		*fault = d->failbuf;
		return RIG_FAULT;
	}
	req.u.load.dev = d->id;
	req.u.load.image = (struct remote_bytes){ bytes, (uint32_t)len };
	if (machine_call(d->m, &req, &ans, &keep, why, sizeof(why)) < 0) {
		free(img);
		/* The agent's refusal of the code: a fault here is what rig
		 * reports as the driver refusing it. */
		if (!atomic_load(&d->failure))
			snprintf(d->failbuf, sizeof(d->failbuf), "the agent refuses the image: %s", why);
		*fault = failure_or(d, d->failbuf);
		return RIG_FAULT;
	}
	img->id = ans.u.handle;
	img->conn = d->conn;
	free(keep);
	*out = (struct rig_code){ .loaded = true, .image = img };
	return RIG_OK;
}

static void
remote_unload(void *t, void *image)
{
	struct rdev *d = t;
	struct rimage *img = image;
	struct remote_msg m = { .type = REMOTE_UNLOAD };
	char why[200];

	m.u.handle = img->id;
	if (machine_conn(d->m) == img->conn)
		(void)machine_send(d->m, &m, why, sizeof(why));
	free(img);
}

static int
remote_entry(void *t, void *image, const char *name, struct rig_entry *out,
	     uint64_t *bytes)
{
	struct rdev *d = t;
	struct rimage *img = image;
	struct remote_msg req = { .type = REMOTE_ENTRY }, ans;
	uint8_t *keep = NULL;
	char why[256];

	if (strlen(name) > REMOTE_STR_MAX || stale(d))
		return RIG_ABSENT;
	req.u.entry.image = img->id;
	req.u.entry.name = remote_str(name);
	if (machine_call(d->m, &req, &ans, &keep, why, sizeof(why)) < 0)
		return RIG_ABSENT;
	if (ans.u.entry_is.answer != 0) {
		free(keep);
		return RIG_ABSENT;
	}
	*out = (struct rig_entry){
		.code = ans.u.entry_is.code,
		.launch = (uintptr_t)ans.u.entry_is.fn,
		.params = RIG_NONE,
		.threads = RIG_NONE,
	};
	free(keep);
	return RIG_ENTRY;
}

static int
remote_grow(void *t, struct rig_part *parts, size_t nparts, size_t nwaits, uint64_t *bytes)
{
	return RIG_GROWN;	/* room never answers RIG_GROW */
}

/* Reads the word, after one progress of the connection's worker where
 * this thread may (client.c: conn_poll) and a value is still out: a waiter
 * that spins takes its REACHED itself. A word that shows every value sent
 * costs no progress call (one polls every transport: some 0.3 us, which
 * rig's look at a value its wait just saw, timeline_reached, paid on each
 * round trip's path). */
static uint64_t
remote_signaled(void *t)
{
	struct rdev *d = t;
	uint64_t w = atomic_load_explicit(&d->word->word, memory_order_acquire);

	if (!d->conn || w >= atomic_load_explicit(&d->submitted, memory_order_relaxed))
		return w;
	conn_poll(d->conn);
	return atomic_load_explicit(&d->word->word, memory_order_acquire);
}

static enum rig_mapping
remote_dma(void *t, void *region, struct rig_dma *out)
{
	return RIG_MAP_NEVER;
}

static int
remote_events(void *t, struct rig_fault_site *site, const char **fault)
{
	struct rdev *d = t;
	uint64_t n;

	(void)!read(d->efd, &n, sizeof(n));
	if ((*fault = atomic_load(&d->failure)))
		return RIG_FAULT;
	return RIG_OK;
}

static void
unlist(struct rdev *d)
{
	struct machine *m = d->m;

	pthread_mutex_lock(&m->lock);
	if (atomic_exchange(&d->listed, false))
		for (struct rdev **p = &m->devs; *p; p = &(*p)->next)
			if (*p == d) {
				*p = d->next;
				break;
			}
	pthread_mutex_unlock(&m->lock);
}

static void
remote_stop(void *t, const char *reason)
{
	struct rdev *d = t;
	struct remote_msg m = { .type = REMOTE_CLOSE };
	char why[200];

	unlist(d);
	m.u.dev = d->id;
	if (machine_conn(d->m) == d->conn)
		(void)machine_send(d->m, &m, why, sizeof(why));
}

static void
remote_release(void *t)
{
	struct rdev *d = t;

	unlist(d);
	close(d->efd);
	free(d->batch);
	/* The driver's own word, where rig did not free it (ops.free). */
	free(d->word);
	free(d);
}

static const struct rig_ops remote_ops = {
	.facts = remote_facts,
	.alloc = remote_alloc,
	.free = remote_free,
	.locate = remote_locate,
	.map_host = remote_map_host,
	.map_peer = remote_map_peer,
	.load = remote_load,
	.unload = remote_unload,
	.entry = remote_entry,
	.grow = remote_grow,
	.signaled = remote_signaled,
	.dma = remote_dma,
	.events = remote_events,
	.stop = remote_stop,
	.release = remote_release,
};

/* ---- The five C functions ---- */

/* The part's span as the wire names it; false for one that is not ours. */
static bool
span_of(const struct rig_span *s, struct remote_span *out)
{
	const struct rregion *r = (const struct rregion *)s->at.handle;

	if (!r || r->kind == RR_WORD)
		return false;
	out->end = r->kind == RR_PIN ? REMOTE_END_PIN : REMOTE_END_BUFFER;
	out->id = r->id;
	out->offset = s->offset;
	return true;
}

/* Values a batch holds at most: submit commits on its own every
 * REMOTE_BATCH values (rig_remote.h's k). */
#define REMOTE_BATCH	32
#define REMOTE_BATCH_BYTES (64u << 10)
/* A batch's first block: 32 empty launches are some 2.5 KiB. */
#define BATCH_FIRST_CAP	4096u

/* Send the batch: 0, or -1 (the device is lost). Its block stays for the
 * next batch (UCX copies what it sends at once, or makes its own copy). */
static int
flush(struct rdev *d, const char **failure)
{
	char why[200];
	size_t len = d->batch_len;

	if (!d->batch_n)
		return 0;
	d->batch_len = 0;
	d->batch_n = 0;
	if (machine_send_copy(d->m, d->batch, len, why, sizeof(why)) < 0) {
		rdev_lose(d, why);
		*failure = atomic_load(&d->failure);
		return -1;
	}
	return 0;
}

static int
remote_room(void *edge, struct rig_part *parts, size_t nparts, size_t nwaits)
{
	struct remote_span a, b;

	if (nparts == 0 || nparts > REMOTE_PARTS_MAX)
		return RIG_NEVER;
	for (size_t i = 0; i < nparts; i++) {
		const struct rig_part *p = &parts[i];

		if (p->kind == RIG_LAUNCH_PART) {
			if (p->u.launch.params_bytes > REMOTE_PARAMS_MAX || !p->u.launch.launch)
				return RIG_NEVER;
			continue;
		}
		if (p->kind != RIG_COPY_PART || p->u.copy.fill >= 0 ||
		    !span_of(&p->u.copy.src, &a) || !span_of(&p->u.copy.dst, &b) ||
		    (a.end == REMOTE_END_PIN && b.end == REMOTE_END_PIN))
			return RIG_NEVER;
		/* Rows are sent as one run of bytes: only where they touch. */
		if (p->u.copy.rows > 1 && (p->u.copy.src_pitch != p->u.copy.bytes ||
					   p->u.copy.dst_pitch != p->u.copy.bytes))
			return RIG_NEVER;
	}
	return RIG_FITS;
}

static int
remote_submit(void *edge, uint64_t value, struct rig_part *parts, size_t nparts,
	      const struct rig_wait *waits, size_t nwaits, struct rig_times *times,
	      const char **failure)
{
	static _Thread_local struct remote_msg m;
	struct rdev *d = edge;
	char why[200];

	if ((*failure = atomic_load(&d->failure)))
		return RIG_FAILED;
	m.type = REMOTE_SUBMIT;
	m.id = 0;
	m.u.submit.dev = d->id;
	m.u.submit.value = value - d->base;
	m.u.submit.nparts = (uint32_t)nparts;
	for (size_t i = 0; i < nparts; i++) {
		const struct rig_part *p = &parts[i];
		struct remote_part *w = &m.u.submit.parts[i];

		if (p->kind == RIG_LAUNCH_PART) {
			w->kind = REMOTE_PART_LAUNCH;
			w->fn = p->u.launch.launch;
			memcpy(w->grid, p->u.launch.grid, sizeof(w->grid));
			memcpy(w->group, p->u.launch.group, sizeof(w->group));
			w->shared_bytes = p->u.launch.shared_bytes;
			w->params = (struct remote_bytes){ p->u.launch.params,
							   p->u.launch.params_bytes };
		} else {
			w->kind = REMOTE_PART_COPY;
			(void)span_of(&p->u.copy.src, &w->src);
			(void)span_of(&p->u.copy.dst, &w->dst);
			w->bytes = p->u.copy.bytes * (p->u.copy.rows ? p->u.copy.rows : 1);
			w->fill = -1;
		}
	}
	/* Encoded in place at the batch's end: one block for the device's
	 * batches (its first submit allocates it, sized for a whole batch
	 * of small values), none per submit or per batch. */
	if (!d->batch && (d->batch = malloc(BATCH_FIRST_CAP)))
		d->batch_cap = BATCH_FIRST_CAP;
	if (!d->batch) {
		snprintf(why, sizeof(why), "no memory for a batch");
		rdev_lose(d, why);
		*failure = atomic_load(&d->failure);
		return RIG_FAILED;
	}
	if (remote_encode_append(&m, &d->batch, &d->batch_len, &d->batch_cap,
				 why, sizeof(why)) < 0) {
		rdev_lose(d, why);
		*failure = atomic_load(&d->failure);
		return RIG_FAILED;
	}
	d->batch_n++;
	atomic_store_explicit(&d->submitted, value, memory_order_relaxed);
	/* Values go in batches: rig commits when its ring runs empty (or
	 * before a wait), and a full batch goes at once. */
	if (d->batch_n < REMOTE_BATCH && d->batch_len < REMOTE_BATCH_BYTES)
		return RIG_OK;
	return flush(d, failure) < 0 ? RIG_FAILED : RIG_COMMITTED;
}

static int
remote_commit(void *edge, uint64_t value, const char **failure)
{
	struct rdev *d = edge;

	if ((*failure = atomic_load(&d->failure)))
		return RIG_FAILED;
	return flush(d, failure) < 0 ? RIG_FAILED : RIG_OK;
}

static const struct rig_driver remote_driver = {
	.room = remote_room,
	.submit = remote_submit,
	.commit = remote_commit,
};

/* ---- The opener ---- */

int
rdev_open(struct machine *mach, const char *key_file, uint16_t type, const char *name,
	  RIG_ATOMIC(uint64_t) *word, struct rdev **out, char *why, size_t why_len)
{
	struct remote_msg req = { .type = type }, ans;
	const struct remote_facts *f = &ans.u.opened;
	uint8_t *keep = NULL;
	struct rdev *d;

	if (machine_connect(mach, key_file, why, why_len) < 0)
		return -ECONNREFUSED;
	req.u.name = remote_str(name);
	if (machine_call(mach, &req, &ans, &keep, why, why_len) < 0)
		return -ENODEV;
	if (!(d = calloc(1, sizeof(*d))) || !(d->word = calloc(1, sizeof(*d->word)))) {
		free(d);
		free(keep);
		snprintf(why, why_len, "no memory");
		return -ENOMEM;
	}
	if ((d->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(d->word);
		free(d);
		free(keep);
		snprintf(why, why_len, "eventfd: %s", strerror(errno));
		return -errno;
	}
	d->driver = &remote_driver;
	d->m = mach;
	d->conn = machine_conn(mach);
	d->id = f->dev;
	d->given = word;
	d->base = atomic_load(word);
	atomic_store(&d->submitted, d->base);
	d->word->kind = RR_WORD;
	atomic_store(&d->word->word, d->base);
	snprintf(d->arch, sizeof(d->arch), "%.*s", (int)f->arch.len, (const char *)f->arch.at);
	d->nqueues = f->nqueues;
	for (size_t i = 0; i < f->nqueues; i++) {
		snprintf(d->qnames[i], sizeof(d->qnames[i]), "%.*s",
			 (int)f->queues[i].name.len, (const char *)f->queues[i].name.at);
		/* Fills and words name this process's memory: never remote. */
		d->queues[i] = (struct rig_queue){ d->qnames[i], f->queues[i].runs &
			(RIG_RUNS(RIG_COPY_PART) | RIG_RUNS(RIG_LAUNCH_PART)) };
	}
	d->copy_engine = f->copy_engine;
	d->budget = f->budget;
	d->alignment = f->alignment;
	d->cache_bytes = f->cache_bytes;
	free(keep);
	pthread_mutex_lock(&d->m->lock);
	d->next = d->m->devs;
	d->m->devs = d;
	atomic_store(&d->listed, true);
	pthread_mutex_unlock(&d->m->lock);
	/* A connection that broke while we opened: lost at once, not never. */
	if (!machine_conn(d->m))
		rdev_lose(d, "connection lost");
	*out = d;
	return 0;
}

static int
remote_make(const struct rig_opener *o, RIG_ATOMIC(uint64_t) *word, void **handle,
	    char *why, size_t why_len)
{
	const struct remote_opener *op = o->arg;

	return rdev_open(op->m, op->has_key_file ? op->key_file : NULL, REMOTE_OPEN,
			 op->name, word, (struct rdev **)handle, why, why_len);
}

/* ---- For the remote disk (disk.c), which is an rdev underneath ---- */

struct machine *
rdev_machine(const struct rdev *d)
{
	return d->m;
}

uint64_t
rdev_base(const struct rdev *d)
{
	return d->base;
}

int
rdev_efd(const struct rdev *d)
{
	return d->efd;
}

const char *
rdev_failure(struct rdev *d)
{
	return atomic_load(&d->failure);
}

void
rdev_end(struct rdev *d)
{
	remote_stop(d, "closed");
	remote_release(d);
}

int
remote_opener_args(const char *func, const char *what, const char *where,
		   const char *name, const char *key_file)
{
	char why[200];

	if (!where)
		return rig_why_set(func, -EINVAL, "where is NULL");
	if (!name || !*name)
		return rig_why_set(func, -EINVAL, "the %s's name is %s", what, name ? "empty" : "NULL");
	if (strlen(name) > REMOTE_OPENER_NAME_MAX)
		return rig_why_set(func, -EINVAL, "the %s's name has %zu bytes, more than %u",
				   what, strlen(name), REMOTE_OPENER_NAME_MAX);
	if (strlen(where) > REMOTE_OPENER_WHERE_MAX)
		return rig_why_set(func, -EINVAL, "\"%s\" is longer than %u bytes", where,
				   REMOTE_OPENER_WHERE_MAX);
	if (key_file && strlen(key_file) > REMOTE_OPENER_KEY_FILE_MAX)
		return rig_why_set(func, -EINVAL, "the key file's path is too long");
	/* Parsed, not resolved (an opener does no I/O): the name is looked
	 * up at the open. */
	if (link_address_check(where, why, sizeof(why)) < 0)
		return rig_why_set(func, -EINVAL, "%s", why);
	return 0;
}

struct remote_opener *
remote_opener_get(pthread_mutex_t *lock, struct remote_opener **list, const char *where,
		  const char *name, const char *key_file)
{
	struct remote_opener *op;

	pthread_mutex_lock(lock);
	for (op = *list; op; op = op->next)
		if (!strcmp(op->where, where) && !strcmp(op->name, name) &&
		    op->has_key_file == !!key_file && (!key_file || !strcmp(op->key_file, key_file)))
			break;
	if (!op && (op = calloc(1, sizeof(*op)))) {
		if (!(op->m = machine_of(where))) {
			free(op);
			op = NULL;
		} else {
			snprintf(op->where, sizeof(op->where), "%s", where);
			snprintf(op->name, sizeof(op->name), "%s", name);
			snprintf(op->full, sizeof(op->full), "%s@%s", name, where);
			if (key_file) {
				snprintf(op->key_file, sizeof(op->key_file), "%s", key_file);
				op->has_key_file = true;
			}
			op->next = *list;
			*list = op;
		}
	}
	pthread_mutex_unlock(lock);
	return op;
}

int
rig_remote_opener(const char *where, const char *name, const char *key_file,
		  struct rig_opener *out)
{
	static const char func[] = "rig_remote_opener";
	struct remote_opener *op;

	if (!out)
		return rig_why_set(func, -EINVAL, "out is NULL");
	if (remote_opener_args(func, "device", where, name, key_file) < 0)
		return -EINVAL;
	if (!(op = remote_opener_get(&openers_lock, &openers, where, name, key_file)))
		return rig_why_set(func, -ENOMEM, "no memory for the opener");
	*out = (struct rig_opener){ .name = op->full, .ops = &remote_ops,
				    .make = remote_make, .arg = op };
	return 0;
}
