/* SPDX-License-Identifier: MIT */
/*
 * tests/host/host_dev.h: a host device opened for a test through its
 * opener, and the calls rig would make on it: room then submit under one
 * lock (rig calls them one at a time), waiting for the word, and parts.
 * Shared by test_host_driver.c and test_host_copy.c.
 */
#ifndef TESTS_HOST_HOST_DEV_H
#define TESTS_HOST_HOST_DEV_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "host/host.h"
#include "kernels.h"

/*
 * rig_word_wake(), which librig defines, for the driver alone: it counts
 * the calls and checks each against the word. The device thread calls it
 * after each store of the word, so each call finds a word that moved
 * since the call before on the same word; a launch split over the
 * workers also calls it as it starts (so a sleeping waiter joins it:
 * src/host/assist.c), before its store, which a test of single-call
 * launches does not see.
 */
static pthread_mutex_t woken_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t woken_calls, woken_stale;	/* under woken_lock */
static const _Atomic uint64_t *woken_word;
static uint64_t woken_last;

void
rig_word_wake(const _Atomic uint64_t *word)
{
	uint64_t w = atomic_load(word);

	pthread_mutex_lock(&woken_lock);
	if (word == woken_word && w <= woken_last)
		woken_stale++;
	woken_word = word;
	woken_last = w;
	woken_calls++;
	pthread_mutex_unlock(&woken_lock);
}

/* rig_word_sleep(), which librig defines (an event count's wait), for the
 * driver alone: a sleep of the timeout, then a look. */
bool
rig_word_sleep(const _Atomic uint64_t *word, uint64_t value, uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u),
			       (long)(timeout_ns % 1000000000u) };

	nanosleep(&ts, NULL);
	return atomic_load_explicit(word, memory_order_acquire) >= value;
}

/* A host device opened for a test, and the one lock rig would hold. */
struct dev {
	void *h;
	struct rig_facts f;
	const struct rig_driver *drv;
	_Atomic uint64_t word;
	pthread_mutex_t lock;
	uint64_t next;		/* the last value submitted */
	void *img;		/* the groups kernel's image */
	uintptr_t groups;	/* its launch */
};

static inline void
dev_open(struct dev *d, uint64_t start)
{
	char why[256] = "";
	const char *fault = NULL;

	memset(d, 0, sizeof(*d));
	atomic_init(&d->word, start);
	pthread_mutex_init(&d->lock, NULL);
	d->next = start;
	if (rig_host_opener.make(&rig_host_opener, &d->word, &d->h, why, sizeof(why)) != 0)
		fail_msg("make: %s", why);
	assert_int_equal(rig_host_opener.ops->facts(d->h, &d->f, &fault), RIG_OK);
	d->drv = *(const struct rig_driver *const *)d->f.edge;
}

static inline void
dev_close(struct dev *d)
{
	/* As rig ends a device: stop, return images and regions, release. */
	rig_host_opener.ops->stop(d->h, "closed");
	if (d->img)
		rig_host_opener.ops->unload(d->h, d->img);
	rig_host_opener.ops->release(d->h);
	pthread_mutex_destroy(&d->lock);
}

static inline void *
dev_load(struct dev *d, const char *name)
{
	struct rig_code code;
	const char *fault = NULL;
	unsigned char *b;
	size_t len;

	b = kernel_read(name, &len);
	if (rig_host_opener.ops->load(d->h, b, len, &code, &fault) != RIG_OK)
		fail_msg("load %s: %s", name, fault);
	free(b);
	assert_true(code.loaded);
	return code.image;
}

static inline uintptr_t
dev_entry(struct dev *d, void *img, const char *name)
{
	struct rig_entry e;
	uint64_t bytes = 0;

	assert_int_equal(rig_host_opener.ops->entry(d->h, img, name, &e, &bytes), RIG_ENTRY);
	return e.launch;
}

/* Room then submit under the lock, as rig's submission thread does. */
static inline uint64_t
dev_submit(struct dev *d, struct rig_part *parts, size_t n,
	   const struct rig_wait *waits, size_t nwaits, struct rig_times *times)
{
	const char *failure = NULL;
	uint64_t v;
	int ret;

	pthread_mutex_lock(&d->lock);
	while ((ret = d->drv->room(d->f.edge, parts, n, nwaits)) == RIG_LATER) {
		pthread_mutex_unlock(&d->lock);
		sched_yield();
		pthread_mutex_lock(&d->lock);
	}
	assert_int_equal(ret, RIG_FITS);
	v = ++d->next;
	ret = d->drv->submit(d->f.edge, v, parts, n, waits, nwaits, times, &failure);
	pthread_mutex_unlock(&d->lock);
	if (ret != RIG_COMMITTED)
		fail_msg("submit of value %llu: %d %s", (unsigned long long)v, ret, failure ? failure : "");
	return v;
}

static inline void
wait_value(_Atomic uint64_t *word, uint64_t v)
{
	struct timespec ts = { .tv_nsec = 20000 };
	int i;

	for (i = 0; i < 500000 && atomic_load(word) < v; i++)
		nanosleep(&ts, NULL);
	if (atomic_load(word) < v)
		fail_msg("the word shows %llu, expected %llu after 10 s",
			 (unsigned long long)atomic_load(word), (unsigned long long)v);
}

static inline struct rig_part
launch_part(uintptr_t fn, const void *params, uint32_t bytes, const uint32_t grid[3],
	    const uint32_t group[3])
{
	struct rig_part p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_LAUNCH_PART;
	p.queue = 0;
	p.u.launch.launch = fn;
	p.u.launch.code = fn;
	memcpy(p.u.launch.grid, grid, sizeof(p.u.launch.grid));
	memcpy(p.u.launch.group, group, sizeof(p.u.launch.group));
	p.u.launch.params = params;
	p.u.launch.params_bytes = bytes;
	return p;
}

static inline struct rig_part
copy_part(void *src, void *dst, uint64_t bytes, uint64_t rows, uint64_t src_pitch,
	  uint64_t dst_pitch, int fill)
{
	struct rig_part p;

	memset(&p, 0, sizeof(p));
	p.kind = RIG_COPY_PART;
	p.queue = 1;
	p.u.copy.src.at.host = src;
	p.u.copy.src.at.has_address = true;
	p.u.copy.src.at.address = (uintptr_t)src;
	p.u.copy.dst.at.host = dst;
	p.u.copy.dst.at.has_address = true;
	p.u.copy.dst.at.address = (uintptr_t)dst;
	p.u.copy.bytes = bytes;
	p.u.copy.rows = rows;
	p.u.copy.src_pitch = src_pitch;
	p.u.copy.dst_pitch = dst_pitch;
	p.u.copy.fill = fill;
	return p;
}

static inline int
setup(void **state)
{
	struct dev *d = malloc(sizeof(*d));

	dev_open(d, 41);
	d->img = dev_load(d, "groups");
	d->groups = dev_entry(d, d->img, "groups");
	*state = d;
	return 0;
}

static inline int
teardown(void **state)
{
	struct dev *d = *state;

	dev_close(d);
	free(d);
	return 0;
}

struct counted {
	struct groups_params p;
	uint32_t *hits;
	int64_t calls, bad;
	int64_t in[4], out[4];
};

static inline void
counted_init(struct counted *c, const uint32_t grid[3])
{
	int64_t total = (int64_t)grid[0] * grid[1] * grid[2];

	memset(c, 0, sizeof(*c));
	c->hits = calloc((size_t)total, sizeof(*c->hits));
	assert_non_null(c->hits);
	c->p = (struct groups_params){
		.hits = c->hits, .calls = &c->calls, .bad = &c->bad, .total = total,
		.scale = 1, .in = c->in, .out = c->out, .n = 0,
	};
}

static inline void
counted_check(struct counted *c)
{
	int64_t g;

	for (g = 0; g < c->p.total; g++)
		if (c->hits[g] != 1)
			fail_msg("group %lld of %lld ran %u times", (long long)g,
				 (long long)c->p.total, c->hits[g]);
	assert_int_equal(c->bad, 0);
	assert_true(c->calls >= 1 && c->calls <= c->p.total);
	free(c->hits);
}

#endif
