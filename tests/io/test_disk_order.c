/* SPDX-License-Identifier: MIT */
/*
 * test_disk_order: the loop's value order and hazards (io/loop.c, included
 * here and tested alone, with a backend that only records what it is
 * handed). Jobs that arrive out of order (two submitters whose pushes
 * crossed) join the list in value order; the loop never starts a value
 * before every earlier one arrived; the word shows a value only once it
 * and every earlier value are done. A piece that conflicts with nothing
 * before it goes past one that must wait (another file's write behind an
 * fsync, a value whose producer's word is behind); one that conflicts
 * waits its turn.
 */
#include "../../src/io/loop.c"
#include "common.h"

#define DEPTH 8

/* Files whose refs never run out, so no job closes them. */
static struct disk_file file = { .magic = DISK_FILE_MAGIC, .refs = 1u << 30 };
static struct disk_file other = { .magic = DISK_FILE_MAGIC, .refs = 1u << 30 };
static char host[16][4096];

/* What the backend was handed, in order. */
static struct disk_piece *issued[64];
static size_t nissued;

static int
rec_issue(struct disk *d, struct disk_piece *p)
{
	issued[nissued++] = p;
	return 0;
}

static int
rec_reap(struct disk *d, bool block, uint64_t timeout_ns)
{
	return 0;
}

static const struct disk_backend rec_backend = { .issue = rec_issue, .reap = rec_reap };

static void
disk_init(struct disk *d, _Atomic uint64_t *word, uint64_t base)
{
	*d = (struct disk){ .word = word, .shown = base, .cut_value = base,
			    .be = &rec_backend };
	d->opt.depth = DEPTH;
	d->opt.chunk_bytes = 1u << 20;
	d->pieces = calloc(DEPTH, sizeof(*d->pieces));
	for (int i = DEPTH - 1; i >= 0; i--)
		piece_free(d, &d->pieces[i]);
	nissued = 0;
}

static void
disk_fini(struct disk *d)
{
	while (d->first) {
		struct disk_job *j = d->first;

		d->first = j->later;
		free(j);
	}
	free(d->pieces);
}

/* A job of one op of kind on f, from host[buf] (a barrier: no bytes). */
static struct disk_job *
job_of(uint64_t value, enum rig_io_op_kind kind, struct disk_file *f, int buf)
{
	struct disk_job *j = calloc(1, sizeof(*j) + sizeof(struct rig_io_op));

	j->value = value;
	j->nops = 1;
	j->ops[0] = kind == RIG_IO_BARRIER ?
		(struct rig_io_op){ kind, f, 0, NULL, 0 } :
		(struct rig_io_op){ kind, f, 0, host[buf], 4096 };
	return j;
}

static struct disk_job *
job(uint64_t value, size_t nops)
{
	struct disk_job *j = calloc(1, sizeof(*j) + nops * sizeof(struct rig_io_op));

	j->value = value;
	j->nops = nops;
	for (size_t i = 0; i < nops; i++)
		j->ops[i] = (struct rig_io_op){ RIG_IO_READ, &file, i * 4096, host[value % 16], 4096 };
	return j;
}

/* The piece issued n-th completes, all its bytes moved. */
static void
complete(struct disk *d, size_t n)
{
	loop_piece_done(d, issued[n], issued[n]->bytes);
}

static void
test_crossed_arrivals_start_in_order(void **state)
{
	_Atomic uint64_t word = 10;
	struct disk d;
	struct disk_job *j11 = job(11, 1), *j12 = job(12, 1), *j13 = job(13, 1);

	disk_init(&d, &word, 10);
	job_insert(&d, j12);		/* 12 pushed before 11 */
	assert_false(issue_some(&d));	/* 11 has not arrived: nothing starts */
	job_insert(&d, j13);
	assert_false(issue_some(&d));
	job_insert(&d, j11);
	assert_ptr_equal(d.first, j11);
	assert_ptr_equal(j11->later, j12);
	assert_ptr_equal(j12->later, j13);
	assert_ptr_equal(d.last, j13);
	assert_true(issue_some(&d));
	assert_int_equal(nissued, 3);
	assert_ptr_equal(issued[0]->job, j11);
	assert_ptr_equal(issued[1]->job, j12);
	assert_ptr_equal(issued[2]->job, j13);
	assert_null(d.cursor);
	assert_int_equal(d.cut_value, 13);

	/* 12 and 13 finish first: the word waits for 11. */
	complete(&d, 1);
	complete(&d, 2);
	advance(&d);
	assert_int_equal(atomic_load(&word), 10);
	complete(&d, 0);
	advance(&d);
	assert_int_equal(atomic_load(&word), 13);
	assert_null(d.first);
	assert_null(d.last);
	disk_fini(&d);
}

/* A job with no ops, or only empty ones, is done as soon as it is reached. */
static void
test_empty_values_pass(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d;
	struct disk_job *a = job(1, 0), *b = job(2, 2);

	disk_init(&d, &word, 0);
	b->ops[0].bytes = b->ops[1].bytes = 0;
	job_insert(&d, a);
	job_insert(&d, b);
	assert_false(issue_some(&d));
	advance(&d);
	assert_int_equal(atomic_load(&word), 2);
	disk_fini(&d);
}

/* After a failure, jobs that arrive are dropped and the word stays. */
static void
test_failed_disk_drops_arrivals(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d;

	disk_init(&d, &word, 0);
	atomic_store(&d.failed, 2);
	job_insert(&d, job(1, 1));
	assert_null(d.cursor);
	assert_false(issue_some(&d));
	advance(&d);
	assert_int_equal(atomic_load(&word), 0);
	assert_null(d.first);
	disk_fini(&d);
}

/*
 * An fsync of file in flight holds the next write of file (it would run
 * during the fsync) and a later write of the same bytes (it must follow
 * the held one), but not a write of another file: that one goes at once.
 * The word still shows the values in order.
 */
static void
test_write_of_another_file_passes_a_barrier(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d;

	disk_init(&d, &word, 0);
	job_insert(&d, job_of(1, RIG_IO_WRITE, &file, 0));
	job_insert(&d, job_of(2, RIG_IO_BARRIER, &file, 0));
	job_insert(&d, job_of(3, RIG_IO_WRITE, &file, 1));	/* after the fsync */
	job_insert(&d, job_of(4, RIG_IO_WRITE, &other, 2));	/* another file */
	job_insert(&d, job_of(5, RIG_IO_WRITE, &file, 3));	/* 3's bytes again */
	assert_true(issue_some(&d));
	/* The barrier waits for write 1; 3 and 5 wait behind it; 4 goes. */
	assert_int_equal(nissued, 2);
	assert_int_equal(issued[0]->job->value, 1);
	assert_int_equal(issued[1]->job->value, 4);
	complete(&d, 1);
	advance(&d);
	assert_int_equal(atomic_load(&word), 0);
	complete(&d, 0);
	assert_true(issue_some(&d));
	assert_int_equal(nissued, 3);
	assert_int_equal(issued[2]->kind, RIG_IO_BARRIER);
	assert_false(issue_some(&d));	/* 3 and 5 wait for the fsync */
	advance(&d);
	assert_int_equal(atomic_load(&word), 1);
	complete(&d, 2);
	advance(&d);
	assert_int_equal(atomic_load(&word), 2);
	/* 3 goes; 5 writes 3's file bytes, so it waits for 3 to end. */
	assert_true(issue_some(&d));
	assert_int_equal(nissued, 4);
	assert_int_equal(issued[3]->job->value, 3);
	assert_false(issue_some(&d));
	complete(&d, 3);
	assert_true(issue_some(&d));
	assert_int_equal(issued[4]->job->value, 5);
	complete(&d, 4);
	advance(&d);
	assert_int_equal(atomic_load(&word), 5);
	assert_null(d.first);
	disk_fini(&d);
}

/*
 * A value that waits for another device's word starts only once the word
 * shows its value; meanwhile a later value that conflicts with nothing of
 * it goes, one that reads the host bytes it writes waits, and the word
 * shows neither past it.
 */
static void
test_value_waits_for_a_word(void **state)
{
	_Atomic uint64_t word = 0, producer = 6;
	struct rig_wait w = { &producer, 7, RIG_BY_HOST };
	struct disk d;
	struct disk_job *j1 = job_of(1, RIG_IO_READ, &file, 0);

	disk_init(&d, &word, 0);
	j1->waits = &w;
	j1->nwaits = 1;
	job_insert(&d, j1);
	job_insert(&d, job_of(2, RIG_IO_WRITE, &other, 1));	/* nothing of 1's */
	job_insert(&d, job_of(3, RIG_IO_WRITE, &other, 0));	/* reads what 1 reads into */
	assert_true(issue_some(&d));
	assert_int_equal(nissued, 1);
	assert_int_equal(issued[0]->job->value, 2);
	assert_ptr_equal(d.blocked, &w);
	complete(&d, 0);
	advance(&d);
	assert_int_equal(atomic_load(&word), 0);
	assert_false(issue_some(&d));
	atomic_store(&producer, 7);
	assert_true(issue_some(&d));
	assert_null(d.blocked);
	assert_int_equal(nissued, 2);
	assert_int_equal(issued[1]->job->value, 1);
	assert_false(issue_some(&d));	/* 3 waits for 1's read */
	complete(&d, 1);
	assert_true(issue_some(&d));
	assert_int_equal(issued[2]->job->value, 3);
	complete(&d, 2);
	advance(&d);
	assert_int_equal(atomic_load(&word), 3);
	disk_fini(&d);
}

/*
 * A walk finds what the last one found unless something changed: with an
 * fsync in flight holding two writes back, a second look checks nothing
 * (no hold-back counted), a new value or a piece's end makes the next look
 * walk again, and the held writes go once the fsync ends.
 */
static void
test_walk_only_after_a_change(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d;
	uint64_t held;

	disk_init(&d, &word, 0);
	job_insert(&d, job_of(1, RIG_IO_BARRIER, &file, 0));
	job_insert(&d, job_of(2, RIG_IO_WRITE, &file, 1));
	job_insert(&d, job_of(3, RIG_IO_WRITE, &file, 2));
	assert_true(issue_some(&d));
	assert_int_equal(nissued, 1);
	held = atomic_load(&d.stats.held);
	assert_true(held > 0);
	assert_false(issue_some(&d));		/* nothing changed: no walk */
	assert_int_equal(atomic_load(&d.stats.held), held);
	job_insert(&d, job_of(4, RIG_IO_WRITE, &file, 3));
	assert_false(issue_some(&d));		/* a new value: a walk, still held */
	assert_true(atomic_load(&d.stats.held) > held);
	/* The fsync ends; the writes (all at offset 0) go one after another,
	 * each walk after the one before ended. */
	for (size_t i = 1; i < 4; i++) {
		complete(&d, i - 1);
		assert_true(issue_some(&d));
		assert_int_equal(nissued, i + 1);
		assert_int_equal(issued[i]->job->value, i + 1);
		assert_false(issue_some(&d));
	}
	complete(&d, 3);
	advance(&d);
	assert_int_equal(atomic_load(&word), 4);
	disk_fini(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crossed_arrivals_start_in_order),
		cmocka_unit_test(test_empty_values_pass),
		cmocka_unit_test(test_failed_disk_drops_arrivals),
		cmocka_unit_test(test_write_of_another_file_passes_a_barrier),
		cmocka_unit_test(test_value_waits_for_a_word),
		cmocka_unit_test(test_walk_only_after_a_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
