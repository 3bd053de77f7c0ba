/* SPDX-License-Identifier: MIT */
/*
 * host/host.c: the host device's opener, facts and stop, and the tables
 * that hand rig the rest (submit.c, exec.c, region.c, code.c). host.h
 * states the device's facts and commit rule.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rig_host.h"
#include "host/dev.h"
#include "host/host.h"

static const struct rig_queue host_queues[] = {
	[HOST_COMPUTE] = { "COMPUTE:0", RIG_RUNS(RIG_LAUNCH_PART) | RIG_RUNS(RIG_FILL_PART) },
	[HOST_COPY] = { "COPY:0", RIG_RUNS(RIG_COPY_PART) },
};

#if defined(__x86_64__)
#define HOST_ARCH	"x86_64"
#else
#define HOST_ARCH	"aarch64"
#endif

/* The cores this process may run on. */
static unsigned
cores(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int n;

	if (online < 1)
		online = 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		n = CPU_COUNT(&set);
		if (n >= 1 && n < online)
			online = n;
	}
	return (unsigned)online;
}

/* "32768K" or "8M" from a sysfs cache size file; 0 if unreadable. */
static int64_t
read_size(const char *path)
{
	char unit = 0;
	long long v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lld%c", &v, &unit) < 1)
		v = 0;
	fclose(f);
	if (unit == 'K')
		v <<= 10;
	else if (unit == 'M')
		v <<= 20;
	return v > 0 ? v : 0;
}

/* The last-level cache's bytes: sysfs's highest level, else sysconf. */
static int64_t
cache_bytes(void)
{
	int64_t best = 0, size;
	int best_level = 0, level, i;
	char path[96];
	FILE *f;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%d", &level) != 1)
			level = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		size = read_size(path);
		if (level > best_level && size > 0) {
			best_level = level;
			best = size;
		}
	}
	if (best == 0)
		best = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (best <= 0)
		best = sysconf(_SC_LEVEL2_CACHE_SIZE);
	return best > 0 ? best : 0;
}

static int
host_facts(void *t, struct rig_facts *out, const char **fault)
{
	struct host_dev *d = t;

	*out = (struct rig_facts){
		.arch = HOST_ARCH,
		.budget = d->budget,
		.queues = host_queues,
		.nqueues = sizeof(host_queues) / sizeof(host_queues[0]),
		.copy_engine = HOST_COPY,
		.completion = RIG_BY_HOST,
		.waits = { .stores = true, .hosts = true },
		.may_block = false,
		.hang_ms = d->hang_ms ? RIG_SOME(d->hang_ms) : RIG_NONE,
		.maps_host = true,
		.host_addresses = true,
		.alignment = HOST_ALIGN,
		.cache_bytes = d->cache_bytes ? RIG_SOME(d->cache_bytes) : RIG_NONE,
		.events_fd = RIG_SOME(d->events_fd),
		.edge = d,
	};
	return RIG_OK;
}

/* The poller's call once events_fd is readable: a kernel faulted. */
static int
host_events(void *t, struct rig_fault_site *site, const char **fault)
{
	struct host_dev *d = t;
	eventfd_t n;

	(void)eventfd_read(d->events_fd, &n);
	/* Acquire pairs with the device thread's release: site and text. */
	if (!atomic_load_explicit(&d->fault_ready, memory_order_acquire))
		return RIG_OK;
	*site = d->fault_site;
	*fault = d->fault_text;
	return RIG_FAULT;
}

const char *
host_keep(struct host_dev *d, const char *text)
{
	size_t n = strlen(text) + 1;
	struct host_msg *m = malloc(sizeof(*m) + n);

	if (!m)
		return "no memory for the message of a failure";
	memcpy(m->text, text, n);
	pthread_mutex_lock(&d->msg_lock);
	m->next = d->msgs;
	d->msgs = m;
	pthread_mutex_unlock(&d->msg_lock);
	return m->text;
}

static void
dev_free(struct host_dev *d)
{
	struct host_msg *m;
	size_t i;

	while ((m = d->msgs)) {
		d->msgs = m->next;
		free(m);
	}
	for (i = 0; i < HOST_RING; i++)
		free(d->ring[i].arena);
	if (d->events_fd >= 0)
		close(d->events_fd);
	pthread_mutex_destroy(&d->msg_lock);
	host_pieces_fini(d);	/* after stop: rig may still free pieces then */
	free(d->ranges);
	free(d);
}

/*
 * Stop: the device thread leaves (dropping values it has not run, and
 * interrupting a kernel that still runs: exec.c), the
 * word shows the last submitted value, and the workers leave. Regions and
 * images need no device state, so rig's frees and unloads after stop work;
 * release then frees the state.
 */
static void
host_stop(void *t, const char *reason)
{
	struct host_dev *d = t;

	host_exec_stop(d);
	host_assist_drain(d);
	host_pool_stop(d->pool);
	d->pool = NULL;
}

static void
host_release(void *t)
{
	dev_free(t);
}

/* The cores a device's threads run on: c's cpus, else every core of
 * this process's; *n how many threads (c's count where it gives one). */
static int
core_set(const struct rig_host_config *c, cpu_set_t *set, unsigned *n, char *why,
	 size_t why_len)
{
	size_t i;

	CPU_ZERO(set);
	*n = cores();
	if (!c)
		return 0;
	if (c->cpus && c->ncpus) {
		for (i = 0; i < c->ncpus; i++) {
			if (c->cpus[i] < 0 || c->cpus[i] >= CPU_SETSIZE) {
				snprintf(why, why_len, "%s: core %d is not a core number (0 to %d)",
					 c->name, c->cpus[i], CPU_SETSIZE - 1);
				return -EINVAL;
			}
			CPU_SET(c->cpus[i], set);
		}
		*n = (unsigned)CPU_COUNT(set);
	}
	if (c->cores)
		*n = c->cores;
	return 0;
}

static int
host_make(const struct rig_opener *o, _Atomic uint64_t *word, void **handle,
	  char *why, size_t why_len)
{
	const struct rig_host_config *c = o->arg;
	struct host_dev *d;
	cpu_set_t set;
	unsigned threads;
	int ret;

	if (!word || ((uintptr_t)word & 7)) {
		snprintf(why, why_len, "%s: the timeline word %p is not 8 bytes aligned to 8",
			 o->name, (void *)word);
		return -EINVAL;
	}
	ret = core_set(c, &set, &threads, why, why_len);
	if (ret == 0)
		ret = host_guard_install(why, why_len);
	if (ret < 0)
		return ret;
	d = aligned_alloc(64, sizeof(*d));
	if (!d) {
		snprintf(why, why_len, "HOST: no memory for the device");
		return -ENOMEM;
	}
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->msg_lock, NULL);
	host_pieces_init(d);
	snprintf(d->name, sizeof(d->name), "%s", o->name);
	d->hang_ms = c ? c->hang_ms : 0;
	d->pinned = CPU_COUNT(&set) > 0;
	d->run_at_submit = c && c->run_at_submit && !d->pinned;
	d->events_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->events_fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s: no eventfd for its faults: %s", o->name, strerror(errno));
		goto err_free;
	}
	d->driver = &host_driver;
	d->word = word;
	/* Acquire: the device's values follow what the word shows now. */
	d->base = d->submitted = atomic_load_explicit(word, memory_order_acquire);
	atomic_store_explicit(&d->published, d->base, memory_order_relaxed);
	atomic_store_explicit(&d->done, d->base, memory_order_relaxed);
	d->done_seen = d->base;
	d->budget = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	d->cache_bytes = cache_bytes();
	ret = host_pool_start(&d->pool, threads - 1, CPU_COUNT(&set) ? &set : NULL, why, why_len);
	if (ret < 0)
		goto err_free;
	d->ranges = calloc(host_pool_runners(d->pool), sizeof(*d->ranges));
	if (!d->ranges) {
		ret = -ENOMEM;
		snprintf(why, why_len, "%s: no memory for a profile's ranges", o->name);
		goto err_pool;
	}
	ret = host_exec_start(d, CPU_COUNT(&set) ? &set : NULL, why, why_len);
	if (ret < 0)
		goto err_pool;
	*handle = d;
	return 0;
err_pool:
	host_pool_stop(d->pool);
err_free:
	dev_free(d);
	return ret;
}

/* The host's queues never fill up in bytes: room never answers RIG_GROW. */
static int
host_grow(void *t, struct rig_part *parts, size_t nparts, size_t nwaits, uint64_t *bytes)
{
	return RIG_GROWN;
}

const struct rig_driver host_driver = {
	.room = host_room,
	.submit = host_submit,
	.commit = host_commit,
	.settle = NULL,
	.measures = NULL,
	.pieces = host_pieces,
};

const struct rig_ops host_ops = {
	.facts = host_facts,
	.alloc = host_alloc,
	.free = host_free,
	.locate = host_locate,
	.map_host = host_map_host,
	.map_peer = host_map_peer,
	.load = host_load,
	.unload = host_unload,
	.entry = host_entry,
	.grow = host_grow,
	.signaled = NULL,
	.dma = host_dma,
	.events = host_events,
	.stop = host_stop,
	.release = host_release,
	.symbol = host_symbol,
	.absent = host_absent,
	.assist = host_assist,
};

const struct rig_opener rig_host_opener = {
	.name = "HOST",
	.ops = &host_ops,
	.make = host_make,
	.arg = NULL,
};
