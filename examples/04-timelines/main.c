/* SPDX-License-Identifier: MIT */
/*
 * 04-timelines: submissions, values and points. A submission is made once
 * and submitted many times; each submit is the work of the device's next
 * value and returns its point, which a program can ask about or wait on.
 */
#include <stdio.h>

#include "rig.h"

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "04-timelines: %s\n", rig_why()); return 1; } } while (0)

int
main(void)
{
	struct rig_device *m;
	struct rig_buffer *a, *b;
	struct rig_submission *s;
	struct rig_run *run;
	struct rig_point p[4];
	struct rig_part_spec copy = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	uint32_t word = 0;

	TRY(rig_memory_device("M", &m));
	TRY(rig_buffer_create(m, 4, RIG_MEMORY_DEVICE, &a));
	TRY(rig_buffer_create(m, 4, RIG_MEMORY_DEVICE, &b));
	/* Two slots: each submit names the buffers the copy runs between. */
	TRY(rig_submission_make(m, &copy, 1, NULL, 0, (struct rig_keep){ 0 }, &s));
	printf("a copy submission with %zu slots\n", rig_submission_slots(s));
	for (int i = 0; i < 4; i++) {
		struct rig_buffer *ends[2] = { i % 2 ? b : a, i % 2 ? a : b };

		word = 100u + (uint32_t)i;
		TRY(rig_buffer_write(ends[0], 0, &word, 4));
		TRY(rig_run_take(s, &run));	/* no launch or fill: one shared run */
		TRY(rig_submit(run, ends, 2, NULL, 0, &p[i]));
		printf("submit %d: value %llu, reached %s\n", i,
		       (unsigned long long)p[i].value, rig_reached(p[i]) ? "yes" : "not yet");
	}
	TRY(rig_wait(p[3], 1000000000));
	TRY(rig_buffer_read(a, 0, &word, 4));
	printf("after the last value, a holds %u (the copy of value %llu)\n", word,
	       (unsigned long long)p[3].value);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(m);
	return word != 103;
}
