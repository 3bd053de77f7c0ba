/* SPDX-License-Identifier: MIT */
/*
 * remote/serve.c: a client's values on one of the agent's devices. Each
 * value's parts become steps, run in order: a launch or a copy between
 * two of the device's buffers is local rig work (rig orders it after the
 * device's earlier values: device order), so its loss and its memory's
 * reclamation are rig's own; a copy with one end in the client's pinned
 * memory is UCX RMA, issued only once every earlier step completed, and
 * the rig work after it waits for its flush. A value is reached once its
 * last step completed; the agent reports the highest such value.
 *
 * Steps are issued by the agent's loop once UCX's progress has delivered
 * every message that came, so a client's burst of launches of one
 * function goes as one rig submit of a submission of many launches
 * (issue_launches): one rig value, one word store and one wake-up of the
 * device thread for up to SERVE_MERGE_MAX of the client's values. A
 * device's rig values in flight are bounded (SERVE_INFLIGHT_MAX): past
 * the bound steps wait in the queue, not the agent's thread inside
 * rig_submit for room in rig's submission ring, where it could not
 * progress UCX (heartbeats, other clients).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/agent.h"

#define RMA_CHUNK	(1u << 20)	/* puts and gets in flight at once: pipelined */
#define SERVE_MERGE_MAX	32u	/* launches one rig submit carries at most */
#define SERVE_INFLIGHT_MAX 64	/* a device's rig values issued and not retired */

static void
step_free(struct step *s)
{
	free(s->params);
	rig_buffer_release(s->src);
	rig_buffer_release(s->dst);
	rig_buffer_release(s->hold);
	free(s->stage);
	if (s->own_rkey)
		ucp_rkey_destroy(s->own_rkey);
	free(s);
}

static void
push(struct adev *dev, struct step *s)
{
	if (dev->tail)
		dev->tail->next = s;
	else
		dev->head = s;
	dev->tail = s;
	if (!dev->issue_at)
		dev->issue_at = s;
}

/* The cached submission of k launches of fn, each with nparams bytes of
 * params: NULL with why where rig refuses it. */
static struct rig_submission *
launches_of(struct adev *dev, struct rig_function *fn, uint32_t nparams, uint32_t k,
	    char *why, size_t why_len)
{
	struct rig_part_spec p[SERVE_MERGE_MAX];
	struct launch_cache *slot = NULL;
	struct rig_submission *s;

	for (int i = 0; i < LAUNCH_CACHE; i++) {
		if (dev->cache[i].fn == fn && dev->cache[i].nparams == nparams &&
		    dev->cache[i].k == k)
			return dev->cache[i].s;
		if (!dev->cache[i].fn && !slot)
			slot = &dev->cache[i];
	}
	for (uint32_t i = 0; i < k; i++)
		p[i] = rig_part_launch(fn, nparams, NULL, 0);
	if (rig_submission_make(dev->sd->d, p, k, NULL, 0, (struct rig_keep){ 0 }, &s) < 0) {
		snprintf(why, why_len, "%s", rig_why());
		return NULL;
	}
	if (!slot) {	/* full: one goes, in turn (its work keeps what it needs) */
		slot = &dev->cache[dev->cache_next];
		dev->cache_next = (dev->cache_next + 1) % LAUNCH_CACHE;
		rig_submission_release(slot->s);
	}
	*slot = (struct launch_cache){ fn, nparams, k, s };
	return s;
}

static struct rig_submission *
launch_of(struct adev *dev, struct rig_function *fn, uint32_t nparams, char *why,
	  size_t why_len)
{
	return launches_of(dev, fn, nparams, 1, why, why_len);
}

/* The buffer of a copy's end, as a view of bytes at its offset. */
static int
end_view(struct client *c, const struct remote_span *e, uint64_t bytes,
	 struct rig_buffer **out, struct aobj **obj, char *why, size_t why_len)
{
	struct aobj *o = agent_obj(c, e->id, AOBJ_BUFFER);

	if (!o) {
		snprintf(why, why_len, "copy names buffer %llu, which is not the client's",
			 (unsigned long long)e->id);
		return -1;
	}
	if (e->offset > o->u.buf.bytes || bytes > o->u.buf.bytes - e->offset) {
		snprintf(why, why_len, "copy of %llu bytes at %llu passes buffer %llu's %llu",
			 (unsigned long long)bytes, (unsigned long long)e->offset,
			 (unsigned long long)e->id, (unsigned long long)o->u.buf.bytes);
		return -1;
	}
	*obj = o;
	if (out && rig_buffer_view(o->u.buf.b, e->offset, bytes, RIG_READ_WRITE, out) < 0) {
		snprintf(why, why_len, "%s", rig_why());
		return -1;
	}
	return 0;
}

static struct step *
copy_step(struct client *c, struct adev *dev, const struct remote_part *p, char *why,
	  size_t why_len)
{
	struct step *s = calloc(1, sizeof(*s));
	struct aobj *src, *dst;

	if (!s) {
		snprintf(why, why_len, "no memory for a step");
		return NULL;
	}
	if (p->fill >= 0) {
		snprintf(why, why_len, "a fill reaches the agent: fills are refused at room");
		goto fail;
	}
	if (p->src.end == REMOTE_END_BUFFER && p->dst.end == REMOTE_END_BUFFER) {
		s->kind = STEP_RIG;
		if (end_view(c, &p->src, p->bytes, &s->src, &src, why, why_len) < 0 ||
		    end_view(c, &p->dst, p->bytes, &s->dst, &dst, why, why_len) < 0)
			goto fail;
		return s;
	}
	if (p->src.end == REMOTE_END_PIN && p->dst.end == REMOTE_END_PIN) {
		snprintf(why, why_len, "a copy between two pins reaches the agent");
		goto fail;
	}
	/* One end the client's pinned memory, the other a buffer here. */
	{
		const struct remote_span *mine = p->src.end == REMOTE_END_BUFFER ? &p->src : &p->dst;
		const struct remote_span *theirs = mine == &p->src ? &p->dst : &p->src;
		struct aobj *b, *pin = agent_obj(c, theirs->id, AOBJ_PIN);

		if (end_view(c, mine, p->bytes, NULL, &b, why, why_len) < 0)
			goto fail;
		if (!b->u.buf.host && dev->sd->amd) {
			/* The agent does not learn where the host maps a GPU
			 * region: the bytes pass through memory of the
			 * step's own, by rig's host access (serve_stage). */
			if (end_view(c, mine, p->bytes, &s->src, &b, why, why_len) < 0)
				goto fail;
			if (!(s->stage = malloc(p->bytes ? p->bytes : 1))) {
				snprintf(why, why_len, "no memory for %llu bytes of staging",
					 (unsigned long long)p->bytes);
				goto fail;
			}
		} else if (!b->u.buf.host) {
			snprintf(why, why_len, "buffer %llu has no host address for RMA",
				 (unsigned long long)mine->id);
			goto fail;
		}
		if (!pin || theirs->offset > pin->u.pin.bytes ||
		    p->bytes > pin->u.pin.bytes - theirs->offset) {
			snprintf(why, why_len, "copy names pin %llu, which is not the client's or is short",
				 (unsigned long long)theirs->id);
			goto fail;
		}
		s->kind = STEP_RMA;
		s->put = mine == &p->src;
		s->local = s->stage ? s->stage : (char *)b->u.buf.host + mine->offset;
		s->remote = pin->u.pin.address + theirs->offset;
		s->bytes = p->bytes;
		s->rkey = pin->u.pin.rkey;
	}
	return s;
fail:
	step_free(s);
	return NULL;
}

int
serve_submit(struct agent *a, struct client *c, struct adev *dev,
	     const struct remote_msg *m, char *why, size_t why_len)
{
	struct step *first = NULL, *last = NULL;

	if (m->u.submit.value != dev->expect) {
		snprintf(why, why_len, "value %llu out of order (expected %llu)",
			 (unsigned long long)m->u.submit.value, (unsigned long long)dev->expect);
		return -1;
	}
	for (uint32_t i = 0; i < m->u.submit.nparts; i++) {
		const struct remote_part *p = &m->u.submit.parts[i];
		struct step *s;

		if (p->kind == REMOTE_PART_COPY) {
			s = copy_step(c, dev, p, why, why_len);
		} else if (p->kind == REMOTE_PART_FILE) {
			s = serve_file_steps(c, dev, p, why, why_len);	/* a chain */
		} else {
			struct aobj *fn = agent_obj(c, p->fn, AOBJ_FUNCTION);

			s = calloc(1, sizeof(*s));
			if (!s || !fn) {
				snprintf(why, why_len, s ? "launch names function %llu, which is not the client's"
					 : "no memory for a step", (unsigned long long)p->fn);
				free(s);
				s = NULL;
			} else if (!launch_of(dev, fn->u.fn, p->params.len, why, why_len) ||
				   !(s->params = malloc(p->params.len + 1))) {
				free(s);
				s = NULL;
			} else {
				s->kind = STEP_RIG;
				s->fn = fn->u.fn;
				memcpy(s->grid, p->grid, sizeof(s->grid));
				memcpy(s->group, p->group, sizeof(s->group));
				memcpy(s->params, p->params.at, p->params.len);
				s->nparams = p->params.len;
			}
		}
		if (!s) {
			while (first) {
				struct step *n = first->next;

				step_free(first);
				first = n;
			}
			return -1;
		}
		if (last)
			last->next = s;
		else
			first = s;
		for (last = s; ; last = last->next) {
			last->value = m->u.submit.value;
			if (!last->next)
				break;
		}
	}
	last->last = true;
	for (struct step *s = first, *n; s; s = n) {
		n = s->next;
		s->next = NULL;
		push(dev, s);
	}
	dev->expect++;
	return 0;
}

static void
rma_sent(void *request, ucs_status_t status, void *user_data)
{
	ucp_request_free(request);
}

/* Issue s's puts or gets in chunks, then the flush that ends them all. */
static int
rma_issue(struct agent *a, struct client *c, struct step *s)
{
	ucp_request_param_t p = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
		.cb.send = rma_sent,
	};
	ucp_request_param_t f = { 0 };

	for (uint64_t at = 0; at < s->bytes; at += RMA_CHUNK) {
		uint64_t n = s->bytes - at < RMA_CHUNK ? s->bytes - at : RMA_CHUNK;
		ucs_status_ptr_t r = s->put ?
			ucp_put_nbx(agent_rma_ep(c), (char *)s->local + at, n, s->remote + at, s->rkey, &p) :
			ucp_get_nbx(agent_rma_ep(c), (char *)s->local + at, n, s->remote + at, s->rkey, &p);

		if (UCS_PTR_IS_ERR(r))
			return -1;
	}
	s->flush = ucp_ep_flush_nbx(agent_rma_ep(c), &f);
	if (UCS_PTR_IS_ERR(s->flush))
		return -1;
	return 0;
}

void
serve_lose(struct agent *a, struct client *c, struct adev *dev, const char *why)
{
	struct remote_msg m = { .type = REMOTE_LOST };
	char text[REMOTE_STR_MAX + 1];

	if (dev->lost)
		return;
	dev->lost = true;
	snprintf(text, sizeof(text), "%s", why);
	m.u.lost.dev = dev->id;
	m.u.lost.why = remote_str(text);
	agent_log(a, "client %s: %s lost: %s", c->peer, dev->sd->name, text);
	agent_send(a, c, &m);
}

/* SERVE_MERGE_MAX, or 1 where RIG_REMOTE_MERGE=0 (a figure of each value
 * as its own rig submit, from one build): read once. */
static uint32_t
merge_max(void)
{
	static uint32_t max;

	if (!max) {
		const char *e = getenv("RIG_REMOTE_MERGE");

		max = e && !strcmp(e, "0") ? 1 : SERVE_MERGE_MAX;
	}
	return max;
}

/*
 * Issue the launch step s and the launches of the same function that
 * follow it in the queue, not yet issued, as one rig submit of a cached
 * submission of k launches (k a power of two, so a device caches few
 * sizes): the parts run in part order on the device's one compute queue,
 * so the values keep their order, and one value of rig's, one word store
 * and one wake-up serve a whole batch of the client's values. Every
 * merged step shares the point: they retire together. *k: how many steps
 * went. 0, or -1 (the device is lost).
 */
static int
issue_launches(struct agent *a, struct client *c, struct adev *dev, struct step *s,
	       uint32_t *k)
{
	struct rig_submission *sub;
	struct step *t = s;
	struct rig_run *r;
	char why[256];
	uint32_t n = 1;
	int ret;

	while (n < merge_max() && (t = t->next) && t->kind == STEP_RIG &&
	       t->fn == s->fn && t->nparams == s->nparams)
		n++;
	while (n & (n - 1))
		n &= n - 1;	/* the highest power of two in n */
	/* Looked up again, not kept from the submit: the cache may have
	 * given it up since (a step holds no submission). */
	if (!(sub = launches_of(dev, s->fn, s->nparams, n, why, sizeof(why)))) {
		serve_lose(a, c, dev, why);
		return -1;
	}
	if ((ret = rig_run_take(sub, &r)) < 0) {
		serve_lose(a, c, dev, rig_why());
		return -1;
	}
	t = s;
	for (uint32_t i = 0; i < n; i++, t = t->next) {
		if (rig_run_store(r, i, t->grid, t->group, t->params, t->nparams) < 0) {
			rig_run_release(r);
			serve_lose(a, c, dev, rig_why());
			return -1;
		}
	}
	if (rig_submit(r, NULL, 0, NULL, 0, &s->pt) < 0) {
		serve_lose(a, c, dev, rig_why());
		return -1;
	}
	s->issued = s->owns_pt = true;
	dev->sd->inflight++;
	t = s->next;
	for (uint32_t i = 1; i < n; i++, t = t->next) {
		t->pt = s->pt;
		t->issued = true;
	}
	*k = n;
	return 0;
}

/* Issue s: 0, or -1 (the device is lost). */
static int
issue(struct agent *a, struct client *c, struct adev *dev, struct step *s)
{
	int ret;

	s->issued = true;
	if (s->kind == STEP_RMA) {
		/* A put of staged bytes: the GPU's bytes first (every step
		 * before this one retired, so the read waits for nothing). */
		if (s->stage && s->put && rig_buffer_read(s->src, 0, s->stage, s->bytes) < 0) {
			serve_lose(a, c, dev, rig_why());
			return -1;
		}
		if (rma_issue(a, c, s) < 0) {
			serve_lose(a, c, dev, "RMA to the client failed");
			return -1;
		}
		return 0;
	}
	if (s->barrier)
		ret = rig_disk_barrier(s->src, &s->pt);
	else	/* launches go by issue_launches */
		ret = rig_buffer_copy(s->src, s->dst, &s->pt);
	if (ret < 0) {
		serve_lose(a, c, dev, rig_why());
		return -1;
	}
	s->owns_pt = true;
	dev->sd->inflight++;
	return 0;
}

/* A rig step leaves the device's count of values in flight. */
static void
settled(struct adev *dev, struct step *s)
{
	if (s->owns_pt) {
		s->owns_pt = false;
		dev->sd->inflight--;
	}
}

static bool
step_done(struct agent *a, struct client *c, struct adev *dev, struct step *s)
{
	if (s->kind == STEP_RMA) {
		ucs_status_t st;

		if (UCS_PTR_IS_PTR(s->flush)) {
			if ((st = ucp_request_check_status(s->flush)) == UCS_INPROGRESS)
				return false;
			ucp_request_free(s->flush);
			s->flush = NULL;
			if (st != UCS_OK) {
				serve_lose(a, c, dev, "RMA to the client failed");
				return true;
			}
		}
		/* A get into staging: now the bytes go to the GPU, before any
		 * later step is issued (rig orders it after earlier work). */
		if (s->stage && !s->put && rig_buffer_write(s->src, 0, s->stage, s->bytes) < 0)
			serve_lose(a, c, dev, rig_why());
		return true;
	}
	if (!rig_signaled(s->pt))
		return false;
	if (!rig_reached(s->pt))
		serve_lose(a, c, dev, rig_lost(dev->sd->d) ? rig_lost(dev->sd->d) : "work dropped");
	return true;
}

/*
 * Issue from the first step not yet issued, in order: rig work at once
 * unless an RMA step lies ahead of it in the queue (rig does not know to
 * wait for UCX), an RMA step only once it is the head (every step before
 * it retired). Then retire from the head what completed. Each step is
 * looked at a bounded number of times: no walk of the whole queue per
 * pass, which a client's burst of thousands of values would make
 * quadratic.
 */
/* Issue from issue_at what may go: 0, or -1 where the device is lost. */
static int
issue_ready(struct agent *a, struct client *c, struct adev *dev)
{
	while (dev->issue_at) {
		struct step *s = dev->issue_at;
		uint32_t k = 1;

		if (s->kind == STEP_RMA ? s != dev->head :
		    dev->rma_ahead > 0 || dev->sd->inflight >= SERVE_INFLIGHT_MAX)
			break;
		if (s->kind == STEP_RIG && s->fn) {
			if (issue_launches(a, c, dev, s, &k) < 0)
				return -1;
		} else if (issue(a, c, dev, s) < 0) {
			return -1;
		}
		dev->rma_ahead += s->kind == STEP_RMA;
		while (k--)
			dev->issue_at = dev->issue_at->next;
	}
	return 0;
}

bool
serve_pump(struct agent *a, struct client *c, struct adev *dev, struct rig_point *next)
{
	uint64_t reached = dev->sent;

	if (dev->lost || c->state == CLIENT_GONE)	/* gone: its endpoints may be closed */
		return false;
	if (issue_ready(a, c, dev) < 0)
		return false;
	while (dev->head && dev->head->issued) {
		struct step *s = dev->head;

		if (!(s->done = step_done(a, c, dev, s)) || dev->lost)
			break;
		if (s->last)
			reached = s->value;
		dev->rma_ahead -= s->kind == STEP_RMA;
		settled(dev, s);
		dev->head = s->next;
		if (!dev->head)
			dev->tail = NULL;
		step_free(s);
		/* The next RMA step may go now that the one before it is done. */
		if (dev->issue_at && dev->issue_at == dev->head && dev->head->kind == STEP_RMA) {
			if (issue(a, c, dev, dev->head) < 0)
				return false;
			dev->rma_ahead++;
			dev->issue_at = dev->head->next;
		}
	}
	if (dev->lost)
		return false;
	if (next && !next->device && dev->head && dev->head->issued &&
	    dev->head->kind == STEP_RIG)
		*next = dev->head->pt;	/* the first rig work still running */
	if (reached > dev->sent) {
		/* Not a local one: a message is 11 KiB (a SUBMIT's parts),
		 * which an initializer zeroes on each round trip's path. One
		 * thread: the agent's. */
		static struct remote_msg m = { .type = REMOTE_REACHED };

		m.u.reached.dev = dev->id;
		m.u.reached.value = reached;
		dev->sent = reached;
		agent_send(a, c, &m);
	}
	return dev->head != NULL;
}

/* Whether serve_drop still waits for an RMA flush: while the client is
 * heard from (not gone, not silent past the heartbeat bound), or for one
 * heartbeat bound from the drop's start. */
struct drop_bound {
	struct agent *a;
	struct client *c;
	uint64_t start;
};

static bool
drop_more(void *arg)
{
	struct drop_bound *b = arg;
	uint64_t now = rig_now_ns();

	if (now - b->start < b->a->heartbeat_ns)
		return true;
	return b->c->state != CLIENT_GONE && link_silent_ns(now, b->c->heard_ns) <= b->a->heartbeat_ns;
}

bool
serve_drop(struct agent *a, struct client *c, struct adev *dev)
{
	struct drop_bound bound = { a, c, rig_now_ns() };
	bool abandoned = false;

	while (dev->head) {
		struct step *s = dev->head;

		if (s->issued && s->kind == STEP_RMA && UCS_PTR_IS_PTR(s->flush)) {
			if (link_wait_until(&a->link, s->flush, drop_more, &bound) == UCS_ERR_TIMED_OUT) {
				/* Before the step's memory goes. */
				agent_cut(a, c, "RMA to it did not end");
				abandoned = true;
			}
			s->flush = NULL;
		} else if (s->issued && s->kind == STEP_RIG) {
			(void)rig_wait(s->pt, UINT64_MAX);
		}
		settled(dev, s);
		dev->head = s->next;
		step_free(s);
	}
	dev->tail = NULL;
	dev->issue_at = NULL;
	dev->rma_ahead = 0;
	for (int i = 0; i < LAUNCH_CACHE; i++)
		if (dev->cache[i].s)
			rig_submission_release(dev->cache[i].s);
	memset(dev->cache, 0, sizeof(dev->cache));
	return abandoned;
}
