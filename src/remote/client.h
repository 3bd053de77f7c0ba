/* SPDX-License-Identifier: MIT */
/*
 * remote/client.h: a client's connection to one agent (a machine), shared
 * by every remote device of that machine: the handshake, requests that
 * wait for their answer, the progress thread that delivers reached values
 * and losses to the devices (driver.c), and the heartbeat.
 */
#ifndef REMOTE_CLIENT_H
#define REMOTE_CLIENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "rig_edge.h"
#include "remote/link.h"

struct rdev;

/* One connection's UCX state; kept for the process's life once made, so
 * that regions registered on it can still be unregistered after it broke. */
struct conn {
	struct link link;
	ucp_ep_h ep;
	pthread_t thread;
	bool has_thread;	/* thread runs and is not joined */
	atomic_bool up;
	atomic_bool stop;
	atomic_bool polled;	/* waiters may progress it (conn_poll): its handshake is over */
	atomic_bool polling;	/* a waiter progresses it now (conn_poll) */
	_Atomic uint64_t heard_ns;
	/* The last send's time: the progress thread stays hot a while
	 * after it (link_hot_ns), as the answer is on its way. */
	_Atomic uint64_t sent_ns;
	/* A waiter's last poll of the worker (conn_poll): while one polls,
	 * the progress thread naps rather than polls (client.c: hot_poll). */
	_Atomic uint64_t waiter_ns;
	/* How often the progress thread pings: a quarter of the smaller of
	 * this machine's bound and the agent's (its CHALLENGE), so neither
	 * side takes an idle connection for a silent one. */
	uint64_t ping_ns;
	struct machine *m;
	struct conn *older;
};

struct machine {
	char where[80];
	pthread_mutex_t connect;	/* one connect at a time */
	pthread_mutex_t lock;		/* devs, the pending answers */
	pthread_cond_t answered;
	struct conn *conn;		/* the newest connection, or NULL */
	struct rdev *devs;		/* its open devices */
	uint32_t next_id;
	/* The one request waiting for its answer (requests go one at a time). */
	uint32_t want_id;
	uint8_t *answer;
	size_t answer_len;
	bool answer_lost;
	uint64_t heartbeat_ns;
	struct machine *next;
};

/* The machine of where, made once per process (no I/O). NULL: no memory. */
struct machine *machine_of(const char *where);

/* Connect if not connected (the handshake with the key in key_file).
 * 0, or -1 with why. */
int machine_connect(struct machine *m, const char *key_file, char *why, size_t why_len);

/*
 * Send req and wait for its answer, decoded into *ans (whose byte fields
 * point into *keep, which the caller frees). An ERROR answer is -1 with
 * its text in why; a lost connection -1 "AGENT where: connection lost".
 */
int machine_call(struct machine *m, struct remote_msg *req, struct remote_msg *ans,
		 uint8_t **keep, char *why, size_t why_len);

/* Send m without waiting (FREE, CLOSE, SUBMIT). 0, or -1 with why. */
int machine_send(struct machine *m, const struct remote_msg *msg, char *why, size_t why_len);

/* Send len encoded bytes (malloc'd; the call owns them). 0, or -1. */
int machine_send_bytes(struct machine *m, uint8_t *bytes, size_t len, char *why, size_t why_len);

/* The same, but the bytes stay the caller's (link_send_copy). */
int machine_send_copy(struct machine *m, const uint8_t *bytes, size_t len, char *why,
		      size_t why_len);

/* Progress c's worker once from a thread of rig's that looks at a remote
 * device's word (driver.c: signaled), unless the spin is off or this
 * thread is already inside UCX's progress. */
void conn_poll(struct conn *c);

/* The live connection's link and endpoint (for pins), or NULL. */
struct conn *machine_conn(struct machine *m);

/* driver.c: the progress thread's deliveries. */
void rdev_reached(struct rdev *d, uint64_t seq);
void rdev_lose(struct rdev *d, const char *why);
uint32_t rdev_id(const struct rdev *d);
struct conn *rdev_conn(const struct rdev *d);
struct rdev *rdev_next(const struct rdev *d);

/*
 * driver.c, for the remote disk (disk.c): open a device of the machine
 * by a request of type (REMOTE_OPEN, REMOTE_OPEN_DISK) for name, whose
 * reached values raise word; 0, or a negative errno with why. The rest:
 * its machine, the word's value at open, its events fd, its failure
 * (NULL while it runs), and its end (CLOSE sent, the handle freed).
 */
int rdev_open(struct machine *m, const char *key_file, uint16_t type, const char *name,
	      RIG_ATOMIC(uint64_t) *word, struct rdev **out, char *why, size_t why_len);
struct machine *rdev_machine(const struct rdev *d);

/* driver.c: the checks both remote openers make of where, name and
 * key_file (what: "device" or "disk", as their messages name it); 0, or
 * -EINVAL with rig_why() set for func. */
#define REMOTE_OPENER_WHERE_MAX		79u
#define REMOTE_OPENER_NAME_MAX		200u
#define REMOTE_OPENER_KEY_FILE_MAX	4095u
int remote_opener_args(const char *func, const char *what, const char *where,
		       const char *name, const char *key_file);

/* An opener of a device of another machine (driver.c, disk.c): kept for
 * the process's life, one per (where, name, key file) in its list, so
 * that asking twice makes nothing new. */
struct remote_opener {
	char where[REMOTE_OPENER_WHERE_MAX + 1];
	char name[REMOTE_OPENER_NAME_MAX + 1];
	char full[300];		/* name@where: the device's name here */
	char key_file[REMOTE_OPENER_KEY_FILE_MAX + 1];
	bool has_key_file;
	struct machine *m;
	struct remote_opener *next;
};
/* The opener of (where, name, key_file) in *list under lock, made if it is
 * new; NULL without memory. Arguments checked by remote_opener_args(). */
struct remote_opener *remote_opener_get(pthread_mutex_t *lock, struct remote_opener **list,
					const char *where, const char *name,
					const char *key_file);
uint64_t rdev_base(const struct rdev *d);
int rdev_efd(const struct rdev *d);
const char *rdev_failure(struct rdev *d);
void rdev_end(struct rdev *d);

#endif
