/* SPDX-License-Identifier: MIT */
/*
 * tests/loss/loss.h: what the loss tests share: a three-copy submission
 * run once, waiting until a condition holds (with a deadline that only a
 * hung rig reaches), and the process's fds and threads for leak checks.
 */
#ifndef TESTS_LOSS_H
#define TESTS_LOSS_H

#include <stdbool.h>
#include <time.h>

#include "../core/common.h"

#define MS_NS 1000000ull

static inline void
sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait until cond holds, failing the test after 30 s (rig hung). */
#define await(cond) do {						\
	int k_;								\
	for (k_ = 0; k_ < 30000 && !(cond); k_++)			\
		sleep_ms(1);						\
	if (!(cond))							\
		fail_msg("still not %s after 30 s", #cond);		\
} while (0)

/* Three copies on d: a to b, b to c, a to c (parts 0, 1, 2). */
static inline struct rig_submission *
three_copies(struct rig_device *d, struct rig_buffer *a, struct rig_buffer *b,
	     struct rig_buffer *c)
{
	struct rig_part_spec parts[3] = {
		rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(b)),
		rig_part_copy(RIG_BUFFER(b), RIG_BUFFER(c)),
		rig_part_copy(RIG_BUFFER(a), RIG_BUFFER(c)),
	};
	struct rig_submission *s = NULL;

	assert_int_equal(rig_submission_make(d, parts, 3, NULL, 0,
					     (struct rig_keep){ 0 }, &s), 0);
	return s;
}

/* Run s once; its point. */
static inline struct rig_point
run_once(struct rig_submission *s)
{
	struct rig_run *r = NULL;
	struct rig_point p = { 0 };

	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, NULL, 0, NULL, 0, &p), 0);
	return p;
}

/* Internal: the word slots taken now (timeline/words.c). */
int timeline_slots_taken(void);

#endif
