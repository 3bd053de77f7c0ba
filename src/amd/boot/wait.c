/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/wait.c: every wait of the boot on the hardware. Each has a
 * deadline, and its message names the step, what it waited for and the
 * last value read ("PSP: bootloader not ready after 1000 ms (C2PMSG_35 =
 * 0x0)"), so a GPU that stops answering is named where it stopped. Polls
 * every 100 us on CLOCK_MONOTONIC: a boot waits for firmware measured in
 * milliseconds, and no kernel event reports these registers' changes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
amd_boot_sleep(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void
nap(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

int
amd_boot_fail(struct amd_boot *b, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->cause, b->len, fmt, ap);
	va_end(ap);
	return code;
}

int
amd_boot_w(struct amd_boot *b, enum amd_reg r, uint64_t plus, uint32_t v)
{
	int ret = amd_dev_wreg(b->d, r, plus, v);

	return ret < 0 ? amd_boot_fail(b, ret, "writing %s: %s", amd_reg_names[r],
				       amd_cause()) : 0;
}

int
amd_boot_wx(struct amd_boot *b, const char *unit, unsigned xcc, enum amd_reg r,
	    uint64_t plus, uint32_t v)
{
	int ret = amd_dev_wreg_xcc(b->d, xcc, r, plus, v);

	if (ret >= 0)
		return 0;
	if (b->d->regs.xccs <= 1)	/* one XCC: no number to name */
		return amd_boot_fail(b, ret, "%s: writing %s: %s", unit,
				     amd_reg_names[r], amd_cause());
	return amd_boot_fail(b, ret, "%s: XCC %u: writing %s: %s", unit, xcc,
			     amd_reg_names[r], amd_cause());
}

int
amd_boot_wait(struct amd_boot *b, const char *step, const char *what,
	      enum amd_reg r, uint32_t mask, uint32_t want, unsigned ms,
	      uint32_t *last)
{
	uint64_t end = now_ms() + ms;
	uint32_t v;

	for (;;) {
		v = amd_dev_rreg(b->d, r, 0);
		if (last)
			*last = v;
		if ((v & mask) == want)
			return 0;
		if (now_ms() > end)
			break;
		nap();
	}
	return amd_boot_fail(b, -ETIMEDOUT, "%s: %s after %u ms (%s = 0x%x)", step,
			     what, ms, amd_reg_names[r], v);
}

int
amd_boot_wait_nonzero(struct amd_boot *b, const char *step, const char *what,
		      enum amd_reg r, unsigned ms, uint32_t *last)
{
	uint64_t end = now_ms() + ms;
	uint32_t v;

	for (;;) {
		v = amd_dev_rreg(b->d, r, 0);
		if (last)
			*last = v;
		if (v)
			return 0;
		if (now_ms() > end)
			break;
		nap();
	}
	return amd_boot_fail(b, -ETIMEDOUT, "%s: %s after %u ms (%s = 0x0)", step,
			     what, ms, amd_reg_names[r]);
}

int
amd_boot_wait_mem(struct amd_boot *b, const char *step, const char *what,
		  uint64_t at, uint32_t want, unsigned ms)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)(b->d->vram + at);
	uint64_t end = now_ms() + ms;
	uint32_t v;

	for (;;) {
		v = atomic_load_explicit(w, memory_order_acquire);
		if (v == want)
			return 0;
		if (now_ms() > end)
			break;
		nap();
	}
	return amd_boot_fail(b, -ETIMEDOUT, "%s: %s after %u ms (the fence at VRAM "
			     "0x%llx = 0x%x, not 0x%x)", step, what, ms,
			     (unsigned long long)at, v, want);
}
