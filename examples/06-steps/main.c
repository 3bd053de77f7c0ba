/* SPDX-License-Identifier: MIT */
/*
 * 06-steps: a step made once and run many times. Its fixed memory is a
 * counter every run uses; rig_submission_address() gives the counter's
 * address, which the program writes into the step's parameters once. Each
 * run's fill adds its own amount to the counter, and the fixed memory's
 * stamps order the runs' reads and writes of it.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"

#define RUNS 1000
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "06-steps: %s\n", rig_why()); return 1; } } while (0)

struct step_params {
	uint64_t counter;	/* the counter's address, written once */
	uint64_t amount;	/* each run's own */
};

/* Runs inside the memory device's submit, on the host. */
static int
add_amount(void *queue, void *arg, uint64_t value)
{
	struct step_params *p = arg;

	*(uint64_t *)(uintptr_t)p->counter += p->amount;
	return 0;
}

int
main(void)
{
	struct rig_device *m;
	struct rig_buffer *counter;
	struct rig_submission *step;
	struct rig_run *run;
	struct rig_point p;
	struct rig_part_spec fill = rig_part_fill(add_amount, sizeof(struct step_params), NULL, 0);
	struct rig_fixed fixed = { NULL, RIG_READ_WRITE };
	struct step_params params;
	uint64_t total = 0, want = 0;

	TRY(rig_memory_device("M", &m));
	TRY(rig_buffer_create(m, 8, RIG_MEMORY_DEVICE, &counter));
	fixed.buffer = counter;
	TRY(rig_submission_make(m, &fill, 1, &fixed, 1, (struct rig_keep){ 0 }, &step));
	TRY(rig_submission_address(step, counter, &params.counter));
	for (uint64_t i = 1; i <= RUNS; i++) {
		params.amount = i;
		want += i;
		TRY(rig_run_take(step, &run));		/* the same run each time */
		TRY(rig_run_store(run, 0, NULL, NULL, &params, sizeof(params)));
		TRY(rig_submit(run, NULL, 0, NULL, 0, &p));
	}
	TRY(rig_buffer_read(counter, 0, &total, 8));	/* after the last run */
	printf("%d runs of one step added up to %llu (expected %llu)\n", RUNS,
	       (unsigned long long)total, (unsigned long long)want);
	rig_submission_release(step);
	rig_buffer_release(counter);
	rig_device_release(m);
	return total != want;
}
