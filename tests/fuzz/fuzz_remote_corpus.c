/* SPDX-License-Identifier: MIT */
/*
 * fuzz_remote_corpus: writes one encoded message of every type into a
 * folder, the seed corpus of fuzz_remote_wire. Usage: fuzz_remote_corpus DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/wire.h"

int
main(int argc, char **argv)
{
	static struct remote_msg m;
	static const uint8_t params[24] = { 1, 2, 3 };
	char why[160], path[600];

	if (argc != 2)
		return fprintf(stderr, "usage: fuzz_remote_corpus DIR\n"), 2;
	for (unsigned t = 1; t < REMOTE_TYPES; t++) {
		uint8_t *b;
		size_t len;
		FILE *f;

		memset(&m, 0, sizeof(m));
		m.type = (uint16_t)t;
		m.id = t;
		if (t == REMOTE_OPEN)
			m.u.name = remote_str("HOST");
		if (t == REMOTE_OPEN_DISK)
			m.u.name = remote_str("DISK");
		if (t == REMOTE_FILE_CREATE) {
			m.u.file_create.path = remote_str("runs/data.bin");
			m.u.file_create.bytes = 1 << 20;
		}
		if (t == REMOTE_GPUS_ARE) {
			m.u.gpus.n = 2;
			m.u.gpus.gpus[0] = (struct remote_gpu){ remote_str("0000:03:00.0"), 0x1002,
				0x744c, 0x030000, { 1ull << 30, 0, 2 << 20, 0, 0, 1 << 20 } };
			m.u.gpus.gpus[1] = (struct remote_gpu){ remote_str("0000:83:00.0"), 0x1002,
				0x74a1, 0x120000, { 1ull << 34 } };
		}
		if (t == REMOTE_FILE_OPEN) {
			m.u.file_open.path = remote_str("runs/data.bin");
			m.u.file_open.write = 1;
		}
		if (t == REMOTE_CHALLENGE)
			m.u.challenge.heartbeat_ms = 3000;	/* 0 is refused */
		if (t == REMOTE_ERROR)
			m.u.error = remote_str("rig_open: no such device");
		if (t == REMOTE_LOST)
			m.u.lost.why = remote_str("closed");
		if (t == REMOTE_ENTRY)
			m.u.entry.name = remote_str("add");
		if (t == REMOTE_OPENED) {
			m.u.opened.arch = remote_str("x86_64");
			m.u.opened.alignment = 64;
			m.u.opened.copy_engine = 1;
			m.u.opened.hang_ms = -1;
			m.u.opened.cache_bytes = 1 << 20;
			m.u.opened.nqueues = 2;
			m.u.opened.queues[0] = (struct remote_queue){ remote_str("COMPUTE:0"), 16 };
			m.u.opened.queues[1] = (struct remote_queue){ remote_str("COPY:0"), 8 };
		}
		if (t == REMOTE_SUBMIT) {
			m.u.submit.nparts = 2;
			m.u.submit.parts[0] = (struct remote_part){ .kind = REMOTE_PART_LAUNCH,
				.fn = 7, .grid = { 4, 1, 1 }, .group = { 1, 1, 1 },
				.params = { params, sizeof(params) } };
			m.u.submit.parts[1] = (struct remote_part){ .kind = REMOTE_PART_COPY,
				.src = { REMOTE_END_BUFFER, 3, 0 }, .dst = { REMOTE_END_PIN, 4, 8 },
				.bytes = 64, .fill = -1 };
		}
		if (remote_encode(&m, &b, &len, why, sizeof(why)) < 0)
			return fprintf(stderr, "%s: %s\n", remote_type_name(t), why), 1;
		snprintf(path, sizeof(path), "%s/%s", argv[1], remote_type_name(t));
		if (!(f = fopen(path, "wb")) || fwrite(b, 1, len, f) != len || fclose(f))
			return perror(path), 1;
		free(b);
	}
	/* A disk's SUBMIT: each file op, the bytes' rkey a blob. */
	{
		static const uint8_t rkey[40] = { 9, 8, 7 };
		uint8_t *b;
		size_t len;
		FILE *f;

		memset(&m, 0, sizeof(m));
		m.type = REMOTE_SUBMIT;
		m.u.submit.nparts = 4;
		for (unsigned op = REMOTE_FILE_NOP; op <= REMOTE_FILE_BARRIER; op++)
			m.u.submit.parts[op] = (struct remote_part){ .kind = REMOTE_PART_FILE,
				.op = (uint8_t)op, .file = 5, .offset = 4096, .address = 0x7f0000001000,
				.bytes = op == REMOTE_FILE_READ || op == REMOTE_FILE_WRITE ? 4096 : 0,
				.rkey = { rkey, op == REMOTE_FILE_READ || op == REMOTE_FILE_WRITE ?
					  (uint32_t)sizeof(rkey) : 0 } };
		if (remote_encode(&m, &b, &len, why, sizeof(why)) < 0)
			return fprintf(stderr, "disk SUBMIT: %s\n", why), 1;
		snprintf(path, sizeof(path), "%s/SUBMIT_FILE", argv[1]);
		if (!(f = fopen(path, "wb")) || fwrite(b, 1, len, f) != len || fclose(f))
			return perror(path), 1;
		free(b);
	}
	return 0;
}
