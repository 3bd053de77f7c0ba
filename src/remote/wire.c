/* SPDX-License-Identifier: MIT */
/*
 * remote/wire.c: remote_encode() and remote_decode() (wire.h). One walk
 * per type in each direction; the reader refuses a field that does not
 * fit what is left, so no field is read past the message's end, and a
 * message with bytes left over after its last field is refused too (a
 * peer that sends more than it means is not one to trust).
 *
 * Hand-written: UCX frames messages but has no schema layer, and a
 * serialisation library (protobuf-c, msgpack) would double the code the
 * fuzzer must reach for some twenty fixed layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/wire.h"

static const char *const type_names[REMOTE_TYPES] = {
	[REMOTE_HELLO] = "HELLO", [REMOTE_CHALLENGE] = "CHALLENGE",
	[REMOTE_AUTH] = "AUTH", [REMOTE_WELCOME] = "WELCOME",
	[REMOTE_OPEN] = "OPEN", [REMOTE_OPENED] = "OPENED",
	[REMOTE_CLOSE] = "CLOSE", [REMOTE_ALLOC] = "ALLOC",
	[REMOTE_ALLOCED] = "ALLOCED", [REMOTE_FREE] = "FREE",
	[REMOTE_LOAD] = "LOAD", [REMOTE_LOADED] = "LOADED",
	[REMOTE_UNLOAD] = "UNLOAD", [REMOTE_ENTRY] = "ENTRY",
	[REMOTE_ENTRY_IS] = "ENTRY_IS", [REMOTE_PIN] = "PIN",
	[REMOTE_PINNED] = "PINNED", [REMOTE_UNPIN] = "UNPIN",
	[REMOTE_SUBMIT] = "SUBMIT", [REMOTE_REACHED] = "REACHED",
	[REMOTE_LOST] = "LOST", [REMOTE_PING] = "PING", [REMOTE_PONG] = "PONG",
	[REMOTE_ERROR] = "ERROR", [REMOTE_BULK] = "BULK",
	[REMOTE_OPEN_DISK] = "OPEN_DISK",
	[REMOTE_FILE_CREATE] = "FILE_CREATE", [REMOTE_FILE_OPEN] = "FILE_OPEN",
	[REMOTE_FILE_SIZE] = "FILE_SIZE", [REMOTE_FILE_IS] = "FILE_IS",
	[REMOTE_MACHINE_GPUS] = "MACHINE_GPUS", [REMOTE_GPUS_ARE] = "GPUS_ARE",
};

const char *
remote_type_name(unsigned type)
{
	return type && type < REMOTE_TYPES ? type_names[type] : "?";
}

struct remote_bytes
remote_str(const char *s)
{
	return (struct remote_bytes){ (const uint8_t *)s, s ? (uint32_t)strlen(s) : 0 };
}

/* ---- Reading ---- */

struct rd {
	const uint8_t *p, *end;
	const char *bad;	/* the first field that did not fit, or NULL */
};

static bool
take(struct rd *r, size_t n, const char *what, const uint8_t **at)
{
	if (r->bad)
		return false;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = what;
		return false;
	}
	*at = r->p;
	r->p += n;
	return true;
}

static uint64_t
rd_le(struct rd *r, size_t n, const char *what)
{
	const uint8_t *at;
	uint64_t v = 0;

	if (!take(r, n, what, &at))
		return 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)at[i] << (8 * i);
	return v;
}
#define rd8(r, w)	((uint8_t)rd_le((r), 1, (w)))
#define rd16(r, w)	((uint16_t)rd_le((r), 2, (w)))
#define rd32(r, w)	((uint32_t)rd_le((r), 4, (w)))
#define rd64(r, w)	rd_le((r), 8, (w))

static void
rd_raw(struct rd *r, void *dst, size_t n, const char *what)
{
	const uint8_t *at;

	if (take(r, n, what, &at))
		memcpy(dst, at, n);
}

/* A string: at most REMOTE_STR_MAX bytes, none of them NUL. */
static struct remote_bytes
rd_str(struct rd *r, const char *what)
{
	struct remote_bytes b = { NULL, rd16(r, what) };

	if (b.len > REMOTE_STR_MAX && !r->bad)
		r->bad = what;
	else if (take(r, b.len, what, &b.at) && memchr(b.at, 0, b.len))
		r->bad = what;
	return b;
}

static struct remote_bytes
rd_blob(struct rd *r, uint32_t max, const char *what)
{
	struct remote_bytes b = { NULL, rd32(r, what) };

	if (b.len > max && !r->bad)
		r->bad = what;
	else
		take(r, b.len, what, &b.at);
	return b;
}

static void
rd_span(struct rd *r, struct remote_span *s)
{
	s->end = rd8(r, "copy end kind");
	if (s->end > REMOTE_END_PIN && !r->bad)
		r->bad = "copy end kind";
	s->id = rd64(r, "copy end id");
	s->offset = rd64(r, "copy end offset");
}

static void
rd_part(struct rd *r, struct remote_part *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = rd8(r, "part kind");
	if (p->kind == REMOTE_PART_COPY) {
		rd_span(r, &p->src);
		rd_span(r, &p->dst);
		p->bytes = rd64(r, "copy bytes");
		p->fill = (int32_t)rd32(r, "copy fill");
		if ((p->fill < -1 || p->fill > 255) && !r->bad)
			r->bad = "copy fill";
	} else if (p->kind == REMOTE_PART_LAUNCH) {
		p->fn = rd64(r, "launch function");
		for (int i = 0; i < 3; i++)
			p->grid[i] = rd32(r, "launch grid");
		for (int i = 0; i < 3; i++)
			p->group[i] = rd32(r, "launch group");
		p->shared_bytes = rd32(r, "launch shared bytes");
		p->params = rd_blob(r, REMOTE_PARAMS_MAX, "launch params");
	} else if (p->kind == REMOTE_PART_FILE) {
		p->op = rd8(r, "file op");
		if (p->op > REMOTE_FILE_BARRIER && !r->bad)
			r->bad = "file op";
		p->file = rd64(r, "file id");
		p->offset = rd64(r, "file offset");
		p->address = rd64(r, "file's client address");
		p->bytes = rd64(r, "file bytes");
		p->rkey = rd_blob(r, REMOTE_RKEY_MAX, "file rkey");
	} else if (!r->bad) {
		r->bad = "part kind";
	}
}

static void
rd_facts(struct rd *r, struct remote_facts *f)
{
	f->dev = rd32(r, "device id");
	f->start = rd64(r, "start value");
	f->arch = rd_str(r, "arch");
	f->budget = rd64(r, "budget");
	f->alignment = rd64(r, "alignment");
	f->copy_engine = (int32_t)rd32(r, "copy engine");
	f->hang_ms = (int64_t)rd64(r, "hang_ms");
	f->cache_bytes = (int64_t)rd64(r, "cache bytes");
	f->nqueues = rd8(r, "queue count");
	if ((f->nqueues == 0 || f->nqueues > REMOTE_QUEUES_MAX) && !r->bad)
		r->bad = "queue count";
	for (uint32_t i = 0; i < f->nqueues && !r->bad; i++) {
		f->queues[i].name = rd_str(r, "queue name");
		f->queues[i].runs = rd32(r, "queue runs");
	}
	if (r->bad)
		return;
	if (f->alignment == 0 || (f->alignment & (f->alignment - 1)))
		r->bad = "alignment";
	else if (f->copy_engine < -1 || f->copy_engine >= (int32_t)f->nqueues)
		r->bad = "copy engine";
	else if (f->hang_ms == 0 || f->hang_ms < -1)
		r->bad = "hang_ms";
	else if (f->cache_bytes == 0 || f->cache_bytes < -1)
		r->bad = "cache bytes";
}

int
remote_decode(const void *bytes, size_t len, struct remote_msg *m, char *why,
	      size_t why_len)
{
	struct rd r = { bytes, bytes ? (const uint8_t *)bytes + len : NULL, NULL };
	uint32_t magic, plen;

	if (!bytes || len < REMOTE_HEADER) {
		snprintf(why, why_len, "%zu bytes is shorter than a header (%u)",
			 bytes ? len : 0, REMOTE_HEADER);
		return -1;
	}
	magic = rd32(&r, "magic");
	m->type = rd16(&r, "type");
	(void)rd16(&r, "flags");
	m->id = rd32(&r, "id");
	plen = rd32(&r, "length");
	if (magic != REMOTE_MAGIC) {
		snprintf(why, why_len, "magic 0x%08x is not rig's", magic);
		return -1;
	}
	if (plen != len - REMOTE_HEADER) {
		snprintf(why, why_len, "header says %u payload bytes, message has %zu",
			 plen, len - REMOTE_HEADER);
		return -1;
	}
	switch (m->type) {
	case REMOTE_HELLO:
		m->u.hello.version = rd32(&r, "version");
		rd_raw(&r, m->u.hello.nonce, REMOTE_NONCE, "nonce");
		break;
	case REMOTE_CHALLENGE:
		rd_raw(&r, m->u.challenge.nonce, REMOTE_NONCE, "nonce");
		m->u.challenge.heartbeat_ms = rd32(&r, "heartbeat");
		if (!r.bad && m->u.challenge.heartbeat_ms == 0)
			r.bad = "heartbeat";
		break;
	case REMOTE_AUTH:
	case REMOTE_WELCOME:
		rd_raw(&r, m->u.mac, REMOTE_MAC, "mac");
		break;
	case REMOTE_OPEN:
	case REMOTE_OPEN_DISK:
		m->u.name = rd_str(&r, "device name");
		if (!r.bad && m->u.name.len == 0)
			r.bad = "device name";
		break;
	case REMOTE_FILE_CREATE:
		m->u.file_create.dev = rd32(&r, "device id");
		m->u.file_create.path = rd_str(&r, "path");
		m->u.file_create.bytes = rd64(&r, "bytes");
		break;
	case REMOTE_FILE_OPEN:
		m->u.file_open.dev = rd32(&r, "device id");
		m->u.file_open.path = rd_str(&r, "path");
		m->u.file_open.write = rd8(&r, "write");
		if (m->u.file_open.write > 1 && !r.bad)
			r.bad = "write";
		break;
	case REMOTE_FILE_IS:
		m->u.file_is.id = rd64(&r, "file id");
		m->u.file_is.bytes = rd64(&r, "file bytes");
		break;
	case REMOTE_MACHINE_GPUS:
		break;
	case REMOTE_GPUS_ARE:
		m->u.gpus.n = rd8(&r, "GPU count");
		if (m->u.gpus.n > REMOTE_GPUS_MAX && !r.bad)
			r.bad = "GPU count";
		for (uint32_t i = 0; i < m->u.gpus.n && !r.bad; i++) {
			struct remote_gpu *g = &m->u.gpus.gpus[i];

			g->bus = rd_str(&r, "GPU bus");
			if (!r.bad && (g->bus.len == 0 || g->bus.len > 31))
				r.bad = "GPU bus";
			g->vendor = rd16(&r, "GPU vendor");
			g->device = rd16(&r, "GPU device");
			g->class_code = rd32(&r, "GPU class");
			for (unsigned b = 0; b < REMOTE_BARS; b++)
				g->bar_bytes[b] = rd64(&r, "GPU BAR bytes");
		}
		break;
	case REMOTE_OPENED:
		rd_facts(&r, &m->u.opened);
		break;
	case REMOTE_CLOSE:
		m->u.dev = rd32(&r, "device id");
		break;
	case REMOTE_ALLOC:
		m->u.alloc.dev = rd32(&r, "device id");
		m->u.alloc.kind = rd32(&r, "memory kind");
		m->u.alloc.bytes = rd64(&r, "bytes");
		break;
	case REMOTE_ALLOCED:
		m->u.alloced.id = rd64(&r, "buffer id");
		m->u.alloced.address = rd64(&r, "address");
		break;
	case REMOTE_FREE:
	case REMOTE_LOADED:
	case REMOTE_UNLOAD:
	case REMOTE_PINNED:
	case REMOTE_UNPIN:
	case REMOTE_FILE_SIZE:
		m->u.handle = rd64(&r, "handle");
		break;
	case REMOTE_LOAD:
		m->u.load.dev = rd32(&r, "device id");
		m->u.load.image = rd_blob(&r, REMOTE_IMAGE_MAX, "image");
		break;
	case REMOTE_ENTRY:
		m->u.entry.image = rd64(&r, "image id");
		m->u.entry.name = rd_str(&r, "function name");
		break;
	case REMOTE_ENTRY_IS:
		m->u.entry_is.answer = rd32(&r, "entry answer");
		m->u.entry_is.fn = rd64(&r, "function id");
		m->u.entry_is.code = rd64(&r, "function code");
		break;
	case REMOTE_PIN:
		m->u.pin.address = rd64(&r, "pin address");
		m->u.pin.bytes = rd64(&r, "pin bytes");
		m->u.pin.rkey = rd_blob(&r, REMOTE_RKEY_MAX, "pin rkey");
		break;
	case REMOTE_SUBMIT:
		m->u.submit.dev = rd32(&r, "device id");
		m->u.submit.value = rd64(&r, "value");
		m->u.submit.nparts = rd32(&r, "part count");
		if (m->u.submit.nparts == 0 || m->u.submit.nparts > REMOTE_PARTS_MAX) {
			if (!r.bad)
				r.bad = "part count";
			break;
		}
		for (uint32_t i = 0; i < m->u.submit.nparts && !r.bad; i++)
			rd_part(&r, &m->u.submit.parts[i]);
		break;
	case REMOTE_REACHED:
		m->u.reached.dev = rd32(&r, "device id");
		m->u.reached.value = rd64(&r, "value");
		break;
	case REMOTE_LOST:
		m->u.lost.dev = rd32(&r, "device id");
		m->u.lost.why = rd_str(&r, "reason");
		break;
	case REMOTE_PING:
	case REMOTE_PONG:
		m->u.ping = rd64(&r, "time");
		break;
	case REMOTE_ERROR:
		m->u.error = rd_str(&r, "error text");
		break;
	case REMOTE_BULK:
		m->u.address = rd_blob(&r, REMOTE_ADDRESS_MAX, "worker address");
		break;
	default:
		snprintf(why, why_len, "type %u is unknown", m->type);
		return -1;
	}
	if (r.bad) {
		snprintf(why, why_len, "%s: bad or short field %s",
			 remote_type_name(m->type), r.bad);
		return -1;
	}
	if (r.p != r.end) {
		snprintf(why, why_len, "%s: %zu bytes after its last field",
			 remote_type_name(m->type), (size_t)(r.end - r.p));
		return -1;
	}
	return 0;
}

size_t
remote_first(const void *bytes, size_t len)
{
	const uint8_t *b = bytes;
	uint64_t plen;

	if (!b || len < REMOTE_HEADER)
		return 0;
	plen = (uint64_t)b[12] | (uint64_t)b[13] << 8 | (uint64_t)b[14] << 16 |
	       (uint64_t)b[15] << 24;
	return plen <= len - REMOTE_HEADER ? (size_t)(REMOTE_HEADER + plen) : 0;
}

/* ---- Writing ---- */

struct wr {
	uint8_t *buf;
	size_t len, cap;
	bool fixed;		/* buf is the caller's: it never grows */
	const char *bad;
};

/* Why a fixed buffer refused a field: too small (its address is the sign). */
static const char wr_no_room[] = "room";

static void
put(struct wr *w, const void *src, size_t n)
{
	if (w->bad || n == 0)
		return;
	if (w->len + n > w->cap && w->fixed) {
		w->bad = wr_no_room;
		return;
	}
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		uint8_t *nb;

		while (cap < w->len + n)
			cap *= 2;
		if (!(nb = realloc(w->buf, cap))) {
			w->bad = "memory";
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, src, n);
	w->len += n;
}

static void
wr_le(struct wr *w, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, n);
}
#define wr8(w, v)	wr_le((w), (v), 1)
#define wr16(w, v)	wr_le((w), (v), 2)
#define wr32(w, v)	wr_le((w), (uint32_t)(v), 4)
#define wr64(w, v)	wr_le((w), (uint64_t)(v), 8)

static void
wr_str(struct wr *w, struct remote_bytes s, const char *what)
{
	if (s.len > REMOTE_STR_MAX || (s.len && memchr(s.at, 0, s.len))) {
		if (!w->bad)
			w->bad = what;
		return;
	}
	wr16(w, s.len);
	put(w, s.at, s.len);
}

static void
wr_blob(struct wr *w, struct remote_bytes b, uint32_t max, const char *what)
{
	if (b.len > max) {
		if (!w->bad)
			w->bad = what;
		return;
	}
	wr32(w, b.len);
	put(w, b.at, b.len);
}

static void
wr_span(struct wr *w, const struct remote_span *s)
{
	wr8(w, s->end);
	wr64(w, s->id);
	wr64(w, s->offset);
}

static void
wr_part(struct wr *w, const struct remote_part *p)
{
	wr8(w, p->kind);
	if (p->kind == REMOTE_PART_COPY) {
		wr_span(w, &p->src);
		wr_span(w, &p->dst);
		wr64(w, p->bytes);
		wr32(w, p->fill);
	} else if (p->kind == REMOTE_PART_LAUNCH) {
		wr64(w, p->fn);
		for (int i = 0; i < 3; i++)
			wr32(w, p->grid[i]);
		for (int i = 0; i < 3; i++)
			wr32(w, p->group[i]);
		wr32(w, p->shared_bytes);
		wr_blob(w, p->params, REMOTE_PARAMS_MAX, "launch params");
	} else if (p->kind == REMOTE_PART_FILE) {
		wr8(w, p->op);
		wr64(w, p->file);
		wr64(w, p->offset);
		wr64(w, p->address);
		wr64(w, p->bytes);
		wr_blob(w, p->rkey, REMOTE_RKEY_MAX, "file rkey");
	} else if (!w->bad) {
		w->bad = "part kind";
	}
}

static void
wr_facts(struct wr *w, const struct remote_facts *f)
{
	wr32(w, f->dev);
	wr64(w, f->start);
	wr_str(w, f->arch, "arch");
	wr64(w, f->budget);
	wr64(w, f->alignment);
	wr32(w, f->copy_engine);
	wr64(w, f->hang_ms);
	wr64(w, f->cache_bytes);
	if (f->nqueues == 0 || f->nqueues > REMOTE_QUEUES_MAX) {
		if (!w->bad)
			w->bad = "queue count";
		return;
	}
	wr8(w, f->nqueues);
	for (uint32_t i = 0; i < f->nqueues; i++) {
		wr_str(w, f->queues[i].name, "queue name");
		wr32(w, f->queues[i].runs);
	}
}

/* Encode m at w's end (w->len is where its header goes). On a failure
 * w->len is back where it was and w->buf stays the caller's. */
/* A message of the hot paths whose fields the decoder bounds no more than
 * encode_at did: a SUBMIT of launches (the part count, the params' length:
 * wr_part, wr_blob), a REACHED, a PING or PONG (plain numbers). */
static bool
nothing_more_to_check(const struct remote_msg *m)
{
	if (m->type == REMOTE_REACHED || m->type == REMOTE_PING || m->type == REMOTE_PONG)
		return true;
	if (m->type != REMOTE_SUBMIT)
		return false;
	for (uint32_t i = 0; i < m->u.submit.nparts; i++)
		if (m->u.submit.parts[i].kind != REMOTE_PART_LAUNCH)
			return false;
	return true;
}

static int
encode_at(struct wr *w0, const struct remote_msg *m, char *why, size_t why_len)
{
	static _Thread_local struct remote_msg again;
	struct wr w = *w0;
	size_t at = w0->len;
	char check[160];

	wr32(&w, REMOTE_MAGIC);
	wr16(&w, m->type);
	wr16(&w, 0);
	wr32(&w, m->id);
	wr32(&w, 0);		/* the length, once known */
	switch (m->type) {
	case REMOTE_HELLO:
		wr32(&w, m->u.hello.version);
		put(&w, m->u.hello.nonce, REMOTE_NONCE);
		break;
	case REMOTE_CHALLENGE:
		put(&w, m->u.challenge.nonce, REMOTE_NONCE);
		wr32(&w, m->u.challenge.heartbeat_ms);
		break;
	case REMOTE_AUTH:
	case REMOTE_WELCOME:
		put(&w, m->u.mac, REMOTE_MAC);
		break;
	case REMOTE_OPEN:
	case REMOTE_OPEN_DISK:
		wr_str(&w, m->u.name, "device name");
		break;
	case REMOTE_FILE_CREATE:
		wr32(&w, m->u.file_create.dev);
		wr_str(&w, m->u.file_create.path, "path");
		wr64(&w, m->u.file_create.bytes);
		break;
	case REMOTE_FILE_OPEN:
		wr32(&w, m->u.file_open.dev);
		wr_str(&w, m->u.file_open.path, "path");
		wr8(&w, m->u.file_open.write);
		break;
	case REMOTE_FILE_IS:
		wr64(&w, m->u.file_is.id);
		wr64(&w, m->u.file_is.bytes);
		break;
	case REMOTE_MACHINE_GPUS:
		break;
	case REMOTE_GPUS_ARE:
		if (m->u.gpus.n > REMOTE_GPUS_MAX) {
			w.bad = "GPU count";
			break;
		}
		wr8(&w, m->u.gpus.n);
		for (uint32_t i = 0; i < m->u.gpus.n; i++) {
			const struct remote_gpu *g = &m->u.gpus.gpus[i];

			wr_str(&w, g->bus, "GPU bus");
			wr16(&w, g->vendor);
			wr16(&w, g->device);
			wr32(&w, g->class_code);
			for (unsigned b = 0; b < REMOTE_BARS; b++)
				wr64(&w, g->bar_bytes[b]);
		}
		break;
	case REMOTE_OPENED:
		wr_facts(&w, &m->u.opened);
		break;
	case REMOTE_CLOSE:
		wr32(&w, m->u.dev);
		break;
	case REMOTE_ALLOC:
		wr32(&w, m->u.alloc.dev);
		wr32(&w, m->u.alloc.kind);
		wr64(&w, m->u.alloc.bytes);
		break;
	case REMOTE_ALLOCED:
		wr64(&w, m->u.alloced.id);
		wr64(&w, m->u.alloced.address);
		break;
	case REMOTE_FREE:
	case REMOTE_LOADED:
	case REMOTE_UNLOAD:
	case REMOTE_PINNED:
	case REMOTE_UNPIN:
	case REMOTE_FILE_SIZE:
		wr64(&w, m->u.handle);
		break;
	case REMOTE_LOAD:
		wr32(&w, m->u.load.dev);
		wr_blob(&w, m->u.load.image, REMOTE_IMAGE_MAX, "image");
		break;
	case REMOTE_ENTRY:
		wr64(&w, m->u.entry.image);
		wr_str(&w, m->u.entry.name, "function name");
		break;
	case REMOTE_ENTRY_IS:
		wr32(&w, m->u.entry_is.answer);
		wr64(&w, m->u.entry_is.fn);
		wr64(&w, m->u.entry_is.code);
		break;
	case REMOTE_PIN:
		wr64(&w, m->u.pin.address);
		wr64(&w, m->u.pin.bytes);
		wr_blob(&w, m->u.pin.rkey, REMOTE_RKEY_MAX, "pin rkey");
		break;
	case REMOTE_SUBMIT:
		wr32(&w, m->u.submit.dev);
		wr64(&w, m->u.submit.value);
		if (m->u.submit.nparts == 0 || m->u.submit.nparts > REMOTE_PARTS_MAX) {
			w.bad = "part count";
			break;
		}
		wr32(&w, m->u.submit.nparts);
		for (uint32_t i = 0; i < m->u.submit.nparts; i++)
			wr_part(&w, &m->u.submit.parts[i]);
		break;
	case REMOTE_REACHED:
		wr32(&w, m->u.reached.dev);
		wr64(&w, m->u.reached.value);
		break;
	case REMOTE_LOST:
		wr32(&w, m->u.lost.dev);
		wr_str(&w, m->u.lost.why, "reason");
		break;
	case REMOTE_PING:
	case REMOTE_PONG:
		wr64(&w, m->u.ping);
		break;
	case REMOTE_ERROR:
		wr_str(&w, m->u.error, "error text");
		break;
	case REMOTE_BULK:
		wr_blob(&w, m->u.address, REMOTE_ADDRESS_MAX, "worker address");
		break;
	default:
		w.bad = "type";
	}
	if (w.bad) {
		snprintf(why, why_len, "%s: cannot encode field %s",
			 remote_type_name(m->type), w.bad);
		goto fail;
	}
	for (int i = 0; i < 4; i++)
		w.buf[at + 12 + i] = (uint8_t)((w.len - at - REMOTE_HEADER) >> (8 * i));
	/* What the decoder refuses is never sent: the fields' values
	 * (alignment, fill, ...) are checked by decoding what we wrote;
	 * but for the hot paths' messages, whose fields the decoder bounds
	 * as the encoder did, so that a submit (or a REACHED) does not
	 * decode each message it encodes. */
	if (!nothing_more_to_check(m) &&
	    remote_decode(w.buf + at, w.len - at, &again, check, sizeof(check)) < 0) {
		snprintf(why, why_len, "%s", check);
		goto fail;
	}
	*w0 = w;
	return 0;
fail:
	/* realloc may have moved the caller's bytes: keep the new block. */
	w0->bad = w.bad;
	w0->buf = w.buf;
	w0->cap = w.cap;
	w0->len = at;
	return -1;
}

int
remote_encode(const struct remote_msg *m, uint8_t **out, size_t *len,
	      char *why, size_t why_len)
{
	struct wr w = { 0 };

	if (encode_at(&w, m, why, why_len) < 0) {
		free(w.buf);
		return -1;
	}
	*out = w.buf;
	*len = w.len;
	return 0;
}

int
remote_encode_into(const struct remote_msg *m, uint8_t *buf, size_t cap, size_t *len,
		   char *why, size_t why_len)
{
	struct wr w = { .buf = buf, .cap = cap, .fixed = true };

	if (encode_at(&w, m, why, why_len) < 0)
		return w.bad == wr_no_room ? 1 : -1;
	*len = w.len;
	return 0;
}

int
remote_encode_append(const struct remote_msg *m, uint8_t **buf, size_t *len,
		     size_t *cap, char *why, size_t why_len)
{
	struct wr w = { 0 };
	int ret;

	w.buf = *buf;
	w.len = *len;
	w.cap = *cap;
	ret = encode_at(&w, m, why, why_len);
	*buf = w.buf;
	*len = w.len;
	*cap = w.cap;
	return ret;
}
