/* SPDX-License-Identifier: MIT */
/*
 * 09-loss: a device that fails, and what goes on. Three polled test
 * devices (rig_polled.h): A produces data, B's queues wait for A's values,
 * C waits for them on the host. A faults in the middle of a submission:
 *  - the wait on A's point returns the loss, naming the culprit: the
 *    value, the submission it ran and the part it faulted at;
 *  - B is lost with A, and a wait on B names the chain back to A;
 *  - C is lost with A too: its copy would read bytes A never wrote, so
 *    it never runs, and a read of what it would have written says so
 *    (no work runs on memory whose last write was dropped);
 *  - a wait on a value A finished before the fault still succeeds;
 *  - A's name opens again, a new device, and work goes on.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"
#include "rig_polled.h"

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "09-loss: %s\n", rig_why()); return 1; } } while (0)
#define SECOND 1000000000ull

static struct rig_polled *
make_polled(const char *name, bool waits_on_hosts)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = name,
				       .waits = { .hosts = waits_on_hosts } };
	struct rig_polled *p = NULL;

	rig_polled_create(&c, &p);
	return p;
}

int
main(void)
{
	struct rig_polled *pa = make_polled("A", false), *pb = make_polled("B", true),
			  *pc = make_polled("C", false);
	struct rig_device *a, *b, *c, *a2;
	struct rig_buffer *src, *mid, *out, *mid_b, *mid_c, *yb, *yc;
	struct rig_submission *s;
	struct rig_point done, bad, pb_, pc_;
	const struct rig_loss *l;
	char text[16] = "before the fault", back[16];

	if (!pa || !pb || !pc)
		return 1;
	TRY(rig_open(rig_polled_opener(pa), &a));
	TRY(rig_open(rig_polled_opener(pb), &b));
	TRY(rig_open(rig_polled_opener(pc), &c));
	TRY(rig_buffer_create(a, 16, RIG_MEMORY_DEVICE, &src));
	TRY(rig_buffer_create(a, 16, RIG_MEMORY_DEVICE, &mid));
	TRY(rig_buffer_create(a, 16, RIG_MEMORY_DEVICE, &out));
	TRY(rig_buffer_create(b, 16, RIG_MEMORY_DEVICE, &yb));
	TRY(rig_buffer_create(c, 16, RIG_MEMORY_DEVICE, &yc));
	TRY(rig_buffer_borrow(mid, b, &mid_b));
	TRY(rig_buffer_borrow(mid, c, &mid_c));
	{
		struct rig_part_spec parts[2] = {
			rig_part_copy(RIG_BUFFER(src), RIG_BUFFER(mid)),
			rig_part_copy(RIG_BUFFER(mid), RIG_BUFFER(out)),
		};

		TRY(rig_submission_make(a, parts, 2, NULL, 0, (struct rig_keep){ 0 }, &s));
	}

	/* A run that completes before the fault. Its output lies on A, whose
	 * memory nobody uses once A is lost: read it now. */
	TRY(rig_buffer_write(src, 0, text, sizeof(text)));
	{
		struct rig_run *r;

		TRY(rig_run_take(s, &r));
		TRY(rig_submit(r, NULL, 0, NULL, 0, &done));
	}
	TRY(rig_wait(done, SECOND));
	TRY(rig_buffer_read(out, 0, back, sizeof(back)));
	printf("A ran value %llu: out holds \"%.16s\"\n", (unsigned long long)done.value, back);

	/* The next run faults at its part 1; B and C use what it writes. */
	rig_polled_stall(pa, true);
	{
		struct rig_run *r;

		TRY(rig_run_take(s, &r));
		TRY(rig_submit(r, NULL, 0, NULL, 0, &bad));
	}
	TRY(rig_buffer_copy(mid_b, yb, &pb_));	/* B's queue waits for A */
	TRY(rig_buffer_copy(mid_c, yc, &pc_));	/* C waits on the host */
	rig_polled_fault(pa, bad.value, 1);
	rig_polled_stall(pa, false);

	if (rig_wait(bad, 10 * SECOND) != RIG_ELOST)
		return 1;
	printf("wait on A's value %llu: %s\n", (unsigned long long)bad.value, rig_why());
	l = rig_loss(a);
	printf("culprit: device %s, value %llu, %s submission, part %d, queue %d\n",
	       l->device, (unsigned long long)l->value,
	       l->submission == (const void *)s ? "this" : "another", l->part, l->queue);
	if (rig_wait(done, 0) != 0)
		return 1;
	printf("A's value %llu, done before the fault, is still reached\n",
	       (unsigned long long)done.value);

	if (rig_wait(pb_, 10 * SECOND) != RIG_ELOST)
		return 1;
	printf("wait on B: %s\n", rig_why());
	for (l = rig_loss(b); l; l = l->cause)
		printf("  %s lost: %s\n", l->device, l->reason);

	if (rig_wait(pc_, 10 * SECOND) != RIG_ELOST)
		return 1;
	printf("wait on C, which waited on the host: %s\n", rig_why());
	{
		char seen[16];

		if (rig_buffer_read(yc, 0, seen, sizeof(seen)) != RIG_ELOST)
			return 1;
		printf("a read of C's copy: %s\n", rig_why());
	}

	/* Recovery: A's name opens anew. */
	rig_submission_release(s);
	rig_buffer_release(mid_b);
	rig_buffer_release(mid_c);
	rig_buffer_release(src);
	rig_buffer_release(mid);
	rig_buffer_release(out);
	rig_buffer_release(yb);
	rig_buffer_release(yc);
	TRY(rig_open(rig_polled_opener(pa), &a2));
	{
		struct rig_buffer *x, *y;
		struct rig_point p;

		TRY(rig_buffer_create(a2, 16, RIG_MEMORY_DEVICE, &x));
		TRY(rig_buffer_create(a2, 16, RIG_MEMORY_DEVICE, &y));
		TRY(rig_buffer_write(x, 0, "after the loss", 15));
		TRY(rig_buffer_copy(x, y, &p));
		TRY(rig_wait(p, SECOND));
		TRY(rig_buffer_read(y, 0, back, 15));
		printf("A opened again (%s the old handle): \"%s\"\n",
		       a2 == a ? "the same as" : "not", back);
		rig_buffer_release(x);
		rig_buffer_release(y);
	}
	rig_device_release(a);
	rig_device_release(a2);
	rig_device_release(b);
	rig_device_release(c);
	rig_polled_destroy(pa);
	rig_polled_destroy(pb);
	rig_polled_destroy(pc);
	return strcmp(back, "after the loss") != 0;
}
