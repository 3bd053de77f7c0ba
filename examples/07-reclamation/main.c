/* SPDX-License-Identifier: MIT */
/*
 * 07-reclamation: memory that returns without a free. The host device, with
 * a budget of 4 MiB, allocates 1 MiB buffers many times over: each buffer is
 * released as soon as its copy is submitted, and its memory comes back
 * once the copy ran. When the budget is spent, the next allocation waits
 * for released memory's work instead of failing. Only when nothing more can
 * come back does an allocation fail, and it says why.
 */
#include <stdio.h>

#include "rig.h"

#define MIB (1 << 20)
#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "07-reclamation: %s\n", rig_why()); return 1; } } while (0)

int
main(void)
{
	struct rig_device *m;
	struct rig_buffer *src, *dst, *held[4];
	uint64_t most = 0;
	int failed;

	TRY(rig_host_device(&m));
	TRY(rig_set_budget(m, 4 * MIB));
	TRY(rig_buffer_create(m, MIB, RIG_MEMORY_DEVICE, &src));
	for (int i = 0; i < 100; i++) {
		TRY(rig_buffer_create(m, MIB, RIG_MEMORY_DEVICE, &dst));
		TRY(rig_buffer_copy(src, dst, NULL));
		rig_buffer_release(dst);	/* returns once the copy ran */
		if (rig_allocated(m) > most)
			most = rig_allocated(m);
	}
	printf("100 MiB allocated through a budget of %llu bytes; at most %llu held at once\n",
	       (unsigned long long)rig_budget(m), (unsigned long long)most);

	/* Hold the budget whole: nothing can come back now. */
	for (int i = 0; i < 3; i++)
		TRY(rig_buffer_create(m, MIB, RIG_MEMORY_DEVICE, &held[i]));
	failed = rig_buffer_create(m, MIB, RIG_MEMORY_DEVICE, &held[3]);
	printf("one more: %s\n", failed == RIG_ENOMEM ? rig_why() : "allocated?!");
	for (int i = 0; i < 3; i++)
		rig_buffer_release(held[i]);
	rig_buffer_release(src);
	rig_device_release(m);
	return failed != RIG_ENOMEM || most > 4 * MIB;
}
