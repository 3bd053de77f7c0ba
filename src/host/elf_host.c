/* SPDX-License-Identifier: MIT */
/*
 * host/elf_host.c: the table of host functions that objects bind to by
 * name: the C library's memory functions, libm's, and the few libgcc
 * helpers a compiler calls for what the machine lacks (128-bit division,
 * popcount without the instruction) or a distribution's default stack
 * protector calls, and __cxa_atexit, through which C++ constructors
 * register their globals' destructors (elf_init.c keeps them per image).
 * A name not here is an undefined symbol, which the linker
 * refuses.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "host/elf_host.h"
#include "host/elf_init.h"

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
	{ "__cxa_atexit", (void *)elf_cxa_atexit }, FN(__divti3), FN(__modti3), FN(__popcountdi2),
	FN(__stack_chk_fail), FN(__udivti3), FN(__umodti3), FN(acos),
	FN(acosf), FN(acosh), FN(acoshf), FN(asin), FN(asinf), FN(asinh),
	FN(asinhf), FN(atan), FN(atan2), FN(atan2f), FN(atanf), FN(atanh),
	FN(atanhf), FN(cbrt), FN(cbrtf), FN(ceil), FN(ceilf), FN(copysign),
	FN(copysignf), FN(cos), FN(cosf), FN(cosh), FN(coshf), FN(erf),
	FN(erfc), FN(erfcf), FN(erff), FN(exp), FN(exp10), FN(exp10f),
	FN(exp2), FN(exp2f), FN(expf), FN(expm1), FN(expm1f), FN(fabs),
	FN(fabsf), FN(fdim), FN(fdimf), FN(floor), FN(floorf), FN(fma),
	FN(fmaf), FN(fmax), FN(fmaxf), FN(fmin), FN(fminf), FN(fmod),
	FN(fmodf), FN(frexp), FN(frexpf), FN(hypot), FN(hypotf), FN(ilogb),
	FN(ilogbf), FN(ldexp), FN(ldexpf), FN(lgamma), FN(lgammaf),
	FN(llrint), FN(llrintf), FN(llround), FN(llroundf), FN(log),
	FN(log10), FN(log10f), FN(log1p), FN(log1pf), FN(log2), FN(log2f),
	FN(logb), FN(logbf), FN(logf), FN(lrint), FN(lrintf), FN(lround),
	FN(lroundf), FN(memcmp), FN(memcpy), FN(memmove), FN(memset),
	FN(modf), FN(modff), FN(nearbyint), FN(nearbyintf), FN(nextafter),
	FN(nextafterf), FN(pow), FN(powf), FN(remainder), FN(remainderf),
	FN(remquo), FN(remquof), FN(rint), FN(rintf), FN(round), FN(roundf),
	FN(scalbn), FN(scalbnf), FN(sin), FN(sincos), FN(sincosf), FN(sinf),
	FN(sinh), FN(sinhf), FN(sqrt), FN(sqrtf), FN(tan), FN(tanf),
	FN(tanh), FN(tanhf), FN(tgamma), FN(tgammaf), FN(trunc), FN(truncf),
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
