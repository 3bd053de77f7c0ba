/* SPDX-License-Identifier: MIT */
/*
 * test_fork: fork and exit (docs/process.md). In the child every device is lost
 * with "forked": waits on values the parent had in flight end with the
 * loss, every call that needs a device returns it, and the child exits
 * cleanly, stopping nothing (the drivers' threads are the parent's). The
 * parent's devices keep working, and a run another thread holds stays
 * taken.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loss.h"

static struct polled_dev pd;
static struct rig_device *mem;
static struct rig_buffer *a, *b, *c, *ma, *mb;
static struct rig_submission *s;
static struct rig_run *held;		/* taken by another thread */

static void *
take_run(void *arg)
{
	(void)arg;
	assert_int_equal(rig_run_take(s, &held), 0);
	return NULL;
}

/* The child's checks; its exit status says which failed (0: none). */
static int
child(struct rig_point pending)
{
	struct rig_buffer *nb = NULL;
	struct rig_run *r = NULL;

	if (!rig_lost(pd.d) || strcmp(rig_lost(pd.d), "forked"))
		return 10;
	if (!rig_lost(mem) || strcmp(rig_lost(mem), "forked"))
		return 11;
	if (rig_wait(pending, 30 * SECOND_NS) != RIG_ELOST ||
	    !strstr(rig_why(), "POLLED-F is lost: forked"))
		return 12;
	if (rig_buffer_create(pd.d, 64, RIG_MEMORY_DEVICE, &nb) != RIG_ELOST || nb)
		return 13;
	if (rig_buffer_copy(ma, mb, NULL) != RIG_ELOST)
		return 14;
	if (rig_run_take(s, &r) == 0 && rig_submit(r, NULL, 0, NULL, 0, NULL) != RIG_ELOST)
		return 15;
	if (rig_polled_stops(pd.p) != 0)
		return 16;	/* nothing stopped */
	return 0;
}

static void
test_child_sees_every_device_lost(void **state)
{
	struct rig_point pending, p;
	pthread_t t;
	pid_t pid;
	int status;

	pd = polled_open((struct rig_polled_config){ .name = "POLLED-F" });
	assert_int_equal(rig_memory_device("MEM-F", &mem), 0);
	a = buffer_new(pd.d, 64);
	b = buffer_new(pd.d, 64);
	ma = buffer_new(mem, 64);
	mb = buffer_new(mem, 64);
	c = buffer_new(pd.d, 64);
	s = three_copies(pd.d, a, b, c);
	assert_int_equal(pthread_create(&t, NULL, take_run, NULL), 0);
	pthread_join(t, NULL);
	rig_polled_stall(pd.p, true);
	assert_int_equal(rig_buffer_copy(a, b, &pending), 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		exit(child(pending));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* The parent goes on: its devices are live and work. */
	assert_null(rig_lost(pd.d));
	assert_null(rig_lost(mem));
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(pending, 30 * SECOND_NS), 0);
	assert_int_equal(rig_buffer_copy(ma, mb, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	/* The run the other thread took is still its own to give back. */
	assert_int_equal(rig_submit(held, NULL, 0, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 30 * SECOND_NS), 0);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(ma);
	rig_buffer_release(mb);
	rig_device_release(mem);
	polled_close(pd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_sees_every_device_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
