/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the measurement module every benchmark program uses.
 *
 * A program calls bench_init() with its command line, then one of the
 * timers below per figure. Each timer warms up, runs R timed runs (7, or 3
 * with --quick), and prints one JSON object per figure on stdout:
 *
 *   {"name":"round_trip","impl":"pthread","role":"peer","n":2000,"runs":7,
 *    "stat":"per-op samples","median":12345.6,"p99":23456.7,"unit":"ns",
 *    "spread":[lo,hi]}
 *
 * name pairs figures across implementations (bench/run takes ratios of
 * figures with the same name); role is "floor", "peer" or "rig"; n is the
 * operations timed per run; stat says what the median and p99 are taken
 * over: "per-op samples" (every operation timed alone, all runs pooled) or
 * "per-run figures" (each run's total time over its n operations, one
 * figure per run). spread is the lowest and highest per-run median. Times
 * are in ns per operation; a figure with bytes per operation is shown in
 * GB/s (10^9 bytes per second), and its p99 is then the bandwidth of the
 * slow tail (the 99th percentile of the time).
 *
 * Nothing here fails on timing. A timer returns 0, or the negative status
 * the measured function returned (the program then exits 1). Single
 * threaded: a program measures one thing at a time, so that nothing it runs
 * competes with the measurement for this machine's cores.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status of a program whose peer is not on this machine: skipped. */
#define BENCH_SKIP	77

struct bench {
	const char *prog;	/* the program's name, in its machine line */
	int runs;		/* R: timed runs per figure */
	bool quick;		/* --quick: 3 runs, small counts */
};

/* The roles of a figure: what bench/run compares it with. */
enum bench_role {
	BENCH_FLOOR,		/* the least the work can cost on this machine */
	BENCH_PEER,		/* what users run today */
	BENCH_RIG,		/* rig */
};

/*
 * bench_init() - read the command line (--quick, --runs R) and print the
 * machine line: {"machine":{"prog":..,"cpu":..,"cores":..,"loadavg":..}}.
 * Exits 2 with a usage line on an unknown argument.
 */
void bench_init(struct bench *b, const char *prog, int argc, char **argv);

/* count in a full run, or quick_count with --quick. */
uint64_t bench_count(const struct bench *b, uint64_t count, uint64_t quick_count);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* Read up to cap bytes of the file at path into buf (a kernel object):
 * how many, or 0 when it cannot be read. */
size_t bench_read_file(const char *path, void *buf, size_t cap);

/* Runs n operations; returns 0 or a negative status. */
typedef int (*bench_batch_fn)(void *arg, uint64_t n);
/* Runs one operation; returns 0 or a negative status. */
typedef int (*bench_one_fn)(void *arg);

/*
 * bench_per_run() - time R calls of fn(arg, n) after a warm-up call
 * fn(arg, max(n / 10, 1)); each run gives the figure total / n.
 * bytes (0 for none) is what one operation moves, for a GB/s figure.
 */
int bench_per_run(const struct bench *b, const char *name, const char *impl,
		  enum bench_role role, bench_batch_fn fn, void *arg,
		  uint64_t n, double bytes);

/*
 * bench_per_op() - time each of n calls of fn(arg) in each of R runs after
 * a warm-up of max(n / 10, 1) calls; the median and p99 are taken over
 * all R * n samples. For operations of a microsecond or more: the clock
 * costs some tens of nanoseconds per sample.
 */
int bench_per_op(const struct bench *b, const char *name, const char *impl,
		 enum bench_role role, bench_one_fn fn, void *arg,
		 uint64_t n, double bytes);

/*
 * bench_per_op_pair() - bench_per_op() of two implementations of one
 * figure whose runs alternate (A B B A A B ...), after a warm-up of each:
 * a change in the machine's load between runs meets both alike, where one
 * figure's runs all before the other's would meet it in one. Each sample
 * is the mean of PAIR_GROUP calls in a row (n samples, n * PAIR_GROUP
 * calls a run): a pair is for differences of a few nanoseconds, and a
 * per-call sample is a whole number of the clock's ticks (10 ns on a VM
 * whose TSC counts in steps), so two medians of per-call samples differ
 * by 0 or a tick whatever the true difference. Prints impl[0]'s figure,
 * then impl[1]'s.
 */
#define PAIR_GROUP 8
int bench_per_op_pair(const struct bench *b, const char *name, enum bench_role role,
		      const char *const impl[2], bench_one_fn const fn[2],
		      void *const arg[2], uint64_t n);

/* Runs one operation with untimed work around it, and stores in *ns the
 * time of the part that is the figure; returns 0 or a negative status. */
typedef int (*bench_self_fn)(void *arg, uint64_t *ns);

/*
 * bench_per_op_self() - bench_per_op() of an operation that times itself
 * (fn sets each sample): for one whose setup and teardown must not count,
 * such as an open between a close and a reset. Warm-up of one call.
 */
int bench_per_op_self(const struct bench *b, const char *name, const char *impl,
		      enum bench_role role, bench_self_fn fn, void *arg, uint64_t n);

/* Print a note on stderr: what a program skips, and why. */
void bench_note(const struct bench *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* BENCH_H */
