/* SPDX-License-Identifier: MIT */
/*
 * test_disk_order: the loop's value order (io/loop.c, included here and
 * tested alone, with no backend). Jobs that arrive out of order (two
 * submitters whose pushes crossed) join the list in value order; the loop
 * never starts a value before every earlier one arrived; the word shows a
 * value only once it and every earlier value are done.
 */
#include "../../src/io/loop.c"
#include "common.h"

/* Each op names this file; its refs never run out, so no job closes it. */
static struct disk_file file = { .magic = DISK_FILE_MAGIC, .refs = 1u << 30 };

static struct disk_job *
job(uint64_t value, size_t nops)
{
	struct disk_job *j = calloc(1, sizeof(*j) + nops * sizeof(struct rig_io_op));

	j->value = value;
	j->nops = nops;
	for (size_t i = 0; i < nops; i++)
		j->ops[i] = (struct rig_io_op){ RIG_IO_READ, &file, 0, NULL, 4096 };
	return j;
}

/* Cut every op of the cursor's job, as issue_some() does. */
static void
cut_all(struct disk *d, struct disk_job *j)
{
	j->op = j->nops;
	j->in_flight = 1;
	cursor_job(d);
}

static void
test_crossed_arrivals_start_in_order(void **state)
{
	_Atomic uint64_t word = 10;
	struct disk d = { .word = &word, .shown = 10, .cut_value = 10 };
	struct disk_job *j11 = job(11, 1), *j12 = job(12, 1), *j13 = job(13, 1);

	job_insert(&d, j12);		/* 12 pushed before 11 */
	assert_null(cursor_job(&d));	/* 11 has not arrived: nothing starts */
	job_insert(&d, j13);
	assert_null(cursor_job(&d));
	job_insert(&d, j11);
	assert_ptr_equal(d.first, j11);
	assert_ptr_equal(j11->later, j12);
	assert_ptr_equal(j12->later, j13);
	assert_ptr_equal(d.last, j13);
	assert_ptr_equal(cursor_job(&d), j11);
	cut_all(&d, j11);
	assert_ptr_equal(cursor_job(&d), j12);
	cut_all(&d, j12);
	cut_all(&d, j13);
	assert_null(cursor_job(&d));
	assert_int_equal(d.cut_value, 13);

	/* 12 and 13 finish first: the word waits for 11. */
	j12->in_flight = j13->in_flight = 0;
	advance(&d);
	assert_int_equal(atomic_load(&word), 10);
	j11->in_flight = 0;
	advance(&d);
	assert_int_equal(atomic_load(&word), 13);
	assert_null(d.first);
	assert_null(d.last);
}

/* A job with no ops, or only empty ones, is done as soon as it is reached. */
static void
test_empty_values_pass(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d = { .word = &word };
	struct disk_job *a = job(1, 0), *b = job(2, 2);

	b->ops[0].bytes = b->ops[1].bytes = 0;
	job_insert(&d, a);
	job_insert(&d, b);
	assert_null(cursor_job(&d));
	advance(&d);
	assert_int_equal(atomic_load(&word), 2);
}

/* After a failure, jobs that arrive are dropped and the word stays. */
static void
test_failed_disk_drops_arrivals(void **state)
{
	_Atomic uint64_t word = 0;
	struct disk d = { .word = &word };

	atomic_store(&d.failed, 2);
	job_insert(&d, job(1, 1));
	assert_null(d.cursor);
	assert_null(cursor_job(&d));
	advance(&d);
	assert_int_equal(atomic_load(&word), 0);
	assert_null(d.first);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crossed_arrivals_start_in_order),
		cmocka_unit_test(test_empty_values_pass),
		cmocka_unit_test(test_failed_disk_drops_arrivals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
