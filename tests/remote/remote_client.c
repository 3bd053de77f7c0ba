/* SPDX-License-Identifier: MIT */
/*
 * remote_client: a client of `rig agent` for the remote tests, a process
 * of its own so that the tests can kill it mid-submit. Usage:
 *   remote_client WHERE KEY_FILE
 * opens HOST@WHERE, makes three 4 MiB buffers there, prints "submitting"
 * and submits adds until it is killed.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

#define N (1 << 20)

static int
check(struct rig_device *d, struct rig_buffer *a, struct rig_buffer *b,
      struct rig_buffer *c, struct rig_submission *s)
{
	static float x[N];
	struct rig_buffer *p;
	struct rig_point pt;
	size_t wrong = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	if (rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &p) < 0 ||
	    rig_buffer_write(p, 0, x, sizeof(x)) < 0 || rig_buffer_copy(p, a, NULL) < 0 ||
	    rig_buffer_copy(p, b, NULL) < 0 || add_submit(s, a, b, c, N, NULL) < 0 ||
	    rig_buffer_copy(c, p, &pt) < 0 || rig_wait(pt, 30ull * 1000000000) < 0 ||
	    rig_buffer_read(p, 0, x, sizeof(x)) < 0)
		return fprintf(stderr, "remote_client: %s\n", rig_why()), 1;
	for (int i = 0; i < N; i++)
		wrong += x[i] != 2.0f * (float)i;
	rig_buffer_release(p);
	if (wrong)
		return fprintf(stderr, "remote_client: %zu elements wrong\n", wrong), 1;
	printf("ok\n");
	return 0;
}

int
main(int argc, char **argv)
{
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "check")))
		return fprintf(stderr, "usage: remote_client WHERE KEY_FILE [check]\n"), 2;
	if (rig_remote_opener(argv[1], "HOST", argv[2], &o) < 0 || rig_open(&o, &d) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b) < 0 ||
	    rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c) < 0 ||
	    add_submission(d, &s, &img) < 0)
		return fprintf(stderr, "remote_client: %s\n", rig_why()), 1;
	if (argc == 4) {
		int ret = check(d, a, b, c, s);

		rig_submission_release(s);
		rig_image_release(img);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(c);
		rig_device_release(d);
		return ret;
	}
	printf("submitting\n");
	fflush(stdout);
	for (unsigned long i = 0;; i++) {
		if (add_submit(s, a, b, c, N, &p) < 0)
			return fprintf(stderr, "remote_client: %s\n", rig_why()), 1;
		if (i % 64 == 63)
			(void)rig_wait(p, 10ull * 1000000000);
	}
}
