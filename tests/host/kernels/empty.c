/* SPDX-License-Identifier: MIT */
/* empty: a kernel that does nothing, for round trips. */
#include <stdint.h>

void
empty(const void *params, int64_t first, int64_t end)
{
}
