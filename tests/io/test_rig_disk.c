/* SPDX-License-Identifier: MIT */
/*
 * test_rig_disk: a disk is a device like any other, through rig's public
 * API (rig_open_io, file buffers, rig_buffer_copy, rig_disk_barrier,
 * rig_buffer_borrow):
 *  - round trips of random sizes and offsets between file buffers and
 *    buffers of a memory device and of the host device come back right,
 *    ordered by stamps alone (no wait but rig_buffer_read);
 *  - a chain across devices (host write, HOST's copy, the disk's write and
 *    read, a memory device's read) needs no wait;
 *  - values that complete out of order in the engine still reach the word
 *    in order;
 *  - a barrier follows the writes before it, also a borrowed map's;
 *  - a borrowed file is the file's bytes, both ways, and its map goes with
 *    it;
 *  - threads that copy through one file at once, each its own range,
 *    with barriers between, each get their own bytes back;
 *  - every refusal names the call and the cause and changes nothing.
 */
#include <fcntl.h>
#include <pthread.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "rig_common.h"
#include "rig_polled.h"

struct env {
	struct rig_device *disk, *mem, *host;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	/* Small pieces, so a copy is many pieces in flight at once. */
	e->disk = rdisk_open("DISK", &(struct rig_disk_options){
		.size = sizeof(struct rig_disk_options), .chunk_bytes = 64 << 10 });
	TRY(rig_memory_device("M", &e->mem));
	TRY(rig_host_device(&e->host));
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	assert_null(rig_lost(e->disk));
	rig_device_release(e->disk);
	rig_device_release(e->mem);
	rig_device_release(e->host);
	free(e);
	return 0;
}

static void
test_round_trips(void **state)
{
	struct env *e = *state;
	struct rig_device *hosts[] = { e->mem, e->host };

	print_message("# the disk runs as \"%s\"\n", rdisk_mode(e->disk));
	rig_round_trips(e->disk, hosts, 2, "trips.bin", 8u << 20, 1u << 20, 0x7ea, 300);
	assert_int_equal(rig_allocated(e->disk), 0);
}

/* Host write, HOST's copy, the disk's write and read, M's copy, a host
 * read: five devices' worth of order with no wait but the last read. */
static void
test_chain_needs_no_wait(void **state)
{
	struct env *e = *state;
	enum { BYTES = 300000, ROUNDS = 40 };
	unsigned char *want = malloc(BYTES), *got = malloc(BYTES);
	struct rig_buffer *f, *h1, *h2, *m1, *m2;
	uint64_t s = 99;

	TRY(rig_disk_create_file(e->disk, tmp_path("chain.bin"), BYTES, &f));
	TRY(rig_buffer_create(e->host, BYTES, RIG_MEMORY_DEVICE, &h1));
	TRY(rig_buffer_create(e->host, BYTES, RIG_MEMORY_DEVICE, &h2));
	TRY(rig_buffer_create(e->mem, BYTES, RIG_MEMORY_DEVICE, &m1));
	TRY(rig_buffer_create(e->mem, BYTES, RIG_MEMORY_DEVICE, &m2));
	for (int i = 0; i < ROUNDS; i++) {
		fill_random(want, BYTES, &s);
		TRY(rig_buffer_write(h1, 0, want, BYTES));
		TRY(rig_buffer_copy(h1, h2, NULL));	/* HOST's work */
		TRY(rig_buffer_copy(h2, f, NULL));	/* the disk's */
		TRY(rig_buffer_copy(f, m1, NULL));	/* the disk's */
		TRY(rig_buffer_copy(m1, m2, NULL));	/* M's */
		TRY(rig_buffer_read(m2, 0, got, BYTES));
		if (memcmp(got, want, BYTES))
			fail_msg("round %d: the chain's end differs from its start", i);
	}
	rig_buffer_release(f);
	rig_buffer_release(h1);
	rig_buffer_release(h2);
	rig_buffer_release(m1);
	rig_buffer_release(m2);
	free(want);
	free(got);
}

/*
 * A big read, then a small read of another file: the small one's I/O may
 * well end first (the engine counts it), but the word shows a value only
 * once every earlier one completed, so its point reached means the big
 * one's is too.
 */
static void
test_word_in_order(void **state)
{
	struct env *e = *state;
	const uint64_t big = 16u << 20;
	struct rig_buffer *fb, *fs, *hb, *hs;
	struct disk_stats st;

	TRY(rig_disk_create_file(e->disk, tmp_path("big.bin"), big, &fb));
	TRY(rig_disk_create_file(e->disk, tmp_path("small.bin"), 4096, &fs));
	TRY(rig_buffer_create(e->host, big, RIG_MEMORY_DEVICE, &hb));
	TRY(rig_buffer_create(e->host, 4096, RIG_MEMORY_DEVICE, &hs));
	/* Every third piece comes back short and goes again: the big read's
	 * pieces trail, so later values' I/O ends first. */
	disk_short_inject(io_handle(e->disk), 3);
	for (int i = 0; i < 30; i++) {
		struct rig_point pb, ps;

		TRY(rig_buffer_copy(fb, hb, &pb));
		TRY(rig_buffer_copy(fs, hs, &ps));
		assert_true(ps.value == pb.value + 1 && ps.device == e->disk);
		TRY(rig_wait(ps, 60 * SECOND_NS));
		if (!rig_reached(pb))
			fail_msg("round %d: value %llu reached before value %llu", i,
				 (unsigned long long)ps.value, (unsigned long long)pb.value);
	}
	disk_short_inject(io_handle(e->disk), 0);
	disk_stats(io_handle(e->disk), &st);
	print_message("# %llu values completed before an earlier one\n",
		      (unsigned long long)st.out_of_order);
	assert_true(st.out_of_order > 0);	/* else the test showed nothing */
	rig_buffer_release(fb);
	rig_buffer_release(fs);
	rig_buffer_release(hb);
	rig_buffer_release(hs);
}

/* Threads at once on one file: each writes its own range from its own
 * buffers, reads it back into another device's buffer, and now and then
 * makes the file durable; what each reads is what it wrote. */
enum { THREADS = 4, SPAN = 64 << 10, ROUNDS = 60 };

struct racer {
	struct env *e;
	struct rig_buffer *file;	/* the whole file */
	int id;
	const char *failed;		/* NULL, or what went wrong */
	char why[256];			/* the thread's rig_why() then */
};

static void *
race(void *arg)
{
	struct racer *r = arg;
	unsigned char *want = malloc(SPAN), *got = malloc(SPAN);
	struct rig_buffer *range, *h, *m;
	uint64_t s = 1000 + (uint64_t)r->id;

	if (rig_buffer_view(r->file, (size_t)r->id * SPAN, SPAN, RIG_READ_WRITE, &range) < 0 ||
	    rig_buffer_create(r->e->host, SPAN, RIG_MEMORY_DEVICE, &h) < 0 ||
	    rig_buffer_create(r->e->mem, SPAN, RIG_MEMORY_DEVICE, &m) < 0) {
		r->failed = "setting up";
		snprintf(r->why, sizeof(r->why), "%s", rig_why());
		return NULL;
	}
	for (int i = 0; i < ROUNDS && !r->failed; i++) {
		fill_random(want, SPAN, &s);
		if (rig_buffer_write(h, 0, want, SPAN) < 0 ||
		    rig_buffer_copy(h, range, NULL) < 0 ||
		    (i % 10 == 0 && rig_disk_barrier(range, NULL) < 0) ||
		    rig_buffer_copy(range, m, NULL) < 0 ||
		    rig_buffer_read(m, 0, got, SPAN) < 0)
			r->failed = "a call failed";
		else if (memcmp(got, want, SPAN))
			r->failed = "bytes came back wrong";
	}
	snprintf(r->why, sizeof(r->why), "%s", rig_why());
	rig_buffer_release(range);
	rig_buffer_release(h);
	rig_buffer_release(m);
	free(want);
	free(got);
	return NULL;
}

static void
test_threads_share_a_file(void **state)
{
	struct env *e = *state;
	struct racer r[THREADS];
	pthread_t t[THREADS];
	struct rig_buffer *f;

	TRY(rig_disk_create_file(e->disk, tmp_path("race.bin"), THREADS * SPAN, &f));
	for (int i = 0; i < THREADS; i++) {
		r[i] = (struct racer){ .e = e, .file = f, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (r[i].failed)
			fail_msg("thread %d: %s (%s)", i, r[i].failed, r[i].why);
	}
	rig_buffer_release(f);
}

/* pread the file at path: what the file system holds. */
static void
read_path(const char *path, void *dst, size_t n, off_t at)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, dst, n, at), (ssize_t)n);
	close(fd);
}

static void
test_barrier_follows_writes(void **state)
{
	struct env *e = *state;
	enum { BYTES = 1 << 20 };
	const char *path = tmp_path("barrier.bin");
	unsigned char *want = malloc(BYTES), *got = malloc(BYTES);
	struct rig_buffer *f, *m, *view, *lent;
	struct rig_point w[4], b, b2;
	uint64_t s = 5;

	TRY(rig_disk_create_file(e->disk, path, BYTES, &f));
	TRY(rig_buffer_create(e->mem, BYTES / 4, RIG_MEMORY_DEVICE, &m));
	fill_random(want, BYTES, &s);
	for (int i = 0; i < 4; i++) {
		TRY(rig_buffer_write(m, 0, want + i * (BYTES / 4), BYTES / 4));
		TRY(rig_buffer_view(f, i * (BYTES / 4), BYTES / 4, RIG_READ_WRITE, &view));
		TRY(rig_buffer_copy(m, view, &w[i]));
		rig_buffer_release(view);
	}
	/* A view's barrier covers the whole file. */
	TRY(rig_buffer_view(f, 8, 8, RIG_READ_ONLY, &view));
	TRY(rig_disk_barrier(view, &b));
	rig_buffer_release(view);
	assert_true(b.device == e->disk && b.value > w[3].value);
	TRY(rig_wait(b, 60 * SECOND_NS));
	for (int i = 0; i < 4; i++)
		assert_true(rig_reached(w[i]));
	read_path(path, got, BYTES, 0);
	assert_memory_equal(got, want, BYTES);

	/* A write through a borrowed map (the host's, through M) is the
	 * file's once the barrier after it is reached. */
	TRY(rig_buffer_borrow(f, e->mem, &lent));
	TRY(rig_buffer_write(lent, 4096, "durable", 7));
	TRY(rig_disk_barrier(f, &b2));
	TRY(rig_wait(b2, 60 * SECOND_NS));
	read_path(path, got, 7, 4096);
	assert_memory_equal(got, "durable", 7);
	rig_buffer_release(lent);
	rig_buffer_release(m);
	rig_buffer_release(f);
	free(want);
	free(got);
}

/* Lines of /proc/self/maps that map path. */
static int
maps_of(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, path) != NULL;
	fclose(f);
	return n;
}

static void
test_borrow_is_the_file(void **state)
{
	struct env *e = *state;
	const uint64_t bytes = (1u << 20) + 123;	/* no whole number of pages */
	const char *path = tmp_path("borrow.bin");
	unsigned char *want = malloc(bytes), *got = malloc(bytes);
	struct rig_buffer *f, *m, *lent, *on_host, *h, *part, *other;
	struct rig_device *disk2;
	uint64_t s = 17, mem_before = rig_allocated(e->mem);

	TRY(rig_disk_create_file(e->disk, path, bytes, &f));
	TRY(rig_buffer_create(e->mem, bytes, RIG_MEMORY_DEVICE, &m));
	fill_random(want, bytes, &s);
	TRY(rig_buffer_write(m, 0, want, bytes));
	TRY(rig_buffer_copy(m, f, NULL));		/* the disk writes the file */
	TRY(rig_buffer_borrow(f, e->mem, &lent));
	assert_int_equal(maps_of(path), 1);
	assert_ptr_equal(rig_buffer_device(lent), e->mem);
	assert_int_equal(rig_allocated(e->mem), mem_before + bytes);	/* m only */
	TRY(rig_buffer_read(lent, 0, got, bytes));	/* after the disk's write */
	assert_memory_equal(got, want, bytes);

	/* HOST's work writes through its own borrow; the disk reads it after. */
	TRY(rig_buffer_borrow(f, e->host, &on_host));
	TRY(rig_buffer_create(e->host, 1000, RIG_MEMORY_DEVICE, &h));
	TRY(rig_buffer_write(h, 0, want + 5000, 1000));
	TRY(rig_buffer_view(on_host, bytes - 1000, 1000, RIG_READ_WRITE, &part));
	TRY(rig_buffer_copy(h, part, NULL));		/* HOST's copy into the file */
	TRY(rig_buffer_copy(f, m, NULL));		/* the disk's read, after it */
	TRY(rig_buffer_read(m, bytes - 1000, got, 1000));
	assert_memory_equal(got, want + 5000, 1000);

	/* A disk maps no host memory: the borrow is refused, nothing made. */
	disk2 = rdisk_open("DISK2", NULL);
	assert_refused(rig_buffer_borrow(f, disk2, &other), RIG_EINVAL,
		       "rig_buffer_borrow: ", "DISK2 does not map DISK's memory");
	assert_int_equal(maps_of(path), 2);
	rig_device_release(disk2);

	rig_buffer_release(part);
	rig_buffer_release(on_host);
	rig_buffer_release(lent);
	rig_buffer_release(h);
	/* Their memory returns once their work is done (the read of m
	 * followed all of it), at the next allocation on their devices; then
	 * the maps go. */
	TRY(rig_buffer_read(m, 0, got, 1));
	for (int i = 0; i < 2; i++) {
		struct rig_buffer *poke;

		TRY(rig_buffer_create(i ? e->host : e->mem, 1, RIG_MEMORY_DEVICE, &poke));
		rig_buffer_release(poke);
	}
	assert_int_equal(maps_of(path), 0);
	rig_buffer_release(m);
	rig_buffer_release(f);
	free(want);
	free(got);
}

/* Raise or lower CAP_DAC_OVERRIDE in this thread's effective set (kept
 * permitted): root writes a file of mode 0444 only with it. */
static void
dac_override(bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	unsigned bit = 1u << (CAP_DAC_OVERRIDE % 32);

	assert_int_equal(syscall(SYS_capget, &h, c), 0);
	if (on)
		c[CAP_DAC_OVERRIDE / 32].effective |= bit & c[CAP_DAC_OVERRIDE / 32].permitted;
	else
		c[CAP_DAC_OVERRIDE / 32].effective &= ~bit;
	assert_int_equal(syscall(SYS_capset, &h, c), 0);
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void
test_refusals_change_nothing(void **state)
{
	struct env *e = *state;
	const char *ro_path = tmp_path("ro.bin"), *new_path = tmp_path("never.bin");
	struct rig_buffer *f, *ro, *m, *m2, *out = NULL, *big;
	struct rig_polled *pp;
	struct rig_device *blind;
	struct rig_submission *sub;
	struct rig_part_spec part;
	struct rig_point p;
	uint64_t held;
	char x[8];

	TRY(rig_disk_create_file(e->disk, tmp_path("f.bin"), 4096, &f));
	TRY(rig_disk_create_file(e->disk, ro_path, 4096, &ro));
	rig_buffer_release(ro);
	TRY(rig_disk_of_file(e->disk, ro_path, RIG_READ_ONLY, &ro));
	TRY(rig_buffer_create(e->mem, 4096, RIG_MEMORY_DEVICE, &m));
	TRY(rig_buffer_create(e->mem, 100, RIG_MEMORY_DEVICE, &m2));
	held = rig_allocated(e->disk);
	assert_int_equal(held, 8192);

	/* A disk allocates no memory, and runs no submission. */
	assert_refused(rig_buffer_create(e->disk, 64, RIG_MEMORY_DEVICE, &out), RIG_EINVAL,
		       "rig_buffer_create: DISK is an Io device: its memory is files");
	part = rig_part_copy(RIG_BUFFER(f), RIG_SLOT(0));
	assert_refused(rig_submission_make(e->disk, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &sub),
		       RIG_EINVAL, "rig_submission_make: DISK is an Io device");

	/* Files: bad arguments, and what the file system refuses. */
	assert_refused(rig_disk_create_file(NULL, new_path, 1, &out), RIG_EINVAL,
		       "rig_disk_create_file: the device is NULL");
	assert_refused(rig_disk_create_file(e->disk, new_path, 1, NULL), RIG_EINVAL,
		       "rig_disk_create_file: the out is NULL");
	assert_refused(rig_disk_create_file(e->disk, NULL, 1, &out), RIG_EINVAL,
		       "rig_disk_create_file: the path is NULL");
	assert_refused(rig_disk_create_file(e->disk, "", 1, &out), RIG_EINVAL,
		       "rig_disk_create_file: the path is empty");
	assert_refused(rig_disk_create_file(e->mem, new_path, 1, &out), RIG_EINVAL,
		       "rig_disk_create_file: M is not a disk");
	assert_refused(rig_disk_create_file(e->disk, new_path, (size_t)-5, &out), RIG_EINVAL,
		       "rig_disk_create_file: -5 bytes is negative");
	assert_refused(rig_disk_create_file(e->disk, tmp_path("no/such/dir.bin"), 1, &out),
		       RIG_EINVAL, "rig_disk_create_file: ", "no/such/dir.bin: No such file or directory");
	assert_refused(rig_disk_of_file(e->disk, new_path, RIG_READ_WRITE, &out), RIG_EINVAL,
		       "rig_disk_of_file: ", "never.bin: No such file or directory");
	assert_refused(rig_disk_of_file(e->disk, tmp_dir(), RIG_READ_ONLY, &out), RIG_EINVAL,
		       "rig_disk_of_file: ", "Is a directory");
	assert_refused(rig_disk_of_file(e->disk, "/dev/null", RIG_READ_ONLY, &out), RIG_EINVAL,
		       "rig_disk_of_file: /dev/null: not a regular file");
	assert_refused(rig_disk_of_file(e->disk, ro_path, 7, &out), RIG_EINVAL,
		       "rig_disk_of_file: 7 is no access");
	assert_refused(rig_disk_of_file(e->mem, ro_path, RIG_READ_ONLY, &out), RIG_EINVAL,
		       "rig_disk_of_file: M is not a disk");
	assert_int_equal(chmod(ro_path, 0444), 0);
	dac_override(false);	/* else root opens it for writing */
	assert_refused(rig_disk_of_file(e->disk, ro_path, RIG_READ_WRITE, &out), RIG_EINVAL,
		       "rig_disk_of_file: ", "ro.bin: opening it for writing was refused");
	dac_override(true);
	assert_false(exists(new_path));

	/* Copies. */
	assert_refused(rig_buffer_copy(f, ro, NULL), RIG_EINVAL, "rig_buffer_copy: dst is read-only");
	TRY(rig_disk_create_file(e->disk, tmp_path("g.bin"), 4096, &big));
	assert_refused(rig_buffer_copy(f, big, NULL), RIG_EINVAL,
		       "rig_buffer_copy: src and dst are both files");
	rig_buffer_release(big);
	assert_refused(rig_buffer_copy(f, m2, NULL), RIG_EINVAL,
		       "rig_buffer_copy: src has 4096 bytes and dst 100");
	assert_int_equal(rig_polled_create(&(struct rig_polled_config){
		.size = sizeof(struct rig_polled_config), .name = "BLIND",
		.no_host_addresses = true }, &pp), 0);
	TRY(rig_open(rig_polled_opener(pp), &blind));
	TRY(rig_buffer_create(blind, 4096, RIG_MEMORY_DEVICE, &big));
	assert_refused(rig_buffer_copy(f, big, NULL), RIG_EINVAL,
		       "rig_buffer_copy: dst on BLIND has no host address");
	assert_refused(rig_buffer_copy(big, f, NULL), RIG_EINVAL,
		       "rig_buffer_copy: src on BLIND has no host address");
	rig_buffer_release(big);
	TRY(rig_close(blind));
	rig_device_release(blind);
	rig_polled_destroy(pp);

	/* The host reads a file only through copies; barriers only files. */
	assert_refused(rig_buffer_read(f, 0, x, 8), RIG_EINVAL,
		       "rig_buffer_read: the host does not address DISK's memory");
	assert_refused(rig_disk_barrier(NULL, &p), RIG_EINVAL, "rig_disk_barrier: the buffer is NULL");
	assert_refused(rig_disk_barrier(m, &p), RIG_EINVAL,
		       "rig_disk_barrier: the buffer lies on M, which is not a disk");
	assert_refused(rig_open_io(NULL, &blind), RIG_EINVAL, "rig_open_io: the opener is NULL");
	assert_refused(rig_open_io(&(struct rig_io_opener){ .name = "X" }, &blind), RIG_EINVAL,
		       "rig_open_io: opener X lacks make");
	{
		struct rig_disk_options deep = { .size = sizeof(deep), .depth = 99999 };
		struct rig_io_opener o;
		struct rig_device *again;

		assert_int_equal(rig_disk_opener_init(&o, "DEEP", &deep), 0);
		assert_refused(rig_open_io(&o, &blind), RIG_EINVAL,
			       "rig_open_io: DEEP: make: depth 99999 is over 4096");
		/* An open name gives the open device; make is not called. */
		assert_int_equal(rig_disk_opener_init(&o, "DISK", &deep), 0);
		TRY(rig_open_io(&o, &again));
		assert_ptr_equal(again, e->disk);
		rig_device_release(again);
	}

	/* Nothing changed: the disk, its files, the memory. */
	assert_null(rig_lost(e->disk));
	assert_int_equal(rig_allocated(e->disk), held);
	TRY(rig_buffer_copy(ro, m, &p));
	TRY(rig_wait(p, 60 * SECOND_NS));
	rig_buffer_release(f);
	rig_buffer_release(ro);
	rig_buffer_release(m);
	rig_buffer_release(m2);
	assert_int_equal(rig_allocated(e->disk), 0);
}

/* What the calls below answer from inside a fill, rig's callback. */
static struct rig_buffer *cb_file, *cb_mem;
static struct rig_device *cb_disk;
static int cb_ret[5];
static char cb_why[5][160];

static int
calls_from_a_fill(void *queue, void *arg, uint64_t value)
{
	struct rig_buffer *b;
	struct rig_device *d;
	struct rig_point p;

	cb_ret[0] = rig_disk_create_file(cb_disk, tmp_path("cb.bin"), 8, &b);
	snprintf(cb_why[0], sizeof(cb_why[0]), "%s", rig_why());
	cb_ret[1] = rig_disk_of_file(cb_disk, tmp_path("cbf.bin"), RIG_READ_ONLY, &b);
	snprintf(cb_why[1], sizeof(cb_why[1]), "%s", rig_why());
	cb_ret[2] = rig_disk_barrier(cb_file, &p);
	snprintf(cb_why[2], sizeof(cb_why[2]), "%s", rig_why());
	cb_ret[3] = rig_buffer_copy(cb_file, cb_mem, &p);
	snprintf(cb_why[3], sizeof(cb_why[3]), "%s", rig_why());
	cb_ret[4] = rig_open_io(&rig_disk_opener, &d);
	snprintf(cb_why[4], sizeof(cb_why[4]), "%s", rig_why());
	return 0;
}

static void
test_callbacks_are_refused(void **state)
{
	struct env *e = *state;
	static const char *const names[] = { "rig_disk_create_file", "rig_disk_of_file",
		"rig_disk_barrier", "rig_buffer_copy", "rig_open_io" };
	struct rig_part_spec part = rig_part_fill(calls_from_a_fill, 0, NULL, 0);
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;
	char msg[160];

	cb_disk = e->disk;
	TRY(rig_disk_create_file(e->disk, tmp_path("cbf.bin"), 64, &cb_file));
	TRY(rig_buffer_create(e->mem, 64, RIG_MEMORY_DEVICE, &cb_mem));
	TRY(rig_submission_make(e->mem, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));
	TRY(rig_run_take(s, &r));
	TRY(rig_submit(r, NULL, 0, NULL, 0, &p));
	TRY(rig_wait(p, 60 * SECOND_NS));
	for (int i = 0; i < 5; i++) {
		snprintf(msg, sizeof(msg), "%s: called from inside a callback of rig's", names[i]);
		assert_int_equal(cb_ret[i], RIG_EINVAL);
		assert_string_equal(cb_why[i], msg);
	}
	assert_false(exists(tmp_path("cb.bin")));
	assert_int_equal(rig_allocated(e->disk), 64);
	rig_submission_release(s);
	rig_buffer_release(cb_file);
	rig_buffer_release(cb_mem);
}

/* A closed disk: its buffers are dead, its calls report the loss. */
static void
test_closed_disk(void **state)
{
	struct env *e = *state;
	struct rig_device *d = rdisk_open("DISK-C", NULL);
	struct rig_buffer *f, *m, *out;
	struct rig_point p;

	TRY(rig_disk_create_file(d, tmp_path("c.bin"), 4096, &f));
	TRY(rig_buffer_create(e->mem, 4096, RIG_MEMORY_DEVICE, &m));
	TRY(rig_buffer_copy(m, f, &p));
	TRY(rig_close(d));
	assert_refused(rig_disk_create_file(d, tmp_path("c2.bin"), 1, &out), RIG_ELOST,
		       "rig_disk_create_file: DISK-C is lost: closed");
	assert_refused(rig_disk_of_file(d, tmp_path("c.bin"), RIG_READ_ONLY, &out), RIG_ELOST,
		       "rig_disk_of_file: DISK-C is lost: closed");
	assert_refused(rig_buffer_copy(f, m, NULL), RIG_EINVAL,
		       "rig_buffer_copy: the buffer is dead: closed");
	assert_refused(rig_disk_barrier(f, NULL), RIG_EINVAL,
		       "rig_disk_barrier: the buffer is dead: closed");
	assert_false(exists(tmp_path("c2.bin")));
	assert_true(rig_signaled(p));
	TRY(rig_buffer_read(m, 0, (char[8]){ 0 }, 8));	/* M goes on */
	rig_buffer_release(f);
	rig_buffer_release(m);
	rig_device_release(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_needs_no_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_word_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_share_a_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_barrier_follows_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_borrow_is_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbacks_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_disk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
