/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/sim.c: a simulated GPU's life and the parts of it a bus
 * reaches: VRAM (a memfd, so BAR0 maps as a real BAR's resource file
 * does), host memory with bus addresses, config space and doorbells. The
 * engines' threads, and their side of the doorbell's pairing, are
 * engine.c's.
 *
 * A doorbell costs the ringing thread a store (the write pointer) and a
 * load (whether the engine sleeps), with only a compiler barrier between:
 * no event count's bump (a locked increment on a line the busy engine
 * reads every pass) and no fence, which waited for every store the submit
 * had just made to the ring and the kernargs, lines the engine's core had
 * just read (a GPU's posted doorbell write waits for none of them). The
 * engine picks a doorbell up on its next pass; only a sleeping engine is
 * kicked.
 *
 * That is Dekker's pattern made asymmetric, as liburcu's memb flavour
 * pairs its readers' compiler barrier with the writer's membarrier: going
 * to sleep, the engine sets asleep, calls membarrier
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full barrier on every
 * thread of the process running at that moment (one not running passes
 * one when it is switched in), and only then looks at its queues once
 * more. So each ringer's store and load are ordered against the engine's
 * as if the ringer had fenced: the barrier falls before the ringer's store
 * (its load sees asleep, and it kicks) or after it (the store is in memory
 * before the engine's look). Without the fence on x86 the ringer's load
 * may pass its own store still in the store buffer: a doorbell lost to an
 * engine going to sleep, which a sim without the membarrier once showed.
 *
 * (engine.c says how the engine goes to sleep, and what happens where
 * membarrier cannot be had.) On a GPU the doorbell is an uncached MMIO
 * store, which x86 orders after the ring's stores: the driver
 * (src/amd/dev) neither gains nor loses a fence by this file's choice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "amd/amd.h"
#include "amd/fail.h"
#include "amd/sim/priv.h"

uint64_t
sim_gpu_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) / 10;
}

/* PCI ids of a part of each GC (amd-facts §0.2, §8.1). */
static void
ids(const char *gc, uint16_t *device, uint32_t *class_code)
{
	static const struct { const char *gc; uint16_t dev; uint32_t cls; } t[] = {
		{ "9.4.3", 0x74a1, 0x120000 }, { "11.0.0", 0x744c, 0x030000 },
		{ "11.0.2", 0x7480, 0x030000 }, { "12.0.0", 0x7590, 0x030000 },
		{ "12.0.1", 0x7550, 0x030000 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].gc, gc)) {
			*device = t[i].dev;
			*class_code = t[i].cls;
		}
}

static void
config_init(struct amd_sim *s)
{
	uint16_t vendor = PCI_VENDOR_ID_ATI, device = 0, command = 0x0006;
	uint32_t cls = 0;

	ids(s->lay.gc, &device, &cls);
	memcpy(s->config, &vendor, 2);
	memcpy(s->config + 2, &device, 2);
	memcpy(s->config + 4, &command, 2);	/* memory space, bus master */
	s->config[9] = 0;
	s->config[10] = (uint8_t)(cls >> 8);
	s->config[11] = (uint8_t)(cls >> 16);
	atomic_store(s->bus_master, true);
}

static int
check_opts(const struct amd_sim_opts *o, const struct sim_layout **l)
{
	if (!o || !o->gc || !o->root)
		return amd_fail_at(NULL, -EINVAL, "opts, its gc or its root is NULL");
	if (!(*l = sim_layout_find(o->gc)))
		return amd_fail_at(NULL, -EINVAL, "GC %s is not one the sim models (9.4.3, "
				"11.0.0, 11.0.2, 12.0.0, 12.0.1)", o->gc);
	if (o->root[0] != '/' || strlen(o->root) >= 200)
		return amd_fail_at(NULL, -EINVAL, "root \"%s\" is not an absolute path under "
				"200 bytes", o->root);
	if (o->firmware && strlen(o->firmware) >= 256)
		return amd_fail_at(NULL, -EINVAL, "firmware \"%s\" is not under 256 bytes",
				o->firmware);
	if (o->shared && o->peer)
		return amd_fail_at(NULL, -EINVAL, "a shared sim has no peers (opts.shared "
				"and opts.peer)");
	if (o->xccs > SIM_XCCS || (o->xccs > 1 && strcmp(o->gc, "9.4.3")))
		return amd_fail_at(NULL, -EINVAL, "xccs %u: GC 9.4.3 has 1 to %u XCCs, "
				"every other GC one", o->xccs, SIM_XCCS);
	if (o->aids > SIM_AIDS || (o->aids > 1 && (o->aids > (o->xccs ? o->xccs : 1) ||
						    (o->xccs ? o->xccs : 1) % o->aids)))
		return amd_fail_at(NULL, -EINVAL, "aids %u: 1 to %u AIDs that divide the %u "
				"XCCs evenly", o->aids, SIM_AIDS, o->xccs ? o->xccs : 1);
	if (o->bus && strlen(o->bus) != 12)
		return amd_fail_at(NULL, -EINVAL, "bus \"%s\" is not of the form 0000:03:00.0",
				o->bus);
	if (o->vram_bytes && (o->vram_bytes % (2u << 20) ||
			      o->vram_bytes < (512ull << 20) ||
			      o->vram_bytes > (64ull << 30)))
		return amd_fail_at(NULL, -EINVAL, "vram_bytes %llu is not a multiple of 2 MiB "
				"from 512 MiB to 64 GiB",
				(unsigned long long)o->vram_bytes);
	return 0;
}

/* VRAM: a memfd, or (shared) the sim_vram file of its device folder,
 * made anew by a create (fresh) and found by an attach. */
static int
vram_make(struct amd_sim *s, bool fresh)
{
	if (s->shared) {
		char path[300];

		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/sim_vram",
			 s->root, s->bus);
		s->vram_fd = open(path, O_RDWR | O_CLOEXEC | (fresh ? O_CREAT | O_TRUNC : 0),
				  0600);
		if (s->vram_fd < 0)
			return amd_fail_at(NULL, -errno, "cannot open %s: %s", path,
					   strerror(errno));
	} else {
		s->vram_fd = memfd_create("amd-sim-vram", MFD_CLOEXEC);
	}
	if (s->vram_fd < 0)
		return amd_fail_at(NULL, -errno, "memfd_create: %s", strerror(errno));
	if (fresh && ftruncate(s->vram_fd, (off_t)s->vram_bytes) < 0)
		return amd_fail_at(NULL, -errno, "cannot size VRAM: %s", strerror(errno));
	s->vram = mmap(NULL, s->vram_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->vram_fd, 0);
	if (s->vram == MAP_FAILED) {
		s->vram = NULL;
		return amd_fail_at(NULL, -errno, "cannot map VRAM: %s", strerror(errno));
	}
	return 0;
}

static int run(struct amd_sim *s, bool tree);

static void
locks_init(struct amd_sim *s)
{
	pthread_mutex_init(&s->config_lock, NULL);
	pthread_mutex_init(&s->host_lock, NULL);
	pthread_mutex_init(&s->kernel_lock, NULL);
	pthread_mutex_init(&s->ih_lock, NULL);
	pthread_mutex_init(&s->tree_lock, NULL);
	pthread_mutex_init(&s->far_lock, NULL);
	pthread_mutex_init(&s->mp_lock, NULL);
}

static void
locks_destroy(struct amd_sim *s)
{
	pthread_mutex_destroy(&s->config_lock);
	pthread_mutex_destroy(&s->host_lock);
	pthread_mutex_destroy(&s->kernel_lock);
	pthread_mutex_destroy(&s->ih_lock);
	pthread_mutex_destroy(&s->tree_lock);
	pthread_mutex_destroy(&s->far_lock);
	pthread_mutex_destroy(&s->mp_lock);
}

static void
release(struct amd_sim *s)
{
	if (s->irq_fd >= 0)
		close(s->irq_fd);
	sim_bus_leave(s);	/* keeps VRAM mapped while peers may reach it */
	if (s->vram)
		munmap(s->vram, s->vram_bytes);
	if (s->vram_fd >= 0)
		close(s->vram_fd);
	for (size_t i = 0; i < s->nhost; i++)
		munmap(s->host[i].ptr, s->host[i].bytes);
	locks_destroy(s);
	sim_fw_free(s);
	sim_shared_unmap(s);
	free(s);
}

int
amd_sim_create(const struct amd_sim_opts *o, struct amd_sim **out)
{
	const struct sim_layout *l = NULL;
	static _Thread_local uint8_t table[10 << 10];
	struct amd_sim *s;
	size_t len;
	int ret;

	if (!out)
		return amd_fail(-EINVAL, "out is NULL");
	if ((ret = check_opts(o, &l)) < 0)
		return amd_rewrap(__func__, ret, "");
	if (!(s = calloc(1, sizeof(*s))))
		return amd_fail(-ENOMEM, "no memory for a sim");
	s->lay = *l;
	s->lay.xccs = o->xccs ? o->xccs : 1;
	s->lay.aids = o->aids ? o->aids : 1;
	s->vram_fd = s->irq_fd = -1;
	s->vram_bytes = o->vram_bytes ? o->vram_bytes : 1ull << 30;
	s->bar0_bytes = s->vram_bytes;	/* `rig detach` left it as large as VRAM */
	atomic_init(&s->bar0_now, s->bar0_bytes);
	snprintf(s->bus, sizeof(s->bus), "%s", o->bus ? o->bus : "0000:03:00.0");
	snprintf(s->root, sizeof(s->root), "%s", o->root);
	if ((ret = sim_bus_join(s, o->peer)) < 0) {
		free(s);
		return amd_rewrap(__func__, ret, "");
	}
	locks_init(s);
	s->pause_fd = -1;
	if (o->firmware)
		snprintf(s->fw_dir, sizeof(s->fw_dir), "%s", o->firmware);
	len = sim_table_build(&s->lay, table, sizeof(table));
	s->shared = o->shared;
	if ((ret = sim_shared_make(s, o)) < 0 || (ret = vram_make(s, true)) < 0 ||
	    (ret = sim_layout_resolve(&s->lay, table, len)) < 0)
		goto fail;
	memcpy(s->vram + s->vram_bytes - (64 << 10), table, len);
	sim_regs_clean_session(s, o->mark);
	config_init(s);
	if ((ret = run(s, true)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	release(s);
	return amd_rewrap(__func__, ret, "");
}

/* What each process has of a sim: its interrupt source, its machine, its
 * sysfs tree (made by a create), its engines' threads. */
static int
run(struct amd_sim *s, bool tree)
{
	int ret;

	if ((s->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return amd_fail_at(NULL, -errno, "eventfd: %s", strerror(errno));
	s->machine.ops = &sim_machine_ops;
	memcpy(s->machine.root, s->root, sizeof(s->machine.root));
	if (tree && (ret = sim_tree_build(s)) < 0)
		return ret;
	if ((ret = sim_engine_start(s, &s->cp, AMD_SIM_CP, SIM_CP_QUEUES)) < 0)
		return ret;
	if ((ret = sim_engine_start(s, &s->sdma, AMD_SIM_SDMA,
				s->lay.sdma_q0 ? SIM_SDMA_QUEUES : 0)) < 0) {
		sim_engine_stop(&s->cp);
		return ret;
	}
	return 0;
}

int
amd_sim_attach(const char *root, const char *bus, const char *firmware,
	       struct amd_sim **out)
{
	static _Thread_local uint8_t table[10 << 10];
	const struct sim_layout *l;
	struct amd_sim *s;
	size_t len;
	int ret;

	if (!root || !out)
		return amd_fail(-EINVAL, "root or out is NULL");
	if (root[0] != '/' || strlen(root) >= 200 || (bus && strlen(bus) != 12) ||
	    (firmware && strlen(firmware) >= 256))
		return amd_fail(-EINVAL, "root \"%s\" is not an absolute path under 200 "
				"bytes, bus not of the form 0000:03:00.0, or firmware "
				"not under 256 bytes", root);
	if (!(s = calloc(1, sizeof(*s))))
		return amd_fail(-ENOMEM, "no memory for a sim");
	s->vram_fd = s->irq_fd = s->pause_fd = -1;
	s->shared = true;
	snprintf(s->bus, sizeof(s->bus), "%s", bus ? bus : "0000:03:00.0");
	snprintf(s->root, sizeof(s->root), "%s", root);
	if (firmware)
		snprintf(s->fw_dir, sizeof(s->fw_dir), "%s", firmware);
	locks_init(s);
	if ((ret = sim_shared_attach(s, root, s->bus)) < 0)
		goto fail_early;
	if (!(l = sim_layout_find(s->sh->gc))) {
		ret = amd_fail(-EPROTO, "%s's GC %.15s is not one the sim models", s->bus,
			       s->sh->gc);
		goto fail_early;
	}
	s->lay = *l;
	s->lay.xccs = s->sh->xccs >= 1 && s->sh->xccs <= SIM_XCCS ? s->sh->xccs : 1;
	s->lay.aids = s->sh->aids >= 1 && s->sh->aids <= SIM_AIDS &&
		      s->lay.xccs % s->sh->aids == 0 ? s->sh->aids : 1;
	s->vram_bytes = s->sh->vram_bytes;
	s->bar0_bytes = atomic_load(&s->sh->bar0_bytes);
	atomic_init(&s->bar0_now, s->bar0_bytes);
	if ((ret = sim_bus_join(s, NULL)) < 0)
		goto fail_early;
	len = sim_table_build(&s->lay, table, sizeof(table));
	if ((ret = vram_make(s, false)) < 0 ||
	    (ret = sim_layout_resolve(&s->lay, table, len)) < 0 ||
	    (ret = run(s, false)) < 0) {
		release(s);
		return amd_rewrap(__func__, ret, "");
	}
	*out = s;
	return 0;
fail_early:
	locks_destroy(s);
	sim_shared_unmap(s);
	free(s);
	return amd_rewrap(__func__, ret, "");
}

void
amd_sim_destroy(struct amd_sim *s)
{
	if (!s)
		return;
	sim_engine_stop(&s->cp);
	sim_engine_stop(&s->sdma);
	release(s);
}

const char *
amd_sim_bus(const struct amd_sim *s)
{
	return s ? s->bus : NULL;
}

const struct rig_pci_machine *
amd_sim_machine(struct amd_sim *s)
{
	return s ? &s->machine : NULL;
}

int
amd_sim_vram_fd(const struct amd_sim *s)
{
	return s ? s->vram_fd : -1;
}

void *
amd_sim_vram(const struct amd_sim *s)
{
	return s ? s->vram : NULL;
}

uint64_t
amd_sim_vram_bytes(const struct amd_sim *s)
{
	return s ? s->vram_bytes : 0;
}

int
amd_sim_irq_fd(const struct amd_sim *s)
{
	return s ? s->irq_fd : -1;
}

uint64_t
amd_sim_dropped_dma(struct amd_sim *s)
{
	return s ? atomic_load(&s->dropped_dma) : 0;
}

int
amd_sim_host_alloc(struct amd_sim *s, size_t bytes, void **ptr, uint64_t *bus)
{
	struct sim_host_region *r;
	void *p;

	if (!s || !ptr || !bus)
		return amd_fail(-EINVAL, "sim, ptr or bus is NULL");
	if (!bytes || bytes % 4096 || bytes > (1ull << 34))
		return amd_fail(-EINVAL, "%zu bytes is not a multiple of 4 KiB up to "
				"16 GiB", bytes);
	pthread_mutex_lock(&s->host_lock);
	if (s->nhost == SIM_HOST_REGIONS) {
		pthread_mutex_unlock(&s->host_lock);
		return amd_fail(-ENOSPC, "the sim holds %d host regions already",
				SIM_HOST_REGIONS);
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		pthread_mutex_unlock(&s->host_lock);
		return amd_fail(-ENOMEM, "cannot map %zu bytes of host memory", bytes);
	}
	r = &s->host[s->nhost];
	*r = (struct sim_host_region){ s->next_bus, bytes, p };
	s->next_bus += (bytes + (2u << 20) - 1) & ~(uint64_t)((2u << 20) - 1);
	*ptr = p;
	*bus = r->bus;
	/* Release: the region before the count sim_bus_ptr() reads. */
	atomic_store_explicit(&s->nhost, s->nhost + 1, memory_order_release);
	pthread_mutex_unlock(&s->host_lock);
	return 0;
}

int
amd_sim_config_read(struct amd_sim *s, uint32_t offset, void *buf, size_t n)
{
	if (!s || !buf)
		return amd_fail(-EINVAL, "sim or buf is NULL");
	if (offset > SIM_CONFIG_BYTES || n > SIM_CONFIG_BYTES - offset)
		return amd_fail(-EINVAL, "%zu bytes at 0x%x are past config space",
				n, offset);
	pthread_mutex_lock(&s->config_lock);
	memcpy(buf, s->config + offset, n);
	pthread_mutex_unlock(&s->config_lock);
	return 0;
}

int
amd_sim_config_write(struct amd_sim *s, uint32_t offset, const void *buf,
		     size_t n)
{
	uint16_t command;

	if (!s || !buf)
		return amd_fail(-EINVAL, "sim or buf is NULL");
	if (offset > SIM_CONFIG_BYTES || n > SIM_CONFIG_BYTES - offset)
		return amd_fail(-EINVAL, "%zu bytes at 0x%x are past config space",
				n, offset);
	if (offset < 4 && n)
		return amd_fail(-EINVAL, "vendor and device ids are read-only");
	pthread_mutex_lock(&s->config_lock);
	memcpy(s->config + offset, buf, n);
	memcpy(&command, s->config + 4, 2);
	atomic_store_explicit(s->bus_master, command & 4, memory_order_release);
	pthread_mutex_unlock(&s->config_lock);
	return 0;
}

/* Enters q's doorbell in the decode or takes it out, for a route r of
 * an even dword index (a doorbell write is 8-aligned: an odd one never
 * matches). */
static void
route_slot(struct amd_sim *s, uint32_t r, uint32_t bit, bool on)
{
	uint32_t dw = r & ~SIM_ROUTE_ON;

	if (!r || (dw & 1) || dw / 2 >= SIM_BAR2_BYTES / 8)
		return;
	if (on)
		atomic_fetch_or_explicit(&s->db_route[dw / 2], (uint16_t)bit,
					 memory_order_release);
	else
		atomic_fetch_and_explicit(&s->db_route[dw / 2], (uint16_t)~bit,
					  memory_order_release);
}

void
sim_engine_route(struct sim_engine *e)
{
	for (int i = 0; i < e->nqueues; i++) {
		struct sim_queue *q = &e->q[i];
		/* SDMA's doorbell on NBIO 7.9 only through its routing (nbio.c). */
		bool routed = e->kind != AMD_SIM_SDMA ||
			      sim_nbio_sdma_routed(e->sim, q->doorbell);
		uint32_t r = q->enabled && q->doorbell_on && routed ?
			(q->doorbell & ~SIM_ROUTE_ON) | SIM_ROUTE_ON : 0;
		uint32_t bit = SIM_DB_BIT(e->kind, i);

		if (r == e->route[i])
			continue;
		route_slot(e->sim, e->route[i], bit, false);
		route_slot(e->sim, r, bit, true);
		e->route[i] = r;
	}
}

/*
 * A doorbell write to 64-bit slot `slot`: the write pointer of each queue
 * whose doorbell it is, then a kick of each engine of those that sleeps.
 * The decode is read without the engines' locks, as a GPU's doorbell
 * decode takes none: the lock was a line the engine thread takes every
 * pass, moved to the ringing thread and back at each doorbell. A write
 * racing a queue's start or stop lands before or after it, as it may on
 * hardware (a start resets the write pointer anyway).
 */
/* Whether a doorbell for the queues of bits must fence (ring_fences). */
static inline bool
ringers_fence(struct amd_sim *s, uint32_t bits)
{
	return ((bits & ((1u << SIM_CP_QUEUES) - 1)) &&
		atomic_load_explicit(&s->cp.ring_fences, memory_order_relaxed)) ||
	       ((bits >> SIM_CP_QUEUES) &&
		atomic_load_explicit(&s->sdma.ring_fences, memory_order_relaxed));
}

static inline void
ring(struct amd_sim *s, uint32_t slot, uint64_t value)
{
	uint32_t bits = atomic_load_explicit(&s->db_route[slot], memory_order_acquire);

	if (!bits)
		return;
	for (uint32_t b = bits; b; b &= b - 1) {
		unsigned i = (unsigned)__builtin_ctz(b);
		struct sim_engine *e = i < SIM_CP_QUEUES ? &s->cp : &s->sdma;

		/* Release: the packets the host wrote before it rang. */
		atomic_store_explicit(&e->q[i < SIM_CP_QUEUES ? i : i - SIM_CP_QUEUES].wptr,
				      value, memory_order_release);
	}
	/* The write pointers, then whether the engines sleep: a compiler
	 * barrier, as the engine's membarrier orders the two (above). */
	if (ringers_fence(s, bits))
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);
	if ((bits & ((1u << SIM_CP_QUEUES) - 1)) &&
	    atomic_load_explicit(&s->cp.asleep, memory_order_relaxed))
		sim_engine_kick(&s->cp);
	if ((bits >> SIM_CP_QUEUES) &&
	    atomic_load_explicit(&s->sdma.asleep, memory_order_relaxed))
		sim_engine_kick(&s->sdma);
}

/* The checks of a doorbell write's offset: 0, or -EINVAL naming it and
 * func. */
int
sim_doorbell_check(const char *func, uint64_t offset)
{
	if (offset % 8 || offset >= SIM_BAR2_BYTES)
		return amd_fail_at(func, -EINVAL, "doorbell 0x%llx is not an 8-aligned offset "
				"in BAR2's 2 MiB", (unsigned long long)offset);
	return 0;
}

int
amd_sim_doorbell(struct amd_sim *s, uint64_t offset, uint64_t value)
{
	int ret;

	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	if ((ret = sim_doorbell_check(__func__, offset)) < 0)
		return ret;
	ring(s, (uint32_t)(offset / 8), value);
	return 0;
}

/* A doorbell handle's ring (machine.c's doorbell_open): its slot, checked
 * there. */
void
sim_doorbell_ring(const struct pci_doorbell *db, uint64_t value)
{
	ring(db->ctx, (uint32_t)(uintptr_t)db->at, value);
}

static struct sim_queue *
queue_of(struct amd_sim *s, enum amd_sim_engine e, int queue)
{
	struct sim_engine *en = e == AMD_SIM_CP ? &s->cp : &s->sdma;

	if (e != AMD_SIM_CP && e != AMD_SIM_SDMA)
		return NULL;
	return queue >= 0 && queue < en->nqueues ? &en->q[queue] : NULL;
}

int
amd_sim_stall(struct amd_sim *s, enum amd_sim_engine e, int queue, bool stalled)
{
	struct sim_queue *q = s ? queue_of(s, e, queue) : NULL;

	if (!q)
		return amd_fail(-EINVAL, "no sim, or no queue %d of engine %d", queue, e);
	atomic_store(&q->stalled, stalled);
	sim_engine_kick(e == AMD_SIM_CP ? &s->cp : &s->sdma);
	return 0;
}

bool
amd_sim_halted(struct amd_sim *s, enum amd_sim_engine e, int queue, char *why,
	       size_t len)
{
	struct sim_queue *q = s ? queue_of(s, e, queue) : NULL;

	/* Acquire: pairs with sim_queue_halt()'s release, why written. */
	if (!q || !atomic_load_explicit(&q->halted, memory_order_acquire))
		return false;
	if (why && len)
		snprintf(why, len, "%s", q->why);
	return true;
}

bool
amd_sim_waiting(struct amd_sim *s, enum amd_sim_engine e, int queue)
{
	struct sim_queue *q = s ? queue_of(s, e, queue) : NULL;

	return q && atomic_load(&q->blocked);
}

int
amd_sim_idle(struct amd_sim *s, uint64_t timeout_ns)
{
	struct sim_engine *e[2];
	uint64_t waited = 0;

	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	e[0] = &s->cp;
	e[1] = &s->sdma;

	for (int k = 0; k < 2; k++) {
		uint32_t p0 = atomic_load_explicit(&e[k]->idle_passes, memory_order_acquire);

		/* Two passes with no progress: one began after this call. */
		while (atomic_load_explicit(&e[k]->idle_passes,
					    memory_order_acquire) - p0 < 2) {
			if (waited >= timeout_ns)
				return -ETIMEDOUT;
			sim_engine_kick(e[k]);
			usleep(50);
			waited += 50000;
		}
	}
	return 0;
}
