/* SPDX-License-Identifier: MIT */
/*
 * remote/agent.h: the agent's state, shared by agent.c (connections,
 * handshake, requests) and serve.c (each device's steps: a client's
 * values run as local rig work and RMA, in value order).
 */
#ifndef REMOTE_AGENT_H
#define REMOTE_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "rig.h"
#include "rig_remote.h"
#include "remote/auth.h"
#include "remote/link.h"

enum aobj_kind { AOBJ_NONE, AOBJ_BUFFER, AOBJ_IMAGE, AOBJ_FUNCTION, AOBJ_PIN };

/* A client's object, by id (its index + 1 in the client's table). */
struct aobj {
	enum aobj_kind kind;
	union {
		struct { struct rig_buffer *b; ucp_mem_h memh; void *host; uint64_t bytes;
			 uint32_t dev; /* the client's device it lies on */ } buf;
		struct rig_image *img;
		struct rig_function *fn;
		struct { ucp_rkey_h rkey; uint64_t address, bytes; } pin;
	} u;
};

/* A device the agent holds open, shared by the clients that opened it. */
struct shared_dev {
	char *name;
	struct rig_device *d;
	struct rig_io_opener *io;	/* a disk's opener (agent_disk.c), or NULL */
	struct rig_device *stage;	/* a disk's staging memory device */
	struct rig_opener *amd;		/* an AMD GPU's opener (agent_amd.c), or NULL */
	int users;
	/* Rig values its clients' steps issued and that have not retired
	 * (serve.c bounds them: the agent's thread never waits inside
	 * rig_submit for the room of a full submission ring). */
	int inflight;
	struct shared_dev *next;
};

enum step_kind { STEP_RIG, STEP_RMA };

/* One part of a client's value, as the agent runs it. */
struct step {
	enum step_kind kind;
	uint64_t value;
	bool last;		/* the value's last step */
	bool issued, done;
	struct rig_point pt;	/* RIG: its point once issued */
	bool owns_pt;		/* RIG: the step that issued pt (merged steps share it) */
	bool barrier;		/* RIG: rig_disk_barrier(src) (agent_disk.c) */
	struct rig_buffer *hold;	/* memory the step's RMA touches, kept till it retires */
	ucp_rkey_h own_rkey;	/* an rkey of the step's own, destroyed with it */
	void *stage;		/* RMA: host memory of the step's own, between the
				 * client's and a buffer the host reaches only by
				 * rig_buffer_read/write (src): an AMD GPU's */
	/* What to issue. RIG: a launch of fn (serve.c runs it from its cache
	 * of submissions of launches) or a copy of two views. */
	struct rig_function *fn;
	uint32_t grid[3], group[3];
	uint8_t *params;
	uint32_t nparams;
	struct rig_buffer *src, *dst;
	/* RMA: put (agent memory to the client's) or get, then a flush. */
	bool put;
	void *local;
	uint64_t remote, bytes;
	ucp_rkey_h rkey;
	ucs_status_ptr_t flush;
	struct step *next;
};

/* A cached submission of k launches of fn (serve.c merges a batch's
 * launches into one rig submit). */
struct launch_cache {
	struct rig_function *fn;
	uint32_t nparams;
	uint32_t k;
	struct rig_submission *s;
};
#define LAUNCH_CACHE 16

/* A client's open device. */
struct adev {
	uint32_t id;
	struct shared_dev *sd;
	struct step *head, *tail;
	struct step *issue_at;	/* the first step not yet issued, or NULL */
	int rma_ahead;		/* RMA steps issued and not retired */
	uint64_t expect;	/* the next value the client submits */
	uint64_t sent;		/* the last value reported reached */
	bool lost;		/* LOST sent: its work is dropped */
	bool closing;		/* the client closed it: the loop ends it */
	struct launch_cache cache[LAUNCH_CACHE];
	int cache_next;		/* the entry a full cache gives up next */
	struct adev *next;
};

enum client_state { CLIENT_NEW, CLIENT_CHALLENGED, CLIENT_READY, CLIENT_GONE };

struct client {
	ucp_ep_h ep;
	/* RMA's endpoint (agent.c: bulk), or NULL: RMA goes on ep. */
	ucp_ep_h bulk;
	bool bulk_asked;	/* BULK came: a second one is refused */
	char peer[80];
	enum client_state state;
	bool admitted;		/* it proved the key */
	const char *gone_why;
	uint8_t cnonce[REMOTE_NONCE], anonce[REMOTE_NONCE];
	uint64_t heard_ns;
	struct aobj *objs;
	uint64_t nobjs, cap;
	struct adev *devs;
	uint32_t next_dev;
	struct client *next;
};

struct agent {
	const struct rig_agent_config *c;
	struct remote_key key;
	struct link link;
	ucp_listener_h listener;
	struct client *clients;
	struct shared_dev *shared;
	uint64_t heartbeat_ns;
	uint64_t hot_until;	/* polls without sleeping until then (link_hot_ns) */
	char where[80];
	int rootfd;		/* --disk-root, or -1: no disks */
	struct amd_sim *sim;	/* --amd-sim's software GPU, or NULL */
	char sim_root[64];	/* its sysfs tree's folder */
};

void agent_log(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Send m to c; a failed send makes c gone. */
void agent_send(struct agent *a, struct client *c, const struct remote_msg *m);
struct aobj *agent_obj(struct client *c, uint64_t id, enum aobj_kind kind);
/* The endpoint c's RMA goes on (its rkeys are unpacked on it). */
ucp_ep_h agent_rma_ep(struct client *c);

/* agent.c, for agent_disk.c: a new object's id (0: no memory), a
 * client's device by id, a new device of c on sd (NULL: no memory), a
 * shared device's user gone, an ERROR answer to request id. */
uint64_t agent_obj_add(struct client *c, enum aobj_kind kind);
struct adev *agent_dev(struct client *c, uint32_t id);
struct adev *agent_dev_add(struct client *c, struct shared_dev *sd);
void agent_shared_put(struct agent *a, struct shared_dev *sd);
void agent_error(struct agent *a, struct client *c, uint32_t id, const char *why);

/* agent_disk.c: the disk root opened (0, or -1 with why), and closed; a
 * disk's request (OPEN_DISK, FILE_*), answered; a shared disk's end; a
 * file op of a SUBMIT as its chain of steps, or NULL with why. */
int agent_disk_start(struct agent *a, char *why, size_t why_len);
void agent_disk_stop(struct agent *a);
void agent_disk_request(struct agent *a, struct client *c, const struct remote_msg *m);
void agent_disk_end(struct shared_dev *sd);
struct step *serve_file_steps(struct client *c, struct adev *dev, const struct remote_part *p,
			      char *why, size_t why_len);

/* agent_amd.c: the software GPU made (--amd-sim; 0, or -1 with why) and
 * gone; whether a name is an AMD GPU's; GPU name opened into *out with
 * its opener kept in sd (0, or -1 with why); that opener freed; the
 * GPUs a MACHINE_GPUS asks for, answered. */
int agent_amd_start(struct agent *a, char *why, size_t why_len);
void agent_amd_stop(struct agent *a);
bool agent_amd_name(const char *name);
int agent_amd_open(struct agent *a, struct shared_dev *sd, const char *name,
		   struct rig_device **out, char *why, size_t why_len);
void agent_amd_end(struct shared_dev *sd);
void agent_amd_gpus(struct agent *a, struct client *c, const struct remote_msg *m);

/* serve.c: a SUBMIT's steps queued on dev; 0, or -1 with why. */
int serve_submit(struct agent *a, struct client *c, struct adev *dev,
		 const struct remote_msg *m, char *why, size_t why_len);
/* Issue what may run, retire what ran, report values reached or a loss.
 * True where steps are still pending; *next (where its device is NULL)
 * becomes the point of the first rig work still running, if any. */
bool serve_pump(struct agent *a, struct client *c, struct adev *dev, struct rig_point *next);
/* dev is lost: LOST goes to its client once, with why; its work is dropped. */
void serve_lose(struct agent *a, struct client *c, struct adev *dev, const char *why);
/* Drop dev's steps (its client is gone or it closed): waits for what was
 * issued, so no RMA targets memory that goes; an RMA flush only while c
 * is heard from, or for one heartbeat bound (a dead client's would spin
 * for ever): true where one was given up, and then c's endpoints were
 * closed (agent_cut: that cancels it) before its memory went. */
bool serve_drop(struct agent *a, struct client *c, struct adev *dev);
/* c is gone for why, and its endpoints close now (which cancels what UCX
 * still has of its RMA). */
void agent_cut(struct agent *a, struct client *c, const char *why);

#endif
