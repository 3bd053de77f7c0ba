/* SPDX-License-Identifier: MIT */
/*
 * test_waits: rig_wait_all() and rig_wait_any() succeed only for reached
 * points, return a dropped point's loss (any: with its index), time out,
 * and refuse bad arrays, counts and points no submit gave; rig_point_fd()
 * is readable exactly once its points are signaled (or one dropped), at
 * once where they already are, and rig never writes a descriptor the
 * program closed.
 */
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common.h"

/* Whether fd is readable within ms milliseconds. */
static bool
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static struct rig_point
copy(struct rig_device *d, struct rig_buffer *a, struct rig_buffer *b)
{
	struct rig_point p;

	(void)d;
	assert_int_equal(rig_buffer_copy(a, b, &p), 0);
	return p;
}

static void
test_all_times_out_then_reaches(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W1" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p[3];
	uint64_t t0;

	rig_polled_stall(pd.p, true);
	for (int i = 0; i < 3; i++)
		p[i] = copy(pd.d, a, b);
	t0 = rig_now_ns();
	assert_int_equal(rig_wait_all(p, 3, 20 * 1000 * 1000), RIG_ETIMEDOUT);
	assert_true(rig_now_ns() - t0 >= 20 * 1000 * 1000);
	assert_why("rig_wait_all: point 0: value", "not signaled after");
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait_all(p, 3, 5 * SECOND_NS), 0);
	for (int i = 0; i < 3; i++)
		assert_true(rig_reached(p[i]));
	assert_int_equal(rig_wait_all(NULL, 0, 0), 0);	/* nothing to wait for */
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_all_and_any_return_the_loss(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W2" });
	struct rig_device *m;
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_buffer *ma, *mb;
	struct rig_point p[2];
	size_t i = 99;

	assert_int_equal(rig_memory_device("W2-M", &m), 0);
	ma = buffer_new(m, 16);
	mb = buffer_new(m, 16);
	rig_polled_stall(pd.p, true);
	p[0] = copy(m, ma, mb);		/* reached at once */
	p[1] = copy(pd.d, a, b);	/* will be dropped */
	assert_int_equal(rig_close(pd.d), 0);
	assert_int_equal(rig_wait_all(p, 2, SECOND_NS), RIG_ELOST);
	assert_why("rig_wait_all: point 1: value", "was dropped", "W2 is lost: closed");
	/* The lowest signaled index answers: the reached one first. */
	assert_int_equal(rig_wait_any(p, 2, SECOND_NS, &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(rig_wait_any(&p[1], 1, SECOND_NS, &i), RIG_ELOST);
	assert_int_equal(i, 0);
	assert_why("rig_wait_any: point 0", "was dropped", "closed");
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(ma);
	rig_buffer_release(mb);
	rig_device_release(m);
	rig_device_release(pd.d);
	rig_polled_destroy(pd.p);
}

static void
test_any_answers_the_one_that_moved(void **state)
{
	struct polled_dev s = polled_open((struct rig_polled_config){ .name = "W3-S" });
	struct polled_dev r = polled_open((struct rig_polled_config){ .name = "W3-R", .lag = 1000 });
	struct rig_buffer *a = buffer_new(s.d, 16), *b = buffer_new(s.d, 16);
	struct rig_buffer *c = buffer_new(r.d, 16), *e = buffer_new(r.d, 16);
	struct rig_point p[2];
	size_t i = 99;

	rig_polled_stall(s.p, true);
	p[0] = copy(s.d, a, b);
	rig_polled_stall(r.p, true);
	p[1] = copy(r.d, c, e);
	assert_int_equal(rig_wait_any(p, 2, 10 * 1000 * 1000, &i), RIG_ETIMEDOUT);
	assert_int_equal(i, 99);
	assert_why("rig_wait_any: ", "not signaled after");
	rig_polled_stall(r.p, false);	/* lag 1000: runs only once committed */
	assert_int_equal(rig_wait_any(p, 2, 5 * SECOND_NS, &i), 0);
	assert_int_equal(i, 1);
	assert_true(rig_reached(p[1]));
	assert_false(rig_signaled(p[0]));
	rig_polled_stall(s.p, false);
	assert_int_equal(rig_wait_all(p, 2, 5 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(e);
	polled_close(s);
	polled_close(r);
}

static void
test_refusals(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W4" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p = copy(pd.d, a, b), bad[2];
	size_t i = 7;
	int fd = -5;

	assert_int_equal(rig_wait_all(NULL, 2, 0), RIG_EINVAL);
	assert_why("rig_wait_all: points is NULL for 2 points");
	assert_int_equal(rig_wait_all(&p, (size_t)-3, 0), RIG_EINVAL);
	assert_why("rig_wait_all: -3 points is negative");
	assert_int_equal(rig_wait_any(&p, 0, 0, &i), RIG_EINVAL);
	assert_why("rig_wait_any: no points");
	assert_int_equal(rig_wait_any(&p, 1, 0, NULL), RIG_EINVAL);
	assert_why("rig_wait_any: index is NULL");
	assert_int_equal(rig_point_fd(&p, 0, &fd), RIG_EINVAL);
	assert_why("rig_point_fd: no points");
	assert_int_equal(rig_point_fd(&p, 1, NULL), RIG_EINVAL);
	assert_why("rig_point_fd: fd is NULL");
	bad[0] = p;
	bad[1] = (struct rig_point){ NULL, 1 };
	assert_int_equal(rig_wait_all(bad, 2, 0), RIG_EINVAL);
	assert_why("rig_wait_all: point 1 names no device");
	bad[1] = (struct rig_point){ pd.d, p.value + 5 };	/* never submitted */
	assert_int_equal(rig_wait_any(bad, 2, 0, &i), RIG_EINVAL);
	assert_why("rig_wait_any: point 1: value", "was never submitted");
	bad[1] = (struct rig_point){ pd.d, 0 };
	assert_int_equal(rig_point_fd(bad, 2, &fd), RIG_EINVAL);
	assert_why("rig_point_fd: point 1: value 0 of W4 was never submitted");
	assert_int_equal(i, 7);
	assert_int_equal(fd, -5);
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_fd_readable_once_signaled(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W5", .lag = 1000 });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p[2];
	uint64_t n = 0;
	int fd;

	rig_polled_stall(pd.p, true);
	p[0] = copy(pd.d, a, b);
	p[1] = copy(pd.d, b, a);
	assert_int_equal(rig_point_fd(p, 2, &fd), 0);
	assert_false(readable(fd, 20));
	/* lag 1000: the values run only because rig committed them. */
	rig_polled_stall(pd.p, false);
	assert_true(readable(fd, 5000));
	assert_true(rig_reached(p[0]) && rig_reached(p[1]));
	assert_int_equal(read(fd, &n, sizeof(n)), sizeof(n));
	assert_int_equal(n, 1);
	assert_false(readable(fd, 0));
	assert_int_equal(rig_wait_all(p, 2, 0), 0);
	close(fd);
	/* Already reached: readable at once. */
	assert_int_equal(rig_point_fd(p, 2, &fd), 0);
	assert_true(readable(fd, 0));
	close(fd);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_fd_readable_on_loss(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W6" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p;
	int fd;

	rig_polled_stall(pd.p, true);
	p = copy(pd.d, a, b);
	assert_int_equal(rig_point_fd(&p, 1, &fd), 0);
	assert_false(readable(fd, 10));
	assert_int_equal(rig_close(pd.d), 0);
	assert_true(readable(fd, 5000));
	assert_int_equal(rig_wait_all(&p, 1, 0), RIG_ELOST);
	assert_why("rig_wait_all: point 0", "dropped", "W6 is lost: closed");
	close(fd);
	/* Already dropped: readable at once. */
	assert_int_equal(rig_point_fd(&p, 1, &fd), 0);
	assert_true(readable(fd, 0));
	close(fd);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(pd.d);
	rig_polled_destroy(pd.p);
}

static void
test_fd_closed_early_is_never_written(void **state)
{
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "W7" });
	struct rig_buffer *a = buffer_new(pd.d, 16), *b = buffer_new(pd.d, 16);
	struct rig_point p;
	int fd, other;

	rig_polled_stall(pd.p, true);
	p = copy(pd.d, a, b);
	assert_int_equal(rig_point_fd(&p, 1, &fd), 0);
	close(fd);
	/* The same number now names another eventfd of the program's. */
	other = eventfd(0, EFD_NONBLOCK);
	assert_true(other >= 0);
	rig_polled_stall(pd.p, false);
	assert_int_equal(rig_wait(p, 5 * SECOND_NS), 0);
	usleep(20000);		/* the poller's next looks */
	assert_false(readable(other, 0));
	close(other);
	rig_buffer_release(a);
	rig_buffer_release(b);
	polled_close(pd);
}

static void
test_memory_device_points(void **state)
{
	struct rig_device *m;
	struct rig_buffer *a, *b;
	struct rig_point p[2];
	size_t i = 5;
	int fd;

	assert_int_equal(rig_memory_device("W8-M", &m), 0);
	a = buffer_new(m, 8);
	b = buffer_new(m, 8);
	p[0] = copy(m, a, b);
	p[1] = copy(m, b, a);
	assert_int_equal(rig_wait_all(p, 2, 0), 0);
	assert_int_equal(rig_wait_any(p, 2, 0, &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(rig_point_fd(p, 2, &fd), 0);
	assert_true(readable(fd, 0));
	close(fd);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_times_out_then_reaches),
		cmocka_unit_test(test_all_and_any_return_the_loss),
		cmocka_unit_test(test_any_answers_the_one_that_moved),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_fd_readable_once_signaled),
		cmocka_unit_test(test_fd_readable_on_loss),
		cmocka_unit_test(test_fd_closed_early_is_never_written),
		cmocka_unit_test(test_memory_device_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
