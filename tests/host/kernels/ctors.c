/* SPDX-License-Identifier: MIT */
/*
 * ctors: constructors and destructors with priorities and without, which
 * the host must run in the order a static link would: constructors 101,
 * 200, then the plain one; destructors the plain one, 200, then 101. The
 * plain constructor fills the table the kernel reads.
 */
#include <stdint.h>

static int64_t order[8];
static int64_t norder;
static int64_t table[64];
static int64_t *fini_log;
static int64_t nfini;

__attribute__((constructor(200))) static void
init_200(void)
{
	order[norder++] = 200;
}

__attribute__((constructor(101))) static void
init_101(void)
{
	order[norder++] = 101;
}

__attribute__((constructor)) static void
init_plain(void)
{
	for (int i = 0; i < 64; i++)
		table[i] = 3 * i + 1;
	order[norder++] = 1000;
}

static void
logged(int64_t what)
{
	if (fini_log)
		fini_log[nfini++] = what;
}

__attribute__((destructor(101))) static void fini_101(void) { logged(101); }
__attribute__((destructor(200))) static void fini_200(void) { logged(200); }
__attribute__((destructor)) static void fini_plain(void) { logged(1000); }

struct ctors_params {
	int64_t *out;
};

void
ctors(const void *params, int64_t first, int64_t end)
{
	const struct ctors_params *p = params;

	for (; first < end; first++)
		p->out[first] = table[first & 63];
}

int64_t ctors_order(int64_t i) { return i < norder ? order[i] : -1; }
void ctors_log_to(int64_t *log) { fini_log = log; }
