/* SPDX-License-Identifier: MIT */
/*
 * test_stress_open: the table of open devices (core/devices.c), read
 * without a lock, while other threads make, close and free devices of the
 * same names. Workers open memory devices by name, round after round:
 *  - a stable name (held open by main throughout) gives, every time, the
 *    device main opened, live;
 *  - a churned name gives a device of that name; a second open while the
 *    first is held gives the same device unless a close lost it between
 *    the two (then the first says "closed"); a buffer on a live one
 *    round-trips its bytes, or is refused once a close came; one
 *    open in four is closed by its worker, so ends (table removals, grace
 *    periods, frees) race with lookups all the time.
 * At the end every churned name opens a fresh, live device.
 *
 * Usage: test_stress_open [workers] [seconds] (defaults 4, 5). Workers
 * start at a barrier; the first violation stops the run with a message.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

#define SECOND_NS 1000000000ull

static const char *const stable_names[] = { "S0", "S1" };
static const char *const churn_names[] = { "C0", "C1", "C2" };
static struct rig_device *stable[2];
static pthread_barrier_t start;
static _Atomic bool stop, failed;
static _Atomic uint64_t lookups, ends;
static uint64_t deadline_ns;

/* The first violation stops the run: say what broke, and answer false. */
static bool __attribute__((format(printf, 1, 2)))
broken(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (rig_why: %s)\n", rig_why());
	atomic_store(&failed, true);
	atomic_store(&stop, true);
	return false;
}

#define CHECK(cond, ...) do { if (!(cond)) return broken(__VA_ARGS__); } while (0)

static bool
stable_round(int id, unsigned *seed)
{
	int i = rand_r(seed) % 2;
	struct rig_device *d;

	CHECK(rig_memory_device(stable_names[i], &d) == 0, "worker %d: open %s", id,
	      stable_names[i]);
	CHECK(d == stable[i], "worker %d: %s gave %p, not main's %p", id, stable_names[i],
	      (void *)d, (void *)stable[i]);
	CHECK(!rig_lost(d), "worker %d: %s is lost: %s", id, stable_names[i], rig_lost(d));
	rig_device_release(d);
	return true;
}

/* A buffer's bytes on d, or a refusal once d was closed. */
static bool
use(int id, struct rig_device *d, uint32_t round)
{
	uint32_t x[16], y[16];
	struct rig_buffer *b;
	int ret;

	for (int i = 0; i < 16; i++)
		x[i] = (uint32_t)id << 24 ^ round * 2654435761u ^ (uint32_t)i;
	ret = rig_buffer_create(d, sizeof(x), RIG_MEMORY_DEVICE, &b);
	if (ret == RIG_ELOST)
		return true;
	CHECK(ret == 0, "worker %d: buffer on %s: %d", id, rig_name(d), ret);
	ret = rig_buffer_write(b, 0, x, sizeof(x));
	if (!ret)
		ret = rig_buffer_read(b, 0, y, sizeof(y));
	/* Once closed: lost, or the buffer dead with the device's memory. */
	CHECK(ret == 0 || rig_lost(d), "worker %d: use of %s: %d", id, rig_name(d), ret);
	CHECK(ret || !memcmp(x, y, sizeof(x)), "worker %d: %s read other bytes", id, rig_name(d));
	rig_buffer_release(b);
	return true;
}

static bool
churn_round(int id, unsigned *seed, uint32_t round)
{
	const char *name = churn_names[rand_r(seed) % 3];
	struct rig_device *d, *again;
	bool ok;

	CHECK(rig_memory_device(name, &d) == 0, "worker %d: open %s", id, name);
	CHECK(!strcmp(rig_name(d), name), "worker %d: %s gave %s", id, name, rig_name(d));
	CHECK(rig_memory_device(name, &again) == 0, "worker %d: open %s again", id, name);
	/* Pairs with the close's order: lost is set before the device leaves
	 * the table, so a new device under the name means d is lost. */
	CHECK(again == d || rig_lost(d), "worker %d: %s gave two live devices", id, name);
	CHECK(!rig_lost(d) || !strcmp(rig_lost(d), "closed"), "worker %d: %s lost: %s", id,
	      name, rig_lost(d));
	rig_device_release(again);
	ok = use(id, d, round);
	if (ok && rand_r(seed) % 4 == 0) {
		rig_close(d);
		atomic_fetch_add(&ends, 1);
	}
	rig_device_release(d);
	return ok;
}

static void *
worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned seed = (unsigned)id * 7919u + 1;

	pthread_barrier_wait(&start);
	for (uint32_t round = 0; !atomic_load(&stop); round++) {
		bool ok = rand_r(&seed) % 2 ? stable_round(id, &seed) :
			  churn_round(id, &seed, round);

		if (!ok)
			break;
		atomic_fetch_add(&lookups, 1);
		if (rig_now_ns() > deadline_ns)
			atomic_store(&stop, true);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	int seconds = argc > 2 ? atoi(argv[2]) : 5;
	pthread_t t[n > 0 ? n : 1];

	for (int i = 0; i < 2; i++)
		if (rig_memory_device(stable_names[i], &stable[i])) {
			fprintf(stderr, "open: %s\n", rig_why());
			return 1;
		}
	deadline_ns = rig_now_ns() + (uint64_t)seconds * SECOND_NS;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3 && !failed; i++) {
		struct rig_device *d;

		if (rig_memory_device(churn_names[i], &d) || rig_lost(d)) {
			fprintf(stderr, "%s does not open afresh: %s\n", churn_names[i], rig_why());
			atomic_store(&failed, true);
			break;
		}
		rig_close(d);
		rig_device_release(d);
	}
	for (int i = 0; i < 2; i++) {
		rig_close(stable[i]);
		rig_device_release(stable[i]);
	}
	printf("%llu lookups, %llu closes, %s\n", (unsigned long long)lookups,
	       (unsigned long long)ends, failed ? "FAILED" : "ok");
	return failed || !lookups || !ends;
}
