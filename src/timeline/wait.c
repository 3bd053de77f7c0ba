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
 * on work a driver still holds), then looks for up to TIMELINE_YIELD_NS
 * more, yielding the core between looks (short work on another thread
 * finishes without a wake-up's latency), then sleeps on the event count
 * beside the word (words.c), waking itself near the end it expects (below).
 * The word is the driver's, so the count moves only when someone bumps it:
 * the polling thread, which watches every word that has waiters; whoever
 * loses the device; and a driver that calls rig_word_wake() after it
 * stores the word.
 *
 * Awake at the expected end. A sleeper's wake-up costs the futex's system
 * call on the waker and, on this virtual machine, some 10-40 us before the
 * sleeper runs again (bench/host.c's last_group_to_wait), while a thread that
 * yields is on a run queue and runs at the next yield of the thread that
 * ended its wait. Yielding through the whole wait costs the other work,
 * though: a waiter that yields looks busy, so a worker that wakes finds no
 * idle core and may queue behind another (on two cores, a 1 ms host launch
 * took 2 ms with its waiter yielding throughout, the program's threads at
 * real-time priority standing in for an idle machine). So a wait that goes
 * past its first TIMELINE_YIELD_NS sleeps until shortly before the end its
 * timeline expects (expect_ns, from the last waits there:
 * timeline_expect_next()), then yields from TIMELINE_EARLY_NS before that
 * end to as long after it (and an eighth of the wait more,
 * TIMELINE_LATE_MAX_NS at most), then sleeps again until it is woken; a bump
 * that comes while it sleeps wakes it as ever. So a wait yields at most
 * TIMELINE_YIELD_NS + 2 x TIMELINE_EARLY_NS + TIMELINE_LATE_MAX_NS, and a
 * process that waits for nothing spends nothing. A waiter past
 * TIMELINE_YIELD_NS counts itself among the waiters, asleep or yielding (the
 * poller watches the word and its hang clock runs). Timeouts and losses tell
 * nothing of how long values take, and leave expect_ns as it was.
 *
 * The waiter runs the work (tl->assist, a driver's ops.assist). Where the
 * driver lends it, a wait that stays awake joins the work it waits for
 * at each look: it runs parts of it on its own thread (the host device:
 * chunks of the running launch), so it is awake and on a core at the
 * work's end, and is often the thread that ends it (then it returns with
 * no wake-up at all). After the parts it could take it stays awake for as
 * long as the driver says the rest should take (stay_ns, at most
 * TIMELINE_LATE_MAX_NS), then goes on as any wait. A sleeper looks too
 * each time it wakes: such a driver wakes the word's sleepers as the work
 * a waiter could join begins. Only a wait that
 * nothing ends before its device's hang clock would (no deadline, or one
 * past twice hang_ns and ASSIST_MARGIN_NS more) runs work: a kernel holds
 * the thread that runs it until it returns, so a shorter timeout would
 * otherwise pass unseen (and a kernel that waits for the waiter's own
 * next step would never end). While it runs work with a hang clock it
 * counts itself among the waiters, so the clock runs as for a sleeper,
 * and a hang loses the device, whose stop interrupts the kernel on the
 * waiter's thread too.
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
#define LONE_NAP_NS 100000u	/* with no poller thread, look this often */
/* Ask again for a commit that a blocking driver call held up, and look at
 * the other timeline of a wait that ends with its loss, this often. */
#define RETRY_NS 1000000u
/* A wait with a deadline runs work only where the hang clock ends a stuck
 * kernel this long before it, at least (see the top). */
#define ASSIST_MARGIN_NS 10000000u

static int
outcome(struct timeline *tl, uint64_t v)
{
	return timeline_reached(tl, v) ? 0 : RIG_ELOST;
}

/* Sleep while the count shows f, until the clock shows until_ns at most
 * (UINT64_MAX: no limit). */
static void
sleep_on(struct ck_ec32 *ec, uint32_t f, uint64_t until_ns)
{
	struct timespec until;

	ec32_wait_until(ec, ec_mp(), f, ec_until(until_ns, &until));
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

uint64_t
timeline_expect_next(uint64_t expect_ns, uint64_t waited_ns)
{
	/* Half the way down to a shorter wait, a sixteenth up to a longer
	 * one: the expectation follows the short end of the waits, so one
	 * slow value (a loaded machine's) moves it little, and a wait wakes
	 * early rather than late (an end before the wake costs a sleeper's
	 * wake-up; one a little after it, a few more yields). */
	if (expect_ns == 0)
		return waited_ns;
	if (waited_ns >= expect_ns)
		return expect_ns + (waited_ns - expect_ns) / 16;
	return expect_ns - (expect_ns - waited_ns) / 2;
}

void
timeline_yield_span(uint64_t start_ns, uint64_t expect_ns, uint64_t *from_ns, uint64_t *to_ns)
{
	uint64_t late = expect_ns / 8 < TIMELINE_LATE_MAX_NS ? expect_ns / 8 : TIMELINE_LATE_MAX_NS;

	*from_ns = start_ns + (expect_ns > TIMELINE_EARLY_NS ? expect_ns - TIMELINE_EARLY_NS : 0);
	*to_ns = start_ns + expect_ns + TIMELINE_EARLY_NS + late;
}

/* Whether this wait may run v's work (see the top): nothing ends it before
 * the device's hang clock would. */
static bool
may_assist(const struct timeline *tl, uint64_t deadline, uint64_t now)
{
	if (!tl->assist)
		return false;
	if (deadline == UINT64_MAX)
		return true;
	return tl->hang_ns && deadline > now &&
	       deadline - now > 2 * tl->hang_ns + ASSIST_MARGIN_NS;
}

/* Run some of v's work on this thread where the driver has any to join:
 * the time to stay awake after it, 0 where it ran none. */
static uint64_t
assist(struct timeline *tl, uint64_t v)
{
	uint64_t stay = 0;
	int ret;

	/* The look first: a wait whose work does not run now (an empty
	 * kernel on the device's own thread) pays a load, no system call. */
	if (tl->assist(tl->assist_arg, v, false, NULL) != RIG_ASSIST_READY)
		return 0;
	if (tl->hang_ns) {
		/* The hang clock runs while the kernel holds this thread. */
		atomic_fetch_add(&tl->waiters, 1);
		poller_kick();
	}
	ret = tl->assist(tl->assist_arg, v, true, &stay);
	if (tl->hang_ns)
		atomic_fetch_sub(&tl->waiters, 1);
	if (ret != RIG_ASSIST_RAN)
		return 0;
	stay = stay < TIMELINE_LATE_MAX_NS ? stay : TIMELINE_LATE_MAX_NS;
	return stay ? stay : 1;
}

/* Look at v, yielding between looks (or running its work, where the wait
 * may), until the clock shows until or the deadline; true once the wait
 * is over (v, or also's loss). */
static bool
yield_until(struct timeline *tl, uint64_t v, bool settled, struct timeline *also,
	    uint64_t until, uint64_t deadline)
{
	uint64_t now, stay;

	while ((now = rig_now_ns()) < until && now < deadline) {
		if (over(tl, v, settled) || also_lost(also))
			return true;
		if (may_assist(tl, deadline, now) && (stay = assist(tl, v))) {
			/* Awake for the rest of the work it joined. */
			now = rig_now_ns();
			if (until < now + stay)
				until = now + stay;
			continue;
		}
		sched_yield();
	}
	return false;
}

/*
 * The wait. also: a timeline whose loss ends it too (or NULL). A commit
 * the driver cannot take now (a call that may block holds it: 1) is asked
 * again every RETRY_NS, so the wait keeps its deadline and never sleeps
 * behind the call; such a wait does not yield near its expected end.
 */
static int
wait_for(struct timeline *tl, uint64_t v, uint64_t timeout_ns, bool settled,
	 struct timeline *also)
{
	uint64_t start, deadline, now, nap, until, expect, stay, yield_from = 0, yield_to = 0;
	bool pending;
	int ret;

	for (int i = 0; i < SPINS; i++) {
		if (over(tl, v, settled))
			return outcome(tl, v);
		ck_pr_stall();
	}
	start = rig_now_ns();
	deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
	ret = tl->commit(tl, v);
	pending = ret > 0;
	if (ret < 0 && !settled)
		return outcome(tl, v);	/* lost: v is signaled */
	if (yield_until(tl, v, settled, NULL, start + TIMELINE_YIELD_NS, deadline))
		return outcome(tl, v);

	atomic_fetch_add(&tl->waiters, 1);
	nap = poller_kick() ? UINT64_MAX : LONE_NAP_NS;
	if (also && nap > RETRY_NS)
		nap = RETRY_NS;
	/* Relaxed: a hint; another waiter's tuning may land in between. */
	expect = atomic_load_explicit(&tl->expect_ns, memory_order_relaxed);
	if (expect && !pending)
		timeline_yield_span(start, expect, &yield_from, &yield_to);
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
		if (may_assist(tl, deadline, now) && (stay = assist(tl, v))) {
			/* Woken as its work began (a driver that lends it
			 * wakes the word): it ran some, and stays awake. */
			yield_until(tl, v, settled, also, rig_now_ns() + stay, deadline);
			continue;
		}
		if (yield_to && now >= yield_from) {
			/* Near the expected end: awake for it (see the top). */
			yield_until(tl, v, settled, also, yield_to, deadline);
			yield_to = 0;
			continue;
		}
		until = pending && nap > RETRY_NS ? now + RETRY_NS :
			nap == UINT64_MAX ? UINT64_MAX : now + nap;
		if (yield_to && yield_from < until)
			until = yield_from;
		sleep_on(tl->futex, f, deadline < until ? deadline : until);
	}
	atomic_fetch_sub(&tl->waiters, 1);
	if (ret == 0)
		atomic_store_explicit(&tl->expect_ns,
				      timeline_expect_next(expect, rig_now_ns() - start),
				      memory_order_relaxed);
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
