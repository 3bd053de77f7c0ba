/*
 * core/buffer.h: what other core files need of buffers.
 */
#ifndef CORE_BUFFER_H
#define CORE_BUFFER_H

#include "core/device.h"

/* RIG_EINVAL naming func when b is NULL or dead, else 0. */
int buffer_check(const char *func, const struct rig_buffer *b);

#endif
