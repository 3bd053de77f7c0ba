/* SPDX-License-Identifier: MIT */
/*
 * test_disk_joined: the writes the loop makes itself (io/uring.c, on a file
 * system whose buffered writes io_uring would hand to its workers: ext4).
 * Neighbour writes issued in one walk are made in one pwritev() and each
 * completes with its own bytes on file, in the order the hazards say; a
 * short pwritev() completes the pieces it covered, writes the rest of the
 * one it ended in again, and issues the later ones again, so the failure
 * that follows names the first byte not written and the word shows every
 * value whose bytes are on file, and no later one.
 *
 * How the writes come to one walk: a read of the whole file waits for a
 * word the test holds (submit_after), so the 64 writes behind it, which
 * write the bytes it reads, wait for it; once the word moves the read goes,
 * and once it ends all 64 go in the next walk.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "common.h"
#include "io/engine.h"

#define SLOTS	64
#define SLOT	4096u

static unsigned char data[SLOTS][SLOT], back[SLOTS * SLOT];

/* The read of the whole file into back, held until *gate shows 1, then a
 * write of each slot from data: the writes' last value. */
static uint64_t
submit_held_batch(struct tdisk *t, void *f, _Atomic uint64_t *gate)
{
	struct rig_io_op read = { RIG_IO_READ, f, 0, back, sizeof(back) };
	struct rig_wait w = { .word = gate, .value = 1 };
	const char *failure = NULL;
	uint64_t last = 0;

	if (rig_disk_io.submit_after(t->d, t->next, &read, 1, &w, 1, &failure) != RIG_OK)
		fail_msg("submit_after: %s", failure ? failure : "(no message)");
	t->next++;
	for (int i = 0; i < SLOTS; i++)
		last = tsubmit1(t, RIG_IO_WRITE, f, (uint64_t)i * SLOT, data[i], SLOT);
	return last;
}

static void
open_gate(_Atomic uint64_t *gate)
{
	/* Pairs with the loop's acquire load of the word. */
	atomic_store_explicit(gate, 1, memory_order_release);
	rig_word_wake(gate);	/* the loop may sleep on it */
}

static void
fill_slots(void)
{
	for (int i = 0; i < SLOTS; i++)
		memset(data[i], 0x40 + i, SLOT);
}

/* Whether the loop makes f's writes itself (io_uring mode, on ext4). */
static bool
loop_writes(struct tdisk *t, void *f)
{
	return !strncmp(disk_mode(t->d), "io_uring", 8) &&
	       ((struct disk_file *)f)->write_inline;
}

/* 64 neighbour writes in one walk: one pwritev() (ext4), every byte on
 * file, after the read that came before them saw none of them. */
static void
test_neighbour_writes_made_together(void **state)
{
	_Atomic uint64_t gate = 0;
	struct disk_stats st;
	struct tdisk t;
	FILE *fp;
	void *f;

	fill_slots();
	memset(back, 0xff, sizeof(back));
	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "joined.bin", SLOTS * SLOT);
	submit_held_batch(&t, f, &gate);
	assert_int_equal(atomic_load(&t.word), 0);	/* the read holds them all */
	open_gate(&gate);
	twait(&t, t.next - 1);
	for (size_t i = 0; i < sizeof(back); i++)
		if (back[i])
			fail_msg("the read saw byte %zu = 0x%02x: a later write ran first",
				 i, back[i]);
	fp = fopen(tmp_path("joined.bin"), "rb");
	assert_non_null(fp);
	assert_int_equal(fread(back, 1, sizeof(back), fp), sizeof(back));
	fclose(fp);
	assert_memory_equal(back, data, sizeof(back));
	disk_stats(t.d, &st);
	print_message("# %s: %llu of %d writes made together\n",
		      loop_writes(&t, f) ? "the loop writes" : "io_uring writes",
		      (unsigned long long)st.joined, SLOTS);
	if (loop_writes(&t, f))
		assert_int_equal(st.joined, SLOTS);
	else
		assert_int_equal(st.joined, 0);
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
}

/* In a child whose file size limit (RLIMIT_FSIZE) ends inside slot 24: 0
 * if all is as the top says, else 1, with the cause on stderr. */
#define LIMIT	(24 * SLOT + 2560)

static int
short_child(void)
{
	struct rlimit lim = { LIMIT, LIMIT };
	_Atomic uint64_t gate = 0;
	char at[64];
	struct tdisk t;
	const char *why;
	FILE *fp;
	void *f;

	tdisk_open(&t, NULL, 0);
	f = tfile_create(&t, "short.bin", SLOTS * SLOT);	/* before the limit */
	if (!loop_writes(&t, f)) {
		rig_disk_io.release(t.d, f);
		tdisk_stop(&t);
		return 77;
	}
	signal(SIGXFSZ, SIG_IGN);	/* a write past it: EFBIG, no signal */
	if (setrlimit(RLIMIT_FSIZE, &lim) < 0) {
		perror("setrlimit");
		return 1;
	}
	submit_held_batch(&t, f, &gate);
	open_gate(&gate);
	why = twait_failure(&t);
	snprintf(at, sizeof(at), "at %u: File too large", LIMIT);
	if (!strstr(why, at)) {
		fprintf(stderr, "the failure \"%s\" lacks \"%s\"\n", why, at);
		return 1;
	}
	/* The read is value 1, slot i's write 2 + i: slots 0-23 whole. */
	if (atomic_load(&t.word) != 25) {
		fprintf(stderr, "the word shows %llu, not 25\n",
			(unsigned long long)atomic_load(&t.word));
		return 1;
	}
	fp = fopen(tmp_path("short.bin"), "rb");
	if (!fp || fread(back, 1, sizeof(back), fp) != sizeof(back) ||
	    memcmp(back, data, LIMIT)) {
		fprintf(stderr, "the bytes before the limit are not the writes'\n");
		return 1;
	}
	fclose(fp);
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
	return 0;
}

static void
test_short_write_made_again(void **state)
{
	int status;
	pid_t pid;

	fill_slots();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(short_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("# io_uring writes this file system's files: no short pwritev\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbour_writes_made_together),
		cmocka_unit_test(test_short_write_made_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
