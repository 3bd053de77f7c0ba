/* SPDX-License-Identifier: MIT */
/*
 * 08-claims: writing a donated input in place. A program that holds the
 * only reference to a buffer may give it up to a step that writes its
 * result over it: rig_buffer_exclusive() says whether it may, and
 * rig_buffer_consume() ends the input and returns a buffer over the same
 * memory whose first use follows every use of the input. A held buffer
 * (a claim, or a taken run) cannot be consumed.
 */
#include <stdio.h>

#include "rig.h"

#define N 1024
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "08-claims: %s\n", rig_why()); return 1; } } while (0)

/* The step: doubles every word of its argument's buffer, in place. */
static int
double_words(void *queue, void *arg, uint64_t value)
{
	uint32_t *w = *(uint32_t **)arg;

	for (int i = 0; i < N; i++)
		w[i] *= 2;
	return 0;
}

int
main(void)
{
	struct rig_device *m;
	struct rig_buffer *input, *output, *view;
	struct rig_claim *hold;
	struct rig_submission *step;
	struct rig_run *run;
	struct rig_ref ref = RIG_WRITE(0, 0);
	struct rig_part_spec part = rig_part_fill(double_words, 8, &ref, 1);
	uint32_t words[N];
	int refused;

	for (int i = 0; i < N; i++)
		words[i] = (uint32_t)i;
	TRY(rig_memory_device("M", &m));
	TRY(rig_buffer_create(m, sizeof(words), RIG_MEMORY_DEVICE, &input));
	TRY(rig_buffer_write(input, 0, words, sizeof(words)));

	TRY(rig_buffer_view(input, 0, 16, RIG_READ_ONLY, &view));
	printf("with a view of it, the input is %sexclusive\n", rig_buffer_exclusive(input) ? "" : "not ");
	rig_buffer_release(view);
	TRY(rig_claim_hold(&input, 1, &hold));
	refused = rig_buffer_consume(input, &output);
	printf("held, it cannot be donated: %s\n", refused ? rig_why() : "donated?!");
	rig_claim_release(hold);
	printf("alone, the input is %sexclusive: donate it\n", rig_buffer_exclusive(input) ? "" : "not ");

	TRY(rig_buffer_consume(input, &output));	/* input is dead from here */
	TRY(rig_submission_make(m, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &step));
	TRY(rig_run_take(step, &run));
	TRY(rig_run_store(run, 0, NULL, NULL, (uint64_t[1]){ 0 }, 8));
	TRY(rig_submit(run, &output, 1, NULL, 0, NULL));
	TRY(rig_buffer_read(output, 0, words, sizeof(words)));
	printf("written in place: word 100 is %u; the input says: %s\n", words[100],
	       rig_buffer_read(input, 0, words, 4) < 0 ? rig_why() : "alive?!");

	rig_submission_release(step);
	rig_buffer_release(input);
	rig_buffer_release(output);
	rig_device_release(m);
	return !refused || words[0] != 0;
}
