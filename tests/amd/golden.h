/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/golden.h: the encoders' tests compare what an encoder wrote
 * into buf with the dwords amd-facts' tables give, dword by dword; a
 * mismatch names the packet and the dword. Include after cmocka.h.
 */
#ifndef RIG_TESTS_AMD_GOLDEN_H
#define RIG_TESTS_AMD_GOLDEN_H

#include <string.h>

static uint32_t buf[256];

/* The n dwords from buf up to end are want's. */
static void
golden(const uint32_t *end, const uint32_t *want, size_t n, const char *what)
{
	if ((size_t)(end - buf) != n)
		fail_msg("%s: %zu dwords, expected %zu", what, (size_t)(end - buf), n);
	for (size_t i = 0; i < n; i++)
		if (buf[i] != want[i])
			fail_msg("%s: DW%zu is 0x%08x, expected 0x%08x", what, i,
				 buf[i], want[i]);
}

#define GOLDEN(end, what, ...) do { \
	const uint32_t want_[] = { __VA_ARGS__ }; \
	golden(end, want_, sizeof(want_) / sizeof(want_[0]), what); \
} while (0)

/* Each test starts from a buffer no encoder wrote. */
static int
clear(void **state)
{
	(void)state;
	memset(buf, 0xEE, sizeof(buf));
	return 0;
}

#endif
