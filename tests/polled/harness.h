/* SPDX-License-Identifier: MIT */
/*
 * tests/polled/harness.h: the polled driver alone (its sources are built
 * into the test, no librig), with the test in rig's place: a device made
 * through the opener, its facts and C functions, the one lock rig calls
 * room, submit and commit under, and parts for a value. Shared by
 * test_polled_queue.c and test_stress_polled.c.
 */
#ifndef TESTS_POLLED_HARNESS_H
#define TESTS_POLLED_HARNESS_H

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "polled/polled.h"

#define SECOND_NS 1000000000ull

/* A device as rig holds it. */
struct hdev {
	struct rig_polled *p;
	void *h;			/* the handle make returned */
	struct pdev *d;			/* the same, seen from inside */
	struct rig_facts f;
	const struct rig_driver *drv;
	_Atomic uint64_t word;
	pthread_mutex_t lock;		/* rig's driver lock */
	uint64_t submitted;		/* under lock */
};

/* The functions of rig's the driver calls (rig_edge.h), in librig's
 * place: each test program includes this header once. */
uint64_t
rig_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SECOND_NS + (uint64_t)ts.tv_nsec;
}

/* A refusal's message, kept as librig keeps it for rig_why(). */
static _Thread_local char harness_why[256];

int
rig_why_set(const char *func, int code, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(harness_why, sizeof(harness_why), "%s: ", func);

	va_start(ap, fmt);
	vsnprintf(harness_why + n, sizeof(harness_why) - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

/* The driver's other operations. */
static inline const struct rig_ops *
h_ops(struct hdev *hd)
{
	return rig_polled_opener(hd->p)->ops;
}

/* Make c's device with its word at start; 0, or make's status. */
static inline int
h_open(struct hdev *hd, struct rig_polled_config c, uint64_t start)
{
	char why[128] = "";
	const char *fault = NULL;
	int ret;

	memset(hd, 0, sizeof(*hd));
	c.size = sizeof(c);
	if ((ret = rig_polled_create(&c, &hd->p)) != 0)
		return ret;
	atomic_init(&hd->word, start);
	ret = rig_polled_opener(hd->p)->make(rig_polled_opener(hd->p), &hd->word,
					      &hd->h, why, sizeof(why));
	if (ret != 0) {
		fprintf(stderr, "make: %s\n", why);
		rig_polled_destroy(hd->p);
		return ret;
	}
	if (h_ops(hd)->facts(hd->h, &hd->f, &fault) != RIG_OK) {
		fprintf(stderr, "facts: %s\n", fault);
		return -1;
	}
	hd->d = hd->h;
	hd->drv = *(const struct rig_driver *const *)hd->f.edge;
	hd->submitted = atomic_load(&hd->word);
	pthread_mutex_init(&hd->lock, NULL);
	return 0;
}

/* Stop (no call in flight: under the lock, as rig does) and release. */
static inline void
h_stop(struct hdev *hd)
{
	pthread_mutex_lock(&hd->lock);
	h_ops(hd)->stop(hd->h, "the test is over");
	pthread_mutex_unlock(&hd->lock);
}

static inline void
h_release(struct hdev *hd)
{
	h_ops(hd)->release(hd->h);
	pthread_mutex_destroy(&hd->lock);
	rig_polled_destroy(hd->p);
}

/* Under the lock: commit v; the driver's status. */
static inline int
h_commit(struct hdev *hd, uint64_t v)
{
	const char *failure = NULL;

	return hd->drv->commit(hd->f.edge, v, &failure);
}

/* Under the lock: room, then (on RIG_FITS) submit of the next value;
 * room's answer, or RIG_FAILED with *failure set. */
static inline int
h_submit(struct hdev *hd, struct rig_part *parts, size_t n,
	 const struct rig_wait *waits, size_t nwaits, const char **failure)
{
	int r = hd->drv->room(hd->f.edge, parts, n, nwaits);

	if (r != RIG_FITS)
		return r;
	r = hd->drv->submit(hd->f.edge, hd->submitted + 1, parts, n, waits,
			    nwaits, NULL, failure);
	if (r == RIG_FAILED)
		return r;
	hd->submitted++;
	return RIG_FITS;
}

/* Wait up to timeout_ns for the word to show v; true if it did. */
static inline bool
h_await(struct hdev *hd, uint64_t v, uint64_t timeout_ns)
{
	uint64_t until = rig_now_ns() + timeout_ns;

	while (atomic_load(&hd->word) < v)
		if (rig_now_ns() > until)
			return false;
		else
			sched_yield();
	return true;
}

/* A copy of 8 bytes from src to dst. */
static inline struct rig_part
h_copy(uint64_t *src, uint64_t *dst)
{
	return (struct rig_part){
		.kind = RIG_COPY_PART,
		.u.copy = {
			.src.at = { .has_address = true, .address = (uintptr_t)src },
			.dst.at = { .has_address = true, .address = (uintptr_t)dst },
			.bytes = sizeof(*src), .rows = 1, .fill = -1,
		},
	};
}

/* A part the device only passes (a launch runs nothing). */
static inline struct rig_part
h_launch(void)
{
	return (struct rig_part){ .kind = RIG_LAUNCH_PART, .u.launch.launch = 1 };
}

#endif
