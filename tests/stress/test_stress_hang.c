/* SPDX-License-Identifier: MIT */
/*
 * test_stress_hang: hangs under load (SPEC §8; issue 14). Workers start at
 * a barrier; each runs rounds of a stalled producer P (hang_ms) that
 * someone waits on, cycling through who waits and how P stalls:
 *   0  the host: a program's rig_wait on P's value;
 *   1  another device C's submission thread, on the host (C's copy reads
 *      what P's stalled copy writes, through a borrow);
 *   2  C's queue (C's facts: its queues wait for host-written words);
 *   3  the host, while P's driver blocks inside room, submit or commit
 *      (facts.may_block; rig_polled_block), with P's word not stalled;
 *   4  C's submission thread, while P's driver blocks so.
 * Meanwhile a loader thread copies on a healthy polled device and the
 * memory device, and busy threads keep the cores loaded.
 *
 * What must hold, in every round:
 *  - the wait ends, with RIG_ELOST, within hang_ms + BOUND_NS (20 s: a
 *    bound no loaded machine under ThreadSanitizer nears; a watchdog
 *    fails the run if a wait passes twice that);
 *  - P is lost "no progress for <hang_ms> ms"; C, where it waited, is lost
 *    "lost with P", and its value is not reached (no work ran on memory
 *    whose last write was dropped);
 *  - the healthy device stays live and its copies are reached;
 *  - every device made is stopped once, never during a driver call, and
 *    gives back its regions.
 * The first violation stops the run with a message.
 *
 * Usage: test_stress_hang [workers] [rounds] [hang_ms] (3, 10, 100).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rig.h"
#include "rig_polled.h"

#define WORKERS_MAX 16
#define BOUND_NS (20 * 1000000000ull)
#define MS_NS 1000000ull

static unsigned hang_ms = 100;
static _Atomic bool stop, failed;
static _Atomic uint64_t since[WORKERS_MAX];	/* a wait in flight began; 0: none */
static _Atomic uint64_t worst_ns, rounds_done;
static pthread_barrier_t start;

#define FAIL(...) do {							\
	fprintf(stderr, __VA_ARGS__);					\
	fprintf(stderr, " (rig_why: %s)\n", rig_why());			\
	atomic_store(&failed, true);					\
	atomic_store(&stop, true);					\
} while (0)

static void
sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (long)(ms % 1000) * 1000000 }, NULL);
}

struct dev {
	struct rig_polled *p;
	struct rig_device *d;
};

static bool
dev_open(struct dev *v, struct rig_polled_config c)
{
	c.size = sizeof(c);
	v->d = NULL;
	if (rig_polled_create(&c, &v->p) || rig_open(rig_polled_opener(v->p), &v->d)) {
		FAIL("%s: open failed", c.name);
		return false;
	}
	return true;
}

static void
dev_close(struct dev *v, const char *name)
{
	if (rig_close(v->d))
		FAIL("%s: close failed", name);
	if (rig_polled_stops(v->p) != 1 || rig_polled_overlaps(v->p) ||
	    rig_polled_live_regions(v->p))
		FAIL("%s: %llu stops, %llu during a call, %lld regions left", name,
		     (unsigned long long)rig_polled_stops(v->p),
		     (unsigned long long)rig_polled_overlaps(v->p),
		     (long long)rig_polled_live_regions(v->p));
	rig_device_release(v->d);
	rig_polled_destroy(v->p);
}

static struct rig_buffer *
buffer(struct rig_device *d)
{
	struct rig_buffer *b = NULL;

	if (rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &b))
		FAIL("%s: no buffer", rig_name(d));
	return b;
}

/* Wait for p as worker id; checks the bound. */
static int
timed_wait(int id, struct rig_point p, const char *what)
{
	uint64_t t0 = rig_now_ns(), took, worst;
	int ret;

	atomic_store(&since[id], t0);
	ret = rig_wait(p, UINT64_MAX);
	atomic_store(&since[id], 0);
	took = rig_now_ns() - t0;
	worst = atomic_load(&worst_ns);
	while (took > worst && !atomic_compare_exchange_weak(&worst_ns, &worst, took))
		;
	if (took > hang_ms * MS_NS + BOUND_NS)
		FAIL("worker %d: %s: the wait took %.0f ms (hang_ms %u)", id, what,
		     took / 1e6, hang_ms);
	return ret;
}

static const char *const blocked_calls[] = { "room", "submit", "commit" };

static void
round_of(int id, unsigned k)
{
	unsigned kind = k % 5;
	bool blocks = kind >= 3, consumer = kind == 1 || kind == 2 || kind == 4;
	const char *call = blocked_calls[(k / 5) % 3];
	char pname[32], cname[32], want[64], no_progress[48];
	struct dev p, c = { 0 };
	struct rig_buffer *src, *x, *xc = NULL, *y = NULL;
	struct rig_point pp, pc = { 0 };
	int ret;

	snprintf(pname, sizeof(pname), "SHP%d.%u", id, k);
	snprintf(cname, sizeof(cname), "SHC%d.%u", id, k);
	if (!dev_open(&p, (struct rig_polled_config){ .name = pname,
			.hang_ms = RIG_SOME(hang_ms), .may_block = blocks }))
		return;
	if (consumer && !dev_open(&c, (struct rig_polled_config){ .name = cname,
			.waits = { .hosts = kind == 2 } }))
		return;
	src = buffer(p.d);
	x = buffer(p.d);
	if (consumer && (rig_buffer_borrow(x, c.d, &xc) || !(y = buffer(c.d))))
		FAIL("%s: no borrow", cname);
	if (blocks)
		rig_polled_block(p.p, call, true);
	else
		rig_polled_stall(p.p, true);
	if (rig_buffer_copy(src, x, &pp))
		FAIL("%s: copy refused", pname);
	if (consumer && rig_buffer_copy(xc, y, &pc))
		FAIL("%s: copy refused", cname);
	if (atomic_load(&failed))
		return;

	ret = timed_wait(id, consumer ? pc : pp, consumer ? cname : pname);
	snprintf(no_progress, sizeof(no_progress), "no progress for %u ms", hang_ms);
	if (ret != RIG_ELOST)
		FAIL("round %s (kind %u%s%s): the wait returned %d, not the loss", pname,
		     kind, blocks ? ", blocked " : "", blocks ? call : "", ret);
	/* The loss of P comes before the end of C's wait; P's word may still
	 * be read here, so its reason is read once lost. */
	for (int i = 0; i < 30000 && !rig_lost(p.d); i++)
		sleep_ms(1);
	if (!rig_lost(p.d) || strcmp(rig_lost(p.d), no_progress))
		FAIL("round %s (kind %u): P %s, not \"%s\"", pname, kind,
		     rig_lost(p.d) ? rig_lost(p.d) : "live", no_progress);
	if (rig_reached(pp))
		FAIL("round %s: P's stalled value reached", pname);
	if (consumer) {
		snprintf(want, sizeof(want), "lost with %s", pname);
		if (!rig_lost(c.d) || strcmp(rig_lost(c.d), want))
			FAIL("round %s (kind %u): C %s, not \"%s\"", cname, kind,
			     rig_lost(c.d) ? rig_lost(c.d) : "live", want);
		if (rig_reached(pc))
			FAIL("round %s: C's value reached over P's dropped one", cname);
	}
	if (blocks)
		rig_polled_block(p.p, call, false);
	else
		rig_polled_stall(p.p, false);
	rig_buffer_release(xc);
	rig_buffer_release(y);
	rig_buffer_release(src);
	rig_buffer_release(x);
	if (consumer)
		dev_close(&c, cname);
	dev_close(&p, pname);
	atomic_fetch_add(&rounds_done, 1);
}

struct worker {
	int id;
	unsigned rounds;
};

static void *
worker(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start);
	for (unsigned k = 0; k < w->rounds && !atomic_load(&stop); k++)
		round_of(w->id, k + (unsigned)w->id);
	return NULL;
}

/* Copies on a healthy device and the memory device, until stop. */
static void *
loader(void *arg)
{
	struct dev *h = arg;
	struct rig_device *m = NULL;
	struct rig_buffer *a, *b, *ma, *mb;
	struct rig_point p;
	uint64_t n = 0;

	if (rig_memory_device("SHM", &m)) {
		FAIL("memory device");
		return NULL;
	}
	a = buffer(h->d);
	b = buffer(h->d);
	ma = buffer(m);
	mb = buffer(m);
	pthread_barrier_wait(&start);
	while (!atomic_load(&stop)) {
		if (rig_buffer_copy(a, b, &p) || rig_wait(p, 30 * 1000 * MS_NS) ||
		    rig_buffer_copy(ma, mb, &p) || rig_wait(p, 30 * 1000 * MS_NS)) {
			FAIL("the healthy devices' copy %llu failed", (unsigned long long)n);
			break;
		}
		n++;
	}
	if (rig_lost(h->d))
		FAIL("the healthy device was lost: %s", rig_lost(h->d));
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(ma);
	rig_buffer_release(mb);
	rig_device_release(m);
	return NULL;
}

static void *
busy(void *arg)
{
	volatile uint64_t n = 0;

	(void)arg;
	while (!atomic_load(&stop))
		n++;
	return NULL;
}

/* Fails the run if a wait stays in flight past twice the bound. */
static void *
watchdog(void *arg)
{
	int n = *(int *)arg;

	while (!atomic_load(&stop)) {
		uint64_t now = rig_now_ns();

		for (int i = 0; i < n; i++) {
			uint64_t s = atomic_load(&since[i]);

			if (s && now > s && now - s > hang_ms * MS_NS + 2 * BOUND_NS) {
				fprintf(stderr, "worker %d: a wait did not end in %.0f ms\n",
					i, (now - s) / 1e6);
				fflush(stderr);
				_exit(1);
			}
		}
		sleep_ms(10);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
	struct worker w[WORKERS_MAX];
	pthread_t t[WORKERS_MAX], load, dog, hot[2];
	struct dev healthy;

	if (argc > 3)
		hang_ms = (unsigned)atoi(argv[3]);
	if (n < 1 || n > WORKERS_MAX || !rounds || !hang_ms) {
		fprintf(stderr, "usage: %s [workers 1..%d] [rounds] [hang_ms]\n",
			argv[0], WORKERS_MAX);
		return 2;
	}
	/* A hang clock the machine's load cannot run out (its worker may
	 * wait its turn for longer than hang_ms on two loaded cores): what
	 * it checks is that the others' losses never spread to it. */
	if (!dev_open(&healthy, (struct rig_polled_config){ .name = "SHH",
			.hang_ms = RIG_SOME(hang_ms + (unsigned)(BOUND_NS / MS_NS)) }))
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_create(&load, NULL, loader, &healthy);
	pthread_create(&dog, NULL, watchdog, &n);
	for (int i = 0; i < 2; i++)
		pthread_create(&hot[i], NULL, busy, NULL);
	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ i, rounds };
		pthread_create(&t[i], NULL, worker, &w[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	atomic_store(&stop, true);
	pthread_join(load, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(hot[i], NULL);
	pthread_join(dog, NULL);
	dev_close(&healthy, "SHH");
	printf("%llu rounds of %d workers, hang_ms %u: the longest wait %.1f ms%s\n",
	       (unsigned long long)atomic_load(&rounds_done), n, hang_ms,
	       atomic_load(&worst_ns) / 1e6, atomic_load(&failed) ? ": FAILED" : "");
	return atomic_load(&failed) ? 1 : 0;
}
