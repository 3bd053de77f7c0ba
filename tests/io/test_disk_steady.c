/* SPDX-License-Identifier: MIT */
/*
 * test_disk_steady: the disk's submit of a small value (a 4 KiB write, a
 * barrier, a write that waits for another device's word) allocates nothing
 * and takes no mutex once the disk has run a while (io/jobs.c keeps job
 * memory), and what it wrote is the file's. Counted on the submitting
 * thread only (tests/core/calls.h: skipped under ASan and TSan, whose
 * runtimes interpose malloc too). Beside it, the loop's sleep on another
 * device's word (io/loop.c, sleep_on_word): a value waiting for a word
 * starts once the word is stored and woken, and a value that waits for
 * nothing, submitted while the loop sleeps there, runs meanwhile.
 */
#include <fcntl.h>

#include "../core/calls.h"
#include "common.h"

#define SLOT	4096u
#define SLOTS	64u
#define WARM	2000u
#define COUNTED	20000u

static void
fill(uint32_t *buf, uint32_t tag)
{
	for (size_t i = 0; i < SLOT / 4; i++)
		buf[i] = tag * 2654435761u + (uint32_t)i;
}

/* SLOT bytes of the file name at offset, through a descriptor of its own. */
static void
read_back(const char *name, uint64_t offset, uint32_t *got)
{
	int fd = open(tmp_path(name), O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, got, SLOT, (off_t)offset), (ssize_t)SLOT);
	close(fd);
}

#ifndef SANITIZED
static void
test_small_submits_allocate_nothing(void **state)
{
	static uint32_t bufs[SLOTS][SLOT / 4], got[SLOT / 4];
	struct tdisk t;
	void *f;
	uint64_t last = 0;
	/* A producer's word the writes wait for, always shown: the path of a
	 * copy after a kernel. */
	static _Atomic uint64_t producer = 1;
	struct rig_wait w = { &producer, 1, RIG_BY_HOST };

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "steady.bin", SLOTS * SLOT);
	for (uint32_t i = 0; i < SLOTS; i++)
		fill(bufs[i], i);
	allocs = locks = 0;
	for (uint32_t i = 0; i < WARM + COUNTED; i++) {
		struct rig_io_op op = { RIG_IO_WRITE, f, (i % SLOTS) * SLOT, bufs[i % SLOTS], SLOT };
		const char *failure = NULL;

		counting = i >= WARM;
		assert_int_equal(rig_disk_io.submit_after(t.d, t.next, &op, 1, &w, 1, &failure), RIG_OK);
		last = t.next++;
		if (i % SLOTS == SLOTS - 1)
			last = tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0);
		counting = false;
		/* Now and then let the loop catch up, as a server would (fewer
		 * values in flight than the job cache keeps: jobs.c, JOBS_MAX). */
		if (i % 512 == 511)
			twait(&t, last);
	}
	twait(&t, last);
	assert_int_equal(allocs, 0);
	assert_int_equal(locks, 0);
	for (uint32_t s = 0; s < SLOTS; s++) {
		read_back("steady.bin", s * SLOT, got);
		assert_memory_equal(got, bufs[s], SLOT);
	}
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}
#endif

static void
test_sleep_on_a_word(void **state)
{
	static uint32_t a[SLOT / 4], b[SLOT / 4], got[SLOT / 4];
	/* A slot of rig's words, as another device's: the loop sleeps on its
	 * event count (rig_word_sleep), which rig_word_wake() bumps. */
	_Atomic uint64_t *producer = &rig_words[RIG_WORD_SLOTS - 1];
	uint64_t base = atomic_load(producer);
	struct rig_wait w = { producer, base + 1, RIG_BY_HOST };
	struct timespec nap = { 0, 20000000 };
	const char *failure = NULL;
	uint64_t blocked, other, t0;
	struct tdisk t;
	void *f, *g;

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "blocked.bin", SLOT);
	g = tfile_create(&t, "other.bin", SLOT);
	fill(a, 1);
	fill(b, 2);
	struct rig_io_op op = { RIG_IO_WRITE, f, 0, a, SLOT };

	assert_int_equal(rig_disk_io.submit_after(t.d, t.next, &op, 1, &w, 1, &failure), RIG_OK);
	blocked = t.next++;
	nanosleep(&nap, NULL);		/* the loop is past its looks: asleep */
	assert_int_equal(atomic_load(&t.word), 0);
	/* Work that waits for nothing, submitted while the loop sleeps on the
	 * word: another file's write goes at once (its value shows only
	 * after the blocked one: values show in order). */
	other = tsubmit1(&t, RIG_IO_WRITE, g, 0, b, SLOT);
	t0 = now_ns();
	for (;;) {
		read_back("other.bin", 0, got);
		if (!memcmp(got, b, SLOT))
			break;
		if (now_ns() - t0 > 30 * SECOND_NS)
			fail_msg("the write that waits for nothing did not run while the loop slept");
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	assert_int_equal(atomic_load(&t.word), 0);	/* the first still waits */
	read_back("blocked.bin", 0, got);
	assert_memory_not_equal(got, a, SLOT);		/* and has not run */
	atomic_store_explicit(producer, base + 1, memory_order_release);
	rig_word_wake(producer);
	twait(&t, other);
	assert_true(blocked < other);
	read_back("blocked.bin", 0, got);
	assert_memory_equal(got, a, SLOT);
	rig_disk_io.release(t.d, f);
	rig_disk_io.release(t.d, g);
	tdisk_stop(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#ifndef SANITIZED
		cmocka_unit_test(test_small_submits_allocate_nothing),
#endif
		cmocka_unit_test(test_sleep_on_a_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
