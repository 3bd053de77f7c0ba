/* SPDX-License-Identifier: MIT */
/*
 * data: the relocations of data: a read-only table, a writable global, a
 * common symbol, a table of function pointers, a switch's jump table, the
 * address of a host function, and an absent weak function.
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *, const void *, size_t);
extern void absent_weak(void) __attribute__((weak));

static const int64_t table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
int64_t counter = 100;
int64_t common_value __attribute__((common));

static int64_t twice(int64_t x) { return 2 * x; }
static int64_t square(int64_t x) { return x * x; }
static int64_t negate(int64_t x) { return -x; }
static int64_t (*const ops[3])(int64_t) = { twice, square, negate };
void *(*host_memcpy)(void *, const void *, size_t) = memcpy;

static int64_t __attribute__((noinline))
pick(int64_t i, int64_t x)
{
	switch (i) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 5;
	case 4: return x * x;
	case 5: return 11;
	default: return -1;
	}
}

struct data_params {
	int64_t *out;
};

/* out[g] from every kind of data reference; counts groups in counter. */
void
data(const void *params, int64_t first, int64_t end)
{
	const struct data_params *p = params;

	for (; first < end; first++) {
		p->out[first] = table[first & 7] + ops[first % 3](first) + pick(first % 7, first);
		counter++;
		common_value += first;
	}
}

int64_t data_counter(void) { return counter; }
int64_t data_common(void) { return common_value; }
const void *data_table(void) { return table; }
int64_t *data_counter_address(void) { return &counter; }
void *data_host_memcpy(void) { return (void *)host_memcpy; }
int data_weak_is_absent(void) { return absent_weak == NULL; }
