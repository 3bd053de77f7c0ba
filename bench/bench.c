/* SPDX-License-Identifier: MIT */
/*
 * bench.c: warm-up, timed runs, medians and percentiles, and the JSON lines
 * of bench.h. Percentiles are nearest-rank over sorted times; the median of
 * an even count is the mean of the middle two.
 */
#include "bench.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUNS_FULL	7
#define RUNS_QUICK	3

static const char *const role_names[] = {
	[BENCH_FLOOR] = "floor",
	[BENCH_PEER] = "peer",
	[BENCH_RIG] = "rig",
};

uint64_t
bench_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t
bench_count(const struct bench *b, uint64_t count, uint64_t quick_count)
{
	return b->quick ? quick_count : count;
}

void
bench_note(const struct bench *b, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", b->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Print s as a JSON string, quotes included. */
static void
json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The first line of path that starts with key, after its ": ", or "". */
static void
read_field(const char *path, const char *key, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *from = line;
		size_t n;

		if (key[0] && strncmp(line, key, strlen(key)) != 0)
			continue;
		if (key[0] && strchr(line, ':'))
			from = strchr(line, ':') + 1;
		from += strspn(from, " \t");
		n = strcspn(from, "\n");
		n = n < len ? n : len - 1;
		memcpy(out, from, n);
		out[n] = '\0';
		break;
	}
	fclose(f);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static double
median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median cost of one clock read, which each per-op sample includes. */
static double
clock_ns(void)
{
	double d[1001];
	uint64_t t0 = bench_now_ns();

	for (size_t i = 0; i < 1001; i++) {
		uint64_t t1 = bench_now_ns();

		d[i] = (double)(t1 - t0);
		t0 = t1;
	}
	return median(d, 1001);
}

static void
print_machine(const struct bench *b)
{
	char cpu[256], load[128];

	read_field("/proc/cpuinfo", "model name", cpu, sizeof(cpu));
	read_field("/proc/loadavg", "", load, sizeof(load));
	printf("{\"machine\":{\"prog\":");
	json_string(b->prog);
	printf(",\"cpu\":");
	json_string(cpu[0] ? cpu : "unknown");
	printf(",\"cores\":%ld,\"loadavg\":", sysconf(_SC_NPROCESSORS_ONLN));
	json_string(load);
	printf(",\"clock_ns\":%.3g,\"runs\":%d,\"quick\":%s}}\n", clock_ns(),
	       b->runs, b->quick ? "true" : "false");
	fflush(stdout);
}

void
bench_init(struct bench *b, const char *prog, int argc, char **argv)
{
	b->prog = prog;
	b->quick = false;
	b->runs = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			b->quick = true;
		} else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
			b->runs = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--quick] [--runs R]\n", prog);
			exit(2);
		}
	}
	if (b->runs < 1)
		b->runs = b->quick ? RUNS_QUICK : RUNS_FULL;
	print_machine(b);
}

/* v sorted; nearest rank. */
static double
percentile(const double *v, size_t n, double p)
{
	size_t rank = (size_t)(p * (double)n + 0.999999);

	return v[rank ? rank - 1 : 0];
}

/* ns per operation in the figure's unit: ns, or GB/s when bytes > 0. */
static double
in_unit(double ns, double bytes)
{
	return bytes > 0 ? bytes / ns : ns;
}

/*
 * Print one figure. all holds every sample (sorted here), run_medians the
 * median of each run; times in ns per operation.
 */
static void
report(const struct bench *b, const char *name, const char *impl,
       enum bench_role role, uint64_t n, const char *stat, double *all,
       size_t count, double *run_medians, double bytes)
{
	double med = median(all, count);
	double p99 = percentile(all, count, 0.99);
	double lo, hi;

	qsort(run_medians, (size_t)b->runs, sizeof(double), cmp_double);
	lo = run_medians[0];
	hi = run_medians[b->runs - 1];
	if (bytes > 0) {		/* the fast run has the high bandwidth */
		double t = lo;

		lo = hi;
		hi = t;
	}
	printf("{\"name\":");
	json_string(name);
	printf(",\"impl\":");
	json_string(impl);
	printf(",\"role\":\"%s\",\"n\":%llu,\"runs\":%d,\"stat\":\"%s\","
	       "\"median\":%.6g,\"p99\":%.6g,\"unit\":\"%s\","
	       "\"spread\":[%.6g,%.6g]}\n",
	       role_names[role], (unsigned long long)n, b->runs, stat,
	       in_unit(med, bytes), in_unit(p99, bytes),
	       bytes > 0 ? "GB/s" : "ns", in_unit(lo, bytes), in_unit(hi, bytes));
	fflush(stdout);
}

static int
failed(const struct bench *b, const char *name, const char *impl, int ret)
{
	bench_note(b, "%s/%s failed: %s", name, impl, strerror(-ret));
	return ret;
}

int
bench_per_run(const struct bench *b, const char *name, const char *impl,
	      enum bench_role role, bench_batch_fn fn, void *arg,
	      uint64_t n, double bytes)
{
	double *figs = calloc((size_t)b->runs * 2, sizeof(double));
	int ret;

	if (!figs)
		return failed(b, name, impl, -ENOMEM);
	ret = fn(arg, n / 10 ? n / 10 : 1);
	for (int r = 0; r < b->runs && ret == 0; r++) {
		uint64_t t0 = bench_now_ns();

		ret = fn(arg, n);
		figs[r] = (double)(bench_now_ns() - t0) / (double)n;
		figs[b->runs + r] = figs[r];
	}
	if (ret == 0)
		report(b, name, impl, role, n, "per-run figures", figs,
		       (size_t)b->runs, figs + b->runs, bytes);
	free(figs);
	return ret ? failed(b, name, impl, ret) : 0;
}

/* Time n groups of `group` calls of fn into s, each sample a group's
 * time over group; 0 or fn's status. */
static int
time_groups(bench_one_fn fn, void *arg, uint64_t n, unsigned group, double *s)
{
	uint64_t t0 = bench_now_ns();

	for (uint64_t i = 0; i < n; i++) {
		uint64_t t1;

		for (unsigned j = 0; j < group; j++) {
			int ret = fn(arg);

			if (ret < 0)
				return ret;
		}
		t1 = bench_now_ns();
		s[i] = (double)(t1 - t0) / group;
		t0 = t1;
	}
	return 0;
}

/* Time n calls of fn into s; 0 or fn's status. */
static int
time_each(bench_one_fn fn, void *arg, uint64_t n, double *s)
{
	return time_groups(fn, arg, n, 1, s);
}

int
bench_per_op(const struct bench *b, const char *name, const char *impl,
	     enum bench_role role, bench_one_fn fn, void *arg,
	     uint64_t n, double bytes)
{
	size_t runs = (size_t)b->runs;
	double *all = calloc(runs * n + n + runs, sizeof(double));
	double *scratch = all ? all + runs * n : NULL;
	double *run_medians = scratch ? scratch + n : NULL;
	int ret;

	if (!all)
		return failed(b, name, impl, -ENOMEM);
	ret = time_each(fn, arg, n / 10 ? n / 10 : 1, scratch);
	for (size_t r = 0; r < runs && ret == 0; r++) {
		ret = time_each(fn, arg, n, all + r * n);
		if (ret == 0) {
			memcpy(scratch, all + r * n, n * sizeof(double));
			run_medians[r] = median(scratch, n);
		}
	}
	if (ret == 0)
		report(b, name, impl, role, n, "per-op samples", all,
		       runs * n, run_medians, bytes);
	free(all);
	return ret ? failed(b, name, impl, ret) : 0;
}

int
bench_per_op_pair(const struct bench *b, const char *name, enum bench_role role,
		  const char *const impl[2], bench_one_fn const fn[2],
		  void *const arg[2], uint64_t n)
{
	size_t runs = (size_t)b->runs;
	double *all = calloc(2 * runs * n + n + 2 * runs, sizeof(double));
	double *scratch = all ? all + 2 * runs * n : NULL;
	double *run_medians = scratch ? scratch + n : NULL;
	int ret = all ? 0 : -ENOMEM;

	for (int k = 0; k < 2 && ret == 0; k++)
		ret = time_groups(fn[k], arg[k], n / 10 ? n / 10 : 1, PAIR_GROUP, scratch);
	for (size_t r = 0; r < runs && ret == 0; r++) {
		/* ABBA...: neither goes first in every pair of runs. */
		for (int i = 0; i < 2 && ret == 0; i++) {
			int k = (int)(r & 1) ^ i;
			double *s = all + ((size_t)k * runs + r) * n;

			ret = time_groups(fn[k], arg[k], n, PAIR_GROUP, s);
			if (ret == 0) {
				memcpy(scratch, s, n * sizeof(double));
				run_medians[(size_t)k * runs + r] = median(scratch, n);
			}
		}
	}
	for (int k = 0; k < 2 && ret == 0; k++)
		report(b, name, impl[k], role, n, "per-op samples", all + (size_t)k * runs * n,
		       runs * n, run_medians + (size_t)k * runs, 0);
	free(all);
	return ret ? failed(b, name, impl[0], ret) : 0;
}

int
bench_per_op_self(const struct bench *b, const char *name, const char *impl,
		  enum bench_role role, bench_self_fn fn, void *arg, uint64_t n)
{
	size_t runs = (size_t)b->runs;
	double *all = calloc(runs * n + n + runs, sizeof(double));
	double *scratch = all ? all + runs * n : NULL;
	double *run_medians = scratch ? scratch + n : NULL;
	uint64_t ns;
	int ret;

	if (!all)
		return failed(b, name, impl, -ENOMEM);
	ret = fn(arg, &ns);			/* the warm-up */
	for (size_t r = 0; r < runs && ret == 0; r++) {
		for (uint64_t i = 0; i < n && ret == 0; i++) {
			ret = fn(arg, &ns);
			all[r * n + i] = (double)ns;
		}
		if (ret == 0) {
			memcpy(scratch, all + r * n, n * sizeof(double));
			run_medians[r] = median(scratch, n);
		}
	}
	if (ret == 0)
		report(b, name, impl, role, n, "per-op samples", all, runs * n,
		       run_medians, 0);
	free(all);
	return ret ? failed(b, name, impl, ret) : 0;
}

size_t
bench_read_file(const char *path, void *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t len = f ? fread(buf, 1, cap, f) : 0;

	if (f)
		fclose(f);
	return len;
}
