// SPDX-License-Identifier: MIT
// ctors_cxx: C++ dynamic initialisation of a global object and its
// destructor, which g++ registers with __cxa_atexit(..., &__dso_handle).
#include <stdint.h>

static int64_t *fini_log;

struct Table {
	int64_t v[64];
	Table()
	{
		for (int i = 0; i < 64; i++)
			v[i] = 5 * i + 2;
	}
	~Table()
	{
		if (fini_log)
			*fini_log = v[1];
	}
};

static Table table;

struct cxx_params {
	int64_t *out;
};

extern "C" void
cxx_table(const void *params, int64_t first, int64_t end)
{
	const cxx_params *p = static_cast<const cxx_params *>(params);

	for (; first < end; first++)
		p->out[first] = table.v[first & 63];
}

extern "C" void cxx_log_to(int64_t *log) { fini_log = log; }
