/* SPDX-License-Identifier: MIT */
/*
 * submit/place.h: rule 2 of docs/order.md and the placement of parts on queues
 * (docs/submissions.md, Placement), as a pure function of what each part uses.
 *
 * A use is a slot, or a byte range of an allocation, read or written. Two
 * uses conflict where either writes and they may share memory: either is a
 * slot (a run gives its buffer), or both lie in one allocation and share a
 * 4-byte word. A part follows every earlier part it conflicts with; words
 * parts follow every earlier part.
 */
#ifndef SUBMIT_PLACE_H
#define SUBMIT_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rig_edge.h"
#include "submit/stamp.h"

struct place_use {
	bool is_slot;
	int64_t slot;
	const void *alloc;		/* for a buffer: its allocation */
	uint64_t offset, bytes;
	enum use_kind kind;
};

struct place_part {
	enum rig_kind kind;
	const struct place_use *uses;
	size_t nuses;
	uint32_t queue;			/* out */
	uint32_t *follows;		/* out: malloc'd, parts of other queues */
	uint32_t nfollows;		/* out */
};

/*
 * Place parts[0..n) on the queues of f, with common the uses every part
 * makes (fixed memory). Returns 0, -ENOMEM, or -EINVAL with why naming the
 * part that no queue runs.
 */
int place_parts(const struct rig_facts *f, struct place_part *parts, size_t n,
		const struct place_use *common, size_t ncommon, char *why,
		size_t why_len);

#endif
