/* SPDX-License-Identifier: MIT */
/*
 * remote/client.c: a client's connections to agents (client.h). Each
 * machine's connection has one progress thread: it runs UCX's progress,
 * hands each answer to the request waiting for it, each reached value and
 * loss to its device, pings the agent every quarter of the heartbeat
 * bound (its own or the agent's, whichever is smaller), and loses every
 * device of the machine once the endpoint fails or the agent is silent
 * past its own bound. The worker is UCX's multi-thread
 * mode: rig's submission threads send on it beside the progress thread.
 */
#include <errno.h>
#include <sched.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig_edge.h"
#include "remote/auth.h"
#include "remote/client.h"

static pthread_mutex_t machines_lock = PTHREAD_MUTEX_INITIALIZER;
static struct machine *machines;

/* At exit, before UCX's own destructors tear down its globals, each
 * connection's progress thread ends: none still calls into UCX then. */
static void
stop_threads(void)
{
	pthread_mutex_lock(&machines_lock);
	for (struct machine *m = machines; m; m = m->next) {
		struct conn *c = m->conn;

		if (c && c->has_thread) {
			atomic_store(&c->polled, false);
			atomic_store(&c->stop, true);
			pthread_join(c->thread, NULL);
			c->has_thread = false;
		}
	}
	pthread_mutex_unlock(&machines_lock);
}

struct machine *
machine_of(const char *where)
{
	static bool registered;

	struct machine *m;
	const char *hb;

	pthread_mutex_lock(&machines_lock);
	if (!registered)
		registered = atexit(stop_threads) == 0;
	for (m = machines; m; m = m->next)
		if (!strcmp(m->where, where))
			break;
	if (!m && (m = calloc(1, sizeof(*m)))) {
		snprintf(m->where, sizeof(m->where), "%s", where);
		pthread_mutex_init(&m->connect, NULL);
		pthread_mutex_init(&m->lock, NULL);
		pthread_cond_init(&m->answered, NULL);
		hb = getenv("RIG_REMOTE_HEARTBEAT_MS");
		m->heartbeat_ns = (hb && atoi(hb) > 0 ? (uint64_t)atoi(hb) : 3000) * 1000000ull;
		m->next = machines;
		machines = m;
	}
	pthread_mutex_unlock(&machines_lock);
	return m;
}

/* The connection broke: every device of the machine is lost, and the
 * request waiting for its answer gets none. */
static void
conn_lost(struct conn *c)
{
	struct machine *m = c->m;
	char why[160];

	if (!atomic_exchange(&c->up, false))
		return;
	snprintf(why, sizeof(why), "AGENT %s: connection lost", m->where);
	pthread_mutex_lock(&m->lock);
	for (struct rdev *d = m->devs; d; d = rdev_next(d))
		rdev_lose(d, why);
	m->answer_lost = true;
	pthread_cond_broadcast(&m->answered);
	pthread_mutex_unlock(&m->lock);
}

static void
on_message(void *arg, ucp_ep_h ep, const void *bytes, size_t len)
{
	static _Thread_local struct remote_msg msg;
	struct conn *c = arg;
	struct machine *m = c->m;
	char why[200];

	if (remote_decode(bytes, len, &msg, why, sizeof(why)) < 0) {
		conn_lost(c);	/* an agent that sends garbage is no agent */
		return;
	}
	atomic_store(&c->heard_ns, rig_now_ns());
	if (msg.type == REMOTE_REACHED || msg.type == REMOTE_LOST) {
		uint32_t id = msg.type == REMOTE_REACHED ? msg.u.reached.dev : msg.u.lost.dev;

		pthread_mutex_lock(&m->lock);
		for (struct rdev *d = m->devs; d; d = rdev_next(d)) {
			/* Ids are per connection: a lost device of an older
			 * one may share this id until its stop. */
			if (rdev_id(d) != id || rdev_conn(d) != c)
				continue;
			if (msg.type == REMOTE_REACHED) {
				rdev_reached(d, msg.u.reached.value);
			} else {
				char text[REMOTE_STR_MAX + 100];

				snprintf(text, sizeof(text), "AGENT %s: %.*s", m->where,
					 (int)msg.u.lost.why.len, (const char *)msg.u.lost.why.at);
				rdev_lose(d, text);
			}
		}
		pthread_mutex_unlock(&m->lock);
		return;
	}
	if (msg.type == REMOTE_PONG || msg.type == REMOTE_PING)
		return;
	pthread_mutex_lock(&m->lock);
	if (msg.id && msg.id == m->want_id && !m->answer && (m->answer = malloc(len))) {
		memcpy(m->answer, bytes, len);
		m->answer_len = len;
		pthread_cond_broadcast(&m->answered);
	}
	pthread_mutex_unlock(&m->lock);
}

static void
ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	conn_lost(arg);
}

#define HOT_POLL_TURN_NS	(1000ull * 1000)
/* A waiter that polled the worker this recently polls it still... */
#define WAITER_FRESH_NS		(20ull * 1000)
/* ...and the progress thread naps this long at a time meanwhile: short,
 * since a wait that goes on sleeps after rig's 50 us of looks, and its
 * REACHED is then this thread's to take. */
#define WAITER_NAP_NS		(50ull * 1000)
/* A waiter yields the core after this many polls in a row that moved
 * nothing (conn_poll). */
#define WAITER_YIELD_AFTER	2u
/* RIG_REMOTE_CLIENT_HOT_US: this side's alone (a figure of each). */
static uint64_t
client_hot_ns(void)
{
	static _Atomic int64_t hot = -1;

	return link_env_ns(&hot, "RIG_REMOTE_CLIENT_HOT_US", link_hot_ns());
}

/*
 * Hot: within link_hot_ns of this process's last send (a SUBMIT's REACHED
 * or a request's answer is on its way), poll the worker, yielding, rather
 * than sleep on its fd, so that the answer costs no wake-up of this
 * thread. Through the waiters' flag (conn_poll): where a waiter polls
 * now, this thread only yields (two threads progressing one worker take
 * turns on UCX's lock, and on two cores each turn is a sleep). Where a
 * waiter polled within WAITER_FRESH_NS, it naps instead (WAITER_NAP_NS, a
 * timer, not the worker's fd, which would make the agent signal each
 * send): the waiter takes the answer, and a third thread polling on two
 * cores leaves the waiter and the agent one core to share, where their
 * yields hand it to each other (docs/remote.md, seventh pass). True where
 * it is still hot but returns for the loop's heartbeat (HOT_POLL_TURN_NS).
 */
static bool
hot_poll(struct conn *c)
{
	uint64_t hot = client_hot_ns(), start = rig_now_ns(), now = start;

	while (hot && !atomic_load_explicit(&c->stop, memory_order_relaxed) &&
	       link_silent_ns(now, atomic_load_explicit(&c->sent_ns, memory_order_relaxed)) < hot) {
		bool moved = false;

		/* Back to the loop's heartbeat now and then: a stream of
		 * sends keeps this thread hot, not its checks off. */
		if (now - start > HOT_POLL_TURN_NS)
			return true;
		if (link_silent_ns(now, atomic_load_explicit(&c->waiter_ns, memory_order_relaxed)) <
		    WAITER_FRESH_NS) {
			struct timespec nap = { 0, (long)WAITER_NAP_NS };

			(void)nanosleep(&nap, NULL);
			now = rig_now_ns();
			continue;
		}
		if (!atomic_exchange_explicit(&c->polling, true, memory_order_acquire)) {
			moved = ucp_worker_progress(c->link.worker) != 0;
			atomic_store_explicit(&c->polling, false, memory_order_release);
		}
		if (!moved)
			sched_yield();
		now = rig_now_ns();
	}
	return false;
}

/* A quarter of the smaller bound, ours or the agent's (in ms). */
static uint64_t
ping_every(uint64_t ours_ns, uint32_t agents_ms)
{
	uint64_t agents_ns = (uint64_t)agents_ms * 1000000ull;

	return (agents_ns < ours_ns ? agents_ns : ours_ns) / 4;
}

static void *
progress(void *arg)
{
	struct conn *c = arg;
	uint64_t last_ping = rig_now_ns(), hb = c->m->heartbeat_ns;
	char why[100];

	while (!atomic_load(&c->stop)) {
		uint64_t now;

		if (!hot_poll(c))
			(void)link_progress_spin(&c->link, link_spin_ns(), 2);
		now = rig_now_ns();
		if (!atomic_load(&c->up))
			continue;
		if (link_silent_ns(now, atomic_load(&c->heard_ns)) > hb) {
			conn_lost(c);
			continue;
		}
		if (now - last_ping > c->ping_ns) {
			struct remote_msg p = { .type = REMOTE_PING };

			p.u.ping = now;
			last_ping = now;
			if (link_send(c->ep, &p, why, sizeof(why)) < 0)
				conn_lost(c);
		}
	}
	return NULL;
}

/*
 * The waiter's own progress: rig's wait looks at a remote device's word
 * through the driver's signaled, over and over while it spins before it
 * sleeps (timeline/wait.c); each look progresses the worker here, so a
 * REACHED that comes while the waiter spins is taken by the waiter itself
 * (on_message raises the words) instead of by the progress thread, which
 * would then have to wake it: one wake-up less per round trip. The worker
 * is UCX's multi-thread mode, so the two threads may both progress it; a
 * look from inside a UCX callback (a handler that reads a word) must not
 * progress again, which the thread's flag prevents.
 */
void
conn_poll(struct conn *c)
{
	static _Thread_local bool inside;
	static _Thread_local unsigned empty;	/* polls in a row that moved nothing */
	static atomic_int on = -1;	/* read once: RIG_REMOTE_WAITER_POLLS */
	int yes = atomic_load_explicit(&on, memory_order_relaxed);

	if (yes < 0) {
		const char *e = getenv("RIG_REMOTE_WAITER_POLLS");

		yes = !(e && !strcmp(e, "0"));
		atomic_store_explicit(&on, yes, memory_order_relaxed);
	}
	if (inside || !yes || !link_spin_ns() || !atomic_load_explicit(&c->up, memory_order_relaxed) ||
	    !atomic_load_explicit(&c->polled, memory_order_acquire))
		return;
	/* One waiter at a time: UCX's multi-thread worker is a spinning lock,
	 * and several waiters spinning on it (each rig_wait looks some 50 us)
	 * keep the progress thread, and its heartbeat, off two cores. */
	if (atomic_exchange_explicit(&c->polling, true, memory_order_acquire))
		return;
	inside = true;
	atomic_store_explicit(&c->waiter_ns, rig_now_ns(), memory_order_relaxed);
	empty = ucp_worker_progress(c->link.worker) ? 0 : empty + 1;
	inside = false;
	atomic_store_explicit(&c->polling, false, memory_order_release);
	/* rig's wait looks 16 times before it first yields, each look a
	 * poll of every transport: where the agent shares this core (other
	 * work holds the other), that kept it from the SUBMIT for some 6 us
	 * of each round trip. */
	if (empty >= WAITER_YIELD_AFTER) {
		empty = 0;
		sched_yield();
	}
}

struct conn *
machine_conn(struct machine *m)
{
	struct conn *c = m->conn;

	return c && atomic_load(&c->up) ? c : NULL;
}

int
machine_send(struct machine *m, const struct remote_msg *msg, char *why, size_t why_len)
{
	struct conn *c = machine_conn(m);

	if (!c) {
		snprintf(why, why_len, "AGENT %s: connection lost", m->where);
		return -1;
	}
	atomic_store_explicit(&c->sent_ns, rig_now_ns(), memory_order_relaxed);
	if (link_send(c->ep, msg, why, why_len) < 0) {
		conn_lost(c);
		return -1;
	}
	return 0;
}

int
machine_send_copy(struct machine *m, const uint8_t *bytes, size_t len, char *why, size_t why_len)
{
	struct conn *c = machine_conn(m);

	if (!c) {
		snprintf(why, why_len, "AGENT %s: connection lost", m->where);
		return -1;
	}
	atomic_store_explicit(&c->sent_ns, rig_now_ns(), memory_order_relaxed);
	if (link_send_copy(c->ep, bytes, len, why, why_len) < 0) {
		conn_lost(c);
		return -1;
	}
	return 0;
}

int
machine_send_bytes(struct machine *m, uint8_t *bytes, size_t len, char *why, size_t why_len)
{
	struct conn *c = machine_conn(m);

	if (!c) {
		free(bytes);
		snprintf(why, why_len, "AGENT %s: connection lost", m->where);
		return -1;
	}
	atomic_store_explicit(&c->sent_ns, rig_now_ns(), memory_order_relaxed);
	if (link_send_bytes(c->ep, bytes, len, why, why_len) < 0) {
		conn_lost(c);
		return -1;
	}
	return 0;
}

int
machine_call(struct machine *m, struct remote_msg *req, struct remote_msg *ans,
	     uint8_t **keep, char *why, size_t why_len)
{
	static pthread_mutex_t one_call = PTHREAD_MUTEX_INITIALIZER;
	struct conn *c;
	int ret = -1;

	pthread_mutex_lock(&one_call);
	pthread_mutex_lock(&m->lock);
	req->id = ++m->next_id ? m->next_id : ++m->next_id;
	m->want_id = req->id;
	m->answer = NULL;
	m->answer_lost = false;
	pthread_mutex_unlock(&m->lock);
	if (machine_send(m, req, why, why_len) < 0)
		goto out;
	c = m->conn;
	pthread_mutex_lock(&m->lock);
	while (!m->answer && !m->answer_lost && atomic_load(&c->up))
		pthread_cond_wait(&m->answered, &m->lock);
	*keep = m->answer;
	m->answer = NULL;
	m->want_id = 0;
	pthread_mutex_unlock(&m->lock);
	if (!*keep) {
		snprintf(why, why_len, "AGENT %s: connection lost", m->where);
		goto out;
	}
	if (remote_decode(*keep, m->answer_len, ans, why, why_len) < 0) {
		free(*keep);
		*keep = NULL;
		goto out;
	}
	if (ans->type == REMOTE_ERROR) {
		snprintf(why, why_len, "%.*s", (int)ans->u.error.len, (const char *)ans->u.error.at);
		free(*keep);
		*keep = NULL;
		goto out;
	}
	ret = 0;
out:
	pthread_mutex_unlock(&one_call);
	return ret;
}

/* Wait for the answer of type want during the handshake (the progress
 * thread is not running yet): this thread progresses the worker. */
static int
handshake_wait(struct conn *c, uint16_t want, struct remote_msg *out, char *why,
	       size_t why_len)
{
	struct machine *m = c->m;
	uint64_t deadline = rig_now_ns() + m->heartbeat_ns;

	while (rig_now_ns() < deadline && atomic_load(&c->up)) {
		uint8_t *got;

		link_progress(&c->link, 1);
		pthread_mutex_lock(&m->lock);
		got = m->answer;
		m->answer = NULL;
		pthread_mutex_unlock(&m->lock);
		if (!got)
			continue;
		if (remote_decode(got, m->answer_len, out, why, why_len) < 0 || out->type != want) {
			free(got);
			snprintf(why, why_len, "AGENT %s: the handshake failed", m->where);
			return -1;
		}
		free(got);	/* the nonce and MAC are copied by decode */
		return 0;
	}
	snprintf(why, why_len, "AGENT %s: %s", m->where,
		 atomic_load(&c->up) ? "no answer to the handshake (is it an agent?)" :
		 "the agent closed the connection (wrong key?)");
	return -1;
}

/* Whether sa is an address of this host in this network namespace:
 * loopback, or one of its interfaces'. */
static bool
here(const struct sockaddr_storage *sa)
{
	struct ifaddrs *ifs, *i;
	bool yes = false;

	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;

		if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
			return true;
	} else if (sa->ss_family == AF_INET6) {
		if (IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr))
			return true;
	} else {
		return false;
	}
	if (getifaddrs(&ifs) < 0)
		return false;
	for (i = ifs; i && !yes; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != sa->ss_family)
			continue;
		if (sa->ss_family == AF_INET)
			yes = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			      ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
		else
			yes = !memcmp(&((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
				      &((const struct sockaddr_in6 *)sa)->sin6_addr,
				      sizeof(struct in6_addr));
	}
	freeifaddrs(ifs);
	return yes;
}

/*
 * BULK: this worker's address, to which the agent connects the endpoint
 * its RMA travels on (agent.c says why it is a second one). Only to an
 * agent of this host and network namespace: that endpoint is for the
 * host's own memory transports (cma), which a network's RMA does not
 * need; and UCX takes two namespaces of one host for one machine, whose
 * shared-memory wake-ups (abstract sockets, one set per namespace) then
 * never arrive. Sent before any pin; where it cannot go (an address past
 * the wire's bound, or RIG_REMOTE_BULK=0), RMA stays on the first
 * endpoint.
 */
static void
send_bulk(struct conn *c, const struct sockaddr_storage *sa)
{
	const char *e = getenv("RIG_REMOTE_BULK");
	struct remote_msg msg = { .type = REMOTE_BULK };
	ucp_address_t *addr;
	size_t len;
	char why[200];

	if ((e && !strcmp(e, "0")) || !here(sa) ||
	    ucp_worker_get_address(c->link.worker, &addr, &len) != UCS_OK)
		return;
	if (len <= REMOTE_ADDRESS_MAX) {
		msg.u.address = (struct remote_bytes){ (const uint8_t *)addr, (uint32_t)len };
		(void)link_send(c->ep, &msg, why, sizeof(why));	/* a failure shows at the next send */
	}
	ucp_worker_release_address(c->link.worker, addr);
}

int
machine_connect(struct machine *m, const char *key_file, char *why, size_t why_len)
{
	struct remote_key key;
	struct remote_msg msg = { 0 }, ans;
	struct sockaddr_storage sa;
	socklen_t salen;
	uint8_t cnonce[REMOTE_NONCE], mac[REMOTE_MAC];
	struct conn *c;
	ucp_ep_params_t ep;
	int ret = -1;

	pthread_mutex_lock(&m->connect);
	if (machine_conn(m)) {
		pthread_mutex_unlock(&m->connect);
		return 0;
	}
	if (m->conn && m->conn->has_thread) {	/* the broken one: its thread ends, its UCX state stays */
		atomic_store(&m->conn->polled, false);
		atomic_store(&m->conn->stop, true);
		pthread_join(m->conn->thread, NULL);
		m->conn->has_thread = false;
	}
	if (remote_key_find(key_file, &key, why, why_len) < 0 ||
	    link_address(m->where, &sa, &salen, why, why_len) < 0) {
		pthread_mutex_unlock(&m->connect);
		return -1;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		snprintf(why, why_len, "no memory");
		goto out;
	}
	c->m = m;
	if (link_open_shm(&c->link, true, here(&sa), on_message, c, why, why_len) < 0) {
		free(c);
		goto out;
	}
	ep = (ucp_ep_params_t){
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = { (const struct sockaddr *)&sa, salen },
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = ep_failed, .arg = c },
	};
	if (ucp_ep_create(c->link.worker, &ep, &c->ep) != UCS_OK) {
		snprintf(why, why_len, "AGENT %s: UCX cannot connect", m->where);
		goto out_conn;
	}
	atomic_store(&c->up, true);
	atomic_store(&c->heard_ns, rig_now_ns());
	c->older = m->conn;
	m->conn = c;
	/* The handshake's requests (ids 1, 2) are answered before the
	 * progress thread runs: this thread progresses the worker. */
	if (remote_nonce(cnonce) < 0) {
		snprintf(why, why_len, "no nonce: %s", strerror(errno));
		goto out_drop;
	}
	msg.type = REMOTE_HELLO;
	msg.id = 1;
	msg.u.hello.version = REMOTE_VERSION;
	memcpy(msg.u.hello.nonce, cnonce, REMOTE_NONCE);
	pthread_mutex_lock(&m->lock);
	m->want_id = 1;
	pthread_mutex_unlock(&m->lock);
	if (link_send(c->ep, &msg, why, why_len) < 0 ||
	    handshake_wait(c, REMOTE_CHALLENGE, &ans, why, why_len) < 0)
		goto out_drop;
	msg = (struct remote_msg){ .type = REMOTE_AUTH, .id = 2 };
	pthread_mutex_lock(&m->lock);
	m->want_id = 2;
	pthread_mutex_unlock(&m->lock);
	remote_mac(&key, false, cnonce, ans.u.challenge.nonce, msg.u.mac);
	remote_mac(&key, true, cnonce, ans.u.challenge.nonce, mac);
	c->ping_ns = ping_every(m->heartbeat_ns, ans.u.challenge.heartbeat_ms);
	if (link_send(c->ep, &msg, why, why_len) < 0 ||
	    handshake_wait(c, REMOTE_WELCOME, &ans, why, why_len) < 0)
		goto out_drop;
	if (!remote_mac_equal(mac, ans.u.mac)) {
		snprintf(why, why_len, "AGENT %s: the agent does not prove the key", m->where);
		goto out_drop;
	}
	send_bulk(c, &sa);
	if (pthread_create(&c->thread, NULL, progress, c) != 0) {
		snprintf(why, why_len, "no progress thread");
		goto out_drop;
	}
	c->has_thread = true;
	atomic_store_explicit(&c->polled, true, memory_order_release);
	pthread_mutex_lock(&m->lock);
	m->want_id = 0;
	pthread_mutex_unlock(&m->lock);
	ret = 0;
	goto out;
out_drop:
	atomic_store(&c->up, false);
	link_ep_drop(&c->link, c->ep);
	goto out;
out_conn:
	link_close(&c->link);
	free(c);
out:
	memset(&key, 0, sizeof(key));
	pthread_mutex_unlock(&m->connect);
	return ret;
}
