/* SPDX-License-Identifier: MIT */
/*
 * remote/agent_disk.c: the agent's disks (--disk-root). A client opens a
 * disk by name (OPEN_DISK); the agent opens it through the opener a local
 * program uses (rig_disk_opener_init, rig_open_io), and each file the
 * client names by a path relative to the root is opened by root_open()
 * (root.c: openat2 with RESOLVE_BENEATH), so no path that leaves the root
 * opens or creates anything. The disk is then handed the file through the
 * fd's own magic link (/proc/self/fd/N): it reopens the very file the
 * check opened, never the path again, so nothing swapped in between can
 * move it out of the root. A refused path is answered with ERROR and
 * changes nothing else: the connection stays.
 *
 * A file op of a SUBMIT becomes steps (serve.c runs them in order): a
 * read is the disk's copy of the file's bytes into staging memory of the
 * agent, then an RMA put of them into the client's memory; a write is an
 * RMA get into staging, then the disk's copy into the file; a barrier is
 * rig_disk_barrier(). Staging lies on a memory device of the agent's own
 * ("<disk>:staging"), one buffer per op, returned once its steps retire:
 * the disk reads and writes only memory the host addresses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rig_disk.h"
#include "remote/agent.h"
#include "remote/root.h"

#define DISK_PREFIX "disk:"

int
agent_disk_start(struct agent *a, char *why, size_t why_len)
{
	const char *root = a->c->disk_root;

	a->rootfd = -1;
	if (!root)
		return 0;
	if (!*root) {
		snprintf(why, why_len, "the disk root is empty");
		return -1;
	}
	a->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (a->rootfd < 0) {
		snprintf(why, why_len, "disk root %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}

void
agent_disk_stop(struct agent *a)
{
	if (a->rootfd >= 0)
		close(a->rootfd);
	a->rootfd = -1;
}

void
agent_disk_end(struct shared_dev *sd)
{
	if (sd->stage)
		rig_device_release(sd->stage);
	free(sd->io);
}

/* The disk name's shared device, opened once for every client. */
static struct shared_dev *
disk_open(struct agent *a, const char *name, char *why, size_t why_len)
{
	struct shared_dev *sd;
	char stage_name[REMOTE_STR_MAX + 16];
	size_t n = strlen(DISK_PREFIX) + strlen(name) + 1;

	for (sd = a->shared; sd; sd = sd->next)
		if (sd->io && !strcmp(sd->name + strlen(DISK_PREFIX), name) && !rig_lost(sd->d)) {
			sd->users++;
			return sd;
		}
	if (!(sd = calloc(1, sizeof(*sd))) || !(sd->name = malloc(n)) ||
	    !(sd->io = calloc(1, sizeof(*sd->io)))) {
		if (sd)
			free(sd->name);
		free(sd);
		snprintf(why, why_len, "no memory");
		return NULL;
	}
	snprintf(sd->name, n, DISK_PREFIX "%s", name);
	snprintf(stage_name, sizeof(stage_name), "%s:staging", name);
	/* The opener keeps its name: the shared device's, past the prefix. */
	if (rig_disk_opener_init(sd->io, sd->name + strlen(DISK_PREFIX), NULL) < 0 ||
	    rig_open_io(sd->io, &sd->d) < 0 || rig_memory_device(stage_name, &sd->stage) < 0) {
		snprintf(why, why_len, "%s", rig_why());
		if (sd->d) {
			(void)rig_close(sd->d);
			rig_device_release(sd->d);
		}
		free(sd->io);
		free(sd->name);
		free(sd);
		return NULL;
	}
	sd->users = 1;
	sd->next = a->shared;
	a->shared = sd;
	return sd;
}

static void
on_open_disk(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_OPENED, .id = m->id };
	char name[REMOTE_STR_MAX + 1], why[256];
	struct shared_dev *sd;
	struct adev *dev;

	memcpy(name, m->u.name.at, m->u.name.len);
	name[m->u.name.len] = 0;
	if (a->rootfd < 0)
		return agent_error(a, c, m->id, "this agent serves no disks (no --disk-root)");
	if (!(sd = disk_open(a, name, why, sizeof(why))))
		return agent_error(a, c, m->id, why);
	if (!(dev = agent_dev_add(c, sd))) {
		agent_shared_put(a, sd);
		return agent_error(a, c, m->id, "no memory");
	}
	r.u.opened.dev = dev->id;
	r.u.opened.arch = remote_str(rig_arch(sd->d));
	r.u.opened.budget = rig_budget(sd->d);
	r.u.opened.alignment = 64;
	r.u.opened.hang_ms = -1;
	r.u.opened.cache_bytes = -1;
	r.u.opened.nqueues = 1;
	r.u.opened.queues[0] = (struct remote_queue){ remote_str("IO"), 1u << 3 /* copies */ };
	r.u.opened.copy_engine = 0;
	agent_log(a, "client %s: opened disk %s as device %u", c->peer, name, dev->id);
	agent_send(a, c, &r);
}

/* The client's disk of the request: NULL (answered) where it is none. */
static struct adev *
disk_of(struct agent *a, struct client *c, uint32_t id, uint32_t req)
{
	struct adev *dev = agent_dev(c, id);

	if (!dev || dev->lost || dev->closing) {
		agent_error(a, c, req, "no such device, or it is lost");
		return NULL;
	}
	if (!dev->sd->io) {
		agent_error(a, c, req, "the device is no disk");
		return NULL;
	}
	return dev;
}

/* The file the fd names, as a buffer of dev's disk; the fd is closed. */
static int
file_of_fd(struct adev *dev, int fd, bool create, uint64_t bytes, bool write,
	   struct rig_buffer **out, char *why, size_t why_len)
{
	char self[64];
	int ret;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ret = create ? rig_disk_create_file(dev->sd->d, self, bytes, out) :
		       rig_disk_of_file(dev->sd->d, self, write ? RIG_READ_WRITE : RIG_READ_ONLY, out);
	close(fd);
	if (ret < 0)
		snprintf(why, why_len, "%s", rig_why());
	return ret;
}

static void
on_file(struct agent *a, struct client *c, const struct remote_msg *m)
{
	bool create = m->type == REMOTE_FILE_CREATE;
	const struct remote_bytes *p = create ? &m->u.file_create.path : &m->u.file_open.path;
	struct remote_msg r = { .type = REMOTE_FILE_IS, .id = m->id };
	uint32_t devid = create ? m->u.file_create.dev : m->u.file_open.dev;
	bool write = create || m->u.file_open.write;
	char path[REMOTE_STR_MAX + 1], why[512];
	struct rig_buffer *b;
	struct adev *dev;
	struct aobj *o;
	uint64_t id;
	int fd;

	if (!(dev = disk_of(a, c, devid, m->id)))
		return;
	memcpy(path, p->at, p->len);
	path[p->len] = 0;
	/* Beneath the root, or nothing: created without truncation here
	 * (the disk truncates once it has the file), so a refusal after
	 * the check leaves an existing file as it was. */
	fd = root_open(a->rootfd, path, write ? O_RDWR | (create ? O_CREAT : 0) : O_RDONLY,
		       0644, why, sizeof(why));
	if (fd < 0) {
		agent_log(a, "client %s: %s refused: %s", c->peer, remote_type_name(m->type), why);
		return agent_error(a, c, m->id, why);
	}
	if (file_of_fd(dev, fd, create, create ? m->u.file_create.bytes : 0, write, &b,
		       why, sizeof(why)) < 0)
		return agent_error(a, c, m->id, why);
	if (!(id = agent_obj_add(c, AOBJ_BUFFER))) {
		rig_buffer_release(b);
		return agent_error(a, c, m->id, "no memory");
	}
	o = &c->objs[id - 1];
	o->u.buf.b = b;
	o->u.buf.bytes = rig_buffer_length(b);
	o->u.buf.dev = dev->id;
	r.u.file_is.id = id;
	r.u.file_is.bytes = o->u.buf.bytes;
	agent_send(a, c, &r);
}

/* The client's file id on dev's disk, or NULL. */
static struct aobj *
file_obj(struct client *c, struct adev *dev, uint64_t id)
{
	struct aobj *o = agent_obj(c, id, AOBJ_BUFFER);

	return o && o->u.buf.dev == dev->id ? o : NULL;
}

static void
on_file_size(struct agent *a, struct client *c, const struct remote_msg *m)
{
	struct remote_msg r = { .type = REMOTE_FILE_IS, .id = m->id };
	struct aobj *o = agent_obj(c, m->u.handle, AOBJ_BUFFER);

	if (!o)
		return agent_error(a, c, m->id, "no such file");
	r.u.file_is.id = m->u.handle;
	r.u.file_is.bytes = rig_buffer_length(o->u.buf.b);
	agent_send(a, c, &r);
}

void
agent_disk_request(struct agent *a, struct client *c, const struct remote_msg *m)
{
	switch (m->type) {
	case REMOTE_OPEN_DISK: on_open_disk(a, c, m); break;
	case REMOTE_FILE_CREATE: case REMOTE_FILE_OPEN: on_file(a, c, m); break;
	case REMOTE_FILE_SIZE: on_file_size(a, c, m); break;
	default: break;
	}
}

/* ---- A SUBMIT's file ops as steps ---- */

static struct step *
step_new(enum step_kind kind)
{
	struct step *s = calloc(1, sizeof(*s));

	if (s)
		s->kind = kind;
	return s;
}

/* A read's or write's two steps, chained: staging between the file and
 * the client's memory. NULL with why. */
static struct step *
io_steps(struct client *c, struct aobj *file, const struct remote_part *p,
	 struct shared_dev *sd, char *why, size_t why_len)
{
	bool read = p->op == REMOTE_FILE_READ;
	struct rig_buffer *stage = NULL, *stage2 = NULL, *fv = NULL;
	struct step *rig = step_new(STEP_RIG), *rma = step_new(STEP_RMA);
	ucp_rkey_h rkey = NULL;

	if (!rig || !rma) {
		snprintf(why, why_len, "no memory for a step");
		goto fail;
	}
	if (ucp_ep_rkey_unpack(agent_rma_ep(c), p->rkey.at, &rkey) != UCS_OK) {
		rkey = NULL;
		snprintf(why, why_len, "a file op's rkey does not unpack");
		goto fail;
	}
	if (rig_buffer_view(file->u.buf.b, p->offset, p->bytes,
			    read ? RIG_READ_ONLY : RIG_READ_WRITE, &fv) < 0 ||
	    rig_buffer_create(sd->stage, p->bytes, RIG_MEMORY_DEVICE, &stage) < 0 ||
	    rig_buffer_view(stage, 0, p->bytes, RIG_READ_WRITE, &stage2) < 0) {
		snprintf(why, why_len, "%s", rig_why());
		goto fail;
	}
	rma->put = read;
	rma->local = (void *)(uintptr_t)rig_buffer_address(stage);
	rma->remote = p->address;
	rma->bytes = p->bytes;
	rma->rkey = rma->own_rkey = rkey;
	rma->hold = stage;	/* its memory stays while the RMA may touch it */
	rig->src = read ? fv : stage2;
	rig->dst = read ? stage2 : fv;
	/* A read copies, then puts; a write gets, then copies. */
	if (read) {
		rig->next = rma;
		return rig;
	}
	rma->next = rig;
	return rma;
fail:
	if (rkey)
		ucp_rkey_destroy(rkey);
	rig_buffer_release(fv);
	rig_buffer_release(stage);
	rig_buffer_release(stage2);
	free(rig);
	free(rma);
	return NULL;
}

struct step *
serve_file_steps(struct client *c, struct adev *dev, const struct remote_part *p,
		 char *why, size_t why_len)
{
	struct aobj *file;
	struct step *s;

	if (!dev->sd->io) {
		snprintf(why, why_len, "a file op reaches %s, which is no disk", dev->sd->name);
		return NULL;
	}
	if (p->op == REMOTE_FILE_NOP || ((p->op == REMOTE_FILE_READ || p->op == REMOTE_FILE_WRITE) &&
					 !p->bytes)) {
		/* A flush with nothing before it: the value keeps its place. */
		if (!(s = step_new(STEP_RMA)))
			snprintf(why, why_len, "no memory for a step");
		return s;
	}
	if (!(file = file_obj(c, dev, p->file))) {
		snprintf(why, why_len, "a file op names file %llu, which is not the client's on %s",
			 (unsigned long long)p->file, dev->sd->name + strlen(DISK_PREFIX));
		return NULL;
	}
	if (p->op == REMOTE_FILE_BARRIER) {
		if (!(s = step_new(STEP_RIG))) {
			snprintf(why, why_len, "no memory for a step");
			return NULL;
		}
		s->barrier = true;
		if (rig_buffer_view(file->u.buf.b, 0, file->u.buf.bytes,
				    rig_buffer_access(file->u.buf.b), &s->src) < 0) {
			snprintf(why, why_len, "%s", rig_why());
			free(s);
			return NULL;
		}
		return s;
	}
	if (p->offset > file->u.buf.bytes || p->bytes > file->u.buf.bytes - p->offset) {
		snprintf(why, why_len, "a file op of %llu bytes at %llu passes file %llu's %llu",
			 (unsigned long long)p->bytes, (unsigned long long)p->offset,
			 (unsigned long long)p->file, (unsigned long long)file->u.buf.bytes);
		return NULL;
	}
	return io_steps(c, file, p, dev->sd, why, why_len);
}
