/* SPDX-License-Identifier: MIT */
/*
 * host/pieces.c: the host device's pieces of a profiled value
 * (rig_edge.h, Profiles: pieces): each launch's and copy's start and end,
 * and each thread's range of a launch, kept from the device thread's run
 * of the value until rig frees them (pieces(v, NULL)) or the device stops.
 *
 * The device thread fills one block per timed value off any lock, then
 * appends it under `lock` before it stores the value in the word, so a
 * reader that saw the word finds it; rig reads under its driver lock,
 * never on the device thread's path of an untimed value. Blocks lie in
 * value order (the thread runs values in order), so a read is a binary
 * search of their values. rig frees each value's block once it read it,
 * in value order, so the freed ones gather at the front (head); a block
 * freed out of order leaves a hole (NULL beside its value) until every
 * block before it is freed too. A
 * mutex, not a lock-free list: it is taken only while a profile is
 * taken, once per timed value by the thread and once per read by rig.
 */
#include <stdlib.h>
#include <string.h>

#include "host/dev.h"

struct host_pieces_of *
host_pieces_new(const struct host_dev *d, const struct host_job *job)
{
	size_t most = 0;
	struct host_pieces_of *pc;

	for (size_t i = 0; i < job->nops; i++)
		most += job->ops[i].kind == RIG_LAUNCH_PART ? 1 + host_pool_runners(d->pool) : 1;
	pc = malloc(sizeof(*pc) + most * sizeof(pc->piece[0]));
	if (pc) {
		pc->value = job->value;
		pc->n = 0;
	}
	return pc;	/* NULL: no memory; the value keeps its pair only */
}

void
host_pieces_add(const struct host_dev *d, struct host_pieces_of *pc, const struct host_op *op,
		uint64_t start, uint64_t end, const struct rig_times *ranges)
{
	bool launch = op->kind == RIG_LAUNCH_PART;
	uint32_t queue = launch ? HOST_COMPUTE : HOST_COPY;
	unsigned runners = launch ? host_pool_runners(d->pool) : 0;
	bool any = false;

	pc->piece[pc->n++] = (struct rig_piece){
		.kind = op->kind, .part = (uint32_t)op->part, .queue = queue,
		.worker = -1, .start_ns = start, .end_ns = end,
	};
	for (unsigned r = 0; r < runners; r++) {
		if (!ranges[r].end_ns)
			continue;	/* it ran no chunk of this launch */
		any = true;
		pc->piece[pc->n++] = (struct rig_piece){
			.kind = op->kind, .part = (uint32_t)op->part, .queue = queue,
			.worker = (int32_t)r, .start_ns = ranges[r].start_ns,
			.end_ns = ranges[r].end_ns,
		};
	}
	if (launch && !any)	/* one call on the runner (pool.h): the launch's span */
		pc->piece[pc->n++] = (struct rig_piece){
			.kind = op->kind, .part = (uint32_t)op->part, .queue = queue,
			.worker = 0, .start_ns = start, .end_ns = end,
		};
}

void
host_pieces_keep(struct host_dev *d, struct host_pieces_of *pc)
{
	struct host_pieces *k = &d->pieces;

	pthread_mutex_lock(&k->lock);
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct host_pieces_of **of = realloc(k->of, cap * sizeof(*of));
		uint64_t *value = of ? realloc(k->value, cap * sizeof(*value)) : NULL;

		if (of)
			k->of = of;
		if (!value) {
			pthread_mutex_unlock(&k->lock);
			free(pc);	/* no memory: the value keeps its pair only */
			return;
		}
		k->value = value;
		k->cap = cap;
	}
	k->value[k->n] = pc->value;
	k->of[k->n++] = pc;
	k->live++;
	pthread_mutex_unlock(&k->lock);
}

/* The index of value's block among k's (values in order), or k->n. */
static size_t
find(const struct host_pieces *k, uint64_t value)
{
	size_t lo = k->head, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->value[mid] == value)
			return k->of[mid] ? mid : k->n;
		if (k->value[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return k->n;
}

int
host_pieces(void *edge, uint64_t value, struct rig_piece *out, size_t cap, size_t *n,
	    const char **failure)
{
	struct host_dev *d = edge;
	struct host_pieces *k = &d->pieces;
	size_t at;

	(void)failure;
	pthread_mutex_lock(&k->lock);
	at = find(k, value);
	if (!out) {
		if (at < k->n) {
			free(k->of[at]);
			k->of[at] = NULL;
			k->live--;
			while (k->head < k->n && !k->of[k->head])
				k->head++;
			if (k->head == k->n)
				k->head = k->n = 0;	/* every block freed: the holes go */
		}
	} else {
		const struct host_pieces_of *pc = at < k->n ? k->of[at] : NULL;
		size_t have = pc ? pc->n : 0;

		if (have && cap)
			memcpy(out, pc->piece, (have < cap ? have : cap) * sizeof(*out));
		*n = have;
	}
	pthread_mutex_unlock(&k->lock);
	return RIG_OK;
}

void
host_pieces_init(struct host_dev *d)
{
	memset(&d->pieces, 0, sizeof(d->pieces));
	pthread_mutex_init(&d->pieces.lock, NULL);
}

void
host_pieces_fini(struct host_dev *d)
{
	for (size_t i = d->pieces.head; i < d->pieces.n; i++)
		free(d->pieces.of[i]);
	free(d->pieces.of);
	free(d->pieces.value);
	pthread_mutex_destroy(&d->pieces.lock);
}
