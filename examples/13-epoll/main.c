/* SPDX-License-Identifier: MIT */
/*
 * 13-epoll: a server that folds rig into its event loop. One thread runs an
 * epoll loop over a socket and rig's descriptors: each request that comes
 * in on the socket (a number) becomes device work on the host's cores (a
 * copy of the request's block into its reply buffer, run by the HOST
 * device's workers), and rig_point_fd() gives a descriptor that becomes
 * readable once that work is done. The loop never blocks on rig: it sleeps
 * in epoll_wait until either a request or a finished piece of work is
 * ready, answers finished work (rig_wait_all(.., 0) says reached or lost),
 * and closes the descriptor. A client thread sends requests and checks
 * every reply.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rig.h"

#define REQUESTS 64
#define WORDS 1024		/* a block: 4 KiB */
#define IN_FLIGHT 8

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "13-epoll: %s\n", rig_why()); return 1; } } while (0)

struct request {
	uint32_t id;
	struct rig_point done;
	struct rig_buffer *in, *out;
	int fd;			/* rig_point_fd(), or -1 while free */
};

static int sock[2];		/* [0] the server's end, [1] the client's */
static int ep;			/* the server's epoll set */

static void *
client(void *arg)
{
	uint32_t id, got, ok = 0;

	(void)arg;
	for (id = 0; id < REQUESTS; id++)
		if (write(sock[1], &id, sizeof(id)) != sizeof(id))
			break;
	for (id = 0; id < REQUESTS; id++) {
		if (read(sock[1], &got, sizeof(got)) != sizeof(got))
			break;
		ok += got < REQUESTS;	/* replies come in any order */
	}
	printf("client: %u of %u replies\n", ok, REQUESTS);
	return (void *)(uintptr_t)(ok == REQUESTS);
}

/* Start request id on a free slot: fill its block, submit the copy, and
 * watch its point in the loop. */
static int
start(struct request *r, uint32_t id)
{
	uint32_t block[WORDS];
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = r };

	for (int i = 0; i < WORDS; i++)
		block[i] = id * 7919u + (uint32_t)i;
	r->id = id;
	if (rig_buffer_write(r->in, 0, block, sizeof(block)) < 0 ||
	    rig_buffer_copy(r->in, r->out, &r->done) < 0 ||
	    rig_point_fd(&r->done, 1, &r->fd) < 0)
		return -1;
	return epoll_ctl(ep, EPOLL_CTL_ADD, r->fd, &ev);
}

/* Request r's work is done (its fd is readable): check it and reply. */
static int
finish(struct request *r)
{
	uint32_t block[WORDS];

	/* Out of the set first: rig's copy of the eventfd keeps its file
	 * open a moment longer, and a close alone would leave it watched. */
	epoll_ctl(ep, EPOLL_CTL_DEL, r->fd, NULL);
	close(r->fd);
	r->fd = -1;
	if (rig_wait_all(&r->done, 1, 0) < 0 ||	/* reached, or the loss */
	    rig_buffer_read(r->out, 0, block, sizeof(block)) < 0)
		return -1;
	for (int i = 0; i < WORDS; i++)
		if (block[i] != r->id * 7919u + (uint32_t)i) {
			fprintf(stderr, "13-epoll: request %u: word %d is %u\n", r->id, i, block[i]);
			return -1;
		}
	return write(sock[0], &r->id, sizeof(r->id)) == sizeof(r->id) ? 0 : -1;
}

int
main(void)
{
	struct request reqs[IN_FLIGHT];
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct rig_device *host;
	pthread_t t;
	void *ok;
	int answered = 0, in_flight = 0;
	bool reading = true;

	TRY(rig_host_device(&host));
	for (int i = 0; i < IN_FLIGHT; i++) {
		reqs[i].fd = -1;
		TRY(rig_buffer_create(host, WORDS * 4, RIG_MEMORY_DEVICE, &reqs[i].in));
		TRY(rig_buffer_create(host, WORDS * 4, RIG_MEMORY_DEVICE, &reqs[i].out));
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sock) || (ep = epoll_create1(0)) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, sock[0], &ev) ||
	    pthread_create(&t, NULL, client, NULL)) {
		perror("13-epoll");
		return 1;
	}
	while (answered < REQUESTS) {
		struct epoll_event got[IN_FLIGHT + 1];
		int n = epoll_wait(ep, got, IN_FLIGHT + 1, 10000);

		if (n <= 0) {
			fprintf(stderr, "13-epoll: nothing ready in 10 s\n");
			return 1;
		}
		for (int k = 0; k < n; k++) {
			struct request *r = got[k].data.ptr;

			if (r) {		/* rig's fd: work done */
				TRY(finish(r));
				answered++;
				in_flight--;
				continue;
			}
			/* A request: start it if a slot is free; else it waits in
			 * the socket until one is (the loop stops reading). */
			for (int i = 0; i < IN_FLIGHT && reading; i++) {
				uint32_t id;

				if (reqs[i].fd >= 0)
					continue;
				if (read(sock[0], &id, sizeof(id)) != sizeof(id))
					return 1;
				TRY(start(&reqs[i], id));
				in_flight++;
				break;
			}
		}
		/* Stop watching the socket while every slot is busy. */
		if ((in_flight == IN_FLIGHT) == reading) {
			reading = !reading;
			ev.events = reading ? EPOLLIN : 0;
			epoll_ctl(ep, EPOLL_CTL_MOD, sock[0], &ev);
		}
	}
	pthread_join(t, &ok);
	for (int i = 0; i < IN_FLIGHT; i++) {
		rig_buffer_release(reqs[i].in);
		rig_buffer_release(reqs[i].out);
	}
	rig_device_release(host);
	close(ep);
	printf("server: %d requests served through rig_point_fd()\n", answered);
	return ok ? 0 : 1;
}
