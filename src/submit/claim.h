/* SPDX-License-Identifier: MIT */
/*
 * submit/claim.h: claiming memory for a submit or a host access (docs/order.md,
 * docs/order.md, rule 3), routing a submit's waits, and posting a copy. The objects
 * claimed (struct alloc, struct rig_device) are core's (core/device.h).
 */
#ifndef SUBMIT_CLAIM_H
#define SUBMIT_CLAIM_H

#include <stddef.h>
#include <stdint.h>

#include "submit/stamp.h"
#include "submit/submit.h"

struct alloc;
struct rig_buffer;
struct rig_device;

/* claim.c */
struct use {
	struct alloc *a;
	uint64_t lo, hi;		/* words */
	enum use_kind kind;
	bool whole;			/* set by the claim: its map's one segment, whole */
};
/*
 * Lock the allocations of u[0..n) (by address, each once) and add to ws
 * what the uses wait for. On failure nothing stays locked. Reorders u.
 */
int claim_lock(struct use *u, size_t n, struct waitset *ws);
#ifdef RIG_TEST_HOOKS
/* A test's window on claims (stress_order): when set, called for each use
 * of a claim in claim order, under the allocation's lock. NULL in
 * programs; absent from release builds. */
extern void (*claim_trace)(const struct use *u, struct stamp st);
#endif
/*
 * Profiles only (src/profile/): with u[0..n) locked and prepared, what
 * each use waits for, one arrow per (use, producer point), at most cap
 * into out; returns how many. own: the claiming device's slot.
 */
struct claim_arrow {
	struct stamp from;		/* the producer's point */
	const struct alloc *a;		/* the root allocation the use names */
	uint64_t lo, hi;		/* its bytes [lo, hi) in a */
};
size_t claim_arrows(const struct use *u, size_t n, int own, struct claim_arrow *out,
		    size_t cap);
/* Stamp the uses with st (still locked). */
void claim_record(struct use *u, size_t n, struct stamp st);
void claim_unlock(struct use *u, size_t n);
/*
 * With u[0..n) locked: check the waits of ws (route_check: ws keeps only
 * those the job must do), draw d's next value into *v, stamp the uses
 * with it, leaving them locked: the caller builds v's job from what the
 * claim holds live, unlocks, then route_commit()s and publishes it (every
 * value drawn must be). On a refusal or a lost device: unlocked, and a
 * negative status naming func.
 */
int claim_draw(const char *func, struct rig_device *d, struct use *u, size_t n,
	       struct waitset *ws, uint64_t *v);
/* Wait on the host until every point of ws is settled: 0, or the first
 * loss (then *dropped is its point). */
int claim_wait_host(const struct waitset *ws, struct stamp *dropped);

/*
 * copy.c: post a copy of bytes from src to dst (bytes 0 with src == dst a
 * file: a barrier, io.c) on d's copy engine as the work of d's next value,
 * claiming u[0..n) (docs/order.md, rule 3); *out (may be NULL) gets its point. Refusals
 * name func.
 */
int copy_post(const char *func, struct rig_device *d, const struct rig_buffer *src,
	      const struct rig_buffer *dst, uint64_t bytes, struct use *u, size_t n,
	      struct rig_point *out);

/*
 * route.c, in two steps. route_check, under the claim: ws keeps only the
 * waits v's job must do (not on d itself, not settled), each noted where
 * d's queues will wait for it; RIG_ELOST naming func where one waits for
 * a value a loss dropped. route_commit, after the claim (no lock of
 * another device's held while it commits a producer's value): those
 * waits into job->waits and job->host_waits of v's job, each with room
 * for ws->n.
 */
int route_check_all(const char *func, struct rig_device *d, struct waitset *ws);
void route_commit_all(struct rig_device *d, const struct waitset *ws, struct job *job,
		      uint64_t v);
/* Inline for the common case, a submit that waits for nothing (a device's
 * own earlier values never enter ws): no call. */
static inline int
route_check(const char *func, struct rig_device *d, struct waitset *ws)
{
	return ws->n ? route_check_all(func, d, ws) : 0;
}

static inline void
route_commit(struct rig_device *d, const struct waitset *ws, struct job *job,
	     uint64_t v)
{
	if (ws->n)
		route_commit_all(d, ws, job, v);
}

#endif
