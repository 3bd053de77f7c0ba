/*
 * timeline/wait.c: blocking until a value is signaled, or settled.
 *
 * Two waits: a program's (rig_wait) ends once its value is signaled, so a
 * loss answers at once; rig's own waits that order memory (a device that
 * waits on the host for another's value, a host read) end once the value
 * is settled, since after a loss the lost device's work may still run until
 * its driver stops, and rig raises the word only then.
 *
 * A waiter first spins briefly (work that is about to complete costs no
 * system call), then makes sure its value is committed (no call ever sleeps
 * on work a driver still holds), then looks for up to SPIN_NS more,
 * yielding the core between looks (short work on another thread finishes
 * without a wake-up's latency), then sleeps on the futex beside the word.
 * The word is the driver's, so nobody but rig bumps the futex: the polling
 * thread watches every word that has waiters, and whoever loses the device
 * bumps it too.
 *
 * Why no wake is lost: the waiter reads the futex counter f, then checks the
 * word, then sleeps only while the counter is still f. Whoever sees the word
 * move bumps the counter after the word's store, so either the waiter's
 * check sees the new word or its futex_wait sees a counter other than f.
 */
#include <sched.h>

#include <ck_pr.h>

#include "rig.h"
#include "util/futex.h"
#include "timeline/timeline.h"

#define SPINS 256
#define SPIN_NS 50000u		/* yielding looks after the commit */
#define LONE_NAP_NS 100000u	/* with no poller thread, look this often */

static int
outcome(struct timeline *tl, uint64_t v)
{
	return timeline_reached(tl, v) ? 0 : RIG_ELOST;
}

static uint64_t
deadline_after(uint64_t timeout_ns)
{
	uint64_t now = rig_now_ns();

	return timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

/* Whether the wait for v is over: v signaled, or settled for rig's own. */
static bool
over(struct timeline *tl, uint64_t v, bool settled)
{
	return settled ? timeline_settled(tl, v) : timeline_signaled(tl, v);
}

static int
wait_for(struct timeline *tl, uint64_t v, uint64_t timeout_ns, bool settled)
{
	uint64_t deadline, now, nap;
	int ret;

	for (int i = 0; i < SPINS; i++) {
		if (over(tl, v, settled))
			return outcome(tl, v);
		ck_pr_stall();
	}
	deadline = deadline_after(timeout_ns);
	ret = tl->commit(tl, v);
	if (ret < 0 && !settled)
		return outcome(tl, v);	/* lost: v is signaled */
	for (uint64_t until = rig_now_ns() + SPIN_NS; rig_now_ns() < until &&
	     rig_now_ns() < deadline;) {
		if (over(tl, v, settled))
			return outcome(tl, v);
		sched_yield();
	}

	atomic_fetch_add(&tl->waiters, 1);
	nap = poller_kick() ? UINT64_MAX : LONE_NAP_NS;
	for (;;) {
		uint32_t f = atomic_load_explicit(tl->futex, memory_order_acquire);

		if (over(tl, v, settled)) {
			ret = outcome(tl, v);
			break;
		}
		now = rig_now_ns();
		if (now >= deadline) {
			ret = RIG_ETIMEDOUT;
			break;
		}
		futex_wait(tl->futex, f, deadline - now < nap ?
			   deadline - now : nap);
	}
	atomic_fetch_sub(&tl->waiters, 1);
	return ret;
}

int
timeline_wait(struct timeline *tl, uint64_t v, uint64_t timeout_ns)
{
	return wait_for(tl, v, timeout_ns, false);
}

int
timeline_wait_settled(struct timeline *tl, uint64_t v, uint64_t timeout_ns)
{
	return wait_for(tl, v, timeout_ns, true);
}
