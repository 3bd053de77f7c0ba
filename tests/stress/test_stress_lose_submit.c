/* SPDX-License-Identifier: MIT */
/*
 * test_stress_lose_submit: submits racing their device's loss. Submitters
 * copy on one polled device as fast as they can while another thread
 * closes it, round after round. A reserve draws its value before it looks
 * for the loss (submit/submit.h: no count of reserves in flight), so some
 * draw a value and then see the loss: below issued_end the device's thread
 * waits for them, and they hand it a job that runs nothing; from there on
 * their values are left. Every copy must return 0 or an error (the device
 * lost, or the buffer dead once the end reached it), the close must
 * return (the thread passed every value a reserve drew before the loss,
 * so it stops the driver and exits), a wait on each submitter's last
 * point must end, and nothing may leak.
 *
 * Those windows are a few instructions wide, so every other round makes
 * both happen through the reserve's test hook (submit_reserve_trace): one
 * submitter, having drawn, waits there until the device is lost (its
 * value lies below issued_end), and the round's close starts only then;
 * another, past its first look for the loss, waits until the loss read
 * issued, then draws (its value lies at issued_end or above). Both must be
 * refused with RIG_ELOST.
 *
 * Usage: test_stress_lose_submit [submitters] [rounds] (default 6, 200).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rig.h"
#include "rig_polled.h"
#include "submit/submit.h"

#define WAIT_NS 10000000000ull

static struct rig_device *dev;
static pthread_barrier_t start;
static _Atomic bool failed;
static _Atomic uint64_t copies, refused;

/* The hooked round: which submitters wait in the hook, what they drew. */
static _Atomic int early = -1, late = -1;	/* -1: none (or done) */
static _Atomic bool early_waiting, late_waiting, late_armed;
static _Atomic uint64_t early_v, early_end, late_v, late_end;
static _Thread_local int me = -1;

static void
reserve_trace(struct submitter *sub, bool drawn, uint64_t v)
{
	if (drawn && me == atomic_load(&early)) {
		atomic_store(&early, -1);
		atomic_store(&early_v, v);
		atomic_store(&early_waiting, true);
		/* Until the loss read issued (it stores lost first). */
		while (!atomic_load(&sub->tl->issued_end))
			sched_yield();
		atomic_store(&early_end, atomic_load(&sub->tl->issued_end));
	} else if (!drawn && me == atomic_load(&late)) {
		/* issued_end is stored after lost: our draw comes after the
		 * loss read issued. */
		atomic_store(&late_waiting, true);
		while (!atomic_load(&sub->tl->issued_end))
			sched_yield();
		atomic_store(&late_end, atomic_load(&sub->tl->issued_end));
		atomic_store(&late_armed, true);
	} else if (drawn && me == atomic_load(&late) && atomic_load(&late_armed)) {
		atomic_store(&late, -1);
		atomic_store(&late_v, v);
	}
}

struct submitter_thread {
	pthread_t t;
	struct rig_buffer *src, *dst;
	struct rig_point last;
	bool have_last;
	int index;
	int last_ret;
};

static void *
submit_until_refused(void *arg)
{
	struct submitter_thread *s = arg;

	me = s->index;
	pthread_barrier_wait(&start);
	for (;;) {
		struct rig_point p;
		int ret = rig_buffer_copy(s->src, s->dst, &p);

		if (ret == 0) {
			s->last = p;
			s->have_last = true;
			atomic_fetch_add_explicit(&copies, 1, memory_order_relaxed);
			continue;
		}
		if (ret != RIG_ELOST && ret != RIG_EINVAL) {
			fprintf(stderr, "rig_buffer_copy: %d (%s)\n", ret, rig_why());
			atomic_store(&failed, true);
		}
		atomic_fetch_add_explicit(&refused, 1, memory_order_relaxed);
		s->last_ret = ret;
		return NULL;
	}
}

static void
check_hooked(const struct submitter_thread *s, int a, int b, int n)
{
	if (s[a].last_ret != RIG_ELOST || early_v >= early_end) {
		fprintf(stderr, "a value drawn before the loss: copy %d, value %llu, issued_end %llu\n",
			s[a].last_ret, (unsigned long long)early_v, (unsigned long long)early_end);
		atomic_store(&failed, true);
	}
	if (n > 1 && (s[b].last_ret != RIG_ELOST || !late_armed || late_v < late_end)) {
		fprintf(stderr, "a value drawn after the loss: copy %d, armed %d, value %llu, issued_end %llu\n",
			s[b].last_ret, (int)late_armed, (unsigned long long)late_v, (unsigned long long)late_end);
		atomic_store(&failed, true);
	}
}

static int
round_once(int n, unsigned *seed, bool hooked)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "LOSE_SUBMIT" };
	struct submitter_thread s[32];
	struct rig_polled *pd;
	struct timespec ts = { 0, (long)(rand_r(seed) % 200) * 1000 };
	int a = (int)(rand_r(seed) % (unsigned)n), b = (a + 1) % n;

	if (rig_polled_create(&c, &pd) || rig_open(rig_polled_opener(pd), &dev)) {
		fprintf(stderr, "open: %s\n", rig_why());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		s[i] = (struct submitter_thread){ .index = i };
		if (rig_buffer_create(dev, 4, RIG_MEMORY_DEVICE, &s[i].src) ||
		    rig_buffer_create(dev, 4, RIG_MEMORY_DEVICE, &s[i].dst)) {
			fprintf(stderr, "rig_buffer_create: %s\n", rig_why());
			return -1;
		}
	}
	atomic_store(&early_waiting, false);
	atomic_store(&late_waiting, n < 2);
	atomic_store(&late_armed, false);
	atomic_store(&early, hooked ? a : -1);
	atomic_store(&late, hooked && n > 1 ? b : -1);
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&s[i].t, NULL, submit_until_refused, &s[i]);
	pthread_barrier_wait(&start);
	/* One value drawn, its look for the loss not yet made; another
	 * reserve past its first look, its draw not yet made. */
	if (hooked)
		while (!atomic_load(&early_waiting) || !atomic_load(&late_waiting))
			sched_yield();
	else
		nanosleep(&ts, NULL);	/* 0-200 us of submits, then the loss */
	if (rig_close(dev) < 0) {
		fprintf(stderr, "rig_close: %s\n", rig_why());
		atomic_store(&failed, true);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(s[i].t, NULL);
		/* Reached, or lost: it ends either way. */
		if (s[i].have_last) {
			int ret = rig_wait(s[i].last, WAIT_NS);

			if (ret != 0 && ret != RIG_ELOST) {
				fprintf(stderr, "rig_wait: %d (%s)\n", ret, rig_why());
				atomic_store(&failed, true);
			}
		}
		rig_buffer_release(s[i].src);
		rig_buffer_release(s[i].dst);
	}
	pthread_barrier_destroy(&start);
	atomic_store(&early, -1);
	atomic_store(&late, -1);
	if (hooked)
		check_hooked(s, a, b, n);
	rig_device_release(dev);
	rig_polled_destroy(pd);
	return 0;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 6;
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	unsigned seed = 13;

	if (n > 32)
		n = 32;
	if (n < 1)
		n = 1;
	submit_reserve_trace = reserve_trace;
	for (int r = 0; r < rounds && !atomic_load(&failed); r++)
		if (round_once(n, &seed, r % 2) < 0)
			return 1;
	printf("%d rounds of %d submitters (every other one hooked): %llu copies, %llu refused at the loss, %s\n",
	       rounds, n, (unsigned long long)copies, (unsigned long long)refused,
	       failed ? "FAILED" : "every call returned as promised");
	return failed;
}
