/* SPDX-License-Identifier: MIT */
/*
 * remote_client: a client of `rig agent` for the remote tests, a process
 * of its own so that the tests can kill it mid-submit. Usage:
 *   remote_client WHERE KEY_FILE
 * opens HOST@WHERE, makes three 4 MiB buffers there, prints "submitting"
 * and submits adds until it is killed.
 */
#include <stdio.h>

#include "common.h"

#define N (1 << 20)

int
main(int argc, char **argv)
{
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;

	if (argc != 3)
		return fprintf(stderr, "usage: remote_client WHERE KEY_FILE\n"), 2;
	if (rig_remote_opener(argv[1], "HOST", argv[2], &o) < 0 || rig_open(&o, &d) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c) < 0 ||
	    add_submission(d, &s, &img) < 0)
		return fprintf(stderr, "remote_client: %s\n", rig_why()), 1;
	printf("submitting\n");
	fflush(stdout);
	for (unsigned long i = 0;; i++) {
		if (add_submit(s, a, b, c, N, &p) < 0)
			return fprintf(stderr, "remote_client: %s\n", rig_why()), 1;
		if (i % 64 == 63)
			(void)rig_wait(p, 10ull * 1000000000);
	}
}
