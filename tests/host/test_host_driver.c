/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_host_driver.c: the host device's driver, called through
 * its opener and tables as rig calls it (room, submit and commit one at a
 * time: a mutex serializes them here). Facts, memory and code ops; room's
 * refusals; every group of random grids runs exactly once; fills and a
 * fill's failure; waits on other words; times; stop; values submitted
 * after pauses that put the device thread to sleep, each word store
 * followed by rig_word_wake(); the word advancing in value order under
 * many threads. Copies: test_host_copy.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "host/elf.h"
#include "host_dev.h"
#include "idle.h"

/* ---- Facts, memory, code ------------------------------------------------ */

static void
test_facts(void **state)
{
	struct dev *d = *state;
	const struct rig_facts *f = &d->f;

	assert_string_equal(rig_host_opener.name, "HOST");
#if defined(__x86_64__)
	assert_string_equal(f->arch, "x86_64");
#endif
	assert_int_equal(f->nqueues, 2);
	assert_string_equal(f->queues[0].name, "COMPUTE:0");
	assert_int_equal(f->queues[0].runs, RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_FILL_PART));
	assert_string_equal(f->queues[1].name, "COPY:0");
	assert_int_equal(f->queues[1].runs, RIG_RUNS(RIG_COPY_PART));
	assert_int_equal(f->copy_engine, 1);
	assert_int_equal(f->completion, RIG_BY_HOST);
	assert_true(f->waits.stores && f->waits.hosts);
	assert_false(f->may_block);
	assert_false(f->hang_ms.some);
	assert_true(f->maps_host && f->host_addresses);
	assert_int_equal(f->alignment, 64);
	assert_true(!f->cache_bytes.some || f->cache_bytes.value >= 1);
	assert_true(f->budget > 0);
	assert_null(f->counters);
	assert_null(f->word);
	assert_null(f->bus);
	assert_non_null(f->edge);
	assert_ptr_equal(d->drv->room, d->drv->room);
	assert_null(d->drv->settle);
	assert_null(d->drv->measures);
	assert_null(rig_host_opener.ops->signaled);
}

static void
test_make_refuses_a_misaligned_word(void **state)
{
	static _Atomic uint64_t words[2];
	char why[256] = "";
	void *h = NULL;

	assert_int_equal(rig_host_opener.make(&rig_host_opener, (_Atomic uint64_t *)((char *)words + 4),
					  &h, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not 8 bytes aligned to 8"));
	assert_null(h);
}

static void
test_memory(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 63, 4096, 100000, 3u << 20 };
	const struct rig_ops *ops = rig_host_opener.ops;
	struct dev *d = *state;
	struct rig_location loc;
	const char *fault = NULL;
	static char host[8192];
	enum rig_memory kind;
	void *r;
	size_t i, j;

	for (kind = RIG_MEMORY_DEVICE; kind <= RIG_MEMORY_MAPPED; kind++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			assert_int_equal(ops->alloc(d->h, sizes[i], kind, &r, &fault), RIG_OK);
			ops->locate(d->h, r, &loc);
			assert_true(loc.has_address);
			assert_int_equal(loc.address, (uintptr_t)loc.host);
			assert_int_equal(loc.address % d->f.alignment, 0);
			for (j = 0; j < sizes[i]; j++)
				assert_int_equal(((unsigned char *)loc.host)[j], 0);
			if (sizes[i])
				memset(loc.host, 0xab, sizes[i]);
			ops->free(d->h, r);
		}
	}
	assert_int_equal(ops->alloc(d->h, 64, (enum rig_memory)9, &r, &fault), RIG_FAULT);
	assert_non_null(strstr(fault, "memory kind"));
	assert_int_equal(ops->alloc(d->h, UINT64_MAX - 8, RIG_MEMORY_DEVICE, &r, &fault), RIG_NO_ROOM);
	assert_int_equal(ops->map_host(d->h, host, sizeof(host), &r), RIG_MAPS);
	ops->locate(d->h, r, &loc);
	assert_ptr_equal(loc.host, host);
	assert_int_equal(loc.address, (uintptr_t)host);
	ops->free(d->h, r);
	assert_int_equal(ops->map_peer(d->h, &loc, 64, &r), RIG_MAP_NEVER);
	assert_int_equal(ops->dma(d->h, r, NULL), RIG_MAP_NEVER);
	assert_int_equal(ops->grow(d->h, NULL, 0, 0, NULL), RIG_GROWN);
}

static void
test_code(void **state)
{
	const struct rig_ops *ops = rig_host_opener.ops;
	struct dev *d = *state;
	static const char junk[] = "definitely not an object";
	const char *fault = NULL;
	struct rig_code code;
	struct rig_entry e;
	uint64_t bytes = 0;
	unsigned char *b;
	size_t len;

	assert_int_equal(ops->load(d->h, junk, sizeof(junk), &code, &fault), RIG_FAULT);
	assert_non_null(strstr(fault, "not an ELF object"));
	b = kernel_read("undefined", &len);
	assert_int_equal(ops->load(d->h, b, len, &code, &fault), RIG_FAULT);
	assert_non_null(strstr(fault, "undefined symbol 'missing_function'"));
	free(b);
	assert_int_equal(ops->entry(d->h, d->img, "groups", &e, &bytes), RIG_ENTRY);
	/* launch is the function's record: its address and its name. */
	assert_int_equal(e.code, (uintptr_t)((const struct elf_func *)e.launch)->addr);
	assert_string_equal(((const struct elf_func *)e.launch)->name, "groups");
	assert_false(e.params.some);
	assert_false(e.threads.some);
	assert_int_equal(ops->entry(d->h, d->img, "no_such_kernel", &e, &bytes), RIG_ABSENT);
}

/* ---- room --------------------------------------------------------------- */

static void
test_room_refusals(void **state)
{
	static const uint32_t one[3] = { 1, 1, 1 }, empty[3] = { 4, 0, 1 };
	struct dev *d = *state;
	uint32_t follows = 1;
	int64_t x = 0;
	struct rig_part p[2];
	uint32_t w[2] = { 0 };

	p[0] = launch_part(d->groups, &x, 8, one, one);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 3), RIG_FITS);
	p[0].kind = RIG_WORDS_PART;
	p[0].u.words.words = w;
	p[0].u.words.count = 2;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0].kind = 0;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = launch_part(d->groups, &x, 8, empty, one);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = launch_part(d->groups, &x, 8, one, empty);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = launch_part(0, &x, 8, one, one);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = launch_part(d->groups, &x, 8, one, one);
	p[0].u.launch.shared_bytes = 1024;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = launch_part(d->groups, &x, 8, one, one);
	p[0].queue = 1;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = copy_part(&x, &x, 8, 1, 8, 8, -1);
	p[0].queue = 0;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = copy_part(NULL, NULL, 8, 1, 8, 8, -1);	/* ends come with each run */
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_FITS);
	p[0] = copy_part(NULL, &x, 8, 1, 8, 8, 256);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = copy_part(&x, &x, 8, UINT64_MAX, 8, 8, -1);
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	p[0] = copy_part(NULL, &x, 8, 1, 8, 8, 0);	/* a byte fill reads no src */
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_FITS);
	p[0].queue = 7;
	assert_int_equal(d->drv->room(d->f.edge, p, 1, 0), RIG_NEVER);
	/* A follows entry must name an earlier part. */
	p[0] = launch_part(d->groups, &x, 8, one, one);
	p[1] = copy_part(&x, &x, 8, 1, 8, 8, -1);
	p[0].follows = &follows;
	p[0].nfollows = 1;
	assert_int_equal(d->drv->room(d->f.edge, p, 2, 0), RIG_NEVER);
	p[0].nfollows = 0;
	follows = 0;
	p[1].follows = &follows;
	p[1].nfollows = 1;
	assert_int_equal(d->drv->room(d->f.edge, p, 2, 0), RIG_FITS);
	p[0].kind = RIG_FILL_PART;
	p[0].u.fill.fn = NULL;
	assert_int_equal(d->drv->room(d->f.edge, p, 2, 0), RIG_NEVER);
}
/* What room cannot see (the ends and params each run brings) submit checks. */
static void
test_submit_refuses_unaddressed_parts(void **state)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	const char *failure = NULL;
	struct rig_part p;
	struct dev d;
	int64_t x = 0;

	dev_open(&d, 0);
	p = copy_part(NULL, &x, 8, 1, 8, 8, -1);
	assert_int_equal(d.drv->room(d.f.edge, &p, 1, 0), RIG_FITS);
	assert_int_equal(d.drv->submit(d.f.edge, 1, &p, 1, NULL, 0, NULL, &failure), RIG_FAILED);
	assert_string_equal(failure, "part 0 of value 1: a copy of memory the host does not address");
	dev_close(&d);

	dev_open(&d, 0);
	p = copy_part(NULL, NULL, 0, 1, 0, 0, -1);	/* empty buffers: nothing to copy */
	assert_int_equal(dev_submit(&d, &p, 1, NULL, 0, NULL), 1);
	p = launch_part(1, NULL, 8, one, one);
	assert_int_equal(d.drv->room(d.f.edge, &p, 1, 0), RIG_FITS);
	assert_int_equal(d.drv->submit(d.f.edge, 2, &p, 1, NULL, 0, NULL, &failure), RIG_FAILED);
	assert_string_equal(failure, "part 0 of value 2: a launch whose params are NULL");
	wait_value(&d.word, 1);
	dev_close(&d);
}

/* ---- Launches ------------------------------------------------------------ */

/* One launch of the groups kernel and what it counts. */static void
test_every_group_runs_once(void **state)
{
	struct dev *d = *state;
	unsigned seed = 7;
	int i;

	for (i = 0; i < 120; i++) {
		uint32_t grid[3], group[3];
		struct counted c;
		struct rig_part p;
		uint64_t v;
		int k;

		for (k = 0; k < 3; k++) {
			grid[k] = 1 + (uint32_t)rand_r(&seed) % (i % 3 == 0 ? 2000u : 9u);
			group[k] = 1 + (uint32_t)rand_r(&seed) % 1024u;
		}
		if (grid[0] * grid[1] * grid[2] > 200000)
			grid[2] = 1;
		counted_init(&c, grid);
		p = launch_part(d->groups, &c.p, sizeof(c.p), grid, group);
		v = dev_submit(d, &p, 1, NULL, 0, NULL);
		wait_value(&d->word, v);
		counted_check(&c);
	}
}

static void
test_params_copied_at_submit(void **state)
{
	static const uint32_t grid[3] = { 100, 1, 1 }, one[3] = { 1, 1, 1 };
	struct dev *d = *state;
	_Atomic uint64_t gate = 0;
	struct rig_wait w = { &gate, 1, RIG_BY_HOST };
	struct counted c;
	struct groups_params saved;
	struct rig_part p;
	uint64_t v;

	counted_init(&c, grid);
	p = launch_part(d->groups, &c.p, sizeof(c.p), grid, one);
	v = dev_submit(d, &p, 1, &w, 1, NULL);
	saved = c.p;
	memset(&c.p, 0xee, sizeof(c.p));	/* the run's bytes are reused at once */
	atomic_store(&gate, 1);
	wait_value(&d->word, v);
	c.p = saved;
	counted_check(&c);
}
/* ---- Fills ---------------------------------------------------------------- */

struct fill_seen {
	void *ctx;
	uint64_t value;
	int64_t arg;
	int calls;
	int result;
};

static struct fill_seen seen;

static int
record_fill(void *ctx, void *arg, uint64_t value)
{
	seen.ctx = ctx;
	seen.value = value;
	memcpy(&seen.arg, arg, sizeof(seen.arg));
	seen.calls++;
	return seen.result;
}

static void
test_fill_called_by_submit(void **state)
{
	struct dev *d = *state;
	int64_t arg = 0x1234567;
	struct rig_part p;
	uint64_t v;

	memset(&seen, 0, sizeof(seen));
	memset(&p, 0, sizeof(p));
	p.kind = RIG_FILL_PART;
	p.u.fill.fn = record_fill;
	p.u.fill.arg = &arg;
	p.u.fill.arg_bytes = sizeof(arg);
	v = dev_submit(d, &p, 1, NULL, 0, NULL);
	assert_int_equal(seen.calls, 1);	/* called inside submit */
	assert_int_equal(seen.value, v);
	assert_int_equal(seen.arg, arg);
	assert_null(seen.ctx);
	wait_value(&d->word, v);
}

static void
test_fill_failure_loses_the_device(void **state)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	struct dev d;
	const char *failure = NULL;
	int64_t arg = 5;
	struct counted c;
	struct rig_part p[2];
	uint64_t v;

	dev_open(&d, 0);
	d.img = dev_load(&d, "groups");
	d.groups = dev_entry(&d, d.img, "groups");
	v = dev_submit(&d, p, 0, NULL, 0, NULL);
	wait_value(&d.word, v);
	memset(&seen, 0, sizeof(seen));
	seen.result = 7;
	counted_init(&c, one);
	p[0] = launch_part(d.groups, &c.p, sizeof(c.p), one, one);
	memset(&p[1], 0, sizeof(p[1]));
	p[1].kind = RIG_FILL_PART;
	p[1].u.fill.fn = record_fill;
	p[1].u.fill.arg = &arg;
	assert_int_equal(d.drv->room(d.f.edge, p, 2, 0), RIG_FITS);
	assert_int_equal(d.drv->submit(d.f.edge, v + 1, p, 2, NULL, 0, NULL, &failure), RIG_FAILED);
	assert_string_equal(failure, "the fill of part 1 of value 2 returned 7");
	failure = NULL;
	assert_int_equal(d.drv->submit(d.f.edge, v + 1, p, 0, NULL, 0, NULL, &failure), RIG_FAILED);
	assert_string_equal(failure, "the fill of part 1 of value 2 returned 7");
	failure = NULL;
	assert_int_equal(d.drv->commit(d.f.edge, v, &failure), RIG_FAILED);
	assert_non_null(failure);
	assert_int_equal(atomic_load(&d.word), v);	/* the failed value never ran */
	assert_int_equal(c.calls, 0);
	free(c.hits);
	dev_close(&d);
}

/* ---- Waits, order, times, stop -------------------------------------------- */

static void
test_waits_on_other_words(void **state)
{
	struct dev *d = *state;
	_Atomic uint64_t store_word = 9, host_word = 4;
	struct rig_wait w[2] = {
		{ &store_word, 9, RIG_BY_STORE },
		{ &host_word, 5, RIG_BY_HOST },
	};
	struct timespec ts = { .tv_nsec = 80 * 1000 * 1000 };
	uint64_t v;

	v = dev_submit(d, NULL, 0, w, 2, NULL);
	nanosleep(&ts, NULL);	/* past the spin: the device thread sleep-polls */
	assert_true(atomic_load(&d->word) < v);
	atomic_store(&host_word, 5);
	wait_value(&d->word, v);
}

static void
test_values_start_after_the_word(void **state)
{
	struct dev d;
	uint64_t v;

	dev_open(&d, 1000);
	v = dev_submit(&d, NULL, 0, NULL, 0, NULL);
	assert_int_equal(v, 1001);
	wait_value(&d.word, v);
	assert_int_equal(atomic_load(&d.word), 1001);
	dev_close(&d);
}

static void
test_commit_and_times(void **state)
{
	static const uint32_t grid[3] = { 64, 1, 1 }, one[3] = { 1, 1, 1 };
	struct dev *d = *state;
	struct rig_times t = { 0, 0 };
	const char *failure = NULL;
	struct counted c;
	struct rig_part p;
	uint64_t v;

	counted_init(&c, grid);
	p = launch_part(d->groups, &c.p, sizeof(c.p), grid, one);
	v = dev_submit(d, &p, 1, NULL, 0, &t);
	assert_int_equal(d->drv->commit(d->f.edge, v, &failure), RIG_OK);
	assert_int_equal(d->drv->commit(d->f.edge, v, &failure), RIG_OK);
	wait_value(&d->word, v);
	assert_true(t.start_ns > 0);
	assert_true(t.start_ns <= t.end_ns);
	counted_check(&c);
}

static void
test_ring_full_answers_later(void **state)
{
	struct dev *d = *state;
	_Atomic uint64_t gate = 0;
	struct rig_wait w = { &gate, 1, RIG_BY_HOST };
	uint64_t v = 0;
	int i;

	for (i = 0; i < 256; i++)
		v = dev_submit(d, NULL, 0, &w, 1, NULL);
	assert_int_equal(d->drv->room(d->f.edge, NULL, 0, 0), RIG_LATER);
	atomic_store(&gate, 1);
	wait_value(&d->word, v);
	assert_int_equal(d->drv->room(d->f.edge, NULL, 0, 0), RIG_FITS);
}

static void
test_stop_drops_pending_values(void **state)
{
	struct dev d;
	_Atomic uint64_t never = 0;
	struct rig_wait w = { &never, 1, RIG_BY_HOST };
	const char *fault = NULL;
	void *region, *img;
	uint64_t v = 0;
	int i;

	dev_open(&d, 10);
	assert_int_equal(rig_host_opener.ops->alloc(d.h, 1u << 20, RIG_MEMORY_DEVICE, &region, &fault), RIG_OK);
	img = dev_load(&d, "empty");
	for (i = 0; i < 5; i++)
		v = dev_submit(&d, NULL, 0, &w, 1, NULL);
	rig_host_opener.ops->stop(d.h, "closed");	/* returns although nothing ran */
	assert_int_equal(atomic_load(&d.word), v);	/* the dropped values are shown */
	rig_host_opener.ops->free(d.h, region);	/* rig returns memory after stop */
	rig_host_opener.ops->unload(d.h, img);
	rig_host_opener.ops->release(d.h);
	pthread_mutex_destroy(&d.lock);
}

/*
 * Submits with pauses between them, some long enough for the device thread
 * to fall asleep: each value still runs, and its word store is followed by
 * a call of rig_word_wake() (host_dev.h defines it for the driver tested
 * without librig, and counts the calls).
 */
static void
test_wakes_after_idle(void **state)
{
	static const uint32_t one[3] = { 1, 1, 1 };
	struct dev *d = *state;
	uint64_t calls0, stale0, v = 0;
	unsigned seed = 17;
	int i;

	/* One-group launches: none starts split (host_dev.h), so every
	 * call from here on follows a store. */
	pthread_mutex_lock(&woken_lock);
	calls0 = woken_calls;
	stale0 = woken_stale;
	pthread_mutex_unlock(&woken_lock);
	for (i = 0; i < 150; i++) {
		struct counted c;
		struct rig_part p;

		counted_init(&c, one);
		p = launch_part(d->groups, &c.p, sizeof(c.p), one, one);
		v = dev_submit(d, &p, 1, NULL, 0, NULL);
		wait_value(&d->word, v);
		counted_check(&c);
		idle_pause(&seed);
	}
	pthread_mutex_lock(&woken_lock);
	assert_true(woken_calls - calls0 >= 150);
	assert_int_equal(woken_stale - stale0, 0);
	pthread_mutex_unlock(&woken_lock);
}

/* Many submitting threads; a watcher checks the word's order as it moves. */
enum { THREADS = 4, PER_THREAD = 150, MAX_VALUES = THREADS * PER_THREAD + 1 };

struct shared {
	struct dev *d;
	uint64_t base;
	struct counted *by_value[MAX_VALUES + 1];	/* set before the value is submitted */
	_Atomic int violations;
	char first_violation[160];
	unsigned seed;
};

static void *
submitter(void *arg)
{
	struct shared *s = arg;
	unsigned seed = (unsigned)(uintptr_t)pthread_self() ^ s->seed;
	static const uint32_t one[3] = { 1, 1, 1 };
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		uint32_t grid[3] = { 1 + (uint32_t)rand_r(&seed) % 200, 1 + (uint32_t)rand_r(&seed) % 3, 1 };
		struct counted *c = malloc(sizeof(*c));
		static const int64_t src[4] = { 1, 2, 3, 4 };
		const char *failure = NULL;
		struct rig_part p[2];
		uint64_t v;

		counted_init(c, grid);
		p[0] = launch_part(s->d->groups, &c->p, sizeof(c->p), grid, one);
		p[1] = copy_part((void *)src, c->in, sizeof(src), 1, 0, 0, -1);
		/* Room and submit under the lock, as rig calls them; the
		 * record of value v is written before v is published. */
		pthread_mutex_lock(&s->d->lock);
		while (s->d->drv->room(s->d->f.edge, p, 2, 0) == RIG_LATER) {
			pthread_mutex_unlock(&s->d->lock);
			sched_yield();
			pthread_mutex_lock(&s->d->lock);
		}
		v = ++s->d->next;
		s->by_value[v - s->base] = c;
		if (s->d->drv->submit(s->d->f.edge, v, p, 2, NULL, 0, NULL, &failure) != RIG_COMMITTED)
			atomic_fetch_add(&s->violations, 1);
		pthread_mutex_unlock(&s->d->lock);
	}
	return NULL;
}

static void *
watcher(void *arg)
{
	struct shared *s = arg;
	uint64_t last = s->base, w, v;

	for (;;) {
		w = atomic_load_explicit(&s->d->word, memory_order_acquire);
		if (w < last && !atomic_fetch_add(&s->violations, 1))
			snprintf(s->first_violation, sizeof(s->first_violation),
				 "the word moved back from %llu to %llu", (unsigned long long)last,
				 (unsigned long long)w);
		for (v = last + 1; v <= w; v++) {
			struct counted *c = s->by_value[v - s->base];
			int64_t g;

			for (g = 0; c && g < c->p.total; g++)
				if (c->hits[g] != 1 && !atomic_fetch_add(&s->violations, 1))
					snprintf(s->first_violation, sizeof(s->first_violation),
						 "the word shows %llu but group %lld of value %llu ran %u times",
						 (unsigned long long)w, (long long)g,
						 (unsigned long long)v, c->hits[g]);
		}
		if (w > last)
			last = w;
		if (last >= s->base + MAX_VALUES)
			break;
		sched_yield();
	}
	return NULL;
}

static void
test_many_threads_word_in_value_order(void **state)
{
	struct dev d;
	struct shared *s = calloc(1, sizeof(*s));
	pthread_t t[THREADS], watch;
	uint64_t v;
	int i;

	dev_open(&d, 500);
	d.img = dev_load(&d, "groups");
	d.groups = dev_entry(&d, d.img, "groups");
	s->d = &d;
	s->base = 500;
	s->seed = 99;
	v = dev_submit(&d, NULL, 0, NULL, 0, NULL);	/* value base + 1: nothing */
	pthread_create(&watch, NULL, watcher, s);
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, submitter, s);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	wait_value(&d.word, s->base + MAX_VALUES);
	pthread_join(watch, NULL);
	if (atomic_load(&s->violations))
		fail_msg("%d violations; first: %s", atomic_load(&s->violations), s->first_violation);
	for (v = s->base + 2; v <= s->base + MAX_VALUES; v++) {
		struct counted *c = s->by_value[v - s->base];

		assert_non_null(c);
		counted_check(c);
		free(c);
	}
	dev_close(&d);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_make_refuses_a_misaligned_word),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_code),
		cmocka_unit_test(test_room_refusals),
		cmocka_unit_test(test_submit_refuses_unaddressed_parts),
		cmocka_unit_test(test_every_group_runs_once),
		cmocka_unit_test(test_params_copied_at_submit),
		cmocka_unit_test(test_fill_called_by_submit),
		cmocka_unit_test(test_fill_failure_loses_the_device),
		cmocka_unit_test(test_waits_on_other_words),
		cmocka_unit_test(test_values_start_after_the_word),
		cmocka_unit_test(test_commit_and_times),
		cmocka_unit_test(test_ring_full_answers_later),
		cmocka_unit_test(test_stop_drops_pending_values),
		cmocka_unit_test(test_wakes_after_idle),
		cmocka_unit_test(test_many_threads_word_in_value_order),
	};

	return cmocka_run_group_tests_name("test_host_driver", tests, setup, teardown);
}
