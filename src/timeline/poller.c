/* SPDX-License-Identifier: MIT */
/*
 * timeline/poller.c: the polling thread, one per process (docs/threads.md).
 * It watches
 *  - the words of the timelines someone waits on, and bumps a timeline's
 *    futex whenever its word moves (wait.c sleeps on it);
 *  - the hang clocks: a device whose facts give hang_ms is lost with "no
 *    progress for n ms" once its word stays below a committed value (or a
 *    driver call that may block stays in flight, busy_since) for n ms
 *    while someone waits (docs/loss.md, Hangs). Someone is a thread in a wait (a
 *    program's, or a device's submission thread waiting on the host for a
 *    producer, counted for its whole wait), or another device whose
 *    queues wait for a value the word has not shown (queue_until, marked
 *    by a first pass of each scan). The clock starts when the poller
 *    first sees a waiter and again whenever the word moves; a device whose
 *    queues wait for a producer that has not shown the value runs out of
 *    time only for that producer, whose loss then loses it "lost with" it;
 *  - the drivers' interrupt sources (facts.events_fd), through epoll: a
 *    readable one makes the poller call the device's events hook;
 *  - the timelines with memory or submissions waiting for their word to
 *    move (reap_pending): it runs their return (the reap hook, reclaim/)
 *    when the word moved, and at reap_at, when memory kept for reuse falls
 *    due with no word moving;
 *  - the watches of fd.c (rig_wait_any(), rig_point_fd()): it fires each
 *    once its values are signaled.
 *
 * It sleeps in epoll_wait, woken by an eventfd that a new waiter kicks, by a
 * driver's fd, or by a timerfd armed for the next scan, hang or reap_at
 * deadline. With nobody waiting and nothing to return, the timer is off: no
 * polling while nothing waits. While someone waits it scans every 1 us,
 * doubling to 200 us while nothing moves; while only returns (or queues'
 * waits on producers with a hang clock) are pending, every 1 ms: returns
 * are batched, and an allocation that needs room returns memory itself,
 * so they need no haste worth a busy poller (nor a hang clock).
 *
 * A word whose driver wakes its sleepers itself (rig_word_wake() after its
 * store: the host device, the disk) needs no haste either: when such a
 * word moved, its event count moved too since the poller last left it, and
 * the move does not shorten the scans (the poller still bumps the count:
 * a bump nobody sleeps on is one increment), and while every word waited
 * on is such a word (as its last move told), the poller scans every 1
 * ms only (as for returns): it is there for the hang clocks, whose
 * deadlines it arms apart, and for a driver that stops waking. (At 200 us,
 * its wake-ups were 7% of the CPU time of bench/server.c, whose workers
 * each wait for a disk barrier most of the time.) The timer is periodic, and
 * re-armed only when the period the poller wants changes, or a deadline
 * comes sooner: one timerfd_settime() per change, not per scan.
 *
 * The poller reads timelines inside an RCU read-side section; a device's
 * end unregisters its timeline and waits for a grace period before the
 * timeline's memory may go, so the poller never reads freed memory. What
 * it calls from there (events, reap, a loss) never waits for a grace
 * period.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "util/futex.h"
#include "util/rcu.h"
#include "timeline/timeline.h"

#define NAP_MIN_NS 1000u
#define NAP_WAIT_MAX_NS 200000u		/* someone waits */
#define NAP_REAP_NS 1000000u		/* only returns (or queues' waits) are pending */
#define NAP_WAKES_ITSELF_NS 1000000u	/* every word waited on wakes its sleepers */
#define KICK_TOKEN ((uint64_t)1 << 32)
#define TIMER_TOKEN (((uint64_t)1 << 32) + 1)

static struct timeline *watched[RIG_WORD_SLOTS];
static _Atomic uint32_t high;		/* slots at or above it were never watched */
/* The poller's own: the last word it saw, and when each hang clock started
 * (0: stopped). */
static uint64_t seen[RIG_WORD_SLOTS];
static uint32_t ec_seen[RIG_WORD_SLOTS];	/* the count as the poller left it */
static bool wakes_itself[RIG_WORD_SLOTS];	/* its last move came with a bump */
static uint64_t clock_from[RIG_WORD_SLOTS];

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool running;
static _Atomic bool idle;		/* asleep with no timer: only a kick wakes it */
static int epfd = -1, kick_fd = -1, timer_fd = -1;

struct timeline *
poller_watched(uint32_t slot)
{
	return slot < RIG_WORD_SLOTS ? p_rcu_dereference(watched[slot]) : NULL;
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
	ret = timeline_wait_settled(tl, value, timeout_ns);
	timeline_put(tl);
	return ret;
}

int
timeline_wait_producer(struct timeline *self, uint32_t slot, uint64_t value)
{
	struct timeline *tl = timeline_get(slot);
	char why[160];
	int ret;

	if (!tl)
		return 0;	/* ended: its word shows every value */
	/* One waiter the whole time: the producer's hang clock never starts
	 * again between the wait's parts. */
	atomic_fetch_add(&tl->waiters, 1);
	ret = timeline_wait_also(tl, value, self);
	atomic_fetch_sub(&tl->waiters, 1);
	if (ret == RIG_ELOST && timeline_dropped(tl, value)) {
		/* Its memory holds what that work never wrote: the work that
		 * waited must not run, and its readers must learn of it. */
		snprintf(why, sizeof(why), "lost with %s", tl->name ? tl->name : "?");
		timeline_lose_at(self, why, NULL, NULL, tl->loss);
	}
	timeline_put(tl);
	return ret == 0 ? 0 : RIG_ELOST;
}

void
timeline_queue_wait(struct timeline *tl, struct timeline *producer, uint64_t v)
{
	/* A producer with a word of its own (ops.signaled) is watched too
	 * without a hang clock: rig's copy of its word, which the waiting
	 * queue reads, moves only when someone reads the driver's. */
	if (!(producer->hang_ns || producer->signaled) ||
	    atomic_load_explicit(&tl->queue_until, memory_order_relaxed) >= v)
		return;
	/* seq_cst: the poller's last look before it idles reads it after it
	 * said idle (poller_nudge()). */
	timeline_raise(&tl->queue_until, v);
	atomic_thread_fence(memory_order_seq_cst);
	poller_nudge();
}

/* ---- Scanning ---- */

/* Set by the scan's first pass, cleared by its second: the slots whose
 * producers another device's queues wait for now. */
static bool queue_waited[RIG_WORD_SLOTS];

/* Whether tl's queues wait for a value its word is below (SPEC §8, for
 * producers with a hang clock or a word of their own): set while route.c
 * noted such a wait. */
static bool
queue_waits(struct timeline *tl, uint64_t *word)
{
	uint64_t until = atomic_load(&tl->queue_until);

	if (!until || atomic_load(&tl->lost))
		return false;
	*word = timeline_word(tl);
	return *word < until;
}

/*
 * Whether a producer tl's queues wait for has not shown that value yet
 * (or is lost with it dropped). mark: note each such producer with a hang
 * clock or a word of its own in queue_waited, so the scan reads its word
 * (raising rig's copy, which the queue reads) and runs its clock: tl's
 * stall is the producer's then.
 */
static bool
waits_on_producer(struct timeline *tl, bool mark)
{
	_Atomic uint64_t *w = atomic_load(&tl->waits_on);
	uint32_t hi = atomic_load(&tl->waits_hi);
	bool any = false;

	for (uint32_t j = 0; w && j < hi && j < RIG_WORD_SLOTS; j++) {
		uint64_t want = atomic_load_explicit(&w[j], memory_order_relaxed);
		struct timeline *p;

		if (!want || (int)j == tl->slot || !(p = p_rcu_dereference(watched[j])))
			continue;
		/* Shown, or kept by the producer's loss (a dropped one loses
		 * tl with it). */
		if (atomic_load(&p->lost) ? want <= atomic_load(&p->lost_at) :
		    timeline_word(p) >= want)
			continue;
		any = true;
		if (mark && (p->hang_ns || p->signaled))
			queue_waited[j] = true;
	}
	return any;
}

/* The hang clock of tl at slot i, at now: loses tl once it ran out. Returns
 * when the clock runs out, or UINT64_MAX while it is stopped. */
static uint64_t
hang_clock(struct timeline *tl, uint32_t i, uint64_t w, bool waiting,
	   uint64_t now)
{
	char why[64];

	/* No progress: below a committed value, or inside a driver call
	 * that may block (the value it holds is not committed yet). */
	if (!tl->hang_ns || !waiting || atomic_load(&tl->lost) ||
	    (w >= atomic_load(&tl->committed) && !atomic_load(&tl->busy_since))) {
		clock_from[i] = 0;
		return UINT64_MAX;
	}
	if (!clock_from[i])
		clock_from[i] = now;
	if (now - clock_from[i] < tl->hang_ns)
		return clock_from[i] + tl->hang_ns;
	/* Its queues wait for a producer that made no progress: the hang is
	 * the producer's, whose loss loses this device "lost with" it. */
	if (waits_on_producer(tl, false)) {
		clock_from[i] = now;
		return now + tl->hang_ns;
	}
	snprintf(why, sizeof(why), "no progress for %llu ms",
		 (unsigned long long)(tl->hang_ns / 1000000u));
	timeline_lose_at(tl, why, &(struct rig_fault_site){ w + 1, -1, -1 }, NULL,
			 NULL);
	clock_from[i] = 0;
	return UINT64_MAX;
}

/* Run tl's return if its word moved or its reap_at came; the deadline
 * reap_at sets, or UINT64_MAX. */
static uint64_t
reap(struct timeline *tl, bool moved, uint64_t now)
{
	uint64_t at = atomic_load_explicit(&tl->reap_at, memory_order_relaxed);

	if (moved || (at && at <= now)) {
		tl->reap(tl);
		at = atomic_load_explicit(&tl->reap_at, memory_order_relaxed);
	}
	return at ? at : UINT64_MAX;
}

/*
 * One pass over the watched timelines at now. Sets *waiting if someone
 * waits, *hasty if someone waits on a word whose driver does not wake its
 * sleepers itself (as far as its last move told), *reaping if returns are
 * pending, *moved if such a word moved; returns the earliest hang or
 * reap_at deadline (UINT64_MAX: none).
 */
static uint64_t
scan(uint64_t now, bool *waiting, bool *hasty, bool *reaping, bool *moved,
     bool *queued)
{
	uint32_t n = atomic_load(&high);
	uint64_t next = UINT64_MAX;

	p_rcu_read_lock();
	/* First the devices whose queues wait: the producers they wait for
	 * count as waited for below. */
	for (uint32_t i = 0; i < n; i++) {
		struct timeline *tl = p_rcu_dereference(watched[i]);
		uint64_t w;

		if (tl && queue_waits(tl, &w)) {
			*queued = true;
			waits_on_producer(tl, true);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct timeline *tl = p_rcu_dereference(watched[i]);
		bool waits, reaps, went, queue = queue_waited[i];
		uint64_t w, until;

		queue_waited[i] = false;
		if (!tl)
			continue;
		waits = atomic_load(&tl->waiters) != 0;
		reaps = atomic_load(&tl->reap_pending) != 0 && tl->reap;
		if (!waits && !reaps && !queue) {
			clock_from[i] = 0;
			continue;
		}
		w = timeline_word(tl);
		went = w != seen[i];
		if (went) {
			/* Bumped since our last look: its driver wakes its
			 * sleepers (or a loss did); no haste on its account. */
			wakes_itself[i] = ck_ec32_value(tl->futex) != ec_seen[i];
			if (!wakes_itself[i])
				*moved = true;
			seen[i] = w;
			if (clock_from[i])
				clock_from[i] = now;	/* progress */
			timeline_wake(tl);
			ec_seen[i] = ck_ec32_value(tl->futex);
		}
		until = reaps ? reap(tl, went, now) : UINT64_MAX;
		*waiting |= waits;
		*hasty |= waits && !wakes_itself[i];
		*reaping |= reaps;
		if (until < next)
			next = until;
		until = hang_clock(tl, i, w, waits || queue, now);
		if (until < next)
			next = until;
	}
	p_rcu_read_unlock();
	return next;
}

/* Run the events hook of the timeline at slot (it may have ended). */
static void
events(uint32_t slot)
{
	struct timeline *tl;

	p_rcu_read_lock();
	tl = poller_watched(slot);
	if (tl && tl->events)
		tl->events(tl);
	p_rcu_read_unlock();
}

/* Whether a watched timeline has waiters or returns pending. */
static bool
anything_pending(void)
{
	uint32_t n = atomic_load(&high);
	bool any = false;

	p_rcu_read_lock();
	for (uint32_t i = 0; i < n && !any; i++) {
		struct timeline *tl = p_rcu_dereference(watched[i]);

		uint64_t w;

		any = tl && (atomic_load(&tl->waiters) || atomic_load(&tl->reap_pending) ||
			     queue_waits(tl, &w));
	}
	p_rcu_read_unlock();
	return any;
}

/* The timer as last armed: its period (UINT64_MAX: off) and its first
 * expiry. The poller's own. */
static uint64_t armed_ns = UINT64_MAX, armed_at;

/* Arm the timer to fire after ns and every ns after (UINT64_MAX: disarm),
 * unless it already fires every ns and will fire within ns of now. */
static void
arm(uint64_t ns, uint64_t now)
{
	struct itimerspec it = { 0 };

	if (ns == armed_ns && (ns == UINT64_MAX || armed_at <= now + ns))
		return;
	if (ns != UINT64_MAX) {
		if (!ns)
			ns = 1;
		it.it_value.tv_sec = (time_t)(ns / 1000000000u);
		it.it_value.tv_nsec = (long)(ns % 1000000000u);
		it.it_interval = it.it_value;
	}
	timerfd_settime(timer_fd, 0, &it, NULL);
	armed_ns = ns;
	armed_at = now + ns;
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
		bool waiting = false, hasty = false, reaping = false, moved = false;
		bool queued = false;
		uint64_t now = rig_now_ns(), deadline, wake = UINT64_MAX;
		struct epoll_event ev[16];
		int n;

		deadline = scan(now, &waiting, &hasty, &reaping, &moved, &queued);
		if (timeline_watches_scan())	/* fd.c: their words are not known */
			waiting = hasty = true;
		if (waiting && !hasty) {
			/* Every word waited on wakes its sleepers itself. */
			nap = NAP_WAIT_MAX_NS;
			wake = NAP_WAKES_ITSELF_NS;
		} else if (waiting) {
			nap = moved ? (nap / 2 > NAP_MIN_NS ? nap / 2 : NAP_MIN_NS) :
			       (nap * 2 > NAP_WAIT_MAX_NS ? NAP_WAIT_MAX_NS : nap * 2);
			wake = nap;
		} else {
			nap = NAP_MIN_NS;
			if (reaping || queued)
				wake = NAP_REAP_NS;
		}
		if (deadline != UINT64_MAX && (deadline <= now || deadline - now < wake))
			wake = deadline > now ? deadline - now : 1;
		if (wake == UINT64_MAX) {
			/* Idle, then one more look: poller_nudge() stores its
			 * cue, then reads idle (both seq_cst), so a cue that
			 * came after the scan is seen here or kicks us. */
			atomic_store(&idle, true);
			if (anything_pending()) {
				atomic_store(&idle, false);
				continue;
			}
		}
		arm(wake, now);
		rcu_thread_offline();
		n = epoll_wait(epfd, ev, 16, -1);
		rcu_thread_online();
		atomic_store(&idle, false);
		for (int k = 0; k < n; k++) {
			uint64_t token = ev[k].data.u64, drain;

			if (token == KICK_TOKEN || token == TIMER_TOKEN) {
				if (read(token == KICK_TOKEN ? kick_fd : timer_fd,
					 &drain, sizeof(drain)) < 0 && errno != EAGAIN)
					continue;
				if (token == KICK_TOKEN)
					nap = NAP_MIN_NS;	/* a new waiter */
			} else {
				events((uint32_t)token);
			}
		}
	}
	return NULL;
}

/* ---- Starting, watching, kicking ---- */

static int
watch_fd(int fd, uint64_t token)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = token };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void
close_fds(void)
{
	int *fds[] = { &epfd, &kick_fd, &timer_fd };

	for (size_t i = 0; i < 3; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Under start_lock: make the fds and the thread. */
static bool
start_locked(void)
{
	pthread_attr_t a;
	pthread_t t;
	bool ok;

	if (atomic_load(&running))
		return true;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ok = epfd >= 0 && kick_fd >= 0 && timer_fd >= 0 &&
	     !watch_fd(kick_fd, KICK_TOKEN) && !watch_fd(timer_fd, TIMER_TOKEN);
	if (ok) {
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		ok = pthread_create(&t, &a, poll_loop, NULL) == 0;
		if (ok)	/* named from here too: seen before it first runs */
			pthread_setname_np(t, "rig-poller");
		pthread_attr_destroy(&a);
	}
	if (!ok) {
		close_fds();
		return false;
	}
	atomic_store(&running, true);
	return true;
}

static bool
start(void)
{
	bool ok;

	if (atomic_load(&running))
		return true;
	pthread_mutex_lock(&start_lock);
	ok = start_locked();
	pthread_mutex_unlock(&start_lock);
	return ok;
}

int
poller_register(struct timeline *tl)
{
	uint32_t n = atomic_load(&high);

	if (tl->events_fd >= 0) {
		pthread_mutex_lock(&start_lock);
		if (!start_locked() || watch_fd(tl->events_fd, (uint32_t)tl->slot)) {
			pthread_mutex_unlock(&start_lock);
			return -EAGAIN;
		}
		pthread_mutex_unlock(&start_lock);
	}
	while (n <= (uint32_t)tl->slot &&
	       !atomic_compare_exchange_weak(&high, &n, (uint32_t)tl->slot + 1))
		;
	p_rcu_assign_pointer(watched[tl->slot], tl);
	return 0;
}

void
poller_unregister(struct timeline *tl)
{
	if (tl->events_fd >= 0) {
		pthread_mutex_lock(&start_lock);
		if (epfd >= 0)
			epoll_ctl(epfd, EPOLL_CTL_DEL, tl->events_fd, NULL);
		pthread_mutex_unlock(&start_lock);
	}
	p_rcu_assign_pointer(watched[tl->slot], NULL);
	p_synchronize_rcu();
}

bool
poller_kick(void)
{
	uint64_t one = 1;

	if (!start())
		return false;
	return write(kick_fd, &one, sizeof(one)) == sizeof(one) || errno == EAGAIN;
}

void
poller_nudge(void)
{
	uint64_t one = 1;

	if (!atomic_load(&running)) {
		poller_kick();
		return;
	}
	if (atomic_exchange(&idle, false) &&
	    write(kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("rig: poller kick");
}

void
poller_forget_after_fork(void)
{
	/* The thread is not in the child, and the epoll set is the parent's
	 * too: close the child's copies, never change the set. */
	pthread_mutex_init(&start_lock, NULL);
	close_fds();
	timeline_watches_forget_after_fork();
	atomic_store(&running, false);
}
