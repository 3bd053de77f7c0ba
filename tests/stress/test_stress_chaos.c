/* SPDX-License-Identifier: MIT */
/*
 * test_stress_chaos: the multi-thread submit stress with faults injected at
 * random (docs/loss.md). Workers copy, run submissions and read back on
 * four polled devices (one whose queues wait for the others' words, so
 * losses spread; one that grows its queues) and a memory device, while they
 * also make the driver fail a random call (make, facts, alloc, room,
 * submit, commit, grow), fault a near value at a random part, stall a
 * device (a hang, since someone waits), or close one. A lost device is
 * opened anew by the next worker that wants it.
 *
 * What must hold:
 *  - every call returns: a watchdog enumerates the calls in flight and
 *    fails the run if one stays blocked past hang_ms + BOUND_MS (a bound
 *    two loaded cores under ThreadSanitizer keep: a call that never
 *    returns fails it, a slow machine does not);
 *  - a call either succeeds or says why: only the loss (RIG_ELOST), a
 *    dead buffer or a device that would not open, never another error;
 *  - bytes read back after a reached copy are the bytes written;
 *  - every device made is stopped exactly once, never during a driver
 *    call, and gives back every region and image (and, in the sanitizer
 *    builds, nothing leaks and nothing races).
 *
 * Usage: test_stress_chaos [workers] [seconds] [hang_ms] (8, 5, 250).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig.h"
#include "rig_polled.h"

#define NDEV 4
#define WORKERS_MAX 32
#define BYTES 256

struct slot {
	struct rig_polled *p;
	struct rig_device *d;		/* the table's open, or NULL */
	pthread_mutex_t lock;
};

static struct slot slots[NDEV];
static struct rig_device *mem;
static unsigned hang_ms = 250;
#define BOUND_MS 20000u		/* past hang_ms, before a call counts as stuck */
static _Atomic bool stop, failed;
static _Atomic uint64_t since[WORKERS_MAX];	/* a call in flight began; 0: none */
static const char *_Atomic what[WORKERS_MAX];
static _Atomic uint64_t calls, losses_seen, faults, worst_ns;

#define FAIL(...) do {							\
	fprintf(stderr, __VA_ARGS__);					\
	fprintf(stderr, " (rig_why: %s)\n", rig_why());			\
	atomic_store(&failed, true);					\
	atomic_store(&stop, true);					\
} while (0)

/* Run call as worker id's call in flight, named name, for the watchdog. */
#define CALL(id, name, call) ({						\
	atomic_store(&what[id], name);					\
	atomic_store(&since[id], rig_now_ns());				\
	int r_ = (call);						\
	atomic_store(&since[id], 0);					\
	atomic_fetch_add(&calls, 1);					\
	r_;								\
})

static uint32_t
next(uint32_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 17;
	*seed ^= *seed << 5;
	return *seed;
}

/* A failure a chaotic run may see: the loss, a buffer whose device
 * ended, or memory a lost device could not give. Anything else is a bug. */
static bool
expected(int ret)
{
	if (ret == 0 || ret == RIG_ELOST)
		return true;
	if (ret == RIG_EINVAL)
		return strstr(rig_why(), "dead") || strstr(rig_why(), "lost");
	return ret == RIG_ENOMEM && strstr(rig_why(), "lost");
}

#define OK(id, name, call) ({						\
	int k_ = CALL(id, name, call);					\
	if (!expected(k_))						\
		FAIL("worker %d: %s returned %d", id, name, k_);	\
	if (k_ == RIG_ELOST)						\
		atomic_fetch_add(&losses_seen, 1);			\
	k_;								\
})

/* An open of slot i's device for the caller, opening it anew if it was
 * lost; NULL if it would not open now (an injected make or facts). */
static struct rig_device *
acquire(int id, int i)
{
	struct slot *s = &slots[i];
	struct rig_device *d = NULL;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		if (CALL(id, "rig_open", rig_open(rig_polled_opener(s->p), &d)) < 0) {
			d = NULL;
			break;
		}
		if (d == s->d)
			break;
		/* A new device: the table keeps this open; take another. */
		if (s->d)
			rig_device_release(s->d);
		s->d = d;
	}
	pthread_mutex_unlock(&s->lock);
	return d;
}

/* a on d gets a pattern, is copied to b, b is read back. */
static void
copy_round(int id, struct rig_device *d, uint32_t *seed)
{
	struct rig_buffer *a = NULL, *b = NULL;
	unsigned char in[BYTES], out[BYTES];
	struct rig_point p;

	for (size_t k = 0; k < BYTES; k++)
		in[k] = (unsigned char)next(seed);
	if (OK(id, "rig_buffer_create", rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a)) ||
	    OK(id, "rig_buffer_create", rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b)))
		goto out;
	if (OK(id, "rig_buffer_write", rig_buffer_write(a, 0, in, BYTES)) ||
	    OK(id, "rig_buffer_copy", rig_buffer_copy(a, b, &p)) ||
	    OK(id, "rig_wait", rig_wait(p, UINT64_MAX)) ||
	    OK(id, "rig_buffer_read", rig_buffer_read(b, 0, out, BYTES)))
		goto out;
	if (memcmp(in, out, BYTES))
		FAIL("worker %d: the bytes read back are not the bytes written", id);
out:
	rig_buffer_release(a);
	rig_buffer_release(b);
}

/* Slot i's memory, borrowed onto the memory device and copied there. */
static void
cross_round(int id, struct rig_device *d, uint32_t *seed)
{
	struct rig_buffer *a = NULL, *ab = NULL, *m = NULL;
	unsigned char in[BYTES], out[BYTES];
	struct rig_point p;

	for (size_t k = 0; k < BYTES; k++)
		in[k] = (unsigned char)next(seed);
	if (OK(id, "rig_buffer_create", rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a)) ||
	    OK(id, "rig_buffer_create", rig_buffer_create(mem, BYTES, RIG_MEMORY_DEVICE, &m)) ||
	    OK(id, "rig_buffer_write", rig_buffer_write(a, 0, in, BYTES)) ||
	    OK(id, "rig_buffer_borrow", rig_buffer_borrow(a, mem, &ab)) ||
	    OK(id, "rig_buffer_copy", rig_buffer_copy(ab, m, &p)) ||
	    OK(id, "rig_wait", rig_wait(p, UINT64_MAX)) ||
	    OK(id, "rig_buffer_read", rig_buffer_read(m, 0, out, BYTES)))
		goto out;
	if (memcmp(in, out, BYTES))
		FAIL("worker %d: the bytes borrowed are not the bytes written", id);
out:
	rig_buffer_release(ab);
	rig_buffer_release(a);
	rig_buffer_release(m);
}

/* Work on d that d2's queues wait for (slot 0 waits for the others): a
 * copy d2 reached read what d wrote, or d2 was lost with d. */
static void
chain_round(int id, struct rig_device *d, struct rig_device *d2, uint32_t *seed)
{
	struct rig_buffer *a = NULL, *b = NULL, *b2 = NULL, *c = NULL;
	unsigned char in[BYTES], out[BYTES];
	struct rig_point p;

	for (size_t k = 0; k < BYTES; k++)
		in[k] = (unsigned char)next(seed);
	if (OK(id, "rig_buffer_create", rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &a)) ||
	    OK(id, "rig_buffer_create", rig_buffer_create(d, BYTES, RIG_MEMORY_DEVICE, &b)) ||
	    OK(id, "rig_buffer_create", rig_buffer_create(d2, BYTES, RIG_MEMORY_DEVICE, &c)) ||
	    OK(id, "rig_buffer_borrow", rig_buffer_borrow(b, d2, &b2)) ||
	    OK(id, "rig_buffer_write", rig_buffer_write(a, 0, in, BYTES)) ||
	    OK(id, "rig_buffer_copy", rig_buffer_copy(a, b, NULL)) ||
	    OK(id, "rig_buffer_copy", rig_buffer_copy(b2, c, &p)) ||
	    OK(id, "rig_wait", rig_wait(p, UINT64_MAX)) ||
	    OK(id, "rig_buffer_read", rig_buffer_read(c, 0, out, BYTES)))
		goto out;
	if (memcmp(in, out, BYTES))
		FAIL("worker %d: a copy reached on %s read what %s never wrote", id,
		     rig_name(d2), rig_name(d));
out:
	rig_buffer_release(b2);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
}

/* Make slot i's driver misbehave, one way or another. */
static void
inject(int id, int i, struct rig_device *d, uint32_t *seed)
{
	static const char *const calls_[] = { "make", "facts", "alloc", "room",
					      "submit", "commit", "grow" };
	struct rig_polled *p = slots[i].p;

	atomic_fetch_add(&faults, 1);
	switch (next(seed) % 5) {
	case 0:
	case 1:
		rig_polled_fail(p, calls_[next(seed) % 7]);
		break;
	case 2:
		rig_polled_fault(p, rig_polled_committed(p) + 1 + next(seed) % 4,
				 (int)(next(seed) % 3));
		break;
	case 3:
		/* A stall with work waited on: a hang, hang_ms later. */
		rig_polled_stall(p, true);
		copy_round(id, d, seed);
		rig_polled_stall(p, false);
		break;
	default:
		OK(id, "rig_close", rig_close(d));
		break;
	}
}

static void *
worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint32_t seed = 2654435761u * (uint32_t)(id + 1);

	while (!atomic_load(&stop)) {
		int i = (int)(next(&seed) % NDEV), r = (int)(next(&seed) % 100);
		struct rig_device *d = acquire(id, i), *d2;

		if (!d)
			continue;
		if (r < 4) {
			inject(id, i, d, &seed);
		} else if (r < 45) {
			copy_round(id, d, &seed);
		} else if (r < 70) {
			cross_round(id, d, &seed);
		} else if (i != 0 && (d2 = acquire(id, 0))) {
			chain_round(id, d, d2, &seed);
			rig_device_release(d2);
		}
		rig_device_release(d);
	}
	return NULL;
}

/* Every call in flight returns within hang_ms + BOUND_MS. */
static void *
watchdog(void *arg)
{
	int n = (int)(intptr_t)arg;
	uint64_t bound = ((uint64_t)hang_ms + BOUND_MS) * 1000000u;
	struct timespec ts = { 0, 5000000 };

	while (!atomic_load(&stop)) {
		uint64_t now = rig_now_ns();

		for (int i = 0; i < n; i++) {
			uint64_t t = atomic_load(&since[i]), age = t && now > t ? now - t : 0;

			if (age > atomic_load(&worst_ns))
				atomic_store(&worst_ns, age);
			if (age > bound)
				FAIL("worker %d: %s blocked for %llu ms (bound %llu ms)", i,
				     atomic_load(&what[i]), (unsigned long long)(age / 1000000),
				     (unsigned long long)(bound / 1000000));
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int
open_slots(void)
{
	static const char *const names[NDEV] = { "CHAOS-W", "CHAOS-A", "CHAOS-B", "CHAOS-G" };

	for (int i = 0; i < NDEV; i++) {
		struct rig_polled_config c = {
			.size = sizeof(c), .name = names[i], .lag = 1 + (unsigned)i * 3,
			.hang_ms = RIG_SOME(hang_ms),
			.waits = { .hosts = i == 0 },	/* its queues wait: losses spread */
			.grows = i == 3,
		};

		pthread_mutex_init(&slots[i].lock, NULL);
		if (rig_polled_create(&c, &slots[i].p) < 0)
			return -1;
	}
	return rig_memory_device("CHAOS-M", &mem);
}

/* Close every device; each made one stopped once, with nothing left. */
static int
close_slots(void)
{
	int bad = 0;

	for (int i = 0; i < NDEV; i++) {
		struct rig_polled *p = slots[i].p;

		if (slots[i].d) {
			rig_close(slots[i].d);
			rig_device_release(slots[i].d);
		}
		if (rig_polled_open(p) || rig_polled_stops(p) != rig_polled_makes(p) ||
		    rig_polled_overlaps(p) || rig_polled_live_regions(p) ||
		    rig_polled_live_images(p)) {
			fprintf(stderr, "slot %d: open %d, made %llu, stopped %llu, overlaps %llu, regions %lld, images %lld\n",
				i, rig_polled_open(p), (unsigned long long)rig_polled_makes(p),
				(unsigned long long)rig_polled_stops(p),
				(unsigned long long)rig_polled_overlaps(p),
				(long long)rig_polled_live_regions(p),
				(long long)rig_polled_live_images(p));
			bad = 1;
		}
		printf("slot %d: %llu devices made, each stopped once\n", i,
		       (unsigned long long)rig_polled_makes(p));
		rig_polled_destroy(p);
		pthread_mutex_destroy(&slots[i].lock);
	}
	rig_device_release(mem);
	return bad;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
	pthread_t t[WORKERS_MAX], dog;
	struct timespec ts = { 0, 0 };

	if (argc > 3)
		hang_ms = (unsigned)atoi(argv[3]);
	if (n < 1 || n > WORKERS_MAX || open_slots() < 0) {
		fprintf(stderr, "usage: test_stress_chaos [1..%d workers] [seconds] [hang_ms]\n",
			WORKERS_MAX);
		return 2;
	}
	pthread_create(&dog, NULL, watchdog, (void *)(intptr_t)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (unsigned s = 0; s < seconds * 10 && !atomic_load(&stop); s++) {
		ts.tv_nsec = 100000000;
		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_join(dog, NULL);
	if (close_slots())
		atomic_store(&failed, true);
	printf("%llu calls, %llu faults injected, %llu losses seen; longest call %llu ms (bound %u ms)\n",
	       (unsigned long long)calls, (unsigned long long)faults,
	       (unsigned long long)losses_seen,
	       (unsigned long long)(worst_ns / 1000000), hang_ms + BOUND_MS);
	return atomic_load(&failed) ? 1 : 0;
}
