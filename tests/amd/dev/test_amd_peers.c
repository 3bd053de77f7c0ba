/* SPDX-License-Identifier: MIT */
/*
 * test_amd_peers: two software GPUs on one machine and one PCI bus (the
 * sim's opts.peer), opened through rig_open as "AMD-PCI" and "AMD-PCI:1",
 * wait on each other's words on the GPU: each device's compute queue
 * waits with WAIT_REG_MEM64 on the other's word through its memory BAR,
 * and each copies and launches over the other's memory mapped through it
 * (map_peer). A chain A -> B -> A of launches and copies is checked
 * byte for byte; while A's queue is stalled, B's queue is seen waiting on
 * the GPU (not idle), and nothing of B's runs before A's value. A producer
 * lost while a consumer waits (a fault, or a hang that hang_ms ends) loses
 * the consumer "lost with" it, and nothing hangs. A Store producer that is no AMD GPU (a polled device) is
 * waited for through the relay word. Four threads borrow, copy and free
 * across both GPUs at once, one through the relay too (the registry, the
 * mappings, the relay's slots and the sim's bus shared). Run under TSan
 * and ASan with the suite.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "rig_polled.h"
#include "amd/pci/pci.h"
#include "amd/sim/sim.h"
#include "../code_object.h"
#include "../fake.h"

#define SECOND	1000000000ull
#define N	1024		/* words each launch adds 1 to */

struct two {
	char root[256];
	struct amd_sim *sim[2];
	struct rig_opener *o[2];
	struct rig_device *d[2];
	const char *fw[2];
	int calls;
};

struct kargs { uint64_t in, out; uint32_t n; } __attribute__((packed));

/* out[i] = in[i] + 1, through the sim's page walk (a peer's BAR included). */
static int
add_kernel(const struct amd_sim_launch *l)
{
	struct kargs *k = amd_sim_translate(l, l->kernarg, sizeof(*k), false);

	__atomic_fetch_add((int *)l->ctx, 1, __ATOMIC_RELAXED);
	if (!k)
		return AMD_SIM_SQ_OK;
	for (uint32_t i = 0; i < l->grid[0] * l->group[0] && i < k->n; i++) {
		uint32_t *in = amd_sim_translate(l, k->in + 4ull * i, 4, false);
		uint32_t *out = amd_sim_translate(l, k->out + 4ull * i, 4, true);

		if (!in || !out)
			return AMD_SIM_SQ_OK;	/* the fault halts the queue */
		__atomic_store_n(out, __atomic_load_n(in, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
	}
	return AMD_SIM_SQ_OK;
}

/* Touches memory no page maps: a VM fault that loses its device. */
static int
fault_kernel(const struct amd_sim_launch *l)
{
	(void)amd_sim_translate(l, 0x100000000000ull, 4, true);
	return AMD_SIM_SQ_OK;
}

static void
two_up(struct two *t, const char *gc0, const char *gc1)
{
	const char *gc[2] = { gc0, gc1 };
	static const char *const bus[2] = { "0000:03:00.0", "0000:43:00.0" };

	memset(t, 0, sizeof(*t));
	fake_root(t->root);
	t->fw[0] = getenv("RIG_TEST_FIRMWARE");
	for (int k = 0; k < 2; k++) {
		struct amd_sim_opts o = { .gc = gc[k], .root = t->root, .bus = bus[k],
					  .mark = 0xA0000008, .peer = k ? t->sim[0] : NULL,
					  .vram_bytes = 512ull << 20,
					  .firmware = getenv("RIG_TEST_FIRMWARE") };

		assert_int_equal(amd_sim_create(&o, &t->sim[k]), 0);
		assert_int_equal(amd_sim_kernel(t->sim[k], 9, add_kernel, &t->calls), 0);
		assert_int_equal(amd_sim_kernel(t->sim[k], 10, fault_kernel, &t->calls), 0);
	}
	for (int k = 0; k < 2; k++) {
		/* Either sim's machine lists both functions, in bus order. */
		assert_int_equal(rig_amd_pci_gpu(amd_sim_machine(t->sim[1]), t->fw, k, &t->o[k]),
				 0);
		if (rig_open(t->o[k], &t->d[k]) < 0)
			fail_msg("open %d: %s", k, rig_why());
	}
	assert_string_equal(rig_name(t->d[0]), "AMD-PCI");
	assert_string_equal(rig_name(t->d[1]), "AMD-PCI:1");
}

static void
two_down(struct two *t)
{
	for (int k = 0; k < 2; k++) {
		if (t->d[k]) {
			rig_close(t->d[k]);
			rig_device_release(t->d[k]);
		}
		rig_amd_pci_opener_free(t->o[k]);
	}
	/* B first: A's VRAM then goes once no peer can reach it. */
	amd_sim_destroy(t->sim[1]);
	amd_sim_destroy(t->sim[0]);
	fake_remove(t->root);
}

/* An add launch's submission on d, reading slot 0 and writing slot 1. */
static struct rig_submission *
add_on(struct rig_device *d, uint32_t callback, struct rig_image **img)
{
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_WRITE(1, 8) };
	struct rig_function *fn = NULL;
	struct rig_submission *s;
	struct rig_part_spec part;
	struct obj o;

	build_object(&o, AMD_SIM_KERNEL_MAGIC, callback, 2u << 1);
	if (rig_image_load(d, o.b, sizeof(o.b), img) < 0 ||
	    rig_image_function(*img, "add", &fn) < 0)
		fail_msg("load: %s", rig_why());
	part = rig_part_launch(fn, 24, refs, 2);
	if (rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s) < 0)
		fail_msg("submission: %s", rig_why());
	return s;
}

static int
launch(struct rig_submission *s, struct rig_buffer *in, struct rig_buffer *out,
       struct rig_point *p)
{
	uint32_t grid[3] = { N / 64, 1, 1 }, group[3] = { 64, 1, 1 };
	uint64_t params[3] = { 0, 0, N };
	struct rig_run *run;

	if (rig_run_take(s, &run) < 0 ||
	    rig_run_store(run, 0, grid, group, params, sizeof(params)) < 0)
		return -1;
	return rig_submit(run, (struct rig_buffer *[]){ in, out }, 2, NULL, 0, p);
}

/* Whether the sim's compute queue is seen waiting on memory within 5 s
 * and still waits 100 ms later (a wait rig made on the host instead would
 * leave the queue with nothing to do). */
static bool
gpu_waits(struct amd_sim *s)
{
	for (int i = 0; i < 5000 && !amd_sim_waiting(s, AMD_SIM_CP, 0); i++)
		usleep(1000);
	usleep(100000);
	return amd_sim_waiting(s, AMD_SIM_CP, 0);
}

static struct rig_buffer *
buffer(struct rig_device *d)
{
	struct rig_buffer *b;

	assert_int_equal(rig_buffer_create(d, 4 * N, RIG_MEMORY_DEVICE, &b), 0);
	return b;
}

static struct rig_buffer *
borrow(struct rig_buffer *b, struct rig_device *d)
{
	struct rig_buffer *out;

	if (rig_buffer_borrow(b, d, &out) < 0)
		fail_msg("borrow: %s", rig_why());
	return out;
}

/*
 * Each round: A adds 1 (a1 -> a2); B copies a2 over A's BAR (b1) and adds
 * 1 (b2); A copies b2 over B's BAR (a3) and adds 1 (back into a1). No host
 * wait between: every hand-off is a wait of one GPU's queue on the other's
 * word. After R rounds a1 holds x + 3R.
 */
static void
test_chain_a_b_a(void **state)
{
	static const char *const pairs[][2] = { { "11.0.0", "12.0.1" }, { "9.4.3", "11.0.2" } };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct rig_buffer *a1, *a2, *a3, *b1, *b2, *a2_on_b, *b2_on_a;
		struct rig_submission *sa, *sb;
		struct rig_image *ia, *ib;
		uint32_t x[N], y[N];
		struct rig_point p;
		struct two t;

		two_up(&t, pairs[k][0], pairs[k][1]);
		sa = add_on(t.d[0], 9, &ia);
		sb = add_on(t.d[1], 9, &ib);
		a1 = buffer(t.d[0]);
		a2 = buffer(t.d[0]);
		a3 = buffer(t.d[0]);
		b1 = buffer(t.d[1]);
		b2 = buffer(t.d[1]);
		a2_on_b = borrow(a2, t.d[1]);
		b2_on_a = borrow(b2, t.d[0]);
		for (int i = 0; i < N; i++)
			x[i] = (uint32_t)i * 977u + (uint32_t)k;
		assert_int_equal(rig_buffer_write(a1, 0, x, sizeof(x)), 0);
		for (int r = 0; r < 30; r++) {
			if (launch(sa, a1, a2, NULL) < 0 ||
			    rig_buffer_copy(a2_on_b, b1, NULL) < 0 ||
			    launch(sb, b1, b2, NULL) < 0 ||
			    rig_buffer_copy(b2_on_a, a3, NULL) < 0 ||
			    launch(sa, a3, a1, &p) < 0)
				fail_msg("round %d: %s", r, rig_why());
		}
		if (rig_wait(p, 60 * SECOND) < 0)
			fail_msg("wait: %s", rig_why());
		assert_int_equal(rig_buffer_read(a1, 0, y, sizeof(y)), 0);
		for (int i = 0; i < N; i++)
			if (y[i] != x[i] + 90)
				fail_msg("GC %s/%s: word %d is %u, not %u", pairs[k][0],
					 pairs[k][1], i, y[i], x[i] + 90);
		assert_int_equal(t.calls, 90);
		assert_null(rig_lost(t.d[0]));
		assert_null(rig_lost(t.d[1]));
		rig_buffer_release(a2_on_b);
		rig_buffer_release(b2_on_a);
		rig_buffer_release(a1);
		rig_buffer_release(a2);
		rig_buffer_release(a3);
		rig_buffer_release(b1);
		rig_buffer_release(b2);
		rig_submission_release(sa);
		rig_submission_release(sb);
		rig_image_release(ia);
		rig_image_release(ib);
		two_down(&t);
	}
}

/* While A's compute queue stalls, B's value that reads A's output waits on
 * B's own compute queue (the sim finds it not idle: a wait pending on
 * memory), its copy not run; once A runs, B's result is A's. */
static void
test_consumer_waits_on_the_gpu(void **state)
{
	struct rig_buffer *a1, *a2, *b1, *a2_on_b;
	struct rig_submission *sa;
	struct rig_image *ia;
	uint32_t x[N], y[N];
	struct rig_point pa, pb;
	struct two t;

	(void)state;
	two_up(&t, "11.0.0", "11.0.0");
	sa = add_on(t.d[0], 9, &ia);
	a1 = buffer(t.d[0]);
	a2 = buffer(t.d[0]);
	b1 = buffer(t.d[1]);
	a2_on_b = borrow(a2, t.d[1]);
	for (int i = 0; i < N; i++)
		x[i] = (uint32_t)i + 5;
	assert_int_equal(rig_buffer_write(a1, 0, x, sizeof(x)), 0);
	assert_int_equal(rig_buffer_write(b1, 0, x, sizeof(x)), 0);
	assert_int_equal(amd_sim_stall(t.sim[0], AMD_SIM_CP, 0, true), 0);
	assert_int_equal(launch(sa, a1, a2, &pa), 0);
	assert_int_equal(rig_buffer_copy(a2_on_b, b1, &pb), 0);
	/* The wait commits B's value; B's queue then holds the wait on A's
	 * word: busy, not idle, for as long as A stalls (a wait on the host
	 * would leave B's queue empty, and idle). */
	assert_int_equal(rig_wait(pb, 50000000ull), RIG_ETIMEDOUT);
	assert_true(gpu_waits(t.sim[1]));
	assert_false(rig_signaled(pb));
	assert_int_equal(amd_sim_stall(t.sim[0], AMD_SIM_CP, 0, false), 0);
	if (rig_wait(pb, 60 * SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	assert_true(rig_signaled(pa));
	assert_int_equal(rig_buffer_read(b1, 0, y, sizeof(y)), 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(y[i], x[i] + 1);
	rig_buffer_release(a2_on_b);
	rig_buffer_release(a1);
	rig_buffer_release(a2);
	rig_buffer_release(b1);
	rig_submission_release(sa);
	rig_image_release(ia);
	two_down(&t);
}

/* A's launch faults while B's copy waits on A's word on B's queue: A is lost
 * for the fault, B "lost with" A (the wait would never pass), B's wait
 * returns the loss rather than hanging; neither GPU is then left clean. */
static void
test_producer_lost_while_consumer_waits(void **state)
{
	struct rig_buffer *a1, *a2, *b1, *a2_on_b;
	struct rig_submission *sa;
	struct rig_image *ia;
	struct rig_point pa, pb;
	const struct rig_loss *loss;
	struct two t;

	(void)state;
	two_up(&t, "12.0.0", "11.0.0");
	sa = add_on(t.d[0], 10, &ia);
	a1 = buffer(t.d[0]);
	a2 = buffer(t.d[0]);
	b1 = buffer(t.d[1]);
	a2_on_b = borrow(a2, t.d[1]);
	/* Hold A until B's wait is on B's queue, then let A fault. */
	assert_int_equal(amd_sim_stall(t.sim[0], AMD_SIM_CP, 0, true), 0);
	assert_int_equal(launch(sa, a1, a2, &pa), 0);
	assert_int_equal(rig_buffer_copy(a2_on_b, b1, &pb), 0);
	assert_int_equal(rig_wait(pb, 50000000ull), RIG_ETIMEDOUT);
	assert_true(gpu_waits(t.sim[1]));
	assert_int_equal(amd_sim_stall(t.sim[0], AMD_SIM_CP, 0, false), 0);
	assert_int_equal(rig_wait(pb, 60 * SECOND), RIG_ELOST);
	assert_int_equal(rig_wait(pa, 60 * SECOND), RIG_ELOST);
	if (!strstr(rig_lost(t.d[0]), "VM fault at 0x100000000000"))
		fail_msg("A's loss: %s", rig_lost(t.d[0]));
	if (!strstr(rig_lost(t.d[1]), "lost with AMD-PCI"))
		fail_msg("B's loss: %s", rig_lost(t.d[1]));
	loss = rig_loss(t.d[1]);
	assert_non_null(loss);
	assert_non_null(loss->cause);
	rig_buffer_release(a2_on_b);
	rig_buffer_release(a1);
	rig_buffer_release(a2);
	rig_buffer_release(b1);
	rig_submission_release(sa);
	rig_image_release(ia);
	/* Neither stop waited for its queues (A's faulted, B's held a wait
	 * that would never pass), so no clean session left either GPU: each
	 * opens again reset (mode 1) and booted in full. */
	for (int k = 0; k < 2; k++) {
		rig_device_release(t.d[k]);
		t.d[k] = NULL;
		if (rig_open(t.o[k], &t.d[k]) < 0)
			fail_msg("reopen %d: %s", k, rig_why());
		assert_null(rig_lost(t.d[k]));
	}
	two_down(&t);
}

/* A's queue stops consuming for good while B's queue waits on A's word and
 * the program waits on B: the hang is A's (hang_ms 2000), B is lost "lost
 * with" A rather than for a hang of its own, and no wait hangs. */
static void
test_producer_hangs_while_consumer_waits(void **state)
{
	struct rig_buffer *a1, *a2, *b1, *a2_on_b;
	struct rig_submission *sa;
	struct rig_image *ia;
	struct rig_point pa, pb;
	struct two t;

	(void)state;
	two_up(&t, "11.0.2", "12.0.1");
	sa = add_on(t.d[0], 9, &ia);
	a1 = buffer(t.d[0]);
	a2 = buffer(t.d[0]);
	b1 = buffer(t.d[1]);
	a2_on_b = borrow(a2, t.d[1]);
	assert_int_equal(amd_sim_stall(t.sim[0], AMD_SIM_CP, 0, true), 0);
	assert_int_equal(launch(sa, a1, a2, &pa), 0);
	assert_int_equal(rig_buffer_copy(a2_on_b, b1, &pb), 0);
	assert_int_equal(rig_wait(pb, 60 * SECOND), RIG_ELOST);
	if (!strstr(rig_lost(t.d[0]), "no progress for 2000 ms"))
		fail_msg("A's loss: %s", rig_lost(t.d[0]));
	if (!strstr(rig_lost(t.d[1]), "lost with AMD-PCI"))
		fail_msg("B's loss: %s", rig_lost(t.d[1]));
	assert_int_equal(rig_wait(pa, 60 * SECOND), RIG_ELOST);
	rig_buffer_release(a2_on_b);
	rig_buffer_release(a1);
	rig_buffer_release(a2);
	rig_buffer_release(b1);
	rig_submission_release(sa);
	rig_image_release(ia);
	two_down(&t);
}

/* A Store producer whose word the GPU cannot reach (a polled device's is
 * rig's, in process memory): its value is relayed into the GPU's VRAM.
 * While the polled device stalls, the AMD words part after it waits on the
 * GPU and writes nothing; once it runs, the words run. */
static void
test_relay_for_a_store_producer(void **state)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "PEERS-POLLED",
				       .completion = RIG_BY_STORE, .lag = 1 };
	struct rig_buffer *pa, *pb, *w, *out;
	struct rig_submission *s;
	struct rig_part_spec part;
	struct rig_polled *pol;
	struct rig_device *pd;
	struct rig_point pp, pw;
	struct rig_run *run;
	uint32_t pkt[5], got = 0;
	struct two t;

	(void)state;
	two_up(&t, "11.0.0", "12.0.1");
	assert_int_equal(rig_polled_create(&c, &pol), 0);
	assert_int_equal(rig_open(rig_polled_opener(pol), &pd), 0);
	assert_int_equal(rig_buffer_create(pd, 64, RIG_MEMORY_DEVICE, &pa), 0);
	assert_int_equal(rig_buffer_create(pd, 64, RIG_MEMORY_DEVICE, &pb), 0);
	assert_int_equal(rig_buffer_create(t.d[0], 4, RIG_MEMORY_DEVICE, &out), 0);
	assert_int_equal(rig_buffer_create(t.d[0], sizeof(pkt), RIG_MEMORY_DEVICE, &w), 0);
	assert_int_equal(rig_buffer_write(out, 0, &got, 4), 0);
	/* WRITE_DATA (amd-facts §4.3): one dword into out. */
	pkt[0] = 3u << 30 | 3u << 16 | 0x37u << 8;
	pkt[1] = 5u << 8 | 1u << 20;
	pkt[2] = (uint32_t)rig_buffer_address(out);
	pkt[3] = (uint32_t)(rig_buffer_address(out) >> 32);
	pkt[4] = 0xC0FFEEu;
	assert_int_equal(rig_buffer_write(w, 0, pkt, sizeof(pkt)), 0);
	rig_polled_stall(pol, true);
	assert_int_equal(rig_buffer_copy(pa, pb, &pp), 0);
	part = rig_part_words(w);
	assert_int_equal(rig_submission_make(t.d[0], &part, 1, NULL, 0, (struct rig_keep){ 0 },
					     &s), 0);
	assert_int_equal(rig_run_take(s, &run), 0);
	assert_int_equal(rig_submit(run, NULL, 0, &pp, 1, &pw), 0);
	assert_int_equal(rig_wait(pw, 50000000ull), RIG_ETIMEDOUT);
	assert_true(gpu_waits(t.sim[0]));
	assert_int_equal(rig_buffer_read(out, 0, &got, 4), 0);
	assert_int_equal(got, 0);
	assert_false(rig_signaled(pw));
	rig_polled_stall(pol, false);
	if (rig_wait(pw, 60 * SECOND) < 0)
		fail_msg("wait: %s", rig_why());
	assert_true(rig_signaled(pp));
	assert_int_equal(rig_buffer_read(out, 0, &got, 4), 0);
	assert_int_equal(got, 0xC0FFEEu);
	rig_submission_release(s);
	rig_buffer_release(w);
	rig_buffer_release(out);
	rig_buffer_release(pa);
	rig_buffer_release(pb);
	rig_close(pd);
	rig_device_release(pd);
	rig_polled_destroy(pol);
	two_down(&t);
}

/* map_peer maps only another AMD GPU's memory: a host device's buffer is
 * refused, and nothing is left mapped. */
static void
test_map_peer_refuses_other_memory(void **state)
{
	struct rig_device *mem;
	struct rig_buffer *h, *out;
	struct two t;

	(void)state;
	two_up(&t, "11.0.0", "11.0.0");
	assert_int_equal(rig_memory_device("peers-mem", &mem), 0);
	assert_int_equal(rig_buffer_create(mem, 4096, RIG_MEMORY_DEVICE, &h), 0);
	assert_int_equal(rig_buffer_borrow(h, t.d[0], &out), RIG_EINVAL);
	assert_null(rig_lost(t.d[0]));
	rig_buffer_release(h);
	rig_close(mem);
	rig_device_release(mem);
	two_down(&t);
}

/* A bus refuses a sim whose tree is elsewhere, a second function at one
 * bus address, and a ninth member, each saying so and changing nothing:
 * the bus still serves its members afterwards. */
static void
test_bus_refusals(void **state)
{
	char root[256], other[256], bus[16];
	struct amd_sim *s[8] = { 0 }, *x = NULL;
	struct amd_sim_opts o = { .gc = "11.0.0", .mark = 0xA0000008,
				  .vram_bytes = 512ull << 20 };
	const struct rig_pci_machine *m;
	uint64_t at = 0;

	(void)state;
	fake_root(root);
	fake_root(other);
	o.root = root;
	o.bus = "0000:03:00.0";
	assert_int_equal(amd_sim_create(&o, &s[0]), 0);
	o.peer = s[0];
	o.root = other;
	o.bus = "0000:04:00.0";
	assert_int_equal(amd_sim_create(&o, &x), -EINVAL);
	assert_non_null(strstr(rig_why(), "its peer's tree is under"));
	assert_null(x);
	o.root = root;
	o.bus = "0000:03:00.0";
	assert_int_equal(amd_sim_create(&o, &x), -EEXIST);
	assert_non_null(strstr(rig_why(), "has a function 0000:03:00.0 already"));
	for (int k = 1; k < 8; k++) {
		snprintf(bus, sizeof(bus), "0000:%02x:00.0", 0x10 + k);
		o.bus = bus;
		assert_int_equal(amd_sim_create(&o, &s[k]), 0);
	}
	o.bus = "0000:40:00.0";
	assert_int_equal(amd_sim_create(&o, &x), -ENOSPC);
	assert_non_null(strstr(rig_why(), "holds 8 sims already"));
	/* Where a peer's BAR0 sits, through the machine of another member. */
	m = amd_sim_machine(s[7]);
	{
		struct pci_taken t;

		assert_int_equal(m->ops->take(m, "0000:03:00.0", &t), 0);
		assert_int_equal(m->ops->peer_bus(m, &t, "0000:11:00.0", 0, 4096, 4096, &at), 0);
		assert_int_equal(m->ops->peer_bus(m, &t, "0000:11:00.0", 2, 0, 8, &at), -ENOTSUP);
		assert_int_equal(m->ops->peer_bus(m, &t, "0000:11:00.0", 0, 512ull << 20, 8, &at),
				 -ERANGE);
		assert_int_equal(m->ops->peer_bus(m, &t, "0000:99:00.0", 0, 0, 8, &at), -ENODEV);
		assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 0, 0, 8, &at), -ENODEV);
		m->ops->give_back(m, &t);
	}
	for (int k = 7; k >= 0; k--)
		amd_sim_destroy(s[k]);
	fake_remove(root);
	fake_remove(other);
}

/* The sysfs machine finds a peer's BAR in its resource file (here the
 * sim's tree, read as Linux's), and refuses what it cannot reach. */
static void
test_sysfs_peer_bus(void **state)
{
	struct amd_sim_opts o = { .gc = "12.0.1", .mark = 0xA0000008,
				  .vram_bytes = 512ull << 20 };
	struct rig_pci_machine *m;
	struct pci_taken t = { 0 };
	struct amd_sim *s[2];
	uint64_t at = 0, first = 0;
	char root[256];

	(void)state;
	fake_root(root);
	o.root = root;
	assert_int_equal(amd_sim_create(&o, &s[0]), 0);
	o.peer = s[0];
	o.bus = "0000:04:00.0";
	assert_int_equal(amd_sim_create(&o, &s[1]), 0);
	assert_int_equal(rig_pci_machine_at(root, &m), 0);
	snprintf(t.bus, sizeof(t.bus), "0000:04:00.0");
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 0, 0, 4096, &first), 0);
	assert_int_equal(amd_sim_machine(s[1])->ops->peer_bus(amd_sim_machine(s[1]), &t,
							      "0000:03:00.0", 0, 0, 4096, &at), 0);
	assert_int_equal(first, at);	/* the resource file says what the bus does */
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 0, 8192, 4096, &at), 0);
	assert_int_equal(at, first + 8192);
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 1, 0, 8, &at), -ENODEV);
	assert_non_null(strstr(rig_why(), "lists no BAR1"));
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 0, 512ull << 20, 8, &at),
			 -ERANGE);
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:05:00.0", 0, 0, 8, &at), -ENOENT);
	t.machine = &t;	/* as a VFIO take leaves it */
	assert_int_equal(m->ops->peer_bus(m, &t, "0000:03:00.0", 0, 0, 8, &at), -ENOTSUP);
	assert_non_null(strstr(rig_why(), "peer access behind an IOMMU is not built"));
	rig_pci_machine_release(m);
	amd_sim_destroy(s[1]);
	amd_sim_destroy(s[0]);
	fake_remove(root);
}

struct peer_stresser {
	struct two *t;
	int self, bad;
	struct rig_polled *pol;		/* the relay's producer, for one thread */
	struct rig_device *pd;
};

/* One thread's rounds: a buffer of one GPU written, borrowed onto the
 * other, copied there over the BAR and read back, while the others do the
 * same the other way and one thread's copies also wait on a polled device
 * through the relay: the registry, both devices' mappings and free lists,
 * the relay's slots and the sim's bus shared at once. */
static void *
peer_stress_thread(void *arg)
{
	struct peer_stresser *st = arg;
	int from = st->self & 1, to = !from;
	uint8_t x[4096], y[4096];

	for (int r = 0; r < 25; r++) {
		size_t bytes = 256 + (size_t)((r * 1237 + st->self * 311) % 3800);
		struct rig_buffer *a, *b, *ab, *pa = NULL, *pb = NULL;
		struct rig_point p, pp;

		for (size_t i = 0; i < bytes; i++)
			x[i] = (uint8_t)(i * 3 + (size_t)r + (size_t)st->self * 17);
		if (rig_buffer_create(st->t->d[from], bytes, RIG_MEMORY_DEVICE, &a) < 0 ||
		    rig_buffer_create(st->t->d[to], bytes, RIG_MEMORY_DEVICE, &b) < 0) {
			st->bad++;
			return NULL;
		}
		if (rig_buffer_write(a, 0, x, bytes) < 0 || rig_buffer_borrow(a, st->t->d[to], &ab) < 0) {
			st->bad++;
			return NULL;
		}
		if (st->pd && (rig_buffer_create(st->pd, 64, RIG_MEMORY_DEVICE, &pa) < 0 ||
			       rig_buffer_create(st->pd, 64, RIG_MEMORY_DEVICE, &pb) < 0 ||
			       rig_buffer_copy(pa, pb, &pp) < 0))
			st->bad++;
		if (st->pd) {
			/* A NOP on the GPU after the polled value, through the relay. */
			static const uint32_t nop[2] = { 3u << 30 | 0x10u << 8, 0 };
			struct rig_part_spec part;
			struct rig_submission *s = NULL;
			struct rig_buffer *w;
			struct rig_run *run;

			if (rig_buffer_create(st->t->d[to], sizeof(nop), RIG_MEMORY_DEVICE, &w) < 0 ||
			    rig_buffer_write(w, 0, nop, sizeof(nop)) < 0) {
				st->bad++;
				return NULL;
			}
			part = rig_part_words(w);
			if (rig_submission_make(st->t->d[to], &part, 1, NULL, 0,
						(struct rig_keep){ 0 }, &s) < 0 ||
			    rig_run_take(s, &run) < 0 ||
			    rig_submit(run, NULL, 0, &pp, 1, NULL) < 0)
				st->bad++;
			rig_submission_release(s);
			rig_buffer_release(w);
		}
		if (rig_buffer_copy(ab, b, &p) < 0)
			st->bad++;
		if (rig_wait(p, 60 * SECOND) < 0 || rig_buffer_read(b, 0, y, bytes) < 0 ||
		    memcmp(x, y, bytes))
			st->bad++;
		rig_buffer_release(ab);
		rig_buffer_release(a);
		rig_buffer_release(b);
		rig_buffer_release(pa);
		rig_buffer_release(pb);
	}
	return NULL;
}

static void
test_stress_threads(void **state)
{
	struct rig_polled_config c = { .size = sizeof(c), .name = "PEERS-STRESS",
				       .completion = RIG_BY_STORE, .lag = 1 };
	struct peer_stresser st[4];
	struct rig_polled *pol;
	struct rig_device *pd;
	pthread_t th[4];
	struct two t;

	(void)state;
	two_up(&t, "12.0.1", "11.0.0");
	assert_int_equal(rig_polled_create(&c, &pol), 0);
	assert_int_equal(rig_open(rig_polled_opener(pol), &pd), 0);
	for (int k = 0; k < 4; k++) {
		st[k] = (struct peer_stresser){ &t, k, 0, pol, k == 3 ? pd : NULL };
		assert_int_equal(pthread_create(&th[k], NULL, peer_stress_thread, &st[k]), 0);
	}
	for (int k = 0; k < 4; k++) {
		pthread_join(th[k], NULL);
		assert_int_equal(st[k].bad, 0);
	}
	assert_null(rig_lost(t.d[0]));
	assert_null(rig_lost(t.d[1]));
	rig_close(pd);
	rig_device_release(pd);
	rig_polled_destroy(pol);
	two_down(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_a_b_a),
		cmocka_unit_test(test_consumer_waits_on_the_gpu),
		cmocka_unit_test(test_producer_lost_while_consumer_waits),
		cmocka_unit_test(test_producer_hangs_while_consumer_waits),
		cmocka_unit_test(test_relay_for_a_store_producer),
		cmocka_unit_test(test_map_peer_refuses_other_memory),
		cmocka_unit_test(test_stress_threads),
		cmocka_unit_test(test_bus_refusals),
		cmocka_unit_test(test_sysfs_peer_bus),
	};

	if (!getenv("RIG_TEST_FIRMWARE")) {
		printf("1..0 # SKIP RIG_TEST_FIRMWARE is not set: the open needs the images\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
