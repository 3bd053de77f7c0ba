/* SPDX-License-Identifier: MIT */
/*
 * remote/wire.h: the messages between a client's remote driver and `rig
 * agent`, as bytes and as structures. Every message is one UCX active
 * message; UCX frames it, so the only parsing rig owns is this: a 16-byte
 * header (magic, type, request id, payload length) and a payload of
 * little-endian fixed fields, strings (u16 length, at most REMOTE_STR_MAX
 * bytes, no NUL) and blobs (u32 length). remote_decode() checks every
 * length and bound before it reads, so a hostile peer's bytes end in a
 * refusal, never a read past the message (tests/fuzz/fuzz_remote_wire.c).
 */
#ifndef REMOTE_WIRE_H
#define REMOTE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REMOTE_MAGIC		0x52494752u	/* "RGIR" little-endian */
#define REMOTE_VERSION		2u	/* 2: CHALLENGE carries the agent's heartbeat bound */
#define REMOTE_HEADER		16u
#define REMOTE_NONCE		32u
#define REMOTE_MAC		32u
#define REMOTE_STR_MAX		255u
#define REMOTE_PARTS_MAX	64u
#define REMOTE_QUEUES_MAX	8u
#define REMOTE_PARAMS_MAX	4096u
#define REMOTE_RKEY_MAX		4096u
#define REMOTE_IMAGE_MAX	(64u << 20)
#define REMOTE_ADDRESS_MAX	4096u	/* a BULK's worker address */
#define REMOTE_GPUS_MAX		16u
#define REMOTE_BARS		6u

enum remote_type {
	REMOTE_HELLO = 1,	/* c→a: version, client nonce */
	REMOTE_CHALLENGE,	/* a→c: agent nonce, its heartbeat bound */
	REMOTE_AUTH,		/* c→a: the client's proof */
	REMOTE_WELCOME,		/* a→c: the agent's proof */
	REMOTE_OPEN,		/* c→a: a device by name */
	REMOTE_OPENED,		/* a→c: its id and facts */
	REMOTE_CLOSE,		/* c→a: a device goes */
	REMOTE_ALLOC,		/* c→a: memory on a device */
	REMOTE_ALLOCED,		/* a→c: its id and address */
	REMOTE_FREE,		/* c→a: memory goes */
	REMOTE_LOAD,		/* c→a: an image's bytes */
	REMOTE_LOADED,		/* a→c: its id */
	REMOTE_UNLOAD,		/* c→a: an image goes */
	REMOTE_ENTRY,		/* c→a: a function of an image */
	REMOTE_ENTRY_IS,	/* a→c: the answer */
	REMOTE_PIN,		/* c→a: client memory the agent may put and get */
	REMOTE_PINNED,		/* a→c: its id */
	REMOTE_UNPIN,		/* c→a: it goes */
	REMOTE_SUBMIT,		/* c→a: the work of a value */
	REMOTE_REACHED,		/* a→c: a device's values up to this one completed */
	REMOTE_LOST,		/* a→c: a device was lost, with why */
	REMOTE_PING,		/* either way: a heartbeat */
	REMOTE_PONG,
	REMOTE_ERROR,		/* a→c: a request failed, with why */
	/* c→a, once, after WELCOME: the client's UCX worker address, for the
	 * agent's endpoint that carries RMA alone (agent.c: bulk). */
	REMOTE_BULK,
	/* Disks (--disk-root): files beneath the agent's root only. */
	REMOTE_OPEN_DISK,	/* c→a: a disk by name; answered OPENED */
	REMOTE_FILE_CREATE,	/* c→a: a new file of bytes zero bytes at a path */
	REMOTE_FILE_OPEN,	/* c→a: the existing file at a path, for writing or not */
	REMOTE_FILE_SIZE,	/* c→a: a file's length now */
	REMOTE_FILE_IS,		/* a→c: a file's id and length */
	/* A machine handle (rig_remote_machine): the agent's AMD GPUs. */
	REMOTE_MACHINE_GPUS,	/* c→a: the AMD GPUs the agent serves */
	REMOTE_GPUS_ARE,	/* a→c: them, in bus order */
	REMOTE_TYPES
};

/* A string or blob inside a decoded message: it points into the bytes. */
struct remote_bytes {
	const uint8_t *at;
	uint32_t len;
};

struct remote_queue {
	struct remote_bytes name;
	uint32_t runs;
};

/* The facts the agent reports of a device it opened. */
struct remote_facts {
	uint32_t dev;
	uint64_t start;		/* the value its word showed at open */
	struct remote_bytes arch;
	uint64_t budget;
	uint64_t alignment;
	int32_t copy_engine;
	int64_t hang_ms;	/* -1: none */
	int64_t cache_bytes;	/* -1: unknown */
	uint32_t nqueues;
	struct remote_queue queues[REMOTE_QUEUES_MAX];
};

/* One end of a copy: a buffer of the agent, or memory the client pinned. */
enum remote_end { REMOTE_END_BUFFER = 0, REMOTE_END_PIN = 1 };
struct remote_span {
	uint8_t end;
	uint64_t id;
	uint64_t offset;
};

enum remote_part_kind { REMOTE_PART_COPY = 1, REMOTE_PART_LAUNCH = 2, REMOTE_PART_FILE = 3 };

/* A disk's op (REMOTE_PART_FILE): the bytes of a read or write travel by
 * RMA to or from the client's memory at address, registered under rkey. */
enum remote_file_op {
	REMOTE_FILE_NOP = 0,	/* nothing: a value with no op keeps its place */
	REMOTE_FILE_READ,	/* the file's bytes at offset into the client's memory */
	REMOTE_FILE_WRITE,	/* the client's bytes into the file at offset */
	REMOTE_FILE_BARRIER,	/* the file's written data made durable (fsync) */
};
struct remote_part {
	uint8_t kind;
	/* copy */
	struct remote_span src, dst;
	uint64_t bytes;
	int32_t fill;		/* -1: a copy; 0-255: a fill of dst */
	/* launch */
	uint64_t fn;
	uint32_t grid[3], group[3];
	uint32_t shared_bytes;
	struct remote_bytes params;
	/* file: op on file, bytes at offset, the client's end */
	uint8_t op;
	uint64_t file, offset, address;
	struct remote_bytes rkey;
};

/* A PCI function of the agent's machine (an AMD GPU it serves). */
struct remote_gpu {
	struct remote_bytes bus;	/* "0000:03:00.0" */
	uint16_t vendor, device;
	uint32_t class_code;
	uint64_t bar_bytes[REMOTE_BARS];
};

struct remote_msg {
	uint16_t type;
	uint32_t id;		/* the request's id; a reply carries its request's */
	union {
		struct { uint32_t version; uint8_t nonce[REMOTE_NONCE]; } hello;
		/* The agent's bound on a client's silence, in ms (> 0): the
		 * client pings within it whatever its own bound. */
		struct { uint8_t nonce[REMOTE_NONCE]; uint32_t heartbeat_ms; } challenge;
		uint8_t mac[REMOTE_MAC];		/* AUTH, WELCOME */
		struct remote_bytes name;		/* OPEN */
		struct remote_facts opened;		/* OPENED */
		uint32_t dev;				/* CLOSE */
		struct { uint32_t dev; uint32_t kind; uint64_t bytes; } alloc;
		struct { uint64_t id; uint64_t address; } alloced;
		uint64_t handle;	/* FREE, LOADED, UNLOAD, PINNED, UNPIN */
		struct { uint32_t dev; struct remote_bytes image; } load;
		struct { uint64_t image; struct remote_bytes name; } entry;
		struct { uint32_t answer; uint64_t fn; uint64_t code; } entry_is;
		struct { uint64_t address; uint64_t bytes; struct remote_bytes rkey; } pin;
		struct { uint32_t dev; uint64_t value; uint32_t nparts;
			 struct remote_part parts[REMOTE_PARTS_MAX]; } submit;
		struct { uint32_t dev; uint64_t value; } reached;
		struct { uint32_t dev; struct remote_bytes why; } lost;
		uint64_t ping;				/* PING, PONG */
		struct remote_bytes error;		/* ERROR */
		struct remote_bytes address;		/* BULK */
		struct { uint32_t dev; struct remote_bytes path; uint64_t bytes; } file_create;
		struct { uint32_t dev; struct remote_bytes path; uint8_t write; } file_open;
		struct { uint64_t id; uint64_t bytes; } file_is;	/* FILE_IS */
		/* OPEN_DISK: name; FILE_SIZE: handle; MACHINE_GPUS: nothing */
		struct { uint32_t n; struct remote_gpu gpus[REMOTE_GPUS_MAX]; } gpus;
	} u;
};

/*
 * Decode len bytes into *m, whose byte fields point into bytes. Returns 0,
 * or -1 with why naming the first thing wrong ("type 99 is unknown").
 */
int remote_decode(const void *bytes, size_t len, struct remote_msg *m,
		  char *why, size_t why_len);

/*
 * Encode *m into a new malloc'd buffer (*out, *len). Returns 0, or -1 for
 * a message whose fields break the bounds above (with why): the encoder
 * checks what the decoder checks, so nothing rig sends is refused.
 */
int remote_encode(const struct remote_msg *m, uint8_t **out, size_t *len,
		  char *why, size_t why_len);

/*
 * Encode *m into the cap bytes at buf (the caller's: no allocation), its
 * length in *len. Returns 0; 1 where it does not fit (remote_encode then
 * makes a block of its size); or -1 with why, as remote_encode.
 */
int remote_encode_into(const struct remote_msg *m, uint8_t *buf, size_t cap, size_t *len,
		       char *why, size_t why_len);

/*
 * Encode *m after the *len bytes of *buf (a malloc'd block of *cap bytes,
 * or NULL and 0), growing it as it needs: the batch of SUBMITs grows in
 * one block, with no allocation per message once it is large enough.
 * Returns 0, or -1 with why and *len as it was (the block may have moved).
 */
int remote_encode_append(const struct remote_msg *m, uint8_t **buf, size_t *len,
			 size_t *cap, char *why, size_t why_len);

/*
 * Several messages may travel in one active message, one after another
 * (a client's batch of SUBMITs): the bytes of the first of len bytes, by
 * its header's length, or 0 where no whole message fits.
 */
size_t remote_first(const void *bytes, size_t len);

/* The name of a type, for logs ("SUBMIT"), or "?". */
const char *remote_type_name(unsigned type);

/* A remote_bytes over a C string (NULL: empty). */
struct remote_bytes remote_str(const char *s);

#endif
