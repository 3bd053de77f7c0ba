/* SPDX-License-Identifier: MIT */
/*
 * io/fail.c: the disk's two kinds of message. A refusal of a call
 * (disk_refuse) goes to the calling thread's disk_why() as "<call>: <cause>"
 * and changes nothing. A failure of the disk (disk_fail) is kept once, the
 * first one wins, and from then on the word stops and submits answer it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "io/engine.h"

static _Thread_local char why[320];

const char *
disk_why(void)
{
	return why;
}

int
disk_refuse(const char *call, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(why, sizeof(why), "%s: ", call);
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* Keep the failure's text, the first one only; tell the eventfd if notify.
 * Returns true if this call set it. */
static bool
fail_v(struct disk *d, bool notify, const char *fmt, va_list ap)
{
	int none = 0;

	if (!atomic_compare_exchange_strong_explicit(&d->failed, &none, 1,
						     memory_order_acq_rel,
						     memory_order_acquire))
		return false;
	vsnprintf(d->failure, sizeof(d->failure), fmt, ap);
	/* Pairs with the acquire in disk_failure_text(): the text is
	 * written before anyone reads it. */
	atomic_store_explicit(&d->failed, 2, memory_order_release);
	/* After the text: whoever the eventfd wakes finds it written (the
	 * write is a system call, a full barrier). An eventfd's write of 1
	 * fails only at a count near 2^64, which one write per disk never
	 * reaches. */
	if (notify)
		(void)!write(d->event_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	return true;
}

bool
disk_fail(struct disk *d, const char *fmt, ...)
{
	va_list ap;
	bool set;

	va_start(ap, fmt);
	set = fail_v(d, true, fmt, ap);
	va_end(ap);
	return set;
}

/* A stop's text: its caller knows of it, so the eventfd stays quiet. */
bool
disk_fail_quiet(struct disk *d, const char *fmt, ...)
{
	va_list ap;
	bool set;

	va_start(ap, fmt);
	set = fail_v(d, false, fmt, ap);
	va_end(ap);
	return set;
}

bool
disk_has_failed(struct disk *d)
{
	return atomic_load_explicit(&d->failed, memory_order_acquire) != 0;
}

/* The failure's text, waiting out a writer (a few instructions). */
const char *
disk_failure_text(struct disk *d)
{
	int s;

	while ((s = atomic_load_explicit(&d->failed, memory_order_acquire)) == 1)
		;
	return s ? d->failure : NULL;
}

const char *
disk_op_name(enum rig_io_op_kind kind)
{
	switch (kind) {
	case RIG_IO_READ:	return "read";
	case RIG_IO_WRITE:	return "write";
	case RIG_IO_BARRIER:	return "barrier";
	}
	return "op";
}
