/* SPDX-License-Identifier: MIT */
/*
 * test_remote_wire: the agent's messages round-trip through encode and
 * decode, and each malformed message is refused with its cause: a short
 * header, a wrong magic, a length that lies, an unknown type, a string
 * with a NUL, a part count past the bound, bytes after the last field;
 * the key file is refused unless only its owner reads it, and the proofs
 * tell a right key from a wrong one; a batch of messages encoded into one
 * block splits back into them; a BULK's worker address past its bound is
 * refused; a CHALLENGE carries the agent's heartbeat bound, and one of 0
 * is refused; a peer heard from after the clock was read (by another
 * thread) counts as not silent, not as silent for 2^64 ns.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote/auth.h"
#include "remote/link.h"
#include "remote/wire.h"

static struct remote_msg m, d;
static char why[200];

static uint8_t *
encode(const struct remote_msg *msg, size_t *len)
{
	uint8_t *b = NULL;

	if (remote_encode(msg, &b, len, why, sizeof(why)) != 0)
		fail_msg("encode: %s", why);
	return b;
}

/* Decoding b must fail with a message containing cause. */
static void
refused(const uint8_t *b, size_t len, const char *cause)
{
	why[0] = 0;
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), -1);
	if (!strstr(why, cause))
		fail_msg("expected \"%s\" in \"%s\"", cause, why);
}

static void
round_trip(void **state)
{
	static const uint8_t params[16] = { 9, 8, 7 };
	uint8_t *b;
	size_t len;

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_SUBMIT;
	m.id = 42;
	m.u.submit.dev = 3;
	m.u.submit.value = 1234567890123ull;
	m.u.submit.nparts = 2;
	m.u.submit.parts[0] = (struct remote_part){ .kind = REMOTE_PART_LAUNCH, .fn = 5,
		.grid = { 7, 1, 1 }, .group = { 2, 1, 1 }, .params = { params, sizeof(params) } };
	m.u.submit.parts[1] = (struct remote_part){ .kind = REMOTE_PART_COPY,
		.src = { REMOTE_END_PIN, 11, 4 }, .dst = { REMOTE_END_BUFFER, 12, 8 },
		.bytes = 4096, .fill = -1 };
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.type, REMOTE_SUBMIT);
	assert_int_equal(d.id, 42);
	assert_int_equal(d.u.submit.value, 1234567890123ull);
	assert_int_equal(d.u.submit.nparts, 2);
	assert_int_equal(d.u.submit.parts[0].grid[0], 7);
	assert_int_equal(d.u.submit.parts[0].params.len, sizeof(params));
	assert_memory_equal(d.u.submit.parts[0].params.at, params, sizeof(params));
	assert_int_equal(d.u.submit.parts[1].src.end, REMOTE_END_PIN);
	assert_int_equal(d.u.submit.parts[1].dst.offset, 8);
	assert_int_equal(d.u.submit.parts[1].bytes, 4096);
	assert_int_equal(d.u.submit.parts[1].fill, -1);
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_OPENED;
	m.u.opened.dev = 1;
	m.u.opened.start = 77;
	m.u.opened.arch = remote_str("x86_64");
	m.u.opened.alignment = 64;
	m.u.opened.copy_engine = 1;
	m.u.opened.hang_ms = -1;
	m.u.opened.cache_bytes = -1;
	m.u.opened.nqueues = 2;
	m.u.opened.queues[0] = (struct remote_queue){ remote_str("COMPUTE:0"), 1 };
	m.u.opened.queues[1] = (struct remote_queue){ remote_str("COPY:0"), 2 };
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.opened.start, 77);
	assert_int_equal(d.u.opened.queues[1].name.len, 6);
	assert_memory_equal(d.u.opened.queues[1].name.at, "COPY:0", 6);
	free(b);

	/* CHALLENGE: the agent's nonce and heartbeat bound; a bound of 0
	 * would have the client ping without end, so it is refused. */
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_CHALLENGE;
	memset(m.u.challenge.nonce, 0xa5, REMOTE_NONCE);
	m.u.challenge.heartbeat_ms = 5000;
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_memory_equal(d.u.challenge.nonce, m.u.challenge.nonce, REMOTE_NONCE);
	assert_int_equal(d.u.challenge.heartbeat_ms, 5000);
	memset(b + len - 4, 0, 4);	/* the bound, the last field */
	refused(b, len, "heartbeat");
	free(b);

	/* BULK: the client's worker address, bytes as they were. */
	{
		static uint8_t address[REMOTE_ADDRESS_MAX + 1];

		for (size_t i = 0; i < sizeof(address); i++)
			address[i] = (uint8_t)(i * 7);
		memset(&m, 0, sizeof(m));
		m.type = REMOTE_BULK;
		m.u.address = (struct remote_bytes){ address, 300 };
		b = encode(&m, &len);
		assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
		assert_int_equal(d.type, REMOTE_BULK);
		assert_int_equal(d.u.address.len, 300);
		assert_memory_equal(d.u.address.at, address, 300);
		assert_string_equal(remote_type_name(REMOTE_BULK), "BULK");
		free(b);
		/* One byte past the wire's bound is refused, naming the field. */
		m.u.address.len = REMOTE_ADDRESS_MAX + 1;
		assert_int_equal(remote_encode(&m, &b, &len, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "worker address"));
	}
}

static void
malformed(void **state)
{
	uint8_t *b, bad[64];
	size_t len;

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_OPEN;
	m.u.name = remote_str("HOST");
	b = encode(&m, &len);
	refused(b, 3, "shorter than a header");
	refused(NULL, 0, "shorter than a header");
	memcpy(bad, b, len);
	bad[0] ^= 1;
	refused(bad, len, "magic");
	memcpy(bad, b, len);
	refused(bad, len - 1, "payload bytes");
	memcpy(bad, b, len);
	bad[4] = 99;
	refused(bad, len, "type 99 is unknown");
	memcpy(bad, b, len);
	bad[REMOTE_HEADER + 3] = 0;	/* "H\0ST" */
	refused(bad, len, "device name");
	memcpy(bad, b, len);
	bad[REMOTE_HEADER] = 200;	/* the string's length past its bytes */
	refused(bad, len, "device name");
	/* Bytes after the last field: the header's length says so too. */
	memcpy(bad, b, len);
	bad[len] = 0;
	bad[12] = (uint8_t)(len + 1 - REMOTE_HEADER);
	refused(bad, len + 1, "after its last field");
	free(b);

	/* A part count past the bound, and no parts at all. */
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_REACHED;
	b = encode(&m, &len);
	memcpy(bad, b, len);
	bad[4] = REMOTE_SUBMIT;
	{
		uint8_t sub[REMOTE_HEADER + 16] = { 0 };

		memcpy(sub, bad, REMOTE_HEADER);
		sub[12] = 16;
		sub[REMOTE_HEADER + 12] = REMOTE_PARTS_MAX + 1;
		refused(sub, sizeof(sub), "part count");
		sub[REMOTE_HEADER + 12] = 0;
		refused(sub, sizeof(sub), "part count");
	}
	free(b);

	/* The encoder refuses what the decoder would: a zero alignment. */
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_OPENED;
	m.u.opened.nqueues = 1;
	m.u.opened.queues[0] = (struct remote_queue){ remote_str("Q"), 1 };
	m.u.opened.hang_ms = -1;
	m.u.opened.cache_bytes = -1;
	m.u.opened.copy_engine = -1;
	assert_int_equal(remote_encode(&m, &b, &len, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "alignment"));
}

/* A disk's messages: file requests and ops, and their refusals. */
static void
file_messages(void **state)
{
	static const uint8_t rkey[33] = { 1, 2, 3 };
	uint8_t *b, bad[256];
	size_t len;

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_FILE_CREATE;
	m.id = 9;
	m.u.file_create.dev = 2;
	m.u.file_create.path = remote_str("runs/out.bin");
	m.u.file_create.bytes = 1ull << 33;
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.file_create.dev, 2);
	assert_int_equal(d.u.file_create.bytes, 1ull << 33);
	assert_int_equal(d.u.file_create.path.len, 12);
	assert_memory_equal(d.u.file_create.path.at, "runs/out.bin", 12);
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_FILE_OPEN;
	m.u.file_open.dev = 3;
	m.u.file_open.path = remote_str("in.bin");
	m.u.file_open.write = 1;
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.file_open.write, 1);
	memcpy(bad, b, len);
	bad[len - 1] = 2;	/* write is a flag */
	refused(bad, len, "write");
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_FILE_IS;
	m.u.file_is.id = 17;
	m.u.file_is.bytes = 4096;
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.file_is.id, 17);
	assert_int_equal(d.u.file_is.bytes, 4096);
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_FILE_SIZE;
	m.u.handle = 17;
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.handle, 17);
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_SUBMIT;
	m.u.submit.dev = 1;
	m.u.submit.value = 5;
	m.u.submit.nparts = 2;
	m.u.submit.parts[0] = (struct remote_part){ .kind = REMOTE_PART_FILE,
		.op = REMOTE_FILE_WRITE, .file = 4, .offset = 512, .address = 0x1000,
		.bytes = 4096, .rkey = { rkey, sizeof(rkey) } };
	m.u.submit.parts[1] = (struct remote_part){ .kind = REMOTE_PART_FILE,
		.op = REMOTE_FILE_BARRIER, .file = 4 };
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.submit.parts[0].op, REMOTE_FILE_WRITE);
	assert_int_equal(d.u.submit.parts[0].offset, 512);
	assert_int_equal(d.u.submit.parts[0].address, 0x1000);
	assert_int_equal(d.u.submit.parts[0].rkey.len, sizeof(rkey));
	assert_memory_equal(d.u.submit.parts[0].rkey.at, rkey, sizeof(rkey));
	assert_int_equal(d.u.submit.parts[1].op, REMOTE_FILE_BARRIER);
	/* The op is past its kinds: refused. Its byte follows the part kind,
	 * after the submit's 16 bytes of dev, value and count. */
	memcpy(bad, b, len);
	bad[REMOTE_HEADER + 16 + 1] = 9;
	refused(bad, len, "file op");
	/* The rkey's length past the bound. */
	memcpy(bad, b, len);
	bad[REMOTE_HEADER + 16 + 1 + 33 + 3] = 0x7f;
	refused(bad, len, "file rkey");
	free(b);

	/* An empty disk name, as an empty device name. */
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_OPEN_DISK;
	m.u.name = remote_str("DISK");
	b = encode(&m, &len);
	memcpy(bad, b, len);
	bad[REMOTE_HEADER] = 0;
	bad[12] = 2;
	refused(bad, REMOTE_HEADER + 2, "device name");
	free(b);
}

/* The agent's GPUs, for a machine handle. */
static void
gpu_messages(void **state)
{
	uint8_t *b, bad[512];
	size_t len;

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_GPUS_ARE;
	m.u.gpus.n = 1;
	m.u.gpus.gpus[0] = (struct remote_gpu){ remote_str("0000:03:00.0"), 0x1002, 0x744c,
		0x030000, { 1ull << 30, 0, 2 << 20, 0, 0, 1 << 20 } };
	b = encode(&m, &len);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.u.gpus.n, 1);
	assert_int_equal(d.u.gpus.gpus[0].device, 0x744c);
	assert_int_equal(d.u.gpus.gpus[0].class_code, 0x030000);
	assert_int_equal(d.u.gpus.gpus[0].bar_bytes[5], 1 << 20);
	assert_memory_equal(d.u.gpus.gpus[0].bus.at, "0000:03:00.0", 12);
	memcpy(bad, b, len);
	bad[REMOTE_HEADER] = REMOTE_GPUS_MAX + 1;
	refused(bad, len, "GPU count");
	memcpy(bad, b, len);
	bad[REMOTE_HEADER + 1] = 0;	/* an empty bus */
	bad[REMOTE_HEADER + 2] = 0;
	refused(bad, len, "GPU bus");
	free(b);

	memset(&m, 0, sizeof(m));
	m.type = REMOTE_MACHINE_GPUS;
	b = encode(&m, &len);
	assert_int_equal(len, REMOTE_HEADER);
	assert_int_equal(remote_decode(b, len, &d, why, sizeof(why)), 0);
	free(b);
}

static char key_path[256];

static void
write_key(const char *bytes, mode_t mode)
{
	int fd;

	unlink(key_path);
	fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, strlen(bytes)), (ssize_t)strlen(bytes));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void
keys(void **state)
{
	struct remote_key k, other;
	uint8_t cn[REMOTE_NONCE], an[REMOTE_NONCE], mac[REMOTE_MAC], mac2[REMOTE_MAC];

	snprintf(key_path, sizeof(key_path), "/tmp/rig-test-key-%d", (int)getpid());
	write_key("0123456789abcdef0123456789abcdef\n", 0644);
	assert_int_equal(remote_key_load(key_path, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "others may read it"));
	write_key("short\n", 0600);
	assert_int_equal(remote_key_load(key_path, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "holds 5 bytes"));
	assert_int_equal(remote_key_load("/nonexistent/key", &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "No such file"));
	assert_int_equal(remote_key_load(NULL, &k, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no key file"));

	write_key("0123456789abcdef0123456789abcdef\n", 0600);
	assert_int_equal(remote_key_load(key_path, &k, why, sizeof(why)), 0);
	assert_int_equal(k.len, 32);
	write_key("0123456789abcdef0123456789abcdeX\n", 0600);
	assert_int_equal(remote_key_load(key_path, &other, why, sizeof(why)), 0);
	unlink(key_path);

	assert_int_equal(remote_nonce(cn), 0);
	assert_int_equal(remote_nonce(an), 0);
	assert_memory_not_equal(cn, an, REMOTE_NONCE);
	remote_mac(&k, false, cn, an, mac);
	remote_mac(&k, false, cn, an, mac2);
	assert_true(remote_mac_equal(mac, mac2));
	remote_mac(&other, false, cn, an, mac2);
	assert_false(remote_mac_equal(mac, mac2));
	/* The agent's proof is not the client's replayed. */
	remote_mac(&k, true, cn, an, mac2);
	assert_false(remote_mac_equal(mac, mac2));
}

/* A batch: SUBMITs encoded one after another into one block, which
 * remote_first splits again; a refused message leaves the batch as it was. */
static void
batch(void **state)
{
	uint8_t *b = NULL;
	size_t len = 0, cap = 0, at = 0, n;
	uint32_t count = 0;

	(void)state;
	for (uint64_t v = 1; v <= 40; v++) {
		memset(&m, 0, sizeof(m));
		m.type = REMOTE_SUBMIT;
		m.u.submit.dev = 3;
		m.u.submit.value = v;
		m.u.submit.nparts = 1;
		m.u.submit.parts[0].kind = REMOTE_PART_LAUNCH;
		m.u.submit.parts[0].fn = 5;
		m.u.submit.parts[0].grid[0] = (uint32_t)v;
		assert_int_equal(remote_encode_append(&m, &b, &len, &cap, why, sizeof(why)), 0);
	}
	n = len;
	m.u.submit.nparts = 0;	/* past the bound: refused */
	assert_int_equal(remote_encode_append(&m, &b, &len, &cap, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "part count"));
	assert_int_equal(len, n);
	while (at < len) {
		size_t one = remote_first(b + at, len - at);

		assert_true(one > 0);
		assert_int_equal(remote_decode(b + at, one, &d, why, sizeof(why)), 0);
		assert_int_equal(d.type, REMOTE_SUBMIT);
		assert_int_equal(d.u.submit.value, ++count);
		assert_int_equal(d.u.submit.parts[0].grid[0], count);
		at += one;
	}
	assert_int_equal(count, 40);
	free(b);
}

/* Into the caller's buffer: the same bytes remote_encode makes where they
 * fit; 1 (and nothing claimed) where they do not; -1 for a bad message. */
static void
into(void **state)
{
	uint8_t small[64], big[512], *b;
	size_t len = 0, blen;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_REACHED;
	m.u.reached.dev = 2;
	m.u.reached.value = 77;
	assert_int_equal(remote_encode_into(&m, small, sizeof(small), &len, why, sizeof(why)), 0);
	assert_int_equal(remote_encode(&m, &b, &blen, why, sizeof(why)), 0);
	assert_int_equal(len, blen);
	assert_memory_equal(small, b, len);
	free(b);
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_ERROR;
	m.u.error = remote_str("an error text longer than the sixty-four bytes of the small buffer");
	len = 0;
	assert_int_equal(remote_encode_into(&m, small, sizeof(small), &len, why, sizeof(why)), 1);
	assert_int_equal(len, 0);
	assert_int_equal(remote_encode_into(&m, big, sizeof(big), &len, why, sizeof(why)), 0);
	assert_int_equal(remote_decode(big, len, &d, why, sizeof(why)), 0);
	assert_int_equal(d.type, REMOTE_ERROR);
	memset(&m, 0, sizeof(m));
	m.type = REMOTE_SUBMIT;	/* no parts: past the bound */
	assert_int_equal(remote_encode_into(&m, big, sizeof(big), &len, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "part count"));
}

static void
silence(void **state)
{
	(void)state;
	assert_int_equal(link_silent_ns(1000, 400), 600);
	assert_int_equal(link_silent_ns(1000, 1000), 0);
	assert_int_equal(link_silent_ns(1000, 1001), 0);	/* heard since now was read */
	assert_int_equal(link_silent_ns(5, UINT64_MAX), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(batch),
		cmocka_unit_test(malformed),
		cmocka_unit_test(file_messages),
		cmocka_unit_test(gpu_messages),
		cmocka_unit_test(keys),
		cmocka_unit_test(silence),
		cmocka_unit_test(into),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
