/* SPDX-License-Identifier: MIT */
/*
 * core/buffer.h: what other core files need of buffers.
 */
#ifndef CORE_BUFFER_H
#define CORE_BUFFER_H

#include "core/device.h"

/* RIG_EINVAL naming func when b is NULL or dead, else 0. */
int buffer_check(const char *func, const struct rig_buffer *b);

/* A handle over length bytes of a from offset (taking the caller's
 * reference to a); NULL without memory. */
struct rig_buffer *buffer_over(struct alloc *a, uint64_t offset,
			       uint64_t length, enum rig_access access);
/* A new handle over b's memory (the caller's own view); NULL without memory. */
struct rig_buffer *buffer_dup(const struct rig_buffer *b);

/* x and y share a byte of memory (a copy's ends must not). */
static inline bool
buffers_share_a_byte(const struct rig_buffer *x, const struct rig_buffer *y)
{
	return x->a->root == y->a->root && x->length && y->length &&
	       x->offset < y->offset + y->length && y->offset < x->offset + x->length;
}

#endif
