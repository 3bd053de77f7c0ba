// SPDX-License-Identifier: MIT
// mangled: a C++ kernel declared without extern "C", so its name in the
// object is _Z5saxpyPKvll; the refusal of "saxpy" says so.
#include <stdint.h>

void
saxpy(const void *params, int64_t first, int64_t end)
{
	float *x = *static_cast<float *const *>(params);

	for (; first < end; first++)
		x[first] *= 2.0f;
}
