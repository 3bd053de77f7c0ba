/* SPDX-License-Identifier: MIT */
/*
 * test_profile_drivers: every driver times its work, and a profile's
 * values never overlap on one device (device order): on the memory
 * device, the host device (launches and copies), the polled device (host
 * clock, and fake stamps converted by settle) and the disk (each
 * io_uring op). For each device, each timed value has start <= end, and
 * its start is no earlier than the previous value's end; every value is
 * timed (none reads 0, 0), and each lies inside the profile's span of
 * host time (the stamped polled device's fake clock aside).
 *
 * host_pieces: the host device's launches, its threads' ranges of each
 * launch and its copies, read back from the trace JSON rig writes: each
 * value has its launch on COMPUTE:0, its copy on COPY:0 and at least one
 * range on a lane "COMPUTE:0 worker N"; each lies inside its value's
 * span, and no two pieces on one lane overlap.
 */
#include <string.h>
#include <unistd.h>

#include "../loss/loss.h"
#include "../host/kernels.h"
#include "rig_disk.h"

#define N 40

struct dev_points {
	const char *what;
	struct rig_device *d;
	struct rig_point p[N];
	size_t n;
	bool host_clock;
};

static void
check_device(struct rig_profile *prof, const struct dev_points *dp, uint64_t t0,
	     uint64_t t1)
{
	uint64_t last_end = 0;

	assert_true(dp->n > 0);
	for (size_t i = 0; i < dp->n; i++) {
		uint64_t s = 0, e = 0;

		if (rig_profile_times(prof, dp->p[i], &s, &e) != 0)
			fail_msg("%s value %llu: %s", dp->what,
				 (unsigned long long)dp->p[i].value, rig_why());
		if (!s || !e)
			fail_msg("%s value %llu has no times", dp->what,
				 (unsigned long long)dp->p[i].value);
		if (e < s || s < last_end)
			fail_msg("%s value %llu: %llu..%llu, after an end at %llu", dp->what,
				 (unsigned long long)dp->p[i].value, (unsigned long long)s,
				 (unsigned long long)e, (unsigned long long)last_end);
		if (dp->host_clock && (s < t0 || e > t1))
			fail_msg("%s value %llu: %llu..%llu outside the profile's %llu..%llu",
				 dp->what, (unsigned long long)dp->p[i].value,
				 (unsigned long long)s, (unsigned long long)e,
				 (unsigned long long)t0, (unsigned long long)t1);
		last_end = e;
	}
}

static void
copies(struct dev_points *dp, struct rig_buffer *a, struct rig_buffer *b)
{
	for (size_t i = 0; i < N; i++)
		assert_int_equal(rig_buffer_copy(i % 2 ? b : a, i % 2 ? a : b, &dp->p[dp->n++]), 0);
}

static uint64_t
ticks(void *arg, uint64_t value, int end)
{
	(void)arg;
	return value * 50 + (end ? 80 : 0);	/* overlapping: settle clamps */
}

static void
every_driver(void **state)
{
	struct dev_points mem = { .what = "memory", .host_clock = true },
			  host = { .what = "host", .host_clock = true },
			  polled = { .what = "polled", .host_clock = true },
			  stamped = { .what = "polled (stamps)" },
			  disk = { .what = "disk", .host_clock = true };
	struct polled_dev pd = polled_open((struct rig_polled_config){ .name = "P-drivers" });
	struct polled_dev ps = polled_open((struct rig_polled_config){ .name = "P-stamped",
		.stamp = ticks, .stamp_origin_ns = 5000 });
	struct rig_buffer *ma, *mb, *ha, *hb, *hc, *hd, *pa, *pb, *sa, *sb, *file, *src;
	struct rig_io_opener dio;
	struct rig_profile *prof;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	char path[] = "/tmp/rig-profile-drivers-XXXXXX";
	unsigned char *object;
	size_t len;
	uint64_t t0, t1;

	(void)state;
	mem.d = NULL;
	assert_int_equal(rig_memory_device("M-drivers", &mem.d), 0);
	assert_int_equal(rig_host_device(&host.d), 0);
	assert_int_equal(rig_disk_opener_init(&dio, "DISK-drivers", NULL), 0);
	assert_int_equal(rig_open_io(&dio, &disk.d), 0);
	polled.d = pd.d;
	stamped.d = ps.d;
	object = kernel_read("add", &len);
	assert_int_equal(rig_image_load(host.d, object, len, &img), 0);
	free(object);
	assert_int_equal(rig_image_function(img, "add", &fn), 0);
	ma = buffer_new(mem.d, 4096);
	mb = buffer_new(mem.d, 4096);
	ha = buffer_new(host.d, 64 * 4);
	hb = buffer_new(host.d, 64 * 4);
	hc = buffer_new(host.d, 64 * 4);
	hd = buffer_new(host.d, 64 * 4);
	pa = buffer_new(pd.d, 256);
	pb = buffer_new(pd.d, 256);
	sa = buffer_new(ps.d, 256);
	sb = buffer_new(ps.d, 256);
	src = buffer_new(host.d, 8192);
	assert_true(mkstemp(path) >= 0);
	assert_int_equal(rig_disk_create_file(disk.d, path, 8192, &file), 0);

	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec parts[2] = {
		rig_part_launch(fn, sizeof(struct add_params), refs, 3),
		rig_part_copy(RIG_SLOT(2), RIG_SLOT(3)),
	};
	assert_int_equal(rig_submission_make(host.d, parts, 2, NULL, 0, (struct rig_keep){ 0 }, &s), 0);

	t0 = rig_now_ns();
	assert_int_equal(rig_profile_start(NULL, 0, 4 * N, &prof), 0);
	copies(&mem, ma, mb);
	copies(&polled, pa, pb);
	copies(&stamped, sa, sb);
	for (size_t i = 0; i < N; i++) {
		struct add_params ap = { .n = 64, .per_group = 16 };
		struct rig_buffer *bufs[4] = { ha, hb, hc, hd };
		const uint32_t grid[3] = { 4, 1, 1 }, group[3] = { 1, 1, 1 };
		struct rig_run *r;

		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_run_store(r, 0, grid, group, &ap, sizeof(ap)), 0);
		assert_int_equal(rig_submit(r, bufs, 4, NULL, 0, &host.p[host.n++]), 0);
		assert_int_equal(rig_buffer_copy(src, file, &disk.p[disk.n++]), 0);
	}
	assert_int_equal(rig_profile_stop(prof), 0);
	t1 = rig_now_ns();
	check_device(prof, &mem, t0, t1);
	check_device(prof, &host, t0, t1);
	check_device(prof, &polled, t0, t1);
	check_device(prof, &stamped, t0, t1);
	check_device(prof, &disk, t0, t1);
	rig_profile_release(prof);

	rig_submission_release(s);
	rig_image_release(img);
	for (size_t i = 0; i < 2; i++) {
		rig_buffer_release(i ? mb : ma);
		rig_buffer_release(i ? pb : pa);
		rig_buffer_release(i ? sb : sa);
	}
	rig_buffer_release(ha);
	rig_buffer_release(hb);
	rig_buffer_release(hc);
	rig_buffer_release(hd);
	rig_buffer_release(src);
	rig_buffer_release(file);
	unlink(path);
	rig_device_release(mem.d);
	rig_device_release(host.d);
	assert_int_equal(rig_close(disk.d), 0);
	rig_device_release(disk.d);
	polled_close(pd);
	polled_close(ps);
}

/* One X event of the trace: its lane, its times in ns, its value. */
struct x_event {
	int pid;
	unsigned tid;
	int64_t ts, end;
	unsigned long long value;
	char cat[8], name[24];
};

static bool
field(const char *line, const char *key, double *out)
{
	const char *at = strstr(line, key);

	if (!at)
		return false;
	*out = strtod(at + strlen(key), NULL);
	return true;
}

static bool
text(const char *line, const char *key, char *out, size_t len)
{
	const char *at = strstr(line, key), *end;

	if (!at)
		return false;
	at += strlen(key);
	if (!(end = strchr(at, '"')) || (size_t)(end - at) >= len)
		return false;
	memcpy(out, at, (size_t)(end - at));
	out[end - at] = 0;
	return true;
}

/* The trace's X events (one per line, as rig writes them) and the pid of
 * the process named device. */
static size_t
read_events(const char *path, const char *device, struct x_event *ev, size_t cap, int *pid)
{
	FILE *f = fopen(path, "r");
	char line[512], name[64];
	size_t n = 0;
	double x;

	assert_non_null(f);
	*pid = -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"process_name\"") && text(line, "\"args\":{\"name\":\"", name, sizeof(name)) &&
		    !strcmp(name, device) && field(line, "\"pid\":", &x))
			*pid = (int)x;
		if (!strstr(line, "\"ph\":\"X\"") || n == cap)
			continue;
		struct x_event *e = &ev[n];
		double ts = 0, dur = 0, pidv = 0, tid = 0, value = 0;

		if (!field(line, "\"pid\":", &pidv) || !field(line, "\"tid\":", &tid) ||
		    !field(line, "\"ts\":", &ts) || !field(line, "\"dur\":", &dur) ||
		    !field(line, "\"value\":", &value) || !text(line, "\"cat\":\"", e->cat, sizeof(e->cat)) ||
		    !text(line, "\"name\":\"", e->name, sizeof(e->name)))
			fail_msg("an X event lacks a field: %s", line);
		e->pid = (int)pidv;
		e->tid = (unsigned)tid;
		e->ts = (int64_t)(ts * 1000 + 0.5);
		e->end = e->ts + (int64_t)(dur * 1000 + 0.5);
		e->value = (unsigned long long)value;
		n++;
	}
	fclose(f);
	return n;
}

static void
host_pieces(void **state)
{
	struct rig_device *host;
	struct rig_buffer *b[4];
	struct rig_profile *prof;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_submission *s;
	struct rig_point pt[N];
	static struct x_event ev[64 * N];
	char path[] = "/tmp/rig-profile-pieces-XXXXXX";
	unsigned char *object;
	size_t len, n;
	int pid, fd;

	(void)state;
	assert_int_equal(rig_host_device(&host), 0);
	object = kernel_read("add", &len);
	assert_int_equal(rig_image_load(host, object, len, &img), 0);
	free(object);
	assert_int_equal(rig_image_function(img, "add", &fn), 0);
	for (size_t i = 0; i < 4; i++)
		b[i] = buffer_new(host, 4096 * 4);

	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec parts[2] = {
		rig_part_launch(fn, sizeof(struct add_params), refs, 3),
		rig_part_copy(RIG_SLOT(2), RIG_SLOT(3)),
	};
	assert_int_equal(rig_submission_make(host, parts, 2, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_profile_start(&host, 1, N, &prof), 0);
	for (size_t i = 0; i < N; i++) {
		/* 64 groups: the pool splits them over its threads. */
		struct add_params ap = { .n = 4096, .per_group = 64 };
		const uint32_t grid[3] = { 64, 1, 1 }, group[3] = { 1, 1, 1 };
		struct rig_run *r;

		assert_int_equal(rig_run_take(s, &r), 0);
		assert_int_equal(rig_run_store(r, 0, grid, group, &ap, sizeof(ap)), 0);
		assert_int_equal(rig_submit(r, b, 4, NULL, 0, &pt[i]), 0);
	}
	assert_int_equal(rig_profile_stop(prof), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rig_profile_write(prof, path), 0);
	n = read_events(path, rig_name(host), ev, 64 * N, &pid);
	unlink(path);
	assert_true(pid >= 0);

	for (size_t i = 0; i < N; i++) {
		const struct x_event *value = NULL;
		size_t launches = 0, copies = 0, ranges = 0;

		for (size_t k = 0; k < n; k++)
			if (ev[k].pid == pid && ev[k].value == pt[i].value && !strcmp(ev[k].cat, "value") &&
			    ev[k].tid == 1)
				value = &ev[k];
		if (!value)
			fail_msg("value %llu has no span on COMPUTE:0", (unsigned long long)pt[i].value);
		for (size_t k = 0; k < n; k++) {
			const struct x_event *e = &ev[k];

			if (e->pid != pid || e->value != pt[i].value || !strcmp(e->cat, "value"))
				continue;
			if (e->ts < value->ts || e->end > value->end)
				fail_msg("value %llu: %s at %lld..%lld outside its span %lld..%lld",
					 e->value, e->name, (long long)e->ts, (long long)e->end,
					 (long long)value->ts, (long long)value->end);
			if (!strncmp(e->name, "launch", 6) && e->tid == 1)
				launches++;
			else if (!strncmp(e->name, "copy", 4) && e->tid == 2)
				copies++;
			else if (!strncmp(e->name, "range", 5) && e->tid >= 10000 && e->tid < 20000)
				ranges++;
			else
				fail_msg("value %llu: %s on lane %u", e->value, e->name, e->tid);
		}
		if (launches != 1 || copies != 1 || ranges < 1)
			fail_msg("value %llu: %zu launches, %zu copies, %zu ranges",
				 (unsigned long long)pt[i].value, launches, copies, ranges);
	}
	/* No two pieces on one lane overlap (the trace sorts each lane by
	 * time; values' spans lie between them on the queues' lanes). */
	const struct x_event *last = NULL;

	for (size_t k = 0; k < n; k++) {
		const struct x_event *e = &ev[k];

		if (e->pid != pid || !strcmp(e->cat, "value"))
			continue;
		if (last && last->tid == e->tid && e->ts < last->end)
			fail_msg("lane %u: %s of value %llu starts before %s of value %llu ends",
				 e->tid, e->name, e->value, last->name, last->value);
		last = e;
	}
	rig_profile_release(prof);
	rig_submission_release(s);
	rig_image_release(img);
	for (size_t i = 0; i < 4; i++)
		rig_buffer_release(b[i]);
	rig_device_release(host);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_driver),
		cmocka_unit_test(host_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
