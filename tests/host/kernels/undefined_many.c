/* SPDX-License-Identifier: MIT */
/* undefined_many: calls three functions the host does not give objects. */
#include <stdint.h>

int printf(const char *, ...);
void *malloc(unsigned long);
void missing_function(int64_t);

void
calls_many(const void *params, int64_t first, int64_t end)
{
	printf("%ld", (long)first);
	missing_function((int64_t)(intptr_t)malloc(8));
}
