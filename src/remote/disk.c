/* SPDX-License-Identifier: MIT */
/*
 * remote/disk.c: a disk of another machine as an Io library (rig_edge.h's
 * struct rig_io), and rig_remote_disk_opener(). rig runs it as any Io
 * device (src/io/device.c): its files are the agent's, named by paths
 * beneath the agent's --disk-root (agent_disk.c refuses the rest), and
 * its work is the copies between a file and memory this process
 * addresses, each value one SUBMIT of file ops.
 *
 * Underneath it is an rdev of driver.c (opened with OPEN_DISK): the
 * progress thread (client.c) raises the word make was given as the agent
 * reports values reached, and a loss (the agent's, or the connection's)
 * turns its events fd readable, which is the library's fault_fd.
 *
 * The bytes of a read or write travel by UCX RMA: submit registers the
 * host range with UCX (ucp_mem_map of the memory as it is) and sends its
 * packed key in the op, so the agent puts into it or gets from it; the
 * registration is undone once the word shows the value (checked at the
 * next submit, and at stop, which first waits for the values sent to be
 * reached or the connection to go, so no RMA lands in memory rig returned).
 *
 * Threads: rig calls submit one value at a time (the Io device's
 * submission thread), and stop with no call in flight; the registrations'
 * list is theirs alone. create, open, size and release may come from any
 * thread: they only send requests (machine_call takes one at a time).
 * The handle outlives stop until its last file is released (refs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rig_remote.h"
#include "remote/client.h"

struct reg {
	uint64_t value;
	ucp_mem_h memh;
	struct reg *next;
};

struct rdisk {
	struct rdev *dev;		/* NULL once stopped */
	struct machine *m;
	struct conn *conn;		/* the connection its ids belong to */
	RIG_ATOMIC(uint64_t) *word;	/* the word make was given */
	uint64_t last;			/* the last value sent */
	atomic_int refs;		/* 1 until stop, and one per file */
	atomic_bool stopped;		/* size and release may follow stop */
	struct reg *regs, *regs_tail;	/* oldest first */
	char failbuf[320];
};

struct rfile {
	uint64_t id;
	struct conn *conn;
};

static pthread_mutex_t dopeners_lock = PTHREAD_MUTEX_INITIALIZER;
static struct remote_opener *dopeners;

static void
put(struct rdisk *k)
{
	if (atomic_fetch_sub(&k->refs, 1) == 1)
		free(k);
}

/* The disk's connection, while it is the machine's live one. */
static struct conn *
live(struct rdisk *k)
{
	return k->dev && machine_conn(k->m) == k->conn ? k->conn : NULL;
}

/* Undo the registrations of values the word shows (all: every one). */
static void
retire(struct rdisk *k, bool all)
{
	uint64_t reached = atomic_load_explicit(k->word, memory_order_acquire);

	while (k->regs && (all || k->regs->value <= reached)) {
		struct reg *r = k->regs;

		k->regs = r->next;
		ucp_mem_unmap(k->conn->link.ctx, r->memh);
		free(r);
	}
	if (!k->regs)
		k->regs_tail = NULL;
}

/* Register bytes of host memory at host, for value: the op's rkey
 * (packed: the caller releases it). 0, or -1 with why. */
static int
reg_add(struct rdisk *k, uint64_t value, void *host, uint64_t bytes, void **rkey,
	size_t *rkey_len, char *why, size_t why_len)
{
	ucp_mem_map_params_t mp = {
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		.address = host, .length = bytes,
	};
	struct reg *r = calloc(1, sizeof(*r));
	ucs_status_t st;

	if (!r) {
		snprintf(why, why_len, "no memory for a registration");
		return -1;
	}
	if ((st = ucp_mem_map(k->conn->link.ctx, &mp, &r->memh)) != UCS_OK) {
		free(r);
		snprintf(why, why_len, "UCX cannot register %llu bytes of host memory: %s",
			 (unsigned long long)bytes, ucs_status_string(st));
		return -1;
	}
	if ((st = ucp_rkey_pack(k->conn->link.ctx, r->memh, rkey, rkey_len)) != UCS_OK ||
	    *rkey_len > REMOTE_RKEY_MAX) {
		if (st == UCS_OK)
			ucp_rkey_buffer_release(*rkey);
		ucp_mem_unmap(k->conn->link.ctx, r->memh);
		free(r);
		snprintf(why, why_len, "UCX cannot pack a key of the memory");
		return -1;
	}
	r->value = value;
	if (k->regs_tail)
		k->regs_tail->next = r;
	else
		k->regs = r;
	k->regs_tail = r;
	return 0;
}

/* The part of one op; false with why where it cannot go. */
static bool
part_of(struct rdisk *k, uint64_t value, const struct rig_io_op *op, struct remote_part *w,
	void **rkey, char *why, size_t why_len)
{
	const struct rfile *f = op->file;
	size_t rkey_len = 0;

	*w = (struct remote_part){ .kind = REMOTE_PART_FILE };
	*rkey = NULL;
	if (f->conn != k->conn) {
		snprintf(why, why_len, "a file of an earlier connection to %s", k->m->where);
		return false;
	}
	w->file = f->id;
	if (op->kind == RIG_IO_BARRIER) {
		w->op = REMOTE_FILE_BARRIER;
		return true;
	}
	w->op = op->kind == RIG_IO_READ ? REMOTE_FILE_READ : REMOTE_FILE_WRITE;
	w->offset = op->offset;
	w->address = (uintptr_t)op->host;
	w->bytes = op->bytes;
	if (!op->bytes)
		return true;
	if (reg_add(k, value, op->host, op->bytes, rkey, &rkey_len, why, why_len) < 0)
		return false;
	w->rkey = (struct remote_bytes){ *rkey, (uint32_t)rkey_len };
	return true;
}

static int
fail(struct rdisk *k, const char *why, const char **failure)
{
	rdev_lose(k->dev, why);
	*failure = rdev_failure(k->dev);
	return RIG_FAILED;
}

static int
disk_submit(void *t, uint64_t value, const struct rig_io_op *ops, size_t nops,
	    const char **failure)
{
	static _Thread_local struct remote_msg m;
	struct rdisk *k = t;
	void *rkeys[REMOTE_PARTS_MAX] = { 0 };
	uint8_t *bytes = NULL;
	size_t len = 0, n = nops ? nops : 1;
	char why[256];
	bool ok = true;

	if ((*failure = rdev_failure(k->dev)))
		return RIG_FAILED;
	retire(k, false);
	if (!live(k))
		return fail(k, "connection lost", failure);
	if (nops > REMOTE_PARTS_MAX) {
		snprintf(why, sizeof(why), "a value of %zu ops passes the wire's %u", nops,
			 REMOTE_PARTS_MAX);
		return fail(k, why, failure);
	}
	m.type = REMOTE_SUBMIT;
	m.id = 0;
	m.u.submit.dev = rdev_id(k->dev);
	m.u.submit.value = value - rdev_base(k->dev);
	m.u.submit.nparts = (uint32_t)n;
	/* A value with no op still takes its place in the agent's order. */
	m.u.submit.parts[0] = (struct remote_part){ .kind = REMOTE_PART_FILE,
						    .op = REMOTE_FILE_NOP };
	for (size_t i = 0; i < nops && ok; i++)
		ok = part_of(k, value, &ops[i], &m.u.submit.parts[i], &rkeys[i], why, sizeof(why));
	if (ok)
		ok = remote_encode(&m, &bytes, &len, why, sizeof(why)) == 0;
	for (size_t i = 0; i < nops; i++)
		if (rkeys[i])
			ucp_rkey_buffer_release(rkeys[i]);
	if (ok)
		ok = machine_send_bytes(k->m, bytes, len, why, sizeof(why)) == 0;
	if (!ok)
		return fail(k, why, failure);	/* the registrations go at stop */
	k->last = value;
	return RIG_OK;
}

/* A request of the disk's and its answer (FILE_IS): 0, or -1 with why. */
static int
call(struct rdisk *k, struct remote_msg *req, struct remote_msg *ans, char *why, size_t len)
{
	uint8_t *keep = NULL;

	if (!live(k)) {
		snprintf(why, len, "AGENT %s: connection lost", k->m->where);
		return -1;
	}
	if (machine_call(k->m, req, ans, &keep, why, len) < 0)
		return -1;
	free(keep);	/* FILE_IS holds no bytes of the message */
	return 0;
}

static int
file_new(struct rdisk *k, struct remote_msg *req, void **file, char *why, size_t len)
{
	struct rfile *f = calloc(1, sizeof(*f));
	struct remote_msg ans;

	if (!f) {
		snprintf(why, len, "no memory for a file");
		return -ENOMEM;
	}
	f->conn = k->conn;
	if (call(k, req, &ans, why, len) < 0) {
		free(f);
		return -EPERM;
	}
	f->id = ans.u.file_is.id;
	atomic_fetch_add(&k->refs, 1);
	*file = f;
	return 0;
}

/* A path the wire carries: 0, or -ENAMETOOLONG with why. */
static int
path_check(const char *path, char *why, size_t len)
{
	if (strlen(path) > REMOTE_STR_MAX) {
		snprintf(why, len, "%.40s...: %zu bytes, more than a remote path's %u", path,
			 strlen(path), REMOTE_STR_MAX);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int
disk_create(void *t, const char *path, uint64_t bytes, void **file, char *why, size_t len)
{
	struct rdisk *k = t;
	struct remote_msg req = { .type = REMOTE_FILE_CREATE };
	int ret;

	if ((ret = path_check(path, why, len)) < 0)
		return ret;
	req.u.file_create.dev = rdev_id(k->dev);
	req.u.file_create.path = remote_str(path);
	req.u.file_create.bytes = bytes;
	return file_new(k, &req, file, why, len);
}

static int
disk_open(void *t, const char *path, bool write, void **file, char *why, size_t len)
{
	struct rdisk *k = t;
	struct remote_msg req = { .type = REMOTE_FILE_OPEN };
	int ret;

	if ((ret = path_check(path, why, len)) < 0)
		return ret;
	req.u.file_open.dev = rdev_id(k->dev);
	req.u.file_open.path = remote_str(path);
	req.u.file_open.write = write;
	return file_new(k, &req, file, why, len);
}

static int
disk_size(void *t, void *file, uint64_t *bytes)
{
	struct rdisk *k = t;
	struct rfile *f = file;
	struct remote_msg req = { .type = REMOTE_FILE_SIZE }, ans;
	char why[200];

	if (f->conn != k->conn || atomic_load(&k->stopped))
		return -ENOTCONN;
	req.u.handle = f->id;
	if (call(k, &req, &ans, why, sizeof(why)) < 0)
		return -ENOTCONN;
	*bytes = ans.u.file_is.bytes;
	return 0;
}

static void
disk_release(void *t, void *file)
{
	struct rdisk *k = t;
	struct rfile *f = file;
	struct remote_msg m = { .type = REMOTE_FREE };
	char why[200];

	/* Its I/O ended first (rig_edge.h): the id may go. An id of an
	 * earlier connection may name another object on this one. */
	if (machine_conn(k->m) == f->conn) {
		m.u.handle = f->id;
		(void)machine_send(k->m, &m, why, sizeof(why));
	}
	free(f);
	put(k);
}

static void
disk_stop(void *t, const char *reason)
{
	struct rdisk *k = t;
	const char *f;

	/* The agent may still put into memory of values it has not reached:
	 * wait for them (the heartbeat bounds a silent agent), then undo
	 * every registration. */
	while (atomic_load_explicit(k->word, memory_order_acquire) < k->last &&
	       !rdev_failure(k->dev) && live(k))
		nanosleep(&(struct timespec){ 0, 200000 }, NULL);
	retire(k, true);
	if ((f = rdev_failure(k->dev)))
		snprintf(k->failbuf, sizeof(k->failbuf), "%s", f);
	atomic_store(&k->stopped, true);
	rdev_end(k->dev);
	k->dev = NULL;
	put(k);
}

static int
disk_fault_fd(void *t)
{
	struct rdisk *k = t;

	return k->dev ? rdev_efd(k->dev) : -1;
}

static const char *
disk_failure(void *t)
{
	struct rdisk *k = t;

	return k->dev ? rdev_failure(k->dev) : k->failbuf[0] ? k->failbuf : NULL;
}

static const struct rig_io remote_disk_io = {
	.submit = disk_submit,
	.size = disk_size,
	.release = disk_release,
	.stop = disk_stop,
	.create = disk_create,
	.open = disk_open,
	.fault_fd = disk_fault_fd,
	.failure = disk_failure,
};

static int
disk_make(const struct rig_io_opener *o, RIG_ATOMIC(uint64_t) *word, void **handle,
	  char *why, size_t why_len)
{
	const struct remote_opener *op = o->arg;
	struct rdisk *k = calloc(1, sizeof(*k));
	int ret;

	if (!k) {
		snprintf(why, why_len, "no memory");
		return -ENOMEM;
	}
	ret = rdev_open(op->m, op->has_key_file ? op->key_file : NULL, REMOTE_OPEN_DISK,
			op->name, word, &k->dev, why, why_len);
	if (ret < 0) {
		free(k);
		return ret;
	}
	k->m = op->m;
	k->conn = rdev_conn(k->dev);
	k->word = word;
	k->last = rdev_base(k->dev);
	atomic_init(&k->refs, 1);
	*handle = k;
	return 0;
}

int
rig_remote_disk_opener(const char *where, const char *name, const char *key_file,
		       struct rig_io_opener *out)
{
	static const char func[] = "rig_remote_disk_opener";
	struct remote_opener *op;

	if (!out)
		return rig_why_set(func, -EINVAL, "out is NULL");
	if (remote_opener_args(func, "disk", where, name, key_file) < 0)
		return -EINVAL;
	op = remote_opener_get(&dopeners_lock, &dopeners, where, name, key_file);
	if (!op)
		return rig_why_set(func, -ENOMEM, "no memory for the opener");
	*out = (struct rig_io_opener){ .name = op->full, .io = &remote_disk_io,
				       .make = disk_make, .arg = op };
	return 0;
}
