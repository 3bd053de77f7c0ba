/*
 * host/elf_host.c: the table of host functions that objects bind to by
 * name. A name not here is an undefined symbol, which the linker refuses.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_host.h"

struct host_fn {
	const char *name;
	void *fn;
};

#define FN(f)	{ #f, (void *)f }

/* Sorted by name for bsearch (checked by the tests' lookups). */
static const struct host_fn table[] = {
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
