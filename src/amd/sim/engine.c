/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/engine.c: the sim's engines, each a thread, and how one goes to
 * sleep without losing a doorbell (sim.c's ring is the other side).
 *
 * An engine (the CP, the SDMA) is a thread that runs its queues until no
 * queue can progress, then sleeps on its event count (Concurrency Kit's
 * ck_ec, on futexes: below) until a doorbell, a register write that starts a queue, or a stop bumps
 * it. While a queue waits on memory (WAIT_REG_MEM, POLL_REGMEM) the engine
 * looks again every 50 us, as the hardware polls: memory another agent
 * writes rings no doorbell. Any thread may ring (ec_mp).
 *
 * Going to sleep, the engine sets asleep, calls membarrier
 * (MEMBARRIER_CMD_PRIVATE_EXPEDITED), and only then looks at its queues
 * once more; a ringer stores the write pointer and looks at asleep with
 * only a compiler barrier between (sim.c says why that is Dekker's
 * pattern, liburcu memb's pairing). asleep then stays set until a pass
 * makes progress, so a poll's timed wake or a kick that found nothing
 * costs no second membarrier.
 *
 * Each membarrier interrupts the process's running threads, so an engine
 * that just ran out of work keeps looking (yielding the core at each
 * pass) for spin_ns (AMD_SIM_SPIN_NS, amd_sim_spin) before it sets asleep:
 * a stream of doorbells finds it awake. An idle engine then sleeps with no
 * deadline and takes no CPU. Where membarrier cannot be registered (an old
 * kernel, a seccomp filter) or a call fails, ring_fences is set: ringers
 * fence as before, and the engine's sleeps end every POLL_NS, which picks
 * up any doorbell rung as the flag changed.
 *
 * This is the sim's own small call, as the ck_ec platform below is its
 * own: src/amd reaches rig only through rig_edge.h (check_amd_includes),
 * so it cannot share src/util's.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ck_ec.h>

#include "amd/amd.h"
#include "amd/fail.h"
#include "amd/sim/priv.h"

#define POLL_NS		50000

/*
 * ck_ec's platform: the clock, wait and wake it asks for, on futexes. The
 * AMD path reaches rig only through rig_edge.h, so this is the sim's own
 * copy of the table src/util/ec.h keeps for rig's core. A doorbell's bump
 * with no engine asleep is one atomic increment; only a sleeping engine
 * costs the ringer a futex wake. The wait's deadline is CLOCK_MONOTONIC,
 * as FUTEX_WAIT_BITSET takes it.
 */
static int
ec_gettime(const struct ck_ec_ops *ops, struct timespec *out)
{
	(void)ops;
	return clock_gettime(CLOCK_MONOTONIC, out);
}

static void
ec_wait32(const struct ck_ec_wait_state *state, const uint32_t *addr,
	  uint32_t expected, const struct timespec *deadline)
{
	(void)state;
	syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, expected, deadline,
		NULL, FUTEX_BITSET_MATCH_ANY);
}

static void
ec_wake32(const struct ck_ec_ops *ops, const uint32_t *addr)
{
	(void)ops;
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * initial_wait_ns: ck_ec sleeps in steps of a backoff that starts there
 * (2 ms by default) and looks at the caller's deadline only between
 * steps, so a queue's 50 us poll slept 2 ms. Starting the backoff at the
 * poll makes a poll's sleep the poll; an idle engine's sleep (no
 * deadline) grows from there to ck_ec's unbounded wait as before.
 */
static const struct ck_ec_ops sim_ec_ops = {
	.gettime = ec_gettime,
	.wait32 = ec_wait32,
	.wake32 = ec_wake32,
	.busy_loop_iter = 16,
	.initial_wait_ns = POLL_NS,
};
/* Any thread rings a doorbell: many producers. */
static const struct ck_ec_mode sim_ec_mode = { .ops = &sim_ec_ops,
					       .single_producer = false };

void
sim_engine_kick(struct sim_engine *e)
{
	ck_ec32_inc(&e->ec, &sim_ec_mode);
}

/* The engine's lock is recursive (sim_engine_start): its thread holds it for
 * each packet, and a packet's register write or a launch's callback
 * reaches paths that take it again (priv.h). */
void
sim_engine_lock(struct sim_engine *e)
{
	pthread_mutex_lock(&e->lock);
}

void
sim_engine_unlock(struct sim_engine *e)
{
	pthread_mutex_unlock(&e->lock);
}

void
sim_queue_halt(struct sim_queue *q, const char *fmt, ...)
{
	va_list ap;

	if (atomic_load(&q->halted))
		return;
	va_start(ap, fmt);
	vsnprintf(q->why, sizeof(q->why), fmt, ap);
	va_end(ap);
	/* Release: why before the flag amd_sim_halted() reads. */
	atomic_store_explicit(&q->halted, true, memory_order_release);
}

/* The engine's side of the doorbell's barrier (above): membarrier, or
 * where that fails a fence, and the ringers told to fence too. */
static void
engine_barrier(struct sim_engine *e)
{
	atomic_signal_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&e->ring_fences, memory_order_relaxed) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) {
		atomic_signal_fence(memory_order_seq_cst);
		return;
	}
	atomic_store_explicit(&e->ring_fences, true, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

/* Whether an engine with nothing to do since *idle_since (0: it just had
 * something) keeps looking rather than going to sleep (above). */
static bool
still_spinning(struct sim_engine *e, uint64_t *idle_since)
{
	uint64_t spin = atomic_load_explicit(&e->spin_ns, memory_order_relaxed);
	struct timespec ts;
	uint64_t now;

	if (!spin)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!*idle_since)
		*idle_since = now;
	return now - *idle_since < spin;
}

/* A sleep's deadline: now + POLL_NS on CLOCK_MONOTONIC. */
static void
poll_deadline(struct timespec *until)
{
	clock_gettime(CLOCK_MONOTONIC, until);
	until->tv_nsec += POLL_NS;
	if (until->tv_nsec >= 1000000000) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000;
	}
}

static void *
engine_main(void *arg)
{
	struct sim_engine *e = arg;
	uint64_t idle_since = 0;

	while (!atomic_load_explicit(&e->stop, memory_order_acquire)) {
		uint32_t seen = ck_ec32_value(&e->ec);
		bool progress = false, waiting = false, timed;
		struct timespec until;

		for (int i = 0; i < e->nqueues; i++) {
			progress |= e->kind == AMD_SIM_CP ? cp_run(e->sim, i)
							  : sdma_run(e->sim, i);
			waiting |= atomic_load(&e->q[i].blocked);
		}
		if (progress) {
			if (atomic_load_explicit(&e->asleep, memory_order_relaxed))
				atomic_store_explicit(&e->asleep, false, memory_order_relaxed);
			idle_since = 0;
			continue;
		}
		if (!atomic_load_explicit(&e->asleep, memory_order_relaxed)) {
			if (still_spinning(e, &idle_since)) {
				sched_yield();
				continue;
			}
			/* On the way to sleep: doorbells from now on kick (above). */
			atomic_store_explicit(&e->asleep, true, memory_order_relaxed);
			engine_barrier(e);
			atomic_fetch_add_explicit(&e->sleeps, 1, memory_order_relaxed);
			continue;	/* the look at what rang before the barrier */
		}
		atomic_fetch_add_explicit(&e->idle_passes, 1, memory_order_release);
		/* A queue waits on memory, or a doorbell may have gone unseen
		 * as ring_fences changed (above): a poll long. asleep stays
		 * set through the wait, its barrier still standing. */
		timed = waiting || atomic_load_explicit(&e->ring_fences, memory_order_relaxed);
		if (timed)
			poll_deadline(&until);
		ck_ec32_wait(&e->ec, &sim_ec_mode, seen, timed ? &until : NULL);
	}
	return NULL;
}

/* Whether this process may call membarrier's private expedited command:
 * registered once per process (again is a no-op, and a forked child's
 * engines register its own). */
static bool
membarrier_ready(void)
{
	return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

int
sim_engine_start(struct amd_sim *s, struct sim_engine *e, enum amd_sim_engine kind,
	     int nqueues)
{
	pthread_mutexattr_t attr;
	int ret;

	e->sim = s;
	e->kind = kind;
	e->nqueues = nqueues;
	ck_ec32_init(&e->ec, 0);
	atomic_init(&e->ring_fences, !membarrier_ready());
	atomic_init(&e->spin_ns, AMD_SIM_SPIN_NS);
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&e->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	ret = pthread_create(&e->thread, NULL, engine_main, e);
	if (ret) {
		pthread_mutex_destroy(&e->lock);
		return amd_fail_at(NULL, -ret, "cannot start the sim's engine thread: %s",
				strerror(ret));
	}
	return 0;
}

void
sim_engine_stop(struct sim_engine *e)
{
	atomic_store_explicit(&e->stop, true, memory_order_release);
	sim_engine_kick(e);
	pthread_join(e->thread, NULL);
	pthread_mutex_destroy(&e->lock);
}

int
amd_sim_spin(struct amd_sim *s, uint64_t ns)
{
	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	if (ns > 1000000000u)
		return amd_fail(-EINVAL, "a spin of %llu ns is over 1 s",
				(unsigned long long)ns);
	atomic_store_explicit(&s->cp.spin_ns, ns, memory_order_relaxed);
	atomic_store_explicit(&s->sdma.spin_ns, ns, memory_order_relaxed);
	return 0;
}

uint64_t
amd_sim_sleeps(struct amd_sim *s, enum amd_sim_engine e)
{
	if (!s || (e != AMD_SIM_CP && e != AMD_SIM_SDMA))
		return 0;
	return atomic_load_explicit(e == AMD_SIM_CP ? &s->cp.sleeps : &s->sdma.sleeps,
				    memory_order_relaxed);
}

