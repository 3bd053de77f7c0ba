/* SPDX-License-Identifier: MIT */
/*
 * host/elf_host.c: the table of host functions that objects bind to by
 * name: the C library's memory functions, libm's, and the few libgcc
 * helpers a compiler calls for what the machine lacks (128-bit division,
 * popcount without the instruction) or a distribution's default stack
 * protector calls. A name not here is an undefined symbol, which the linker
 * refuses.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_host.h"

/* libgcc's and glibc's, which no header declares. */
extern __int128 __divti3(__int128, __int128);
extern __int128 __modti3(__int128, __int128);
extern unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);
extern unsigned __int128 __umodti3(unsigned __int128, unsigned __int128);
extern int __popcountdi2(unsigned long);
extern void __stack_chk_fail(void);

struct host_fn {
	const char *name;
	void *fn;
};

#define FN(f)	{ #f, (void *)f }

/* Sorted by name for bsearch (checked by the tests' lookups). */
static const struct host_fn table[] = {
	FN(__divti3), FN(__modti3), FN(__popcountdi2), FN(__stack_chk_fail),
	FN(__udivti3), FN(__umodti3),
	FN(acos), FN(acosf), FN(asin), FN(asinf), FN(atan), FN(atan2),
	FN(atan2f), FN(atanf), FN(cbrt), FN(cbrtf), FN(ceil), FN(ceilf),
	FN(cos), FN(cosf), FN(cosh), FN(coshf), FN(erf), FN(erff), FN(exp),
	FN(exp2), FN(exp2f), FN(expf), FN(expm1), FN(expm1f), FN(fabs),
	FN(fabsf), FN(floor), FN(floorf), FN(fma), FN(fmaf), FN(fmax),
	FN(fmaxf), FN(fmin), FN(fminf), FN(fmod), FN(fmodf), FN(hypot),
	FN(hypotf), FN(log), FN(log10), FN(log10f), FN(log1p), FN(log1pf),
	FN(log2), FN(log2f), FN(logf), FN(memcmp), FN(memcpy), FN(memmove),
	FN(memset), FN(pow), FN(powf), FN(round), FN(roundf), FN(sin),
	FN(sinf), FN(sinh), FN(sinhf), FN(sqrt), FN(sqrtf), FN(tan),
	FN(tanf), FN(tanh), FN(tanhf), FN(trunc), FN(truncf),
};

static int
compare(const void *key, const void *entry)
{
	return strcmp(key, ((const struct host_fn *)entry)->name);
}

void *
elf_host_symbol(const char *name)
{
	const struct host_fn *f;

	f = bsearch(name, table, sizeof(table) / sizeof(table[0]),
		    sizeof(table[0]), compare);
	return f ? f->fn : NULL;
}
