/* SPDX-License-Identifier: MIT */
/*
 * test_disk_modes: the disk degrades instead of dying, and says how it runs.
 * In each mode the round trips pass twice: on the engine, and through rig
 * (rig_open_io, file buffers, copies with a memory device's buffers).
 *  - Under a locked-memory limit of 0 (RLIMIT_MEMLOCK, without
 *    CAP_IPC_LOCK, in a forked child) it pins nothing: it runs as "io_uring
 *    (no registered buffers)", or as "threads" where the kernel charges the
 *    ring's own pages to the limit (Linux 6.x; the child asks io_uring which,
 *    under the same limit), and passes the round trips.
 *  - Under a limit of 1 MiB it cannot pin the 1 MiB probe: it runs as
 *    "io_uring (no registered buffers)", or as "threads" where the user's
 *    other processes hold the rest of the limit (the kernel counts a user's
 *    locked memory across processes, so which one depends on them).
 *  - With io_uring_setup denied by a seccomp filter (ENOSYS, then EPERM, in
 *    forked children) it runs as "threads" and passes the round trips.
 *  - By default it runs io_uring (with or without registered buffers, as
 *    the environment's locked-memory limit allows).
 *  - Asked for threads (the option, or RIG_DISK_MODE=threads) it runs so.
 *  - With a completion queue of 8 and 100,000 reads queued at once, with
 *    up to 256 pieces in flight, nothing is dropped: every value reaches the
 *    word and every byte is right.
 *  - The same through rig: 100,000 copies from a file into a memory
 *    device's buffer queued at once on a disk with a completion queue of 8
 *    all reach the word, in order, with every byte right.
 * Exit-code protocol: 77 where io_uring itself is missing (the modes other
 * than threads cannot be shown there).
 */
#include <fcntl.h>
#include <liburing.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "rig_common.h"

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#endif

/* What the child's checks expect: a mode, or modes "a|b". */
static const char *child_mode;

/* Whether mode is one of the modes in want ("a|b"). */
static bool
mode_is(const char *mode, const char *want)
{
	size_t n = strlen(mode);

	for (const char *w = want; w; w = strchr(w, '|'), w = w ? w + 1 : NULL)
		if (!strncmp(w, mode, n) && (w[n] == '|' || !w[n]))
			return true;
	return false;
}

/* Whether this process may lock memory without limit: without it, the
 * kernel charges an io_uring ring to the user's locked memory. */
static bool
has_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];

	return syscall(SYS_capget, &h, c) == 0 &&
	       (c[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32)));
}

/* The round trips through rig, on a disk of the child's mode. */
static void
child_rig_round_trips(void)
{
	struct rig_device *d, *m;

	d = rdisk_open("CHILD-DISK", &(struct rig_disk_options){
		.size = sizeof(struct rig_disk_options), .chunk_bytes = 128 << 10 });
	TRY(rig_memory_device("CHILD-M", &m));
	print_message("# child: through rig, the disk runs as \"%s\"\n", rdisk_mode(d));
	if (child_mode && !mode_is(rdisk_mode(d), child_mode))
		fail_msg("through rig, the disk runs as \"%s\", not %s", rdisk_mode(d),
			 child_mode);
	rig_round_trips(d, &m, 1, "rig-child.bin", 4u << 20, 1u << 20, 0xc41d, 120);
	assert_null(rig_lost(d));
	TRY(rig_close(d));
	rig_device_release(d);
	rig_device_release(m);
}

static void
child_round_trips(void **state)
{
	struct tdisk t;

	tdisk_open(&t, &(struct rig_disk_options){ .size = sizeof(struct rig_disk_options),
						   .chunk_bytes = 128 << 10 }, 0);
	print_message("# child: the disk runs as \"%s\"\n", disk_mode(t.d));
	if (child_mode && !mode_is(disk_mode(t.d), child_mode))
		fail_msg("the disk runs as \"%s\", not %s", disk_mode(t.d), child_mode);
	/* As the locked-memory limit allows; without CAP_IPC_LOCK the ring
	 * itself counts against the user's limit, shared with its other
	 * processes. */
	if (!child_mode && has_ipc_lock())
		assert_true(!strncmp(disk_mode(t.d), "io_uring", 8));
	round_trips(&t, "child.bin", 0x51ed, 60);
	if (strcmp(disk_mode(t.d), "io_uring")) {
		void *host = malloc(1 << 20);

		assert_int_equal(disk_host_register(t.d, host, 1 << 20), -ENOTSUP);
		assert_contains(disk_why(), disk_mode(t.d));
		free(host);
	}
	assert_null(disk_failure(t.d));
	tdisk_stop(&t);
	child_rig_round_trips();
}

/* Run the round trips in a forked child after setup(); assert it passed. */
static void
in_child(const char *what, int (*setup)(int), int arg, const char *mode)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(child_round_trips) };
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		child_mode = mode;	/* setup may say better */
		if (setup(arg) < 0) {
			fprintf(stderr, "%s: setup failed: %s\n", what, strerror(errno));
			_exit(2);
		}
		_exit(cmocka_run_group_tests_name(what, tests, NULL, NULL) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("%s: the child %s %d", what,
			 WIFEXITED(status) ? "exited" : "died of signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* Deny io_uring_setup with err; everything else is allowed. */
static int
deny_io_uring(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(*f), .filter = f };
	struct io_uring ring;
	int ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -1;
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret != -err) {
		fprintf(stderr, "io_uring_queue_init under the filter gave %d, not %d\n",
			ret, -err);
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* Give up CAP_IPC_LOCK (root pins without limit with it), then limit
 * locked memory to bytes. */
static int
limit_memlock(int bytes)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	struct rlimit r = { (rlim_t)bytes, (rlim_t)bytes };
	unsigned bit = 1u << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &h, c) < 0)
		return -1;
	c[CAP_IPC_LOCK / 32].effective &= ~bit;
	c[CAP_IPC_LOCK / 32].permitted &= ~bit;
	c[CAP_IPC_LOCK / 32].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, c) < 0)
		return -1;
	return setrlimit(RLIMIT_MEMLOCK, &r);
}

/* A limit of 0: which mode follows is this kernel's, asked here. */
static int
no_memlock(int arg)
{
	struct io_uring ring;
	int ret;

	if (limit_memlock(0) < 0)
		return -1;
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret == 0) {
		io_uring_queue_exit(&ring);
		child_mode = "io_uring (no registered buffers)";
	} else if (ret == -ENOMEM) {
		child_mode = "threads";
	} else {
		errno = -ret;
		return -1;
	}
	print_message("# child: under a locked-memory limit of 0, io_uring_queue_init "
		      "gives %d\n", ret);
	return 0;
}

static int
nothing(int arg)
{
	return 0;
}

static int
env_threads(int arg)
{
	return setenv("RIG_DISK_MODE", "threads", 1);
}

static void
test_low_memlock_runs_without_registered_buffers(void **state)
{
	in_child("memlock 0", no_memlock, 0, NULL);
	in_child("memlock 1 MiB", limit_memlock, 1 << 20,
		 "io_uring (no registered buffers)|threads");
}

static void
test_seccomp_enosys_falls_back_to_threads(void **state)
{
	in_child("seccomp ENOSYS", deny_io_uring, ENOSYS, "threads");
}

static void
test_seccomp_eperm_falls_back_to_threads(void **state)
{
	in_child("seccomp EPERM", deny_io_uring, EPERM, "threads");
}

static void
test_default_is_io_uring(void **state)
{
	in_child("default", nothing, 0, NULL);
}

static void
test_env_forces_threads(void **state)
{
	in_child("RIG_DISK_MODE=threads", env_threads, 0, "threads");
}

static void
test_option_forces_threads(void **state)
{
	struct tdisk t;

	tdisk_open(&t, &(struct rig_disk_options){ .size = sizeof(struct rig_disk_options),
						   .mode = RIG_DISK_THREADS, .workers = 3 }, 0);
	assert_string_equal(disk_mode(t.d), "threads");
	round_trips(&t, "threads.bin", 77, 60);
	tdisk_stop(&t);
}

/* A CQ of 8, 256 pieces in flight at most, 100,000 values queued at once
 * (20,000 under a sanitizer: with the copies through rig below, 100,000
 * took 96 s of the test's 240 under ThreadSanitizer at load 50). */
static void
test_small_cq_drops_nothing(void **state)
{
	enum { N = IO_SANITIZED ? 20000 : 100000, BLOCKS = 1024, SLOTS = 1024 };
	struct tdisk t;
	unsigned char *file = malloc(BLOCKS * 4096), *host = malloc(SLOTS * 4096);
	uint64_t s = 1234, last = 0, t0;
	struct disk_stats st;
	void *f;

	tdisk_open(&t, &(struct rig_disk_options){ .size = sizeof(struct rig_disk_options),
						   .depth = 256, .cq_entries = 8,
						   .chunk_bytes = 4096 }, 0);
	f = tfile_create(&t, "cq8.bin", BLOCKS * 4096);
	fill_random(file, BLOCKS * 4096, &s);
	tsubmit1(&t, RIG_IO_WRITE, f, 0, file, BLOCKS * 4096);
	t0 = now_ns();
	for (uint64_t i = 0; i < N; i++)
		last = tsubmit1(&t, RIG_IO_READ, f, (i * 7919 % BLOCKS) * 4096,
				host + (i % SLOTS) * 4096, 4096);
	twait(&t, last);
	disk_stats(t.d, &st);
	print_message("# %s: %d reads in %.0f ms; most in flight %llu, busy %llu, held %llu\n",
		      disk_mode(t.d), N, (double)(now_ns() - t0) / 1e6,
		      (unsigned long long)st.max_in_flight, (unsigned long long)st.busy,
		      (unsigned long long)st.held);
	for (uint64_t i = N - SLOTS; i < N; i++)
		if (memcmp(host + (i % SLOTS) * 4096, file + (i * 7919 % BLOCKS) * 4096, 4096))
			fail_msg("slot %llu does not hold block %llu",
				 (unsigned long long)(i % SLOTS),
				 (unsigned long long)(i * 7919 % BLOCKS));
	assert_int_equal(st.pieces, N + BLOCKS);
	assert_true(st.max_in_flight > 8);
	assert_null(disk_failure(t.d));
	rig_disk_io.release(t.d, f);
	tdisk_stop(&t);
	free(file);
	free(host);
}

/* The same through rig: 100,000 copies (20,000 under a sanitizer) queued
 * at once on a CQ of 8. */
static void
test_rig_small_cq_drops_nothing(void **state)
{
	enum { N = IO_SANITIZED ? 20000 : 100000, BLOCKS = 1024, SLOTS = 1024, B = 4096 };
	unsigned char *file = malloc(BLOCKS * B), *host = malloc(SLOTS * B);
	struct rig_buffer *f, *src, *hb, *fv[BLOCKS], *hv[SLOTS];
	struct rig_device *d, *m;
	struct rig_point p = { 0 }, first = { 0 };
	uint64_t s = 4321, t0;
	struct disk_stats st;

	d = rdisk_open("CQ8", &(struct rig_disk_options){ .size = sizeof(struct rig_disk_options),
		.depth = 256, .cq_entries = 8, .chunk_bytes = B });
	TRY(rig_memory_device("CQ8-M", &m));
	TRY(rig_disk_create_file(d, tmp_path("rig-cq8.bin"), BLOCKS * B, &f));
	TRY(rig_buffer_create(m, BLOCKS * B, RIG_MEMORY_DEVICE, &src));
	TRY(rig_buffer_create(m, SLOTS * B, RIG_MEMORY_DEVICE, &hb));
	fill_random(file, BLOCKS * B, &s);
	TRY(rig_buffer_write(src, 0, file, BLOCKS * B));
	TRY(rig_buffer_copy(src, f, NULL));
	for (int i = 0; i < BLOCKS; i++)
		TRY(rig_buffer_view(f, (size_t)i * B, B, RIG_READ_ONLY, &fv[i]));
	for (int i = 0; i < SLOTS; i++)
		TRY(rig_buffer_view(hb, (size_t)i * B, B, RIG_READ_WRITE, &hv[i]));
	t0 = now_ns();
	for (uint64_t i = 0; i < N; i++) {
		TRY(rig_buffer_copy(fv[i * 7919 % BLOCKS], hv[i % SLOTS], &p));
		if (!i)
			first = p;
	}
	assert_int_equal(p.value, first.value + N - 1);	/* one value each */
	TRY(rig_wait(p, UINT64_MAX));	/* bounded by the test's timeout */
	for (uint64_t v = first.value; v <= p.value; v++)
		assert_true(rig_reached((struct rig_point){ d, v }));
	disk_stats(io_handle(d), &st);
	print_message("# through rig, %s: %d copies in %.0f ms; most in flight %llu, busy %llu\n",
		      rdisk_mode(d), N, (double)(now_ns() - t0) / 1e6,
		      (unsigned long long)st.max_in_flight, (unsigned long long)st.busy);
	TRY(rig_buffer_read(hb, 0, host, SLOTS * B));
	for (uint64_t i = N - SLOTS; i < N; i++)
		if (memcmp(host + (i % SLOTS) * B, file + (i * 7919 % BLOCKS) * B, B))
			fail_msg("slot %llu does not hold block %llu",
				 (unsigned long long)(i % SLOTS),
				 (unsigned long long)(i * 7919 % BLOCKS));
	assert_int_equal(st.pieces, N + BLOCKS);
	assert_true(st.max_in_flight > 8);
	assert_null(rig_lost(d));
	for (int i = 0; i < BLOCKS; i++)
		rig_buffer_release(fv[i]);
	for (int i = 0; i < SLOTS; i++)
		rig_buffer_release(hv[i]);
	rig_buffer_release(f);
	rig_buffer_release(src);
	rig_buffer_release(hb);
	TRY(rig_close(d));
	rig_device_release(d);
	rig_device_release(m);
	free(file);
	free(host);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_is_io_uring),
		cmocka_unit_test(test_low_memlock_runs_without_registered_buffers),
		cmocka_unit_test(test_seccomp_enosys_falls_back_to_threads),
		cmocka_unit_test(test_seccomp_eperm_falls_back_to_threads),
		cmocka_unit_test(test_env_forces_threads),
		cmocka_unit_test(test_option_forces_threads),
		cmocka_unit_test(test_small_cq_drops_nothing),
		cmocka_unit_test(test_rig_small_cq_drops_nothing),
	};
	struct io_uring ring;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret == -ENOSYS || ret == -EPERM) {
		printf("test_disk_modes: io_uring_queue_init: %s: io_uring is denied here, "
		       "so its modes cannot be shown (skipped)\n", strerror(-ret));
		return 77;
	}
	if (ret == 0)
		io_uring_queue_exit(&ring);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
