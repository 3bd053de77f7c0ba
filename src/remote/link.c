/* SPDX-License-Identifier: MIT */
/*
 * remote/link.c: the UCX plumbing both ends share (link.h). Control goes
 * as active messages forced eager (UCP_AM_SEND_FLAG_EAGER): the handler
 * then always sees the whole message in its data argument, so no
 * rendezvous receive path exists to get wrong; bulk bytes never travel as
 * messages (RMA carries them, agent.c).
 *
 * Shared memory: rig's endpoints ask for peer-failure handling, and UCX
 * 1.13 offers it on its shared-memory transports (posix, sysv) only where
 * told (POSIX_ERROR_HANDLING, SYSV_ERROR_HANDLING: they then see a peer's
 * end by its process, ep_check): without it, an agent and a client of one
 * host talk over TCP on loopback, some twenty times the latency of a
 * message through shared memory. Both ends must offer it (a client or
 * agent whose environment names either setting keeps it); the client
 * does only towards an agent of its own network namespace (client.c:
 * UCX's shared-memory wake-ups do not cross namespaces). Set on the
 * context's own configuration, not the environment, so that each
 * connection of a process decides for itself.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig_base.h"
#include "remote/link.h"

struct link_handler {
	link_recv_fn recv;
	void *arg;
};

static ucs_status_t
am_recv(void *arg, const void *header, size_t header_length, void *data,
	size_t length, const ucp_am_recv_param_t *param)
{
	struct link_handler *h = arg;
	ucp_ep_h reply = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ?
		param->reply_ep : NULL;

	/* Eager only: a rendezvous header is a peer that is not rig's. */
	if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
		return UCS_OK;
	h->recv(h->arg, reply, data, length);
	return UCS_OK;
}

int
link_open(struct link *l, bool multi, link_recv_fn recv, void *arg, char *why,
	  size_t why_len)
{
	return link_open_shm(l, multi, false, recv, arg, why, why_len);
}

int
link_open_shm(struct link *l, bool multi, bool shm, link_recv_fn recv, void *arg,
	      char *why, size_t why_len)
{
	const char *e = getenv("RIG_REMOTE_SHM");
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
		.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP,
		.mt_workers_shared = multi,
	};
	ucp_worker_params_t wp = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = multi ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE,
	};
	struct link_handler *h = malloc(sizeof(*h));
	ucp_am_handler_param_t ap;
	ucp_config_t *config;
	ucs_status_t st;

	memset(l, 0, sizeof(*l));
	l->efd = -1;
	if (!h) {
		snprintf(why, why_len, "no memory for UCX's handler");
		return -1;
	}
	*h = (struct link_handler){ recv, arg };
	l->handler = h;
	if ((st = ucp_config_read(NULL, NULL, &config)) != UCS_OK)
		goto fail;
	/* The environment wins: a UCX_* setting of the user's stays. A
	 * worker several threads call (the client's: its progress thread,
	 * rig's submitters, waiters) locks with a mutex, not UCX's default
	 * spinlock: on cores shared with other work a thread preempted while
	 * it holds the lock kept every other caller spinning for the rest of
	 * its slice (a third of a loaded client's time went in
	 * pthread_spin_lock under perf). */
	if (multi && !getenv("UCX_USE_MT_MUTEX"))
		(void)ucp_config_modify(config, "USE_MT_MUTEX", "y");
	if (shm && !(e && !strcmp(e, "0")) && !getenv("UCX_POSIX_ERROR_HANDLING") &&
	    !getenv("UCX_SYSV_ERROR_HANDLING"))
		(void)ucp_config_modify(config, "MM_ERROR_HANDLING", "y");	/* posix and sysv: both are mm */
	st = ucp_init(&params, config, &l->ctx);
	ucp_config_release(config);
	if (st != UCS_OK)
		goto fail;
	if ((st = ucp_worker_create(l->ctx, &wp, &l->worker)) != UCS_OK)
		goto fail;
	ap = (ucp_am_handler_param_t){
		.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
			      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
		.id = LINK_AM_ID, .flags = UCP_AM_FLAG_WHOLE_MSG, .cb = am_recv, .arg = h,
	};
	if ((st = ucp_worker_set_am_recv_handler(l->worker, &ap)) != UCS_OK ||
	    (st = ucp_worker_get_efd(l->worker, &l->efd)) != UCS_OK)
		goto fail;
	return 0;
fail:
	snprintf(why, why_len, "UCX: %s", ucs_status_string(st));
	link_close(l);
	return -1;
}

void
link_close(struct link *l)
{
	if (l->worker)
		ucp_worker_destroy(l->worker);
	if (l->ctx)
		ucp_cleanup(l->ctx);
	l->worker = NULL;
	l->ctx = NULL;
	free(l->handler);
	l->handler = NULL;
}

static void
sent(void *request, ucs_status_t status, void *user_data)
{
	free(user_data);
	ucp_request_free(request);
}

/* Messages up to this size are encoded on the stack (link_send). */
#define LINK_SMALL	512u

static int send_owned(ucp_ep_h ep, uint8_t *b, size_t len, uint32_t flags, char *why,
		      size_t why_len);
static int send_copy(ucp_ep_h ep, const uint8_t *bytes, size_t len, uint32_t flags,
		     char *why, size_t why_len);

/* UCX's flags of a send: eager always; the reply endpoint where the
 * receiver answers on it. */
static uint32_t
send_flags(bool reply)
{
	return UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0);
}

static int
send_msg(ucp_ep_h ep, const struct remote_msg *m, bool reply, char *why, size_t why_len)
{
	uint8_t small[LINK_SMALL], *b;
	size_t len;
	int fits = remote_encode_into(m, small, sizeof(small), &len, why, why_len);

	if (fits < 0)
		return -1;
	if (fits == 0)
		return send_copy(ep, small, len, send_flags(reply), why, why_len);
	if (remote_encode(m, &b, &len, why, why_len) < 0)
		return -1;
	return send_owned(ep, b, len, send_flags(reply), why, why_len);
}

int
link_send(ucp_ep_h ep, const struct remote_msg *m, char *why, size_t why_len)
{
	return send_msg(ep, m, true, why, why_len);
}

int
link_send_one_way(ucp_ep_h ep, const struct remote_msg *m, char *why, size_t why_len)
{
	return send_msg(ep, m, false, why, why_len);
}

int
link_send_copy(ucp_ep_h ep, const uint8_t *bytes, size_t len, char *why, size_t why_len)
{
	return send_copy(ep, bytes, len, send_flags(true), why, why_len);
}

int
link_send_bytes(ucp_ep_h ep, uint8_t *b, size_t len, char *why, size_t why_len)
{
	return send_owned(ep, b, len, send_flags(true), why, why_len);
}

static int
send_copy(ucp_ep_h ep, const uint8_t *bytes, size_t len, uint32_t flags, char *why,
	  size_t why_len)
{
	ucp_request_param_t p = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
		.flags = flags,
	};
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, LINK_AM_ID, NULL, 0, bytes, len, &p);
	uint8_t *copy;

	/* Sent at once, the common case: UCX copied the bytes, and no block
	 * was made for them. Else (the transport's queue is full, or the
	 * message is past what it sends at once) a copy that UCX owns. */
	if (r == NULL)
		return 0;
	if (UCS_PTR_IS_ERR(r) && UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) {
		snprintf(why, why_len, "UCX send: %s", ucs_status_string(UCS_PTR_STATUS(r)));
		return -1;
	}
	if (UCS_PTR_IS_PTR(r)) {
		/* Never made under FORCE_IMM_CMPL: UCX answers NO_RESOURCE
		 * before it makes a request (ucp_am.c, 1.13). */
		ucp_request_free(r);
		snprintf(why, why_len, "UCX send: a request where none was asked for");
		return -1;
	}
	if (!(copy = malloc(len ? len : 1))) {
		snprintf(why, why_len, "no memory for a message of %zu bytes", len);
		return -1;
	}
	memcpy(copy, bytes, len);
	return send_owned(ep, copy, len, flags, why, why_len);
}

static int
send_owned(ucp_ep_h ep, uint8_t *b, size_t len, uint32_t flags, char *why, size_t why_len)
{
	ucp_request_param_t p = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA,
		.flags = flags,
		.cb.send = sent,
	};
	ucs_status_ptr_t r;

	p.user_data = b;
	r = ucp_am_send_nbx(ep, LINK_AM_ID, NULL, 0, b, len, &p);
	if (UCS_PTR_IS_PTR(r))
		return 0;	/* sent() frees b */
	free(b);
	if (UCS_PTR_IS_ERR(r)) {
		snprintf(why, why_len, "UCX send: %s", ucs_status_string(UCS_PTR_STATUS(r)));
		return -1;
	}
	return 0;
}

void
link_progress(struct link *l, int timeout_ms)
{
	link_progress_spin(l, 0, timeout_ms);
}

/* Progress until a call moves nothing or a handler asks to be acted on
 * (l->urgent): whether anything moved. */
static bool
drain(struct link *l)
{
	bool moved = false;

	while (ucp_worker_progress(l->worker)) {
		moved = true;
		if (l->urgent)
			break;
	}
	l->urgent = false;
	return moved;
}

bool
link_progress_spin(struct link *l, uint64_t spin_ns, int timeout_ms)
{
	uint64_t until = 0;
	bool moved = drain(l);

	if (moved || timeout_ms <= 0)
		return moved;
	/* The common case, a message a few microseconds away, costs no
	 * sleep and no wake-up: poll the worker for spin_ns first. */
	if (spin_ns)
		until = rig_now_ns() + spin_ns;
	while (spin_ns && rig_now_ns() < until) {
		if (ucp_worker_progress(l->worker)) {
			if (!l->urgent)
				(void)drain(l);
			l->urgent = false;
			return true;
		}
		/* Cores are few: the thread whose answer we poll for may
		 * need this one. */
		sched_yield();
	}
	/* Arm answers BUSY where events came meanwhile: progress again. */
	if (ucp_worker_arm(l->worker) == UCS_OK) {
		struct pollfd pfd = { .fd = l->efd, .events = POLLIN };

		(void)poll(&pfd, 1, timeout_ms);
	}
	return drain(l);
}

uint64_t
link_env_ns(_Atomic int64_t *cache, const char *name, uint64_t dflt_ns)
{
	int64_t v = atomic_load_explicit(cache, memory_order_relaxed);

	if (v < 0) {	/* read once; a race reads the same value twice */
		const char *e = getenv(name);

		v = e && *e ? (int64_t)strtoul(e, NULL, 10) * 1000 : (int64_t)dflt_ns;
		atomic_store_explicit(cache, v, memory_order_relaxed);
	}
	return (uint64_t)v;
}

uint64_t
link_spin_ns(void)
{
	static _Atomic int64_t spin = -1;

	return link_env_ns(&spin, "RIG_REMOTE_SPIN_US", 10000);
}

uint64_t
link_hot_ns(void)
{
	static _Atomic int64_t hot = -1;

	return link_env_ns(&hot, "RIG_REMOTE_HOT_US", LINK_HOT_NS);
}

ucs_status_t
link_wait(struct link *l, ucs_status_ptr_t req)
{
	ucs_status_t st;

	if (!UCS_PTR_IS_PTR(req))
		return UCS_PTR_STATUS(req);
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
		ucp_worker_progress(l->worker);
	ucp_request_free(req);
	return st;
}

ucs_status_t
link_wait_until(struct link *l, ucs_status_ptr_t req, bool (*more)(void *arg), void *arg)
{
	ucs_status_t st;

	if (!UCS_PTR_IS_PTR(req))
		return UCS_PTR_STATUS(req);
	for (unsigned n = 0; (st = ucp_request_check_status(req)) == UCS_INPROGRESS; n++) {
		/* Asked when progress moved nothing, and every 64th time all
		 * the same: a worker that always has something to do (other
		 * peers, a dead one's retries) must not hide the bound. */
		if ((!ucp_worker_progress(l->worker) || n % 64 == 63) && !more(arg)) {
			/* Given up: UCX frees it once it completes (or once
			 * its endpoint is closed, which cancels it). */
			ucp_request_free(req);
			return UCS_ERR_TIMED_OUT;
		}
	}
	ucp_request_free(req);
	return st;
}

/* Split where into host (brackets of [v6] dropped) and port: 0, or -1. */
static int
split(const char *where, char *host, size_t host_len, const char **port,
      char *why, size_t why_len)
{
	const char *colon;
	size_t n;

	if (!where || !(colon = strrchr(where, ':')) || !colon[1] ||
	    (n = (size_t)(colon - where)) == 0 || n >= host_len) {
		snprintf(why, why_len, "\"%s\" is not host:port", where ? where : "(null)");
		return -1;
	}
	memcpy(host, where, n);
	host[n] = 0;
	if (host[0] == '[' && n > 2 && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = 0;
	}
	*port = colon + 1;
	for (const char *c = *port; *c; c++)
		if (*c < '0' || *c > '9' || c - *port >= 5) {
			snprintf(why, why_len, "\"%s\": port %s is not a number", where, *port);
			return -1;
		}
	if (atoi(*port) > 65535) {
		snprintf(why, why_len, "\"%s\": port %s is past 65535", where, *port);
		return -1;
	}
	return 0;
}

int
link_address_check(const char *where, char *why, size_t why_len)
{
	char host[256];
	const char *port;

	return split(where, host, sizeof(host), &port, why, why_len);
}

int
link_address(const char *where, struct sockaddr_storage *sa, socklen_t *len,
	     char *why, size_t why_len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM },
			*res = NULL;
	char host[256];
	const char *port;
	int rc;

	if (split(where, host, sizeof(host), &port, why, why_len) < 0)
		return -1;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(why, why_len, "%s: %s", where, gai_strerror(rc));
		return -1;
	}
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

void
link_ep_drop(struct link *l, ucp_ep_h ep)
{
	ucp_request_param_t p = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_EP_CLOSE_FLAG_FORCE,
	};

	ucs_status_ptr_t r;
	uint64_t deadline = rig_now_ns() + LINK_CLOSE_NS;

	if (!ep)
		return;
	/* A forced close cancels the endpoint's operations and completes
	 * without the peer; bounded all the same, so that no close spins on
	 * the worker for ever (an agent whose client died must end). */
	r = ucp_ep_close_nbx(ep, &p);
	if (!UCS_PTR_IS_PTR(r))
		return;
	while (ucp_request_check_status(r) == UCS_INPROGRESS && rig_now_ns() < deadline)
		if (!ucp_worker_progress(l->worker))
			sched_yield();
	ucp_request_free(r);
}
