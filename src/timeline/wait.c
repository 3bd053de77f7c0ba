/* SPDX-License-Identifier: MIT */
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
 * system call; briefly, since the thread that ends the wait may share the
 * waiter's core), then makes sure its value is committed (no call ever sleeps
 * on work a driver still holds), then looks for up to SPIN_NS more,
 * yielding the core between looks (short work on another thread finishes
 * without a wake-up's latency), then sleeps on the event count beside the
 * word (words.c). The word is the driver's, so the count moves only when
 * someone bumps it: the polling thread, which watches every word that has
 * waiters; whoever loses the device; and a driver that calls
 * rig_word_wake() after it stores the word.
 *
 * Why no wake is lost: the waiter reads the count f, then checks the word,
 * then sleeps only while the count is still f (ck_ec32_wait(), which flags
 * the count before it sleeps, so the next bump wakes it). Whoever sees or
 * makes the word move bumps the count after the word's store, so either
 * the waiter's check sees the new word or its wait sees a count other
 * than f.
 */
#include <sched.h>

#include <ck_pr.h>

#include "rig.h"
#include "util/ec.h"
#include "util/futex.h"
#include "timeline/timeline.h"

/* Pauses before the commit: ~1 us here (a pause costs ~60 ns on these
 * cores). Longer, a waiter that shares its core with the thread that ends
 * its wait keeps that thread off until it yields: 256 made a host round
 * trip ~11 us instead of ~4-5 us on two cores. */
#define SPINS 16
#define SPIN_NS 50000u		/* yielding looks after the commit */
#define LONE_NAP_NS 100000u	/* with no poller thread, look this often */
/* Ask again for a commit that a blocking driver call held up, and look at
 * the other timeline of a wait that ends with its loss, this often. */
#define RETRY_NS 1000000u

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

/* Sleep while the count shows f, until the clock shows until_ns at most
 * (UINT64_MAX: no limit). */
static void
sleep_on(struct ck_ec32 *ec, uint32_t f, uint64_t until_ns)
{
	struct timespec until;

	ck_ec32_wait(ec, ec_mp(), f, ec_until(until_ns, &until));
}

/* Whether the wait for v is over: v signaled, or settled for rig's own. */
static bool
over(struct timeline *tl, uint64_t v, bool settled)
{
	return settled ? timeline_settled(tl, v) : timeline_signaled(tl, v);
}

/* Whether the wait is over for also: it was given and is lost. */
static bool
also_lost(const struct timeline *also)
{
	return also && atomic_load_explicit(&also->lost, memory_order_acquire);
}

/*
 * The wait. also: a timeline whose loss ends it too (or NULL). A commit
 * the driver cannot take now (a call that may block holds it: 1) is asked
 * again every RETRY_NS, so the wait keeps its deadline and never sleeps
 * behind the call.
 */
static int
wait_for(struct timeline *tl, uint64_t v, uint64_t timeout_ns, bool settled,
	 struct timeline *also)
{
	uint64_t deadline, now, nap, until;
	bool pending;
	int ret;

	for (int i = 0; i < SPINS; i++) {
		if (over(tl, v, settled))
			return outcome(tl, v);
		ck_pr_stall();
	}
	deadline = deadline_after(timeout_ns);
	ret = tl->commit(tl, v);
	pending = ret > 0;
	if (ret < 0 && !settled)
		return outcome(tl, v);	/* lost: v is signaled */
	for (until = rig_now_ns() + SPIN_NS; rig_now_ns() < until &&
	     rig_now_ns() < deadline;) {
		if (over(tl, v, settled))
			return outcome(tl, v);
		sched_yield();
	}

	atomic_fetch_add(&tl->waiters, 1);
	nap = poller_kick() ? UINT64_MAX : LONE_NAP_NS;
	if (also && nap > RETRY_NS)
		nap = RETRY_NS;
	for (;;) {
		uint32_t f = ck_ec32_value(tl->futex);	/* an acquire: before the look */

		if (pending) {
			ret = tl->commit(tl, v);
			pending = ret > 0;
			if (ret < 0 && !settled) {
				ret = outcome(tl, v);
				break;
			}
		}
		if (over(tl, v, settled)) {
			ret = outcome(tl, v);
			break;
		}
		if (also_lost(also)) {
			ret = RIG_ELOST;
			break;
		}
		now = rig_now_ns();
		if (now >= deadline) {
			ret = RIG_ETIMEDOUT;
			break;
		}
		until = pending && nap > RETRY_NS ? now + RETRY_NS :
			nap == UINT64_MAX ? UINT64_MAX : now + nap;
		sleep_on(tl->futex, f, deadline < until ? deadline : until);
	}
	atomic_fetch_sub(&tl->waiters, 1);
	return ret;
}

int
timeline_wait(struct timeline *tl, uint64_t v, uint64_t timeout_ns)
{
	return wait_for(tl, v, timeout_ns, false, NULL);
}

int
timeline_wait_also(struct timeline *tl, uint64_t v, struct timeline *also)
{
	return wait_for(tl, v, UINT64_MAX, false, also);
}

int
timeline_wait_settled(struct timeline *tl, uint64_t v, uint64_t timeout_ns)
{
	return wait_for(tl, v, timeout_ns, true, NULL);
}
