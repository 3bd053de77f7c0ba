/* SPDX-License-Identifier: MIT */
/*
 * test_disk_kick: the writeback the io_uring backend starts before a
 * barrier (io/uring.c, kick_writeback). On a file that has had a barrier,
 * every KICK (1 MiB) of writes that ended since its last barrier or kick
 * starts their writeback (sync_file_range), so the next fsync finds most
 * of them on their way; a file that never had a barrier is left to the
 * kernel's own writeback; a barrier starts the count again. The bytes on
 * file are the writes' whatever order they ended in, and the threads
 * backend starts none.
 */
#include "common.h"

#define PIECE	(256u << 10)
#define PIECES	16			/* 4 MiB: KICK 4 times */
#define KICK	(1u << 20)

static unsigned char data[PIECES][PIECE], back[PIECES * PIECE];

static void
fill(int round)
{
	for (int i = 0; i < PIECES; i++)
		memset(data[i], 0x10 * round + i, PIECE);
}

/* The PIECES writes, in order, or from the last back when reverse (the
 * range a kick covers then grows down). */
static void
write_all(struct tdisk *t, void *f, bool reverse)
{
	for (int k = 0; k < PIECES; k++) {
		int i = reverse ? PIECES - 1 - k : k;

		tsubmit1(t, RIG_IO_WRITE, f, (uint64_t)i * PIECE, data[i], PIECE);
	}
}

static uint64_t
kicks(struct tdisk *t)
{
	struct disk_stats st;

	disk_stats(t->d, &st);
	return st.kicks;
}

static void
assert_file_is_data(const char *name)
{
	FILE *fp = fopen(tmp_path(name), "rb");

	assert_non_null(fp);
	assert_int_equal(fread(back, 1, sizeof(back), fp), sizeof(back));
	fclose(fp);
	assert_memory_equal(back, data, sizeof(back));
}

static bool
uring_mode(struct tdisk *t)
{
	return !strncmp(disk_mode(t->d), "io_uring", 8);
}

/* No kick before the file's first barrier; after it, one per KICK bytes of
 * writes, in order or not; the barrier after them counts afresh; every
 * byte on file after each barrier. */
static void
test_kicks_after_a_barrier(void **state)
{
	uint64_t per_round;
	struct tdisk t;
	void *f;

	tdisk_open(&t, NULL, 0);
	per_round = uring_mode(&t) ? PIECES * PIECE / KICK : 0;
	print_message("# %s: %llu kicks a round of %u MiB after a barrier\n", disk_mode(t.d),
		      (unsigned long long)per_round, PIECES * PIECE >> 20);
	f = tfile_create(&t, "kick.bin", sizeof(back));

	fill(1);
	write_all(&t, f, false);
	twait(&t, t.next - 1);
	assert_int_equal(kicks(&t), 0);		/* never a barrier: the kernel's */
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), 0);
	assert_file_is_data("kick.bin");

	fill(2);
	write_all(&t, f, false);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), per_round);
	assert_file_is_data("kick.bin");

	fill(3);
	write_all(&t, f, true);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), 2 * per_round);
	assert_file_is_data("kick.bin");

	/* Less than KICK, then a barrier: the count starts again after it,
	 * so the round after kicks as many times as any. */
	tsubmit1(&t, RIG_IO_WRITE, f, 0, data[0], PIECE);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), 2 * per_round);
	fill(4);
	write_all(&t, f, false);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), 3 * per_round);
	assert_file_is_data("kick.bin");

	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}

/* Two files of one disk: each counts its own writes and barriers; the one
 * that never had a barrier is never kicked. */
static void
test_kicks_count_per_file(void **state)
{
	uint64_t per_round;
	struct tdisk t;
	void *f, *g;

	tdisk_open(&t, NULL, 0);
	per_round = uring_mode(&t) ? PIECES * PIECE / KICK : 0;
	f = tfile_create(&t, "kick-f.bin", sizeof(back));
	g = tfile_create(&t, "kick-g.bin", sizeof(back));
	fill(5);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	write_all(&t, g, false);		/* g: never a barrier */
	write_all(&t, f, false);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), per_round);
	assert_file_is_data("kick-f.bin");
	assert_file_is_data("kick-g.bin");	/* written, in the page cache */
	rig_disk_io.release(t.d, g);
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}

/* The threads backend starts no writeback of its own. */
static void
test_threads_never_kick(void **state)
{
	struct tdisk t;
	void *f;

	tdisk_open(&t, &(struct rig_disk_options){ .size = sizeof(struct rig_disk_options),
						   .mode = RIG_DISK_THREADS }, 0);
	assert_string_equal(disk_mode(t.d), "threads");
	f = tfile_create(&t, "kick-threads.bin", sizeof(back));
	fill(6);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	write_all(&t, f, false);
	twait(&t, tsubmit1(&t, RIG_IO_BARRIER, f, 0, NULL, 0));
	assert_int_equal(kicks(&t), 0);
	assert_file_is_data("kick-threads.bin");
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kicks_after_a_barrier),
		cmocka_unit_test(test_kicks_count_per_file),
		cmocka_unit_test(test_threads_never_kick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
