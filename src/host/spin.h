/* SPDX-License-Identifier: MIT */
/*
 * host/spin.h: how the host device's threads wait for another thread: a
 * short spin, then yields, then a sleep on an event count (util/ec.h). The
 * device thread waits so for submits (exec.c), the workers for tasks and
 * the runner for the workers that joined one (pool.c).
 *
 * Why each step. A spin (ck_pr_stall, the pause instruction) catches what
 * is already on its way, for no system call on either side. Yields come
 * next because this machine may have as many threads that want a core as
 * it has cores: on two cores, a thread that spins with pauses only keeps
 * the thread that would end its wait (or any other) off its core, so
 * after a few pauses (HOST_SPIN_PAUSES at most) the wait yields between
 * looks. The sleep
 * costs a wake-up on each side (a futex wake, then the sleeper's way back
 * onto a core: ~5-10 us here), so it comes last.
 *
 * Adaptive (no clock): each wait site keeps two budgets for its next wait,
 * of pauses and of yields. A wait that ended while pausing keeps its
 * pauses (the other thread runs on another core and is quick); one that
 * ended while yielding halves them, down to none: the thread that ends
 * the wait shares this core, and every pause only keeps it off. A wait
 * that ended before its yields ran out doubles them (up to
 * HOST_SPIN_YIELDS_MAX): the events come in a stream, and staying awake
 * pays. A wait that had to sleep halves them (down to
 * HOST_SPIN_YIELDS_MIN) and restores the pauses: the site idles, and
 * spinning there only takes cores from others. One thread owns a site's
 * budgets; nothing here is shared.
 *
 * Why not a library's: ck_ec's own wait spins a fixed number of pauses
 * (util/ec.h) and then sleeps, with no yields and no memory of earlier
 * waits; ck_backoff backs off
 * from contention on a lock, not from waiting for an event. Both serve as
 * the steps above (ck_pr_stall, ck_ec32_wait).
 */
#ifndef HOST_SPIN_H
#define HOST_SPIN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <ck_pr.h>

#define HOST_SPIN_PAUSES	32u	/* at most: ~2 us of pauses here (~60 ns each) */
#define HOST_SPIN_YIELDS_MIN	4u
#define HOST_SPIN_YIELDS_MAX	64u	/* ~0.3 us each on an idle core, a slice of another thread's otherwise */
_Static_assert(HOST_SPIN_YIELDS_MIN >= 1 && HOST_SPIN_YIELDS_MIN <= HOST_SPIN_YIELDS_MAX,
	       "a budget between its bounds");

/* A wait site: the budgets of its next wait. */
struct host_spin {
	uint32_t pauses;
	uint32_t yields;
};

/* One wait at a site, from its first look to its end. */
struct host_wait {
	struct host_spin *site;
	uint32_t step;
	bool slept;
};

static inline void
host_spin_init(struct host_spin *site)
{
	site->pauses = HOST_SPIN_PAUSES;
	site->yields = HOST_SPIN_YIELDS_MAX;
}

static inline struct host_wait
host_wait_begin(struct host_spin *site)
{
	return (struct host_wait){ .site = site, .step = 0, .slept = false };
}

/*
 * Wait a little before the next look: a pause, or a yield once the pauses
 * are spent. False once the budget of yields is spent too: the caller
 * sleeps (and calls host_wait_slept()).
 */
static inline bool
host_wait_spin(struct host_wait *w)
{
	if (w->step < w->site->pauses)
		ck_pr_stall();
	else if (w->step - w->site->pauses < w->site->yields)
		sched_yield();
	else
		return false;
	w->step++;
	return true;
}

/* The wait went to sleep (its spin is spent: it sleeps again next time). */
static inline void
host_wait_slept(struct host_wait *w)
{
	w->slept = true;
}

/* The wait is over: tune the site's budget for its next wait. */
static inline void
host_wait_end(struct host_wait *w)
{
	struct host_spin *s = w->site;

	if (w->slept) {
		s->pauses = HOST_SPIN_PAUSES;
		s->yields = s->yields / 2 > HOST_SPIN_YIELDS_MIN ? s->yields / 2 : HOST_SPIN_YIELDS_MIN;
		return;
	}
	if (w->step > s->pauses)	/* ended while yielding */
		s->pauses /= 2;
	s->yields = s->yields * 2 < HOST_SPIN_YIELDS_MAX ? s->yields * 2 : HOST_SPIN_YIELDS_MAX;
}

#endif
