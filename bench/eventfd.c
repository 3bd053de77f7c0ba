/* SPDX-License-Identifier: MIT */
/*
 * eventfd.c: a round trip through rig's pollable descriptor against a
 * plain eventfd round trip between two threads; both end in epoll_wait, as
 * an event loop would.
 *
 *   fd_round_trip  eventfd      thread A writes a request eventfd; thread
 *                               B, blocked reading it, writes a reply
 *                               eventfd; A's epoll_wait returns on it
 *                  rig-polled   A submits a 4-byte copy on the polled
 *                               device (its worker thread runs it), takes
 *                               rig_point_fd() of its point, adds it to
 *                               its epoll set, epoll_waits, reads, asks
 *                               rig_wait_all(.., 0) and closes the fd: the
 *                               worker and rig's polling thread are B
 *                  rig-memory   the same on the memory device, whose work
 *                               is done before the submit returns: what
 *                               the descriptor itself costs
 *
 * Times are per round trip (per-op samples). Nothing here fails on timing.
 */
#include <rig.h>
#include <rig_polled.h>

#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define WAIT_NS 10000000000ull

static const struct bench *prog;

struct plain {
	int req, rep, ep;
	pthread_t t;
};

static void *
echo(void *arg)
{
	struct plain *p = arg;
	uint64_t v;

	while (read(p->req, &v, sizeof(v)) == sizeof(v)) {
		if (v > 1)	/* the stop mark */
			break;
		if (write(p->rep, &v, sizeof(v)) != sizeof(v))
			break;
	}
	return NULL;
}

static int
plain_one(void *arg)
{
	struct plain *p = arg;
	struct epoll_event ev;
	uint64_t v = 1;

	if (write(p->req, &v, sizeof(v)) != sizeof(v))
		return -errno;
	if (epoll_wait(p->ep, &ev, 1, 10000) != 1)
		return -ETIMEDOUT;
	return read(p->rep, &v, sizeof(v)) == sizeof(v) ? 0 : -errno;
}

struct via_rig {
	struct rig_buffer *src, *dst;
	int ep;
};

static int
rig_one(void *arg)
{
	struct via_rig *r = arg;
	struct epoll_event ev = { .events = EPOLLIN };
	struct rig_point p;
	uint64_t v;
	int fd, ret;

	if ((ret = rig_buffer_copy(r->src, r->dst, &p)) < 0 ||
	    (ret = rig_point_fd(&p, 1, &fd)) < 0) {
		bench_note(prog, "%s", rig_why());
		return ret;
	}
	ev.data.fd = fd;
	ret = epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
	if (!ret && epoll_wait(r->ep, &ev, 1, 10000) != 1)
		ret = -ETIMEDOUT;
	if (!ret && read(fd, &v, sizeof(v)) != sizeof(v))
		ret = -errno;
	if (!ret)
		ret = rig_wait_all(&p, 1, 0);
	close(fd);	/* leaves the epoll set with it */
	if (ret < 0)
		bench_note(prog, "round trip: %d %s", ret, rig_why());
	return ret;
}

static int
run_plain(const struct bench *b, uint64_t n)
{
	struct plain p;
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t stop = 2;
	int ret;

	p.req = eventfd(0, EFD_CLOEXEC);
	p.rep = eventfd(0, EFD_CLOEXEC);
	p.ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = p.rep;
	if (p.req < 0 || p.rep < 0 || p.ep < 0 ||
	    epoll_ctl(p.ep, EPOLL_CTL_ADD, p.rep, &ev) ||
	    pthread_create(&p.t, NULL, echo, &p))
		return -errno;
	ret = bench_per_op(b, "fd_round_trip", "eventfd", BENCH_PEER, plain_one, &p, n, 0);
	if (write(p.req, &stop, sizeof(stop)) != sizeof(stop))
		ret = ret ? ret : -errno;
	pthread_join(p.t, NULL);
	close(p.req);
	close(p.rep);
	close(p.ep);
	return ret;
}

static int
run_rig(const struct bench *b, struct rig_device *d, const char *impl, uint64_t n)
{
	struct via_rig r = { .ep = epoll_create1(EPOLL_CLOEXEC) };
	int ret;

	if (r.ep < 0)
		return -errno;
	if ((ret = rig_buffer_create(d, 4, RIG_MEMORY_DEVICE, &r.src)) < 0 ||
	    (ret = rig_buffer_create(d, 4, RIG_MEMORY_DEVICE, &r.dst)) < 0) {
		bench_note(b, "%s", rig_why());
		close(r.ep);
		return ret;
	}
	ret = bench_per_op(b, "fd_round_trip", impl, BENCH_RIG, rig_one, &r, n, 0);
	rig_buffer_release(r.src);
	rig_buffer_release(r.dst);
	close(r.ep);
	return ret;
}

int
main(int argc, char **argv)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "BENCH-FD", .lag = 1 };
	struct rig_polled *pp;
	struct rig_device *d;
	struct bench b;
	uint64_t n;
	int ret;

	bench_init(&b, "eventfd", argc, argv);
	prog = &b;
	n = bench_count(&b, 20000, 2000);
	ret = run_plain(&b, n);
	if (!ret && !(ret = rig_memory_device("BENCH-FD-M", &d))) {
		ret = run_rig(&b, d, "rig-memory", n);
		rig_close(d);
		rig_device_release(d);
	}
	if (!ret && !(ret = rig_polled_create(&c, &pp))) {
		if (!(ret = rig_open(rig_polled_opener(pp), &d))) {
			ret = run_rig(&b, d, "rig-polled", n);
			rig_close(d);
			rig_device_release(d);
		}
		rig_polled_destroy(pp);
	}
	if (ret)
		fprintf(stderr, "eventfd: %d %s\n", ret, rig_why());
	return ret ? 1 : 0;
}
