/* SPDX-License-Identifier: MIT */
/*
 * remote/link.h: what the agent and the client share of UCX: a context
 * and worker with active messages, RMA and wake-ups; the one AM handler
 * through which every message (wire.h) arrives; sends that own their
 * bytes until UCX is done with them; and "host:port" as a socket address.
 */
#ifndef REMOTE_LINK_H
#define REMOTE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include <ucp/api/ucp.h>

#include "remote/wire.h"

#define LINK_AM_ID	7u

struct link {
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;		/* the worker's wake-up fd */
	void *handler;		/* what the AM handler is called with */
	/* Set by a handler whose message its caller should act on before
	 * anything else comes: link_progress_spin returns after the progress
	 * call that delivered it (and clears it), not after one more call
	 * that finds nothing, which costs a poll of every transport. */
	bool urgent;
};

/* Called for each message that arrives, with the endpoint to answer on
 * (NULL where the sender gave none) and bytes valid during the call. */
typedef void (*link_recv_fn)(void *arg, ucp_ep_h reply, const void *bytes, size_t len);

/* A context and worker: multi for a worker that several threads call. */
int link_open(struct link *l, bool multi, link_recv_fn recv, void *arg,
	      char *why, size_t why_len);

/* The same, and where shm is true, UCX's shared-memory transports (posix,
 * sysv) offer peer-failure handling (link.c says why), unless
 * RIG_REMOTE_SHM=0. */
int link_open_shm(struct link *l, bool multi, bool shm, link_recv_fn recv, void *arg,
		  char *why, size_t why_len);
void link_close(struct link *l);

/* Send m on ep; UCX owns a copy until it is sent. 0, or -1 with why. */
int link_send(ucp_ep_h ep, const struct remote_msg *m, char *why, size_t why_len);

/* The same, to a peer that never answers on the reply endpoint (the
 * agent's messages to a client: client.c's handler ignores it), so UCX
 * neither resolves nor sends the sender's endpoint id. */
int link_send_one_way(ucp_ep_h ep, const struct remote_msg *m, char *why, size_t why_len);

/* Send len bytes of encoded messages from bytes (malloc'd: the call owns
 * them, whatever it returns). 0, or -1 with why. */
int link_send_bytes(ucp_ep_h ep, uint8_t *bytes, size_t len, char *why, size_t why_len);

/* The same, but bytes stay the caller's, free again once it returns: sent
 * at once where the transport takes them now (UCX copies them; no block
 * is made), else from a copy UCX owns. Order on ep is kept either way. */
int link_send_copy(ucp_ep_h ep, const uint8_t *bytes, size_t len, char *why, size_t why_len);

/* Progress until nothing moves, then sleep on the worker's fd for
 * timeout_ms at most (0: do not sleep). */
void link_progress(struct link *l, int timeout_ms);

/* The same, but where nothing moved at first, poll the worker for spin_ns
 * before arming its fd and sleeping: true where anything moved. Returns at
 * once after a call whose handler set l->urgent. */
bool link_progress_spin(struct link *l, uint64_t spin_ns, int timeout_ms);

/* How long the agent's and the client's loops poll before they sleep:
 * RIG_REMOTE_SPIN_US (0 turns the spin off), default 10 us; the spin
 * yields the core between polls (docs/remote.md). */
uint64_t link_spin_ns(void);

/* How long after its last message (or value in flight) a loop stays hot:
 * polls, yielding, in place of the short spin, before it sleeps, so that
 * the next message of a conversation finds it awake and an idle process
 * still sleeps. RIG_REMOTE_HOT_US (0: the short spin alone), default
 * LINK_HOT_NS. */
#define LINK_HOT_NS	(200ull * 1000)
uint64_t link_hot_ns(void);

/* How long a peer last heard from (or a send made) at heard_ns has been
 * silent at now. Another thread, or a handler run since now was read, may
 * have stored a heard_ns later than now: that is no silence, not the 584
 * years an unsigned now - heard_ns would make of it. */
static inline uint64_t
link_silent_ns(uint64_t now, uint64_t heard_ns)
{
	return now > heard_ns ? now - heard_ns : 0;
}

/* A time in microseconds from the environment variable name, in ns, read
 * once into *cache (-1 until then); dflt_ns where it is unset or empty. */
uint64_t link_env_ns(_Atomic int64_t *cache, const char *name, uint64_t dflt_ns);

/* Wait for a request UCX returned (progressing l) and free it: its status. */
ucs_status_t link_wait(struct link *l, ucs_status_ptr_t req);

/* The same, but where progress moves nothing and more(arg) says no (a
 * bound passed, the peer is gone), give the request up to UCX (it frees
 * it once it ends) and answer UCS_ERR_TIMED_OUT. */
ucs_status_t link_wait_until(struct link *l, ucs_status_ptr_t req, bool (*more)(void *arg),
			     void *arg);

/* How long a forced close of an endpoint may progress the worker. */
#define LINK_CLOSE_NS	(2000ull * 1000000)

/* "host:port" (host: a name or an address; [v6]:port) as a socket address. */
int link_address(const char *where, struct sockaddr_storage *sa, socklen_t *len,
		 char *why, size_t why_len);

/* where's form alone (no name is looked up): 0, or -1 with why. */
int link_address_check(const char *where, char *why, size_t why_len);

/* Close ep, forcibly, without waiting for the peer (LINK_CLOSE_NS at most). */
void link_ep_drop(struct link *l, ucp_ep_h ep);

#endif
