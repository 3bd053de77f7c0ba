/* SPDX-License-Identifier: MIT */
/*
 * test_remote_disk: a disk of `rig agent --disk-root DIR`, a separate
 * process on a loopback port, opened here with rig_remote_disk_opener()
 * and rig_open_io(). A file is created, written from memory of this
 * process (UCX RMA), made durable, read back both through the agent and
 * from DIR itself; an existing file opens at its size; a path that leaves
 * the root (.., absolute, a symlink out) is refused with the function and
 * the cause, changes nothing outside, and the connection goes on; an
 * agent without --disk-root refuses the disk; copies between the remote
 * disk and a local memory device are ordered by their stamps alone; kill
 * -9 of the agent mid-write loses the disk with "AGENT host:port:
 * connection lost", and a reopen works once an agent is back.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_proc.h"
#include "rig.h"
#include "rig_remote.h"

#define BYTES (8u << 20)

static char key_path[128], base[128], root[160], outside[160];
static struct agent_proc agent;

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
		b[n] = 0;
		*len = (size_t)n;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static int
setup(void **state)
{
	char link[200], target[200];
	const char *extra[] = { "--disk-root", root, NULL };

	snprintf(key_path, sizeof(key_path), "/tmp/rig-remdisk-key-%d", (int)getpid());
	key_write(key_path, "the shared key of test_remote_disk 01\n", 0600);
	snprintf(base, sizeof(base), "/tmp/rig-remdisk-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(base))
		return -1;
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	if (mkdir(root, 0700) < 0 || mkdir(outside, 0700) < 0)
		return -1;
	snprintf(target, sizeof(target), "%s/secret", outside);
	write_file(target, "secret bytes\n");
	/* A symlink inside the root that points out of it. */
	snprintf(link, sizeof(link), "%s/out", root);
	if (symlink(target, link) < 0)
		return -1;
	return agent_start(&agent, key_path, "127.0.0.1:0", extra) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[256];

	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static struct rig_device *
open_disk(const char *where)
{
	struct rig_io_opener o;
	struct rig_device *d;

	assert_int_equal(rig_remote_disk_opener(where, "DISK", key_path, &o), 0);
	if (rig_open_io(&o, &d) < 0)
		fail_msg("open DISK@%s: %s", where, rig_why());
	return d;
}

static struct rig_device *
memory(void)
{
	struct rig_device *m;

	assert_int_equal(rig_memory_device("remdisk-memory", &m), 0);
	return m;
}

static void
pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)((i * 2654435761u) >> 13 ^ seed);
}

/* A file written from memory here, made durable, read back. */
static void
write_durable_read(void **state)
{
	struct rig_device *disk = open_disk(agent.where), *m = memory();
	struct rig_buffer *src, *dst, *file, *again;
	uint8_t *x = malloc(BYTES), *y = malloc(BYTES);
	char path[256], name[300];
	struct rig_point p;
	size_t len = 0;
	char *on_disk;

	snprintf(name, sizeof(name), "DISK@%s", agent.where);
	assert_string_equal(rig_name(disk), name);
	pattern(x, BYTES, 7);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &src), 0);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &dst), 0);
	assert_int_equal(rig_buffer_write(src, 0, x, BYTES), 0);
	if (rig_disk_create_file(disk, "data.bin", BYTES, &file) < 0)
		fail_msg("create: %s", rig_why());
	assert_int_equal(rig_buffer_length(file), BYTES);
	assert_int_equal(rig_buffer_copy(src, file, NULL), 0);
	assert_int_equal(rig_disk_barrier(file, &p), 0);
	if (rig_wait(p, 60ull * 1000000000) < 0)
		fail_msg("barrier: %s", rig_why());
	/* Durable there: the agent's root holds the bytes. */
	snprintf(path, sizeof(path), "%s/data.bin", root);
	on_disk = slurp(path, &len);
	assert_non_null(on_disk);
	assert_int_equal(len, BYTES);
	assert_memory_equal(on_disk, x, BYTES);
	free(on_disk);
	/* Back through the agent into memory here. */
	assert_int_equal(rig_buffer_copy(file, dst, NULL), 0);
	assert_int_equal(rig_buffer_read(dst, 0, y, BYTES), 0);
	assert_memory_equal(x, y, BYTES);
	/* The existing file opens at its size, read-only too. */
	if (rig_disk_of_file(disk, "data.bin", RIG_READ_ONLY, &again) < 0)
		fail_msg("of_file: %s", rig_why());
	assert_int_equal(rig_buffer_length(again), BYTES);
	memset(y, 0, BYTES);
	assert_int_equal(rig_buffer_write(dst, 0, y, BYTES), 0);
	assert_int_equal(rig_buffer_copy(again, dst, NULL), 0);
	assert_int_equal(rig_buffer_read(dst, 0, y, BYTES), 0);
	assert_memory_equal(x, y, BYTES);
	rig_buffer_release(again);
	rig_buffer_release(file);
	rig_buffer_release(src);
	rig_buffer_release(dst);
	assert_null(rig_lost(disk));
	assert_int_equal(rig_close(disk), 0);
	rig_device_release(disk);
	rig_device_release(m);
	free(x);
	free(y);
}

static void
refused_with(int ret, const char *func, const char *cause)
{
	assert_int_equal(ret, RIG_EINVAL);
	if (!strstr(rig_why(), func) || !strstr(rig_why(), cause))
		fail_msg("expected \"%s\" and \"%s\" in \"%s\"", func, cause, rig_why());
}

/* Every way out of the root refused; nothing outside changes; the
 * connection and the device go on. */
static void
paths_refused(void **state)
{
	struct rig_device *disk = open_disk(agent.where);
	struct rig_buffer *b = NULL;
	char path[256], escape[300];
	size_t len = 0;
	char *secret;

	refused_with(rig_disk_create_file(disk, "../escape.bin", 4096, &b),
		     "rig_disk_create_file", "leaves the disk root");
	snprintf(escape, sizeof(escape), "%s/escape.bin", base);
	assert_int_equal(access(escape, F_OK), -1);
	snprintf(path, sizeof(path), "%s/abs.bin", outside);
	refused_with(rig_disk_create_file(disk, path, 4096, &b), "rig_disk_create_file",
		     "leaves the disk root");
	assert_int_equal(access(path, F_OK), -1);
	refused_with(rig_disk_of_file(disk, "../outside/secret", RIG_READ_ONLY, &b),
		     "rig_disk_of_file", "leaves the disk root");
	/* The symlink out, to open and to create (which would truncate). */
	refused_with(rig_disk_of_file(disk, "out", RIG_READ_ONLY, &b), "rig_disk_of_file", "out");
	refused_with(rig_disk_create_file(disk, "out", 16, &b), "rig_disk_create_file", "out");
	snprintf(path, sizeof(path), "%s/secret", outside);
	secret = slurp(path, &len);
	assert_non_null(secret);
	assert_string_equal(secret, "secret bytes\n");
	free(secret);
	refused_with(rig_disk_of_file(disk, "missing.bin", RIG_READ_ONLY, &b), "rig_disk_of_file",
		     "missing.bin");
	assert_null(b);
	/* The connection survived: the device is not lost, a file opens. */
	assert_null(rig_lost(disk));
	if (rig_disk_create_file(disk, "after.bin", 4096, &b) < 0)
		fail_msg("create after the refusals: %s", rig_why());
	assert_int_equal(rig_buffer_length(b), 4096);
	rig_buffer_release(b);
	assert_true(agent_logged(&agent, "refused: ../escape.bin: leaves the disk root", 2000));
	assert_int_equal(rig_close(disk), 0);
	rig_device_release(disk);
}

/* An agent without --disk-root serves no disk. */
static void
no_disk_root(void **state)
{
	struct agent_proc other;
	struct rig_io_opener o;
	struct rig_device *d = NULL;

	assert_true(agent_start(&other, key_path, "127.0.0.1:0", NULL));
	assert_int_equal(rig_remote_disk_opener(other.where, "DISK", key_path, &o), 0);
	assert_true(rig_open_io(&o, &d) < 0);
	if (!strstr(rig_why(), "rig_open_io") || !strstr(rig_why(), "no --disk-root"))
		fail_msg("expected rig_open_io and no --disk-root in \"%s\"", rig_why());
	assert_null(d);
	agent_kill(&other, SIGTERM);
}

/* The opener's refusals, before any I/O. */
static void
opener_refused(void **state)
{
	struct rig_io_opener o;

	assert_int_equal(rig_remote_disk_opener(NULL, "DISK", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "rig_remote_disk_opener: where is NULL"));
	assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", "", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "empty"));
	assert_int_equal(rig_remote_disk_opener("nohost", "DISK", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "rig_remote_disk_opener"));
	assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", "DISK", NULL, NULL), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "out is NULL"));
	{
		char long_name[202], long_key[5000];

		memset(long_name, 'n', sizeof(long_name) - 1);
		long_name[sizeof(long_name) - 1] = 0;
		memset(long_key, 'k', sizeof(long_key) - 1);
		long_key[sizeof(long_key) - 1] = 0;
		assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", long_name, NULL, &o),
				 RIG_EINVAL);
		assert_non_null(strstr(rig_why(), "more than 200"));
		assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", "DISK", long_key, &o),
				 RIG_EINVAL);
		assert_non_null(strstr(rig_why(), "too long"));
	}
	/* The same opener twice: one, with the machine's name. */
	{
		struct rig_io_opener o2;

		assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", "DISK", NULL, &o), 0);
		assert_int_equal(rig_remote_disk_opener("127.0.0.1:1", "DISK", NULL, &o2), 0);
		assert_string_equal(o.name, "DISK@127.0.0.1:1");
		assert_ptr_equal(o.arg, o2.arg);
	}
}

/*
 * A chain across the remote disk and a local memory device, with no wait
 * of the program's: memory a's bytes go to the file, a is written anew
 * (the host write waits for the disk's read of it), the file comes back
 * into b, b is copied into c on the memory device (a local copy that
 * reads what the remote disk wrote), and the second round carries the
 * new bytes. Any missing order shows as the other round's bytes.
 */
static void
chain(void **state)
{
	struct rig_device *disk = open_disk(agent.where), *m = memory();
	struct rig_buffer *a, *b, *c, *file;
	uint8_t *x = malloc(BYTES), *x2 = malloc(BYTES), *y = malloc(BYTES);

	pattern(x, BYTES, 1);
	pattern(x2, BYTES, 2);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_disk_create_file(disk, "chain.bin", BYTES, &file), 0);
	for (int round = 0; round < 3; round++) {
		const uint8_t *want = round % 2 ? x2 : x;

		assert_int_equal(rig_buffer_write(a, 0, want, BYTES), 0);
		assert_int_equal(rig_buffer_copy(a, file, NULL), 0);
		/* Overwritten at once: only the disk's read of it comes first. */
		assert_int_equal(rig_buffer_write(a, 0, round % 2 ? x : x2, BYTES), 0);
		assert_int_equal(rig_buffer_copy(file, b, NULL), 0);
		assert_int_equal(rig_buffer_copy(b, c, NULL), 0);
		assert_int_equal(rig_buffer_read(c, 0, y, BYTES), 0);
		if (memcmp(y, want, BYTES))
			fail_msg("round %d: c does not hold the bytes a held when it was copied", round);
	}
	rig_buffer_release(file);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	assert_int_equal(rig_close(disk), 0);
	rig_device_release(disk);
	rig_device_release(m);
	free(x);
	free(x2);
	free(y);
}

/*
 * The agent's HOST beside its disk: a file to and from Pinned memory of
 * the remote HOST (this process's memory: RMA) works; a copy between a
 * file and the HOST's Device memory (no host address here) and a borrow
 * of a remote file (no host map here) are refused, naming the cause.
 */
static void
remote_host_ends(void **state)
{
	struct rig_device *disk = open_disk(agent.where), *host, *m = memory();
	struct rig_buffer *pin, *pin2, *dev, *file, *borrowed = NULL;
	struct rig_opener o;
	uint8_t *x = malloc(1 << 20), *y = malloc(1 << 20);

	assert_int_equal(rig_remote_opener(agent.where, "HOST", key_path, &o), 0);
	if (rig_open(&o, &host) < 0)
		fail_msg("open HOST@%s: %s", agent.where, rig_why());
	pattern(x, 1 << 20, 5);
	assert_int_equal(rig_buffer_create(host, 1 << 20, RIG_MEMORY_PINNED, &pin), 0);
	assert_int_equal(rig_buffer_create(host, 1 << 20, RIG_MEMORY_PINNED, &pin2), 0);
	assert_int_equal(rig_buffer_create(host, 1 << 20, RIG_MEMORY_DEVICE, &dev), 0);
	assert_int_equal(rig_disk_create_file(disk, "host.bin", 1 << 20, &file), 0);
	assert_int_equal(rig_buffer_write(pin, 0, x, 1 << 20), 0);
	assert_int_equal(rig_buffer_copy(pin, file, NULL), 0);
	assert_int_equal(rig_buffer_copy(file, pin2, NULL), 0);
	assert_int_equal(rig_buffer_read(pin2, 0, y, 1 << 20), 0);
	assert_memory_equal(x, y, 1 << 20);
	refused_with(rig_buffer_copy(file, dev, NULL), "rig_buffer_copy", "no host address");
	refused_with(rig_buffer_borrow(file, m, &borrowed), "rig_buffer_borrow",
		     "maps no file into host memory");
	assert_null(borrowed);
	assert_null(rig_lost(disk));
	rig_buffer_release(file);
	rig_buffer_release(pin);
	rig_buffer_release(pin2);
	rig_buffer_release(dev);
	assert_int_equal(rig_close(host), 0);
	rig_device_release(host);
	assert_int_equal(rig_close(disk), 0);
	rig_device_release(disk);
	rig_device_release(m);
	free(x);
	free(y);
}

/*
 * A device closed and opened again at once: the agent may end the first
 * (the loop's turn) after the second's files were made on the same disk
 * of its own; only the first's files go with it (the agent once ended
 * every file of that disk, the second's too).
 */
static void
reopened_device_keeps_its_buffers(void **state)
{
	struct rig_device *m = memory();
	struct rig_buffer *src, *file;
	struct rig_point p;

	assert_int_equal(rig_buffer_create(m, 1 << 16, RIG_MEMORY_DEVICE, &src), 0);
	for (int round = 0; round < 8; round++) {
		struct rig_device *disk = open_disk(agent.where);

		assert_int_equal(rig_disk_create_file(disk, "again.bin", 1 << 16, &file), 0);
		assert_int_equal(rig_buffer_copy(src, file, &p), 0);
		if (rig_wait(p, 30ull * 1000000000) < 0)
			fail_msg("round %d: %s", round, rig_why());
		rig_buffer_release(file);
		assert_int_equal(rig_close(disk), 0);
		rig_device_release(disk);
	}
	rig_buffer_release(src);
	rig_device_release(m);
}

/* kill -9 of the agent mid-write: the disk is lost with the machine's
 * reason, the wait ends, and a reopen works once an agent is back. */
static void
agent_killed(void **state)
{
	const char *extra[] = { "--disk-root", root, NULL };
	struct agent_proc second;
	struct rig_device *disk, *m = memory();
	struct rig_buffer *src, *file;
	struct rig_point p;
	char reason[160], where[64];
	int ret;

	assert_true(agent_start(&second, key_path, "127.0.0.1:0", extra));
	snprintf(where, sizeof(where), "%s", second.where);
	disk = open_disk(where);
	assert_int_equal(rig_buffer_create(m, BYTES, RIG_MEMORY_DEVICE, &src), 0);
	assert_int_equal(rig_disk_create_file(disk, "killed.bin", BYTES, &file), 0);
	for (int k = 0; k < 64; k++)
		assert_int_equal(rig_buffer_copy(src, file, &p), 0);
	agent_kill(&second, SIGKILL);
	ret = rig_wait(p, 60ull * 1000000000);
	assert_int_equal(ret, RIG_ELOST);
	snprintf(reason, sizeof(reason), "AGENT %s: connection lost", where);
	if (!rig_lost(disk) || !strstr(rig_lost(disk), reason))
		fail_msg("expected \"%s\" in the loss, got \"%s\"", reason,
			 rig_lost(disk) ? rig_lost(disk) : "(none)");
	assert_true(rig_buffer_copy(src, file, NULL) < 0);
	rig_buffer_release(file);
	rig_device_release(disk);

	assert_true(agent_start(&second, key_path, where, extra));
	disk = open_disk(where);
	assert_null(rig_lost(disk));
	assert_int_equal(rig_disk_of_file(disk, "killed.bin", RIG_READ_WRITE, &file), 0);
	assert_int_equal(rig_buffer_copy(src, file, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	rig_buffer_release(file);
	rig_buffer_release(src);
	assert_int_equal(rig_close(disk), 0);
	rig_device_release(disk);
	rig_device_release(m);
	agent_kill(&second, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opener_refused),
		cmocka_unit_test(write_durable_read),
		cmocka_unit_test(paths_refused),
		cmocka_unit_test(no_disk_root),
		cmocka_unit_test(chain),
		cmocka_unit_test(remote_host_ends),
		cmocka_unit_test(reopened_device_keeps_its_buffers),
		cmocka_unit_test(agent_killed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
