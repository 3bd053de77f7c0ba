/*
 * timeline/poller.c: the polling thread, one per process. It watches the
 * words of the timelines that have waiters and bumps a timeline's futex
 * whenever its word moves. With nobody waiting it sleeps on its own futex:
 * no polling while nothing waits.
 *
 * The poller reads timelines inside an RCU read-side section; a device's
 * end unregisters its timeline and waits for a grace period before the
 * timeline's memory may go, so the poller never reads freed memory.
 *
 * Between scans it sleeps 1 us, doubling to 200 us while nothing moves, so
 * a wake costs little when work completes quickly and the poller costs
 * little when it does not.
 */
#include <pthread.h>
#include <sys/prctl.h>

#include "util/futex.h"
#include "util/rcu.h"
#include "timeline/timeline.h"

#ifdef RCU_TSAN
char rcu_tsan_gp_token;
#endif

#define NAP_MIN_NS 1000u
#define NAP_MAX_NS 200000u

static struct timeline *watched[RIG_WORD_SLOTS];
static uint64_t seen[RIG_WORD_SLOTS];	/* the poller's own: last word it saw */
static _Atomic uint32_t kicks;		/* the poller sleeps on this */
static pthread_once_t started = PTHREAD_ONCE_INIT;
static bool running;			/* written once, under pthread_once */

void
poller_register(struct timeline *tl)
{
	p_rcu_assign_pointer(watched[tl->slot], tl);
}

void
poller_unregister(struct timeline *tl)
{
	p_rcu_assign_pointer(watched[tl->slot], NULL);
	p_synchronize_rcu();
}

struct timeline *
timeline_get(uint32_t slot)
{
	struct timeline *tl;

	if (slot >= RIG_WORD_SLOTS)
		return NULL;
	p_rcu_read_lock();
	tl = p_rcu_dereference(watched[slot]);
	if (tl)
		tl->hold(tl, true);
	p_rcu_read_unlock();
	return tl;
}

void
timeline_put(struct timeline *tl)
{
	tl->hold(tl, false);
}

int
timeline_wait_slot(uint32_t slot, uint64_t value, uint64_t timeout_ns)
{
	struct timeline *tl = timeline_get(slot);
	int ret;

	if (!tl)
		return 0;
	ret = timeline_wait(tl, value, timeout_ns);
	timeline_put(tl);
	return ret;
}

/* One pass over the watched words; true if any has waiters. */
static bool
scan(bool *moved)
{
	bool waiting = false;

	p_rcu_read_lock();
	for (int i = 0; i < RIG_WORD_SLOTS; i++) {
		struct timeline *tl = p_rcu_dereference(watched[i]);
		uint64_t w;

		if (!tl || !atomic_load(&tl->waiters))
			continue;
		waiting = true;
		w = timeline_word(tl);
		if (w != seen[i]) {
			seen[i] = w;
			*moved = true;
			timeline_wake(tl);
		}
	}
	p_rcu_read_unlock();
	return waiting;
}

static void *
poll_loop(void *arg)
{
	uint64_t nap = NAP_MIN_NS;

	(void)arg;
	prctl(PR_SET_NAME, "rig-poller");
	prctl(PR_SET_TIMERSLACK, 1UL);
	rcu_register_thread();
	for (;;) {
		uint32_t k = atomic_load(&kicks);
		bool moved = false;

		if (!scan(&moved)) {
			/* Nothing waits: sleep until a waiter kicks. */
			rcu_thread_offline();
			futex_wait(&kicks, k, UINT64_MAX);
			rcu_thread_online();
			nap = NAP_MIN_NS;
			continue;
		}
		nap = moved ? NAP_MIN_NS : (nap * 2 > NAP_MAX_NS ? NAP_MAX_NS : nap * 2);
		rcu_thread_offline();
		futex_wait(&kicks, k, nap);
		rcu_thread_online();
	}
	return NULL;
}

static void
start(void)
{
	pthread_t t;
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	running = pthread_create(&t, &a, poll_loop, NULL) == 0;
	pthread_attr_destroy(&a);
}

bool
poller_kick(void)
{
	pthread_once(&started, start);
	if (!running)
		return false;
	atomic_fetch_add(&kicks, 1);
	futex_wake_all(&kicks);
	return true;
}
