/* SPDX-License-Identifier: MIT */
/* undefined: calls a function the host does not give objects. */
#include <stdint.h>

void missing_function(int64_t);

void
calls_missing(const void *params, int64_t first, int64_t end)
{
	missing_function(first);
}
