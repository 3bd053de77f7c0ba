/* SPDX-License-Identifier: MIT */
/*
 * host/code_sync.c: rig_code_sync(), declared by rig_edge.h. Code bytes
 * written through a data mapping become visible to instruction fetch: a
 * no-op on x86-64, whose caches are coherent, and the data-cache clean and
 * instruction-cache invalidate aarch64 needs.
 */
#include <stddef.h>

#include "rig_edge.h"

void
rig_code_sync(void *addr, size_t bytes)
{
	char *p = addr;

	if (!p)		/* nothing to sync (rig.h, NULL handles) */
		return;
	__builtin___clear_cache(p, p + bytes);
}
