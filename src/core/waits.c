/* SPDX-License-Identifier: MIT */
/*
 * core/waits.c: what a program waits on beyond one point: every point of
 * an array (rig_wait_all), any of them (rig_wait_any), and a descriptor an
 * event loop waits on (rig_point_fd). The sets a thread or a descriptor
 * waits on together are the polling thread's watches (timeline/fd.c); a
 * wait on all waits on each point in turn (timeline/wait.c), so it sleeps
 * on each word's own event count and is woken as rig_wait() is.
 * Not here: one point (point.c), the polling thread (timeline/poller.c).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <ck_pr.h>

#include "core/device.h"
#include "core/error.h"

#define SPINS 16		/* looks before the commits, as wait.c's */
#define LONE_NAP_NS 100000u	/* with no polling thread, look this often */

/* Check the array and each point before anything waits: 0, or RIG_EINVAL
 * naming func and the point. n == 0 is the caller's to judge. */
static int
check_points(const char *func, const struct rig_point *points, size_t n)
{
	if ((ptrdiff_t)n < 0)
		return rig_fail_at(func, RIG_EINVAL, "%td points is negative", (ptrdiff_t)n);
	if (n && !points)
		return rig_fail_at(func, RIG_EINVAL, "points is NULL for %zu points", n);
	for (size_t i = 0; i < n; i++) {
		struct rig_device *d = points[i].device;
		uint64_t v = points[i].value, base, issued;

		if (!d)
			return rig_fail_at(func, RIG_EINVAL, "point %zu names no device", i);
		base = d->tl.base;
		issued = atomic_load_explicit(&d->tl.issued, memory_order_acquire);
		if (v <= base || v > issued)
			return rig_fail_at(func, RIG_EINVAL,
					   "point %zu: value %llu of %s was never submitted (its submits gave %llu..%llu)",
					   i, (unsigned long long)v, d->name,
					   (unsigned long long)(base + 1),
					   (unsigned long long)issued);
	}
	return 0;
}

/* The answer for point i, which is signaled: 0, or the loss. */
static int
answer(const char *func, const struct rig_point *points, size_t i)
{
	struct rig_device *d = points[i].device;
	char chain[512];

	if (timeline_reached(&d->tl, points[i].value))
		return 0;
	loss_chain_text(d->tl.loss, chain, sizeof(chain));
	return rig_fail_at(func, RIG_ELOST, "point %zu: value %llu of %s was dropped: %s is lost: %s",
			   i, (unsigned long long)points[i].value, d->name, d->name, chain);
}

static int
timed_out(const char *func, const struct rig_point *points, size_t i,
	  uint64_t timeout_ns)
{
	struct rig_device *d = points[i].device;

	return rig_fail_at(func, RIG_ETIMEDOUT,
			   "point %zu: value %llu of %s not signaled after %llu ns (its word shows %llu)",
			   i, (unsigned long long)points[i].value, d->name,
			   (unsigned long long)timeout_ns,
			   (unsigned long long)timeline_word(&d->tl));
}

static uint64_t
deadline_after(uint64_t timeout_ns)
{
	uint64_t now = rig_now_ns();

	return timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

/* The first dropped point, or n. */
static size_t
first_dropped(const struct rig_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct timeline *tl = &points[i].device->tl;

		if (timeline_signaled(tl, points[i].value) &&
		    !timeline_reached(tl, points[i].value))
			return i;
	}
	return n;
}

int
rig_wait_all(const struct rig_point *points, size_t n, uint64_t timeout_ns)
{
	uint64_t deadline;
	size_t i;
	int ret;

	if ((ret = check_points(__func__, points, n)) < 0 ||
	    (n && (ret = callback_refuse(__func__)) < 0))
		return ret;
	if ((i = first_dropped(points, n)) < n)
		return answer(__func__, points, i);
	deadline = deadline_after(timeout_ns);
	for (i = 0; i < n; i++) {
		struct rig_device *d = points[i].device;
		uint64_t now = rig_now_ns();

		ret = timeline_wait(&d->tl, points[i].value,
				    deadline > now ? deadline - now : 0);
		device_reap(d);
		if (ret == RIG_ETIMEDOUT)
			return timed_out(__func__, points, i, timeout_ns);
		if (ret < 0)
			return answer(__func__, points, i);
	}
	return 0;
}

/* The first signaled point, or n. */
static size_t
first_signaled(const struct rig_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (timeline_signaled(&points[i].device->tl, points[i].value))
			return i;
	return n;
}

static bool
all_signaled(const struct rig_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!timeline_signaled(&points[i].device->tl, points[i].value))
			return false;
	return true;
}

/* Commit every point's value, so no wait sleeps on work a driver holds (a
 * failed commit loses the device: the point is then signaled). */
static void
commit_all(const struct rig_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct timeline *tl = &points[i].device->tl;

		(void)tl->commit(tl, points[i].value);
	}
}

/* A watch over the points, or NULL for no memory. */
static struct timeline_watch *
watch_of(const struct rig_point *points, size_t n, bool any, int efd)
{
	struct timeline_watch *w = timeline_watch_new(n, any, efd);

	for (size_t i = 0; w && i < n; i++)
		timeline_watch_set(w, i, &points[i].device->tl, points[i].value);
	return w;
}

/* Sleep until a point is signaled or deadline: its index, or n. */
static size_t
sleep_any(const struct rig_point *points, size_t n, uint64_t deadline)
{
	struct timeline_watch *w = watch_of(points, n, true, -1);
	size_t i;

	if (w && timeline_watch_push(w)) {
		timeline_watch_sleep(w, deadline);
		timeline_watch_cancel(w);
		return first_signaled(points, n);
	}
	if (w)
		timeline_watch_cancel(w);
	/* No poller, or no memory for the watch: look every LONE_NAP_NS. */
	while ((i = first_signaled(points, n)) == n && rig_now_ns() < deadline) {
		struct timespec nap = { 0, LONE_NAP_NS };

		nanosleep(&nap, NULL);
	}
	return i;
}

int
rig_wait_any(const struct rig_point *points, size_t n, uint64_t timeout_ns,
	     size_t *index)
{
	uint64_t deadline;
	size_t i;
	int ret;

	if ((ret = check_points(__func__, points, n)) < 0)
		return ret;
	if (!n)
		return rig_fail(RIG_EINVAL, "no points: nothing could end the wait");
	if (!index)
		return rig_fail(RIG_EINVAL, "index is NULL");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	deadline = deadline_after(timeout_ns);
	for (int k = 0; k < SPINS; k++) {
		if ((i = first_signaled(points, n)) < n)
			goto done;
		ck_pr_stall();
	}
	commit_all(points, n);
	if ((i = first_signaled(points, n)) == n && n == 1) {
		ret = timeline_wait(&points[0].device->tl, points[0].value, timeout_ns);
		i = ret == RIG_ETIMEDOUT ? 1 : 0;
	} else if (i == n && rig_now_ns() < deadline) {
		i = sleep_any(points, n, deadline);
	}
	if (i == n) {
		/* Name the first point: the one a reader looks at first. */
		return timed_out(__func__, points, 0, timeout_ns);
	}
done:
	*index = i;
	device_reap(points[i].device);
	return answer(__func__, points, i);
}

int
rig_point_fd(const struct rig_point *points, size_t n, int *fd)
{
	struct timeline_watch *w;
	int efd, own, ret;

	if ((ret = check_points(__func__, points, n)) < 0)
		return ret;
	if (!n)
		return rig_fail(RIG_EINVAL, "no points: the descriptor would never be readable");
	if (!fd)
		return rig_fail(RIG_EINVAL, "fd is NULL");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	commit_all(points, n);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return rig_fail(errno == ENOMEM ? RIG_ENOMEM : RIG_EAGAIN,
				"eventfd: %s", strerror(errno));
	if (first_dropped(points, n) < n || all_signaled(points, n)) {
		uint64_t one = 1;	/* readable now */

		if (write(efd, &one, sizeof(one)) != sizeof(one)) {
			close(efd);
			return rig_fail(RIG_EAGAIN, "eventfd write: %s", strerror(errno));
		}
		*fd = efd;
		return 0;
	}
	own = fcntl(efd, F_DUPFD_CLOEXEC, 0);
	w = own >= 0 ? watch_of(points, n, false, own) : NULL;
	if (!w) {
		ret = own < 0 ? rig_fail(errno == EMFILE ? RIG_EAGAIN : RIG_ENOMEM,
					 "dup of its eventfd: %s", strerror(errno)) :
				rig_fail(RIG_ENOMEM, "no memory for a watch of %zu points", n);
		if (own >= 0)
			close(own);
		close(efd);
		return ret;
	}
	if (!timeline_watch_push(w)) {
		/* Handed over: a poller that starts later fires it. */
		close(efd);
		return rig_fail(RIG_EAGAIN, "no polling thread could start to watch the points");
	}
	*fd = efd;
	return 0;
}
