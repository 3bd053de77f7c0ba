/* SPDX-License-Identifier: MIT */
/*
 * bench/remote.c: devices of another machine (rig agent, over UCX on
 * loopback) against bare UCX doing the same transfers, in one run:
 *
 *   remote_round_trip  rig: submit the empty kernel on HOST@agent, wait.
 *                      peer: a UCX active-message ping-pong with an echo
 *                      process (one eager message each way).
 *   remote_copy_64m    rig: a copy of 64 MiB from pinned memory of this
 *                      process into Device memory of the agent, waited.
 *                      peer: a ucp_put_nbx of 64 MiB into a process's
 *                      registered memory, then a flush (ucx_put: UCX's
 *                      own choice of transports, which on one host puts
 *                      through shared-memory messages the target's
 *                      progress serves; ucx_put_cma: its transports
 *                      limited to cma and tcp, so the put is one
 *                      cross-memory write, as rig's agent's RMA is).
 *   remote_submit      rig: the submit of the empty kernel, batched (n
 *                      submits, one wait at the end), per submit; no peer.
 *
 * The agent (RIG_EXE agent) and the echo process are children of this
 * program, each on a free loopback port. The peer's UCX code is written
 * out here rather than shared with src/remote, so that it is what a user
 * of bare UCX would write: the floor rig's transport stands on.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "bench.h"
#include "rig.h"
#include "rig_remote.h"

#define COPY_BYTES	(64u << 20)
#define AM_PING		1
#define AM_HELLO	2

/* ---- The bare UCX peer: an echo process and its client ---- */

struct ucx {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_listener_h listener;
	ucp_ep_h ep;
	volatile int got;	/* pongs (client), or the hello's rkey (client) */
	void *mem;		/* echo: the put target */
	ucp_mem_h memh;
	uint64_t remote_addr;
	ucp_rkey_h rkey;
	uint8_t rkey_buf[4096];
	size_t rkey_len;
};

static int
ucx_init(struct ucx *u, const char *tls)
{
	ucp_params_t p = { .field_mask = UCP_PARAM_FIELD_FEATURES,
			   .features = UCP_FEATURE_AM | UCP_FEATURE_RMA };
	ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	ucp_config_t *c;

	if (ucp_config_read(NULL, NULL, &c) != UCS_OK)
		return -1;
	if (tls && ucp_config_modify(c, "TLS", tls) != UCS_OK)
		return -1;
	if (ucp_init(&p, c, &u->ctx) != UCS_OK)
		return -1;
	ucp_config_release(c);
	return ucp_worker_create(u->ctx, &wp, &u->worker) == UCS_OK ? 0 : -1;
}

static void
am_set(struct ucx *u, unsigned id, ucp_am_recv_callback_t cb)
{
	ucp_am_handler_param_t ap = {
		.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
			      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
		.id = id, .cb = cb, .arg = u, .flags = UCP_AM_FLAG_WHOLE_MSG,
	};

	ucp_worker_set_am_recv_handler(u->worker, &ap);
}

static void
wait_req(struct ucx *u, ucs_status_ptr_t r)
{
	if (!UCS_PTR_IS_PTR(r))
		return;
	while (ucp_request_check_status(r) == UCS_INPROGRESS)
		ucp_worker_progress(u->worker);
	ucp_request_free(r);
}

static void
send_am(struct ucx *u, ucp_ep_h ep, unsigned id, const void *b, size_t n)
{
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY };

	wait_req(u, ucp_am_send_nbx(ep, id, NULL, 0, b, n, &p));
}

static ucs_status_t
echo_ping(void *arg, const void *h, size_t hl, void *data, size_t n,
	  const ucp_am_recv_param_t *param)
{
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_AM_SEND_FLAG_EAGER };
	ucs_status_ptr_t r = ucp_am_send_nbx(param->reply_ep, AM_PING, NULL, 0, data, n, &p);

	if (UCS_PTR_IS_PTR(r))
		ucp_request_free(r);	/* eager 8 bytes: UCX keeps a copy */
	return UCS_OK;
}

static ucs_status_t
echo_hello(void *arg, const void *h, size_t hl, void *data, size_t n,
	   const ucp_am_recv_param_t *param)
{
	static uint8_t msg[8 + sizeof(((struct ucx *)0)->rkey_buf)];	/* outlives the send */
	struct ucx *u = arg;
	uint64_t addr = (uintptr_t)u->mem;
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_AM_SEND_FLAG_EAGER };
	ucs_status_ptr_t r;

	memcpy(msg, &addr, 8);
	memcpy(msg + 8, u->rkey_buf, u->rkey_len);
	/* No progress inside a callback: send and let the loop finish it. */
	r = ucp_am_send_nbx(param->reply_ep, AM_HELLO, NULL, 0, msg, 8 + u->rkey_len, &p);
	if (UCS_PTR_IS_PTR(r))
		ucp_request_free(r);
	return UCS_OK;
}

static void
echo_connect(ucp_conn_request_h req, void *arg)
{
	struct ucx *u = arg;
	ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST,
			       .conn_request = req };
	ucp_ep_h e;

	ucp_ep_create(u->worker, &ep, &e);
}

/* The echo process: listens on 127.0.0.1:0, writes its port to fd. */
static void
echo_main(int fd)
{
	struct ucx u = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ucp_listener_params_t lp = {
		.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.sockaddr = { (struct sockaddr *)&sa, sizeof(sa) },
		.conn_handler = { echo_connect, &u },
	};
	ucp_listener_attr_t la = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
	ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
					UCP_MEM_MAP_PARAM_FIELD_LENGTH, .length = COPY_BYTES };
	void *rk;
	int port;

	if (ucx_init(&u, NULL) < 0 || posix_memalign(&u.mem, 4096, COPY_BYTES))
		_exit(1);
	memset(u.mem, 0, COPY_BYTES);
	mp.address = u.mem;
	if (ucp_mem_map(u.ctx, &mp, &u.memh) != UCS_OK ||
	    ucp_rkey_pack(u.ctx, u.memh, &rk, &u.rkey_len) != UCS_OK ||
	    u.rkey_len > sizeof(u.rkey_buf))
		_exit(1);
	memcpy(u.rkey_buf, rk, u.rkey_len);
	ucp_rkey_buffer_release(rk);
	am_set(&u, AM_PING, echo_ping);
	am_set(&u, AM_HELLO, echo_hello);
	if (ucp_listener_create(u.worker, &lp, &u.listener) != UCS_OK ||
	    ucp_listener_query(u.listener, &la) != UCS_OK)
		_exit(1);
	port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
	if (write(fd, &port, sizeof(port)) != sizeof(port))
		_exit(1);
	for (;;)
		ucp_worker_progress(u.worker);
}

static ucs_status_t
client_pong(void *arg, const void *h, size_t hl, void *data, size_t n,
	    const ucp_am_recv_param_t *param)
{
	((struct ucx *)arg)->got++;
	return UCS_OK;
}

static ucs_status_t
client_hello(void *arg, const void *h, size_t hl, void *data, size_t n,
	     const ucp_am_recv_param_t *param)
{
	struct ucx *u = arg;

	memcpy(&u->remote_addr, data, 8);
	u->rkey_len = n - 8;
	memcpy(u->rkey_buf, (char *)data + 8, u->rkey_len);
	u->got = 1;
	return UCS_OK;
}

static int
peer_ping(void *arg)
{
	struct ucx *u = arg;
	uint64_t x = 42;
	int want = u->got + 1;

	send_am(u, u->ep, AM_PING, &x, sizeof(x));
	while (u->got < want)
		ucp_worker_progress(u->worker);
	return 0;
}

static void *put_src;

static int
peer_put(void *arg, uint64_t n)
{
	struct ucx *u = arg;
	ucp_request_param_t p = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		ucs_status_ptr_t r = ucp_put_nbx(u->ep, put_src, COPY_BYTES, u->remote_addr,
						 u->rkey, &p);

		if (UCS_PTR_IS_ERR(r))
			return -1;
		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
		wait_req(u, ucp_ep_flush_nbx(u->ep, &p));
	}
	return 0;
}

static int
peer_connect(struct ucx *u, int port, const char *tls)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = { (struct sockaddr *)&sa, sizeof(sa) },
	};
	uint8_t hi = 1;

	if (ucx_init(u, tls) < 0)
		return -1;
	am_set(u, AM_PING, client_pong);
	am_set(u, AM_HELLO, client_hello);
	if (ucp_ep_create(u->worker, &ep, &u->ep) != UCS_OK)
		return -1;
	send_am(u, u->ep, AM_HELLO, &hi, 1);
	while (!u->got)
		ucp_worker_progress(u->worker);
	u->got = 0;
	return ucp_ep_rkey_unpack(u->ep, u->rkey_buf, &u->rkey) == UCS_OK ? 0 : -1;
}

/* ---- rig's side ---- */

struct remote {
	struct rig_submission *empty;
	struct rig_buffer *pinned, *device;
	struct rig_point last;
};

static int
submit_empty(struct remote *r, struct rig_point *p)
{
	uint32_t one[3] = { 1, 1, 1 };
	struct rig_run *run;
	int ret;

	if ((ret = rig_run_take(r->empty, &run)) < 0)
		return ret;
	if ((ret = rig_run_store(run, 0, one, one, NULL, 0)) < 0) {
		rig_run_release(run);
		return ret;
	}
	return rig_submit(run, NULL, 0, NULL, 0, p);
}

static int
rig_round_trip(void *arg)
{
	struct remote *r = arg;
	struct rig_point p;
	int ret = submit_empty(r, &p);

	return ret < 0 ? ret : rig_wait(p, 30ull * 1000000000);
}

static int
rig_batched(void *arg, uint64_t n)
{
	struct remote *r = arg;
	struct rig_point p = { 0 };
	int ret;

	for (uint64_t i = 0; i < n; i++)
		if ((ret = submit_empty(r, &p)) < 0)
			return ret;
	r->last = p;
	return 0;
}

static int
rig_copy64(void *arg, uint64_t n)
{
	struct remote *r = arg;
	struct rig_point p;
	int ret;

	for (uint64_t i = 0; i < n; i++)
		if ((ret = rig_buffer_copy(r->pinned, r->device, &p)) < 0 ||
		    (ret = rig_wait(p, 60ull * 1000000000)) < 0)
			return ret;
	return 0;
}

static pid_t
start_agent(const char *key, char *where, size_t len)
{
	int fds[2];
	char log[4096] = "";
	size_t got = 0;
	pid_t pid;
	const char *at;

	if (pipe(fds) < 0)
		return -1;
	if ((pid = fork()) == 0) {
		/* Ends with the bench, however the bench ends. */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(fds[1], 2);
		close(fds[0]);
		/* Short HOST launches on the agent's loop (src/remote/agent.c). */
		setenv("RIG_REMOTE_HOST_INLINE", "1", 1);
		execl(RIG_EXE, RIG_EXE, "agent", "--listen", "127.0.0.1:0", "--key", key,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (!strstr(log, "listening on ") || !strchr(strstr(log, "listening on "), '\n')) {
		ssize_t n = read(fds[0], log + got, sizeof(log) - 1 - got);

		if (n <= 0)
			return -1;
		got += (size_t)n;
		log[got] = 0;
	}
	at = strstr(log, "listening on ") + strlen("listening on ");
	snprintf(where, len, "%.*s", (int)strcspn(at, " \n"), at);
	/* Its later lines go nowhere: the pipe stays open, unread, small. */
	return pid;
}

int
main(int argc, char **argv)
{
	struct bench bn;
	struct ucx peer = { 0 }, peer_cma = { 0 };
	struct remote r = { 0 };
	struct rig_opener o;
	struct rig_device *d;
	struct rig_image *img;
	struct rig_function *fn;
	struct rig_part_spec part;
	char key[] = "/tmp/rig-bench-remote-key-XXXXXX", where[80];
	static char object[1 << 16];
	size_t olen;
	int pfd[2], port, kfd, ret = 1;
	pid_t echo, agent;

	bench_init(&bn, "remote", argc, argv);
	signal(SIGPIPE, SIG_IGN);
	if ((kfd = mkstemp(key)) < 0 || write(kfd, "rig bench remote key 0123456789\n", 32) != 32 ||
	    fchmod(kfd, 0600) < 0)
		return perror(key), 1;
	close(kfd);
	if (pipe(pfd) < 0)
		return 1;
	if ((echo = fork()) == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);	/* it spins: never orphaned */
		echo_main(pfd[1]);
	}
	if (read(pfd[0], &port, sizeof(port)) != sizeof(port) || peer_connect(&peer, port, NULL) < 0 ||
	    peer_connect(&peer_cma, port, "cma,tcp") < 0) {
		bench_note(&bn, "the bare UCX echo did not start");
		goto out;
	}
	if ((agent = start_agent(key, where, sizeof(where))) < 0) {
		bench_note(&bn, "rig agent did not start");
		goto out_echo;
	}
	if (!(olen = bench_read_file(EMPTY_OBJECT, object, sizeof(object))) ||
	    rig_remote_opener(where, "HOST", key, &o) < 0 || rig_open(&o, &d) < 0 ||
	    rig_image_load(d, object, olen, &img) < 0 || rig_image_function(img, "empty", &fn) < 0) {
		bench_note(&bn, "remote HOST: %s", rig_why());
		goto out_agent;
	}
	part = rig_part_launch(fn, 0, NULL, 0);
	if (rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &r.empty) < 0 ||
	    rig_buffer_create(d, COPY_BYTES, RIG_MEMORY_PINNED, &r.pinned) < 0 ||
	    rig_buffer_create(d, COPY_BYTES, RIG_MEMORY_DEVICE, &r.device) < 0 ||
	    !(put_src = malloc(COPY_BYTES))) {
		bench_note(&bn, "remote HOST: %s", rig_why());
		goto out_agent;
	}
	memset(put_src, 1, COPY_BYTES);
	{
		ucp_mem_map_params_t mp = { .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
						UCP_MEM_MAP_PARAM_FIELD_LENGTH,
					    .address = put_src, .length = COPY_BYTES };
		ucp_mem_h memh;	/* registered both ends, as rig's pinned memory is */

		ucp_mem_map(peer.ctx, &mp, &memh);
		ucp_mem_map(peer_cma.ctx, &mp, &memh);
	}
	uint64_t n_rt = bench_count(&bn, 2000, 200), n_copy = bench_count(&bn, 8, 2),
		 n_batch = bench_count(&bn, 20000, 2000);

	/* The echo process spins on its worker (that is how the bare
	 * ping-pong stays sub-microsecond); it is stopped while rig's
	 * figures run, so that it does not keep one of this machine's few
	 * cores from rig's threads, and the agent is idle during the
	 * peer's: each side is measured with the cores to itself. */
	if (bench_per_op(&bn, "remote_round_trip", "ucx_am", BENCH_PEER, peer_ping, &peer, n_rt, 0) ||
	    kill(echo, SIGSTOP) < 0 ||
	    bench_per_op(&bn, "remote_round_trip", "rig", BENCH_RIG, rig_round_trip, &r, n_rt, 0) ||
	    kill(echo, SIGCONT) < 0) {
		bench_note(&bn, "a figure failed: %s", rig_why());
		goto out_agent;
	}
	/* RIG_BENCH_REMOTE_ROUND_TRIP=1: the round trip's pair alone (an
	 * A/B of the loops' spins in seconds, where the copies take minutes
	 * on a loaded machine). */
	if (getenv("RIG_BENCH_REMOTE_ROUND_TRIP")) {
		ret = 0;
		goto out_agent;
	}
	if (
	    bench_per_run(&bn, "remote_copy_64m", "ucx_put", BENCH_PEER, peer_put, &peer, n_copy,
			  COPY_BYTES) ||
	    bench_per_run(&bn, "remote_copy_64m", "ucx_put_cma", BENCH_PEER, peer_put, &peer_cma,
			  n_copy, COPY_BYTES) ||
	    kill(echo, SIGSTOP) < 0 ||
	    bench_per_run(&bn, "remote_copy_64m", "rig", BENCH_RIG, rig_copy64, &r, n_copy,
			  COPY_BYTES) ||
	    bench_per_run(&bn, "remote_submit", "rig", BENCH_RIG, rig_batched, &r, n_batch, 0) ||
	    rig_wait(r.last, 120ull * 1000000000) < 0) {
		bench_note(&bn, "a figure failed: %s", rig_why());
		goto out_agent;
	}
	ret = 0;
out_agent:
	kill(agent, SIGTERM);
	waitpid(agent, NULL, 0);
out_echo:
	kill(echo, SIGKILL);
	kill(echo, SIGCONT);
	waitpid(echo, NULL, 0);
out:
	unlink(key);
	return ret;
}
