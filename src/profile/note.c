/* SPDX-License-Identifier: MIT */
/*
 * profile/note.c: a profiled submit's record (profile.h). Runs in the
 * submitting thread, after claim_draw() gave the value and before the
 * publish, so that the record is written before the driver's submit reads
 * the pair and before any reader looks (a reader waits until the value is
 * reached, which comes after the publish).
 *
 * The prof pointer is read again here, after the value was drawn: a stop
 * that clears it, then reads issued (both seq_cst, store.c), sees every
 * value whose submit found it set, and waits for those values.
 */
#include "core/device.h"
#include "profile/profile.h"
#include "submit/submission.h"

struct profile_rec *
profile_rec_of(struct profile_dev *pd, uint64_t v)
{
	if (v < pd->base || v - pd->base >= pd->n)
		return NULL;
	return &pd->rec[v - pd->base];
}

/* Whether ws (the waits left after routing) still holds st. */
static bool
still_waits(const struct waitset *ws, struct stamp st)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->w[i].slot == st.slot && ws->w[i].value == st.value)
			return true;
	return false;
}

static uint64_t
address_of(const struct alloc *a)
{
	if (a->loc.has_address)
		return a->loc.address;
	return (uint64_t)(uintptr_t)a->loc.host;
}

void
profile_parts(const struct rig_submission *s, uint32_t *queues, uint32_t *nlaunch)
{
	*queues = 0;
	*nlaunch = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		if (s->dparts[i].queue < 32)
			*queues |= 1u << s->dparts[i].queue;
		*nlaunch += s->parts[i].kind == RIG_LAUNCH;
	}
}

void
profile_note(struct rig_device *d, uint64_t v, uint32_t queues, uint32_t nlaunch,
	     const struct waitset *ws, const struct claim_arrow *arrows,
	     size_t narrows, struct job *job)
{
	struct profile_dev *pd;
	struct profile_rec *rec;

	/* Between the value drawn and the pointer read, against a detach's
	 * clear then read of issued: an inline device's reserve stores
	 * issued with release only (submit.c), a fetch-add elsewhere. */
	atomic_thread_fence(memory_order_seq_cst);
	pd = atomic_load(&d->sub.prof);
	if (!pd || !(rec = profile_rec_of(pd, v)))
		return;
	*profile_times(pd, rec) = (struct rig_times){ 0, 0 };
	rec->queues = queues;
	rec->nlaunch = nlaunch;
	rec->narrows = 0;
	for (size_t i = 0; i < narrows && rec->narrows < PROFILE_ARROWS; i++) {
		const struct claim_arrow *a = &arrows[i];
		uint64_t at = address_of(a->a);

		if (!still_waits(ws, a->from))
			continue;	/* settled before the submit: no wait */
		profile_arrows(pd, rec)[rec->narrows++] = (struct profile_arrow){
			a->from.slot, a->from.value, at + a->lo, at + a->hi };
	}
	/* Release: a reader that sees the value sees the rest. */
	atomic_store_explicit(&rec->value, v, memory_order_release);
	job->times = profile_times(pd, rec);
}
