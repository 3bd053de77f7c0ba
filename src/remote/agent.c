/* SPDX-License-Identifier: MIT */
/*
 * remote/agent.c: rig_remote_agent(), the server loop of `rig agent`. One
 * thread: it progresses UCX (the listener, each client's endpoint, RMA),
 * answers each client's requests through rig's own calls (rig_open and
 * the openers a local program uses, rig_buffer_create, rig_image_load...),
 * and pumps each device's steps (serve.c). A client is admitted once it
 * proves the key (auth.h); anything else it sends first, and any message
 * that does not decode, closes its connection and changes nothing else.
 * A client that goes (its endpoint fails, or it is silent past the
 * heartbeat bound) has its devices closed and its memory returned.
 *
 * Bulk: RMA travels on an endpoint of its own. The client's endpoint asks
 * UCX for peer-failure handling (a broken connection must be seen), and
 * UCX 1.13 then selects for RMA only transports whose memory domain can
 * invalidate a registration (select.c's UCT_MD_FLAG_INVALIDATE): on one
 * machine that leaves out cross-memory attach (cma), and a get becomes
 * TCP's emulation through the client's progress thread, some ten times
 * slower than a bare put. So the client sends its worker address (BULK)
 * and the agent connects a second endpoint to it without error handling,
 * used for puts, gets, flushes and rkeys alone: a failure of the peer is
 * seen on the first endpoint; the second's operations then end with an
 * error status (cma and tcp log such failures at DIAG only), which loses
 * the device as any failed RMA does. An agent that cannot make it keeps
 * RMA on the first endpoint.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "rig_host.h"
#include "remote/agent.h"

/*
 * The agent's HOST runs a short launch on the agent's own thread: opened
 * with run_at_submit (rig_host.h, src/host/here.c), a submit that finds
 * the device idle runs a launch of one group (or any launch where the
 * device has one core) before rig_submit returns, so the loop that issued
 * it sees its value reached in the same pass and sends the REACHED at
 * once (serve_pump): no wake-up of the HOST device thread, none of the
 * loop for the value's end. The cost: such a kernel holds the loop while
 * it runs (other clients' messages and heartbeats wait for it, as the
 * client's own values would), so one longer than the heartbeat bound
 * loses its connection. So it is asked for, not the default:
 * RIG_REMOTE_HOST_INLINE=1 in the agent's environment turns it on (the
 * bench and test_remote do); otherwise every launch goes to the device's
 * threads, and a long kernel of one group holds no client up.
 */
static int
open_host(struct rig_device **d)
{
	const char *e = getenv("RIG_REMOTE_HOST_INLINE");
	struct rig_host_config hc = { .name = "HOST", .run_at_submit = e && !strcmp(e, "1") };

	return rig_host_open(&hc, d);
}

void
agent_log(struct agent *a, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (a->c->log)
		a->c->log(line);
	else
		fprintf(stderr, "rig agent: %s\n", line);
}

static void
gone(struct client *c, const char *why)
{
	if (c->state != CLIENT_GONE) {
		c->state = CLIENT_GONE;
		c->gone_why = why;
	}
}

void
agent_send(struct agent *a, struct client *c, const struct remote_msg *m)
{
	char why[200];

	if (c->state == CLIENT_GONE)
		return;
	if (link_send_one_way(c->ep, m, why, sizeof(why)) < 0) {
		agent_log(a, "client %s: %s: %s", c->peer, remote_type_name(m->type), why);
		gone(c, "a send failed");
	}
}

struct aobj *
agent_obj(struct client *c, uint64_t id, enum aobj_kind kind)
{
	if (id == 0 || id > c->nobjs || c->objs[id - 1].kind != kind)
		return NULL;
	return &c->objs[id - 1];
}

/* A new object's id, or 0 for no memory. */
static uint64_t
obj_new(struct client *c, enum aobj_kind kind)
{
	if (c->nobjs == c->cap) {
		uint64_t cap = c->cap ? 2 * c->cap : 64;
		struct aobj *o = realloc(c->objs, cap * sizeof(*o));

		if (!o)
			return 0;
		c->objs = o;
		c->cap = cap;
	}
	c->objs[c->nobjs] = (struct aobj){ .kind = kind };
	return ++c->nobjs;
}

static void
obj_end(struct agent *a, struct aobj *o)
{
	switch (o->kind) {
	case AOBJ_BUFFER:
		if (o->u.buf.memh)
			ucp_mem_unmap(a->link.ctx, o->u.buf.memh);
		rig_buffer_release(o->u.buf.b);
		break;
	case AOBJ_IMAGE:
		rig_image_release(o->u.img);
		break;
	case AOBJ_PIN:
		ucp_rkey_destroy(o->u.pin.rkey);
		break;
	default:
		break;
	}
	o->kind = AOBJ_NONE;
}

void
agent_cut(struct agent *a, struct client *c, const char *why)
{
	if (!c->ep && !c->bulk)
		return;
	agent_log(a, "client %s: %s; its connection closes", c->peer, why);
	gone(c, why);
	link_ep_drop(&a->link, c->bulk);
	link_ep_drop(&a->link, c->ep);
	c->bulk = c->ep = NULL;
}

ucp_ep_h
agent_rma_ep(struct client *c)
{
	return c->bulk ? c->bulk : c->ep;
}

/* BULK: the endpoint of RMA, to the client's worker (only before any pin:
 * rkeys are unpacked on the endpoint of RMA). Making an endpoint does not
 * progress the worker, so it may be made inside the handler. */
static void
on_bulk(struct agent *a, struct client *c, const struct remote_msg *m)
{
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.address = (const ucp_address_t *)m->u.address.at,
		.err_mode = UCP_ERR_HANDLING_MODE_NONE,
	};
	bool pinned = false;

	for (uint64_t i = 0; i < c->nobjs; i++)
		pinned |= c->objs[i].kind == AOBJ_PIN;
	if (c->bulk_asked || !m->u.address.len || pinned)
		return gone(c, c->bulk_asked ? "a second BULK" : m->u.address.len ?
			    "a BULK after a PIN" : "a BULK with no address");
	c->bulk_asked = true;
	if (ucp_ep_create(a->link.worker, &ep, &c->bulk) != UCS_OK) {
		c->bulk = NULL;
		agent_log(a, "client %s: no bulk endpoint; RMA goes on the first", c->peer);
	}
}

static struct adev *
dev_of(struct client *c, uint32_t id)
{
	for (struct adev *d = c->devs; d; d = d->next)
		if (d->id == id)
			return d;
	return NULL;
}

/* ---- Devices, shared between clients ---- */

static struct shared_dev *
shared_open(struct agent *a, const char *name, char *why, size_t why_len)
{
	struct shared_dev *sd;
	struct rig_device *d = NULL;
	int ret;

	for (sd = a->shared; sd; sd = sd->next)
		if (!strcmp(sd->name, name) && !rig_lost(sd->d)) {
			sd->users++;
			return sd;
		}
	if (!(sd = calloc(1, sizeof(*sd)))) {
		snprintf(why, why_len, "no memory");
		return NULL;
	}
	if (agent_amd_name(name)) {
		ret = agent_amd_open(a, sd, name, &d, why, why_len);	/* agent_amd.c */
		if (ret < 0) {
			free(sd);
			return NULL;
		}
	} else if (!strcmp(name, "HOST")) {
		if (!a->c->host) {
			snprintf(why, why_len, "this agent does not serve HOST (--no-host)");
			free(sd);
			return NULL;
		}
		ret = open_host(&d);
	} else {
		if (!a->c->memory) {
			snprintf(why, why_len, "this agent serves no memory devices (--no-memory): %.100s", name);
			free(sd);
			return NULL;
		}
		ret = rig_memory_device(name, &d);
	}
	if (ret < 0) {
		snprintf(why, why_len, "%s", rig_why());
		free(sd);
		return NULL;
	}
	if (!(sd->name = strdup(name))) {
		(void)rig_close(d);
		rig_device_release(d);
		agent_amd_end(sd);
		free(sd);
		snprintf(why, why_len, "no memory");
		return NULL;
	}
	sd->d = d;
	sd->users = 1;
	sd->next = a->shared;
	a->shared = sd;
	return sd;
}

static void
shared_put(struct agent *a, struct shared_dev *sd)
{
	struct shared_dev **p;

	if (--sd->users > 0)
		return;
	for (p = &a->shared; *p != sd; p = &(*p)->next)
		;
	*p = sd->next;
	(void)rig_close(sd->d);
	rig_device_release(sd->d);
	agent_disk_end(sd);
	agent_amd_end(sd);
	free(sd->name);
	free(sd);
}

static void
dev_end(struct agent *a, struct client *c, struct adev *dev)
{
	struct adev **p;

	serve_drop(a, c, dev);
	for (p = &c->devs; *p != dev; p = &(*p)->next)
		;
	*p = dev->next;
	/* The client's buffers on it go before the device can close. */
	for (uint64_t i = 0; i < c->nobjs; i++) {
		struct aobj *o = &c->objs[i];

		/* By the client's device, not rig's: a device the client
		 * opened again shares rig's, and its buffers stay. */
		if (o->kind == AOBJ_BUFFER && o->u.buf.dev == dev->id)
			obj_end(a, o);
	}
	shared_put(a, dev->sd);
	free(dev);
}

/* ---- Requests ---- */

static void
reply_error(struct agent *a, struct client *c, uint32_t id, const char *why)
{
	struct remote_msg m = { .type = REMOTE_ERROR, .id = id };
	char text[REMOTE_STR_MAX + 1];

	snprintf(text, sizeof(text), "%s", why);
	m.u.error = remote_str(text);
	agent_send(a, c, &m);
}

static void
on_open(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_OPENED, .id = m->id };
	char name[REMOTE_STR_MAX + 1], why[256];
	struct shared_dev *sd;
	struct adev *dev;
	struct rig_buffer *probe = NULL;

	memcpy(name, m->u.name.at, m->u.name.len);
	name[m->u.name.len] = 0;
	if (!(sd = shared_open(a, name, why, sizeof(why))))
		return reply_error(a, c, m->id, why);
	if (!(dev = calloc(1, sizeof(*dev)))) {
		shared_put(a, sd);
		return reply_error(a, c, m->id, "no memory");
	}
	dev->id = ++c->next_dev;
	dev->sd = sd;
	dev->expect = 1;
	dev->next = c->devs;
	c->devs = dev;
	r.u.opened.dev = dev->id;
	r.u.opened.arch = remote_str(rig_arch(sd->d));
	r.u.opened.budget = rig_budget(sd->d);
	r.u.opened.alignment = 64;
	r.u.opened.hang_ms = -1;
	r.u.opened.cache_bytes = rig_cache_bytes(sd->d) > 0 ? rig_cache_bytes(sd->d) : -1;
	/* The queues a client's work reaches: launches and copies (no fills
	 * or words: they name this process's memory). */
	if (!strcmp(name, "HOST")) {
		r.u.opened.nqueues = 2;
		r.u.opened.queues[0] = (struct remote_queue){ remote_str("COMPUTE:0"),
			1u << 4 /* RIG_RUNS(RIG_LAUNCH_PART) */ };
		r.u.opened.queues[1] = (struct remote_queue){ remote_str("COPY:0"), 1u << 3 };
		r.u.opened.copy_engine = 1;
	} else if (sd->amd) {
		/* The AMD device's queues (amd/dev/ops.c): launches on
		 * COMPUTE:0, copies on SDMA:0, its copy engine. */
		r.u.opened.nqueues = 2;
		r.u.opened.queues[0] = (struct remote_queue){ remote_str("COMPUTE:0"), 1u << 4 };
		r.u.opened.queues[1] = (struct remote_queue){ remote_str("SDMA:0"), 1u << 3 };
		r.u.opened.copy_engine = 1;
		r.u.opened.alignment = 256;
	} else {
		r.u.opened.nqueues = 1;
		r.u.opened.queues[0] = (struct remote_queue){ remote_str("MEMORY"), 1u << 3 };
		r.u.opened.copy_engine = 0;
	}
	(void)probe;
	agent_log(a, "client %s: opened %s as device %u", c->peer, name, dev->id);
	agent_send(a, c, &r);
}

static void
on_alloc(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_ALLOCED, .id = m->id };
	struct adev *dev = dev_of(c, m->u.alloc.dev);
	struct rig_buffer *b;
	ucp_mem_map_params_t mp;
	struct aobj *o;
	uint64_t id;

	if (!dev || dev->lost || dev->closing)
		return reply_error(a, c, m->id, "no such device, or it is lost");
	if (m->u.alloc.kind != RIG_MEMORY_DEVICE && m->u.alloc.kind != RIG_MEMORY_MAPPED)
		return reply_error(a, c, m->id, "the agent allocates Device or Mapped memory only");
	if (rig_buffer_create(dev->sd->d, m->u.alloc.bytes, (enum rig_memory)m->u.alloc.kind, &b) < 0)
		return reply_error(a, c, m->id, rig_why());
	if (!(id = obj_new(c, AOBJ_BUFFER))) {
		rig_buffer_release(b);
		return reply_error(a, c, m->id, "no memory");
	}
	o = &c->objs[id - 1];
	o->u.buf.b = b;
	o->u.buf.bytes = m->u.alloc.bytes;
	o->u.buf.dev = dev->id;
	/* HOST's and memory devices' addresses are host addresses: the
	 * agent's end of RMA, registered with UCX once. */
	o->u.buf.host = dev->sd->amd ? NULL :	/* a GPU address, not the host's */
			(void *)(uintptr_t)rig_buffer_address(b);
	if (o->u.buf.host && m->u.alloc.bytes) {
		mp = (ucp_mem_map_params_t){
			.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
			.address = o->u.buf.host, .length = m->u.alloc.bytes,
		};
		if (ucp_mem_map(a->link.ctx, &mp, &o->u.buf.memh) != UCS_OK)
			o->u.buf.memh = NULL;	/* RMA still works, unregistered */
	}
	r.u.alloced.id = id;
	r.u.alloced.address = rig_buffer_address(b);
	agent_send(a, c, &r);
}

static void
on_load(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_LOADED, .id = m->id };
	struct adev *dev = dev_of(c, m->u.load.dev);
	struct rig_image *img;
	uint64_t id;

	if (!dev || dev->lost || dev->closing)
		return reply_error(a, c, m->id, "no such device, or it is lost");
	if (rig_image_load(dev->sd->d, m->u.load.image.at, m->u.load.image.len, &img) < 0)
		return reply_error(a, c, m->id, rig_why());
	if (!(id = obj_new(c, AOBJ_IMAGE))) {
		rig_image_release(img);
		return reply_error(a, c, m->id, "no memory");
	}
	c->objs[id - 1].u.img = img;
	r.u.handle = id;
	agent_send(a, c, &r);
}

static void
on_entry(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_ENTRY_IS, .id = m->id };
	struct aobj *img = agent_obj(c, m->u.entry.image, AOBJ_IMAGE);
	char name[REMOTE_STR_MAX + 1];
	struct rig_function *fn;
	uint64_t id;

	if (!img)
		return reply_error(a, c, m->id, "no such image");
	memcpy(name, m->u.entry.name.at, m->u.entry.name.len);
	name[m->u.entry.name.len] = 0;
	if (rig_image_function(img->u.img, name, &fn) < 0) {
		r.u.entry_is.answer = 1;	/* RIG_ABSENT */
	} else if (!(id = obj_new(c, AOBJ_FUNCTION))) {
		return reply_error(a, c, m->id, "no memory");
	} else {
		c->objs[id - 1].u.fn = fn;
		r.u.entry_is.fn = id;
		r.u.entry_is.code = id;
	}
	agent_send(a, c, &r);
}

static void
on_pin(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_PINNED, .id = m->id };
	ucp_rkey_h rkey;
	uint64_t id;

	if (ucp_ep_rkey_unpack(agent_rma_ep(c), m->u.pin.rkey.at, &rkey) != UCS_OK)
		return reply_error(a, c, m->id, "the pin's rkey does not unpack");
	if (!(id = obj_new(c, AOBJ_PIN))) {
		ucp_rkey_destroy(rkey);
		return reply_error(a, c, m->id, "no memory");
	}
	c->objs[id - 1].u.pin.rkey = rkey;
	c->objs[id - 1].u.pin.address = m->u.pin.address;
	c->objs[id - 1].u.pin.bytes = m->u.pin.bytes;
	r.u.handle = id;
	agent_send(a, c, &r);
}

static void
on_free(struct agent *a, struct client *c, const struct remote_msg *m)
{
	enum aobj_kind k = m->type == REMOTE_FREE ? AOBJ_BUFFER :
			   m->type == REMOTE_UNLOAD ? AOBJ_IMAGE : AOBJ_PIN;
	struct aobj *o = agent_obj(c, m->u.handle, k);

	/* A pin goes only after the steps that name it: the client frees
	 * it once its values are reached, so none is in flight. */
	if (o)
		obj_end(a, o);
}

static void
handshake(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .id = m->id };
	uint8_t want[REMOTE_MAC];

	if (c->state == CLIENT_NEW && m->type == REMOTE_HELLO &&
	    m->u.hello.version == REMOTE_VERSION) {
		memcpy(c->cnonce, m->u.hello.nonce, REMOTE_NONCE);
		if (remote_nonce(c->anonce) < 0)
			return gone(c, "no nonce");
		r.type = REMOTE_CHALLENGE;
		memcpy(r.u.challenge.nonce, c->anonce, REMOTE_NONCE);
		r.u.challenge.heartbeat_ms = (uint32_t)(a->heartbeat_ns / 1000000);
		c->state = CLIENT_CHALLENGED;
		agent_send(a, c, &r);
		return;
	}
	if (c->state == CLIENT_CHALLENGED && m->type == REMOTE_AUTH) {
		remote_mac(&a->key, false, c->cnonce, c->anonce, want);
		if (!remote_mac_equal(want, m->u.mac))
			return gone(c, "wrong key");
		r.type = REMOTE_WELCOME;
		remote_mac(&a->key, true, c->cnonce, c->anonce, r.u.mac);
		c->state = CLIENT_READY;
		c->admitted = true;
		agent_log(a, "client %s: admitted", c->peer);
		agent_send(a, c, &r);
		return;
	}
	gone(c, m->type == REMOTE_HELLO ? "wrong protocol version" :
		"a message before the handshake ended");
}

static struct client *
client_of(struct agent *a, ucp_ep_h ep)
{
	for (struct client *c = a->clients; c; c = c->next)
		if (c->ep == ep)
			return c;
	return NULL;
}

static void
on_one(struct agent *a, struct client *c, const void *bytes, size_t len)
{
	static struct remote_msg m;	/* one thread: the agent's */
	struct adev *dev;
	bool idle;
	char why[256];

	if (remote_decode(bytes, len, &m, why, sizeof(why)) < 0) {
		agent_log(a, "client %s: malformed message: %s", c->peer, why);
		return gone(c, "a malformed message");
	}
	c->heard_ns = rig_now_ns();
	if (c->state != CLIENT_READY)
		return handshake(a, c, &m);
	switch (m.type) {
	case REMOTE_OPEN: on_open(a, c, &m); break;
	case REMOTE_CLOSE:
		/* Ended by the loop, not here: its RMA in flight is waited
		 * for by progressing UCX, which a handler must not do. */
		if ((dev = dev_of(c, m.u.dev)))
			dev->closing = true;
		break;
	case REMOTE_ALLOC: on_alloc(a, c, &m); break;
	case REMOTE_LOAD: on_load(a, c, &m); break;
	case REMOTE_ENTRY: on_entry(a, c, &m); break;
	case REMOTE_PIN: on_pin(a, c, &m); break;
	case REMOTE_FREE: case REMOTE_UNLOAD: case REMOTE_UNPIN:
		on_free(a, c, &m);
		break;
	case REMOTE_SUBMIT:
		if (!(dev = dev_of(c, m.u.submit.dev))) {
			agent_log(a, "client %s: SUBMIT to device %u, which it did not open",
				  c->peer, m.u.submit.dev);
			return gone(c, "a submit to no device");
		}
		if (dev->lost || dev->closing)
			break;
		/* Where the device's queue is busy, issued by the loop's pump
		 * once UCX's progress has delivered every message that came,
		 * so that the launches of all of them go as one rig submit
		 * (serve.c). Where it is empty, nothing queued would merge
		 * with it: pumped here, in the handler (a short HOST launch
		 * runs, and its REACHED leaves, before UCX's progress call
		 * goes on to poll its other transports), and that call
		 * returns at once (urgent), so the loop is back for the next
		 * message. Issuing makes no progress call (serve.c), which a
		 * handler must not. Some 0.4 us of a 2.2 us round trip, by
		 * stamps (docs/remote.md). */
		idle = !dev->head;
		if (serve_submit(a, c, dev, &m, why, sizeof(why)) < 0) {
			serve_lose(a, c, dev, why);
		} else if (idle) {
			a->link.urgent = true;
			(void)serve_pump(a, c, dev, NULL);
		}
		break;
	case REMOTE_OPEN_DISK: case REMOTE_FILE_CREATE: case REMOTE_FILE_OPEN:
	case REMOTE_FILE_SIZE:
		agent_disk_request(a, c, &m);
		break;
	case REMOTE_MACHINE_GPUS: agent_amd_gpus(a, c, &m); break;
	case REMOTE_PING: {
		struct remote_msg r = { .type = REMOTE_PONG, .id = m.id };

		r.u.ping = m.u.ping;
		agent_send(a, c, &r);
		break;
	}
	case REMOTE_PONG:
		break;
	case REMOTE_BULK: on_bulk(a, c, &m); break;
	default:
		agent_log(a, "client %s: %s is no request", c->peer, remote_type_name(m.type));
		gone(c, "a message that is no request");
	}
}

/* An active message holds one message, or a client's batch of them. */
static void
on_message(void *arg, ucp_ep_h ep, const void *bytes, size_t len)
{
	struct agent *a = arg;
	struct client *c = client_of(a, ep);
	const uint8_t *at = bytes;

	/* A conversation: its next message is most often microseconds away. */
	a->hot_until = rig_now_ns() + link_hot_ns();
	while (c && c->state != CLIENT_GONE && len) {
		size_t n = remote_first(at, len);

		/* What does not hold a whole message is refused as one. */
		on_one(a, c, at, n ? n : len);
		if (!n)
			break;
		at += n;
		len -= n;
	}
}

/* ---- Connections ---- */

static void
ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct client *c = arg;

	gone(c, "connection lost");
}

static void
on_connect(ucp_conn_request_h req, void *arg)
{
	struct agent *a = arg;
	ucp_conn_request_attr_t attr = { .field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR };
	struct client *c = calloc(1, sizeof(*c));
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.conn_request = req,
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = ep_failed, .arg = c },
	};

	if (!c) {
		ucp_listener_reject(a->listener, req);
		return;
	}
	snprintf(c->peer, sizeof(c->peer), "?");
	if (ucp_conn_request_query(req, &attr) == UCS_OK) {
		char host[64] = "?";
		const struct sockaddr *sa = (const struct sockaddr *)&attr.client_address;
		int port = 0;

		if (sa->sa_family == AF_INET) {
			inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host, sizeof(host));
			port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
		} else if (sa->sa_family == AF_INET6) {
			inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof(host));
			port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
		}
		snprintf(c->peer, sizeof(c->peer), "%s:%d", host, port);
	}
	if (ucp_ep_create(a->link.worker, &ep, &c->ep) != UCS_OK) {
		free(c);
		return;
	}
	c->heard_ns = rig_now_ns();
	c->next = a->clients;
	a->clients = c;
}

static void
client_end(struct agent *a, struct client *c)
{
	int ndev = 0;
	uint64_t nbuf = 0;

	for (uint64_t i = 0; i < c->nobjs; i++)
		nbuf += c->objs[i].kind == AOBJ_BUFFER;
	while (c->devs) {
		dev_end(a, c, c->devs);
		ndev++;
	}
	for (uint64_t i = 0; i < c->nobjs; i++)
		obj_end(a, &c->objs[i]);
	if (c->admitted)
		agent_log(a, "client %s: %s; closed %d devices, returned %llu buffers",
			  c->peer, c->gone_why, ndev, (unsigned long long)nbuf);
	else
		agent_log(a, "client %s: refused: %s", c->peer, c->gone_why);
	link_ep_drop(&a->link, c->bulk);
	link_ep_drop(&a->link, c->ep);
	free(c->objs);
	free(c);
}

int
rig_remote_agent(const struct rig_agent_config *cfg)
{
	static const char func[] = "rig_remote_agent";
	struct agent a = { .c = cfg };
	struct sockaddr_storage sa;
	socklen_t salen;
	char why[256];
	ucp_listener_params_t lp;
	ucp_listener_attr_t la = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
	const char *listen = cfg && cfg->listen ? cfg->listen : "127.0.0.1:7411";
	uint64_t spin = link_spin_ns(), hot = link_hot_ns(), last_slept = 0;

	if (!cfg)
		return rig_why_set(func, -EINVAL, "the config is NULL");
	if (link_address(listen, &sa, &salen, why, sizeof(why)) < 0)
		return rig_why_set(func, -EINVAL, "%s", why);
	if (remote_key_find(cfg->key_file, &a.key, why, sizeof(why)) < 0)
		return rig_why_set(func, -EINVAL, "%s", why);
	if (agent_disk_start(&a, why, sizeof(why)) < 0)
		return rig_why_set(func, -EINVAL, "%s", why);
	if (agent_amd_start(&a, why, sizeof(why)) < 0) {
		agent_disk_stop(&a);
		return rig_why_set(func, -EINVAL, "%s", why);
	}
	a.heartbeat_ns = (cfg->heartbeat_ms ? cfg->heartbeat_ms : 3000) * 1000000ull;
	/* An agent restarted on its port finds the connections its last run
	 * closed in TIME_WAIT there: UCX's TCP listener binds without
	 * SO_REUSEADDR unless told (docs/remote.md). The environment wins. */
	setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
	if (link_open_shm(&a.link, false, true, on_message, &a, why, sizeof(why)) < 0) {
		agent_disk_stop(&a);
		agent_amd_stop(&a);
		return rig_why_set(func, -EINVAL, "%s", why);
	}
	lp = (ucp_listener_params_t){
		.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.sockaddr = { (const struct sockaddr *)&sa, salen },
		.conn_handler = { on_connect, &a },
	};
	if (ucp_listener_create(a.link.worker, &lp, &a.listener) != UCS_OK) {
		link_close(&a.link);
		agent_disk_stop(&a);
		agent_amd_stop(&a);
		return rig_why_set(func, -EINVAL, "UCX cannot listen on %s", listen);
	}
	if (ucp_listener_query(a.listener, &la) == UCS_OK) {
		char host[64] = "?";
		int port = 0;

		if (la.sockaddr.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&la.sockaddr)->sin_addr, host, sizeof(host));
			port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
		} else {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&la.sockaddr)->sin6_addr, host, sizeof(host));
			port = ntohs(((struct sockaddr_in6 *)&la.sockaddr)->sin6_port);
		}
		snprintf(a.where, sizeof(a.where), "%s:%d", host, port);
	}
	agent_log(&a, "listening on %s", a.where);
	while (!cfg->stop || !*cfg->stop) {
		bool busy = false;
		uint64_t now = rig_now_ns();
		struct rig_point next = { 0 };

		for (struct client **p = &a.clients; *p;) {
			struct client *c = *p;

			if (c->state != CLIENT_GONE && link_silent_ns(now, c->heard_ns) > a.heartbeat_ns)
				gone(c, "silent past the heartbeat bound");
			if (c->state == CLIENT_GONE) {
				*p = c->next;
				client_end(&a, c);
				continue;
			}
			for (struct adev *d = c->devs, *n; d; d = n) {
				n = d->next;
				if (d->closing)
					dev_end(&a, c, d);
				else
					busy |= serve_pump(&a, c, d, &next);
			}
			p = &c->next;
		}
		/* Idle: poll UCX, yielding, while hot (a message came or a value
		 * ended within link_hot_ns: the client's next one is on its
		 * way), else for the short spin; then sleep on UCX's fd. Work in
		 * flight: progress, then poll the first running value's word
		 * (and the worker) for as long, then sleep on the word for a
		 * moment (the device's wake ends the sleep at once; UCX's
		 * messages wait 50 us at most). RMA in flight alone: progress,
		 * yielding the core. */
		now = rig_now_ns();
		if (!busy) {
			(void)link_progress_spin(&a.link, a.hot_until > now && a.hot_until - now > spin ?
						 a.hot_until - now : spin, 20);
			continue;
		}
		a.hot_until = now + hot;
		link_progress(&a.link, 0);
		if (!next.device) {
			sched_yield();
			continue;
		}
		/* The value's end is most often microseconds away (an empty
		 * kernel's: the HOST thread's wake-up and run): hot for the
		 * first look at a value, the short spin once one sleep on it
		 * did not see it end (a long kernel: no core kept spinning). */
		for (uint64_t until = now + (next.value == last_slept ? spin : hot > spin ? hot : spin);
		     !rig_signaled(next);) {
			if (ucp_worker_progress(a.link.worker))
				break;
			if (rig_now_ns() >= until) {
				last_slept = next.value;
				(void)rig_wait(next, 50000);
				break;
			}
			sched_yield();	/* the device's thread may need this core */
		}
	}
	while (a.clients) {
		struct client *c = a.clients;

		a.clients = c->next;
		gone(c, "the agent stops");
		client_end(&a, c);
	}
	ucp_listener_destroy(a.listener);
	link_close(&a.link);
	agent_disk_stop(&a);
	agent_amd_stop(&a);
	memset(&a.key, 0, sizeof(a.key));
	return 0;
}

/* ---- For agent_disk.c ---- */

uint64_t
agent_obj_add(struct client *c, enum aobj_kind kind)
{
	return obj_new(c, kind);
}

struct adev *
agent_dev(struct client *c, uint32_t id)
{
	return dev_of(c, id);
}

struct adev *
agent_dev_add(struct client *c, struct shared_dev *sd)
{
	struct adev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	dev->id = ++c->next_dev;
	dev->sd = sd;
	dev->expect = 1;
	dev->next = c->devs;
	c->devs = dev;
	return dev;
}

void
agent_shared_put(struct agent *a, struct shared_dev *sd)
{
	shared_put(a, sd);
}

void
agent_error(struct agent *a, struct client *c, uint32_t id, const char *why)
{
	reply_error(a, c, id, why);
}
