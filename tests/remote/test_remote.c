/* SPDX-License-Identifier: MIT */
/*
 * test_remote: a remote HOST through `rig agent`, a separate process on
 * a loopback port. Its facts are the remote device's with no bus,
 * completion Host and a word of the driver's own; an add runs there on
 * Device memory filled and read back through pinned memory of this
 * process (UCX RMA both ways, 8 MiB: chunks pipelined); order across the
 * machines holds both ways through the same stamps; a wrong key, a key
 * file others may read, and a malformed message are refused and change
 * nothing for the next client, and so are a second BULK and an empty
 * one from an admitted client; kill -9 of the agent mid-work loses the
 * device with "AGENT host:port: connection lost" and ends every wait, and
 * a reopen works once an agent listens there again; a client killed
 * mid-submit has its devices closed and its buffers returned; silence
 * past the heartbeat bound, either way, is a loss too; a fault in a
 * kernel the agent runs on its own thread is contained there.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_proc.h"
#include "common.h"
#include "remote/auth.h"
#include "remote/link.h"

#define N (2 << 20)	/* floats: 8 MiB a buffer */

static char key_path[128], bad_key_path[128], open_key_path[128];
static struct agent_proc agent;

static int
setup(void **state)
{
	snprintf(key_path, sizeof(key_path), "/tmp/rig-remote-key-%d", (int)getpid());
	snprintf(bad_key_path, sizeof(bad_key_path), "/tmp/rig-remote-bad-%d", (int)getpid());
	snprintf(open_key_path, sizeof(open_key_path), "/tmp/rig-remote-open-%d", (int)getpid());
	key_write(key_path, "the shared key of test_remote 0123\n", 0600);
	key_write(bad_key_path, "the shared key of test_remote 0124\n", 0600);
	key_write(open_key_path, "the shared key of test_remote 0123\n", 0644);
	return agent_start(&agent, key_path, "127.0.0.1:0", NULL) ? 0 : -1;
}

static int
teardown(void **state)
{
	agent_kill(&agent, SIGTERM);
	unlink(key_path);
	unlink(bad_key_path);
	unlink(open_key_path);
	return 0;
}

static struct rig_device *
open_remote(const char *name, const char *key)
{
	struct rig_opener o;
	struct rig_device *d;

	assert_int_equal(rig_remote_opener(agent.where, name, key, &o), 0);
	if (rig_open(&o, &d) < 0)
		fail_msg("open %s@%s: %s", name, agent.where, rig_why());
	return d;
}

/* c = a + b over n floats on the remote HOST d, inputs and output
 * through pinned memory, the bytes checked. */
static void
add_checked(struct rig_device *d, int n)
{
	struct rig_buffer *a, *b, *c, *pa, *pb, *pc;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	float *x = malloc((size_t)n * sizeof(float)), *y = malloc((size_t)n * sizeof(float));
	size_t wrong = 0, bytes = (size_t)n * 4;

	for (int i = 0; i < n; i++) {
		x[i] = (float)i;
		y[i] = 0.25f * (float)i;
	}
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_PINNED, &pa), 0);
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_PINNED, &pb), 0);
	assert_int_equal(rig_buffer_create(d, bytes, RIG_MEMORY_PINNED, &pc), 0);
	/* Device memory is the agent's: this process does not address it. */
	assert_int_equal(rig_buffer_read(a, 0, x, 4), RIG_EINVAL);
	assert_int_equal(rig_buffer_write(pa, 0, x, bytes), 0);
	assert_int_equal(rig_buffer_write(pb, 0, y, bytes), 0);
	assert_int_equal(rig_buffer_copy(pa, a, NULL), 0);
	assert_int_equal(rig_buffer_copy(pb, b, NULL), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	assert_int_equal(add_submit(s, a, b, c, n, NULL), 0);
	assert_int_equal(rig_buffer_copy(c, pc, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	/* The host's read of pc follows the copy by its stamp alone. */
	assert_int_equal(rig_buffer_read(pc, 0, x, bytes), 0);
	for (int i = 0; i < n; i++)
		wrong += x[i] != 1.25f * (float)i;
	assert_int_equal(wrong, 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(pa);
	rig_buffer_release(pb);
	rig_buffer_release(pc);
	free(x);
	free(y);
}

/* a + b on the remote HOST (8 MiB a buffer: many groups, on the
 * device's threads), its name and arch the remote device's. */
static void
add_remote(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path);
	char name[128];

	snprintf(name, sizeof(name), "HOST@%s", agent.where);
	assert_string_equal(rig_name(d), name);
	assert_string_equal(rig_arch(d), "x86_64");
	add_checked(d, N);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
}

/* A wrong key, and a key file others may read, are refused; the agent
 * serves the next client as before. */
static void
bad_keys(void **state)
{
	struct agent_proc other;
	struct rig_opener o;
	struct rig_device *d;

	/* An agent of its own: this process's connection to the first one
	 * proved the key already, and a machine has one connection. */
	assert_true(agent_start(&other, key_path, "127.0.0.1:0", NULL));
	assert_int_equal(rig_remote_opener(other.where, "M1", bad_key_path, &o), 0);
	assert_true(rig_open(&o, &d) < 0);
	assert_non_null(strstr(rig_why(), other.where));
	assert_true(agent_logged(&other, "refused: wrong key", 5000));
	assert_int_equal(rig_remote_opener(other.where, "M1", open_key_path, &o), 0);
	assert_true(rig_open(&o, &d) < 0);
	assert_non_null(strstr(rig_why(), "others may read it"));
	assert_int_equal(rig_remote_opener(other.where, "M1", key_path, &o), 0);
	assert_int_equal(rig_open(&o, &d), 0);
	assert_null(rig_lost(d));
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	agent_kill(&other, SIGTERM);
}

/* The agent opens only what its flags allow: --no-memory refuses a memory
 * device's name, --no-host HOST, each with the flag in the message. */
static void
flags_refuse(void **state)
{
	static const char *const no_memory[] = { "--no-memory", NULL };
	static const char *const no_host[] = { "--no-host", NULL };
	struct agent_proc other;
	struct rig_opener o;
	struct rig_device *d;

	assert_true(agent_start(&other, key_path, "127.0.0.1:0", no_memory));
	assert_int_equal(rig_remote_opener(other.where, "SCRATCH", key_path, &o), 0);
	assert_true(rig_open(&o, &d) < 0);
	assert_non_null(strstr(rig_why(), "--no-memory"));
	agent_kill(&other, SIGTERM);
	assert_true(agent_start(&other, key_path, "127.0.0.1:0", no_host));
	assert_int_equal(rig_remote_opener(other.where, "HOST", key_path, &o), 0);
	assert_true(rig_open(&o, &d) < 0);
	assert_non_null(strstr(rig_why(), "--no-host"));
	agent_kill(&other, SIGTERM);
}

/* The refusals of rig_remote_opener(). */
static void
opener_refusals(void **state)
{
	struct rig_opener o;

	assert_int_equal(rig_remote_opener(NULL, "HOST", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "rig_remote_opener: where is NULL"));
	assert_int_equal(rig_remote_opener("localhost", "HOST", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "not host:port"));
	assert_int_equal(rig_remote_opener("127.0.0.1:http", "HOST", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "not a number"));
	assert_int_equal(rig_remote_opener("127.0.0.1:1", "", NULL, &o), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "empty"));
	assert_int_equal(rig_remote_opener("127.0.0.1:1", NULL, NULL, &o), RIG_EINVAL);
	assert_int_equal(rig_remote_opener("127.0.0.1:1", "HOST", NULL, NULL), RIG_EINVAL);
	assert_non_null(strstr(rig_why(), "out is NULL"));
}

/* A raw client's endpoint error: the agent closes such a connection on
 * purpose, and the test reads the why in its log. Without a handler UCX
 * prints the error to stdout, among the TAP lines, whenever the close
 * comes before the endpoint's drop. */
static void
raw_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)arg;
	(void)ep;
	(void)status;
}

/* Raw UCX: a client that sends bytes the decoder refuses, and one that
 * asks before it proved the key; each is closed, the agent goes on. */
static void
raw_send(const void *bytes, size_t len, const char *logged)
{
	struct link l;
	struct sockaddr_storage sa;
	socklen_t salen;
	char why[200];
	ucp_ep_params_t ep;
	ucp_ep_h e;
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY };

	assert_int_equal(link_open(&l, false, NULL, NULL, why, sizeof(why)), 0);
	assert_int_equal(link_address(agent.where, &sa, &salen, why, sizeof(why)), 0);
	ep = (ucp_ep_params_t){
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = { (const struct sockaddr *)&sa, salen },
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = raw_ep_failed },
	};
	assert_int_equal(ucp_ep_create(l.worker, &ep, &e), UCS_OK);
	assert_int_equal(link_wait(&l, ucp_am_send_nbx(e, LINK_AM_ID, NULL, 0, bytes, len, &p)), UCS_OK);
	for (int i = 0; i < 200 && !strstr(agent.log, logged); i++) {
		link_progress(&l, 5);
		agent_logged(&agent, logged, 5);
	}
	assert_true(agent_logged(&agent, logged, 5000));
	link_ep_drop(&l, e);
	link_close(&l);
}

static void
malformed(void **state)
{
	static const char garbage[] = "GET / HTTP/1.1\r\n\r\n";
	struct remote_msg m = { .type = REMOTE_OPEN };
	uint8_t *b;
	size_t len;
	char why[200];
	struct rig_device *d;

	raw_send(garbage, sizeof(garbage), "refused: a malformed message");
	m.u.name = remote_str("HOST");
	assert_int_equal(remote_encode(&m, &b, &len, why, sizeof(why)), 0);
	raw_send(b, len, "refused: a message before the handshake ended");
	free(b);
	d = open_remote("M2", key_path);
	assert_null(rig_lost(d));
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
}

/* An admitted raw client (the handshake by hand), for what only an
 * admitted client can send. */
static uint8_t heard[512];
static size_t heard_len;

static void
hear(void *arg, ucp_ep_h reply, const void *bytes, size_t len)
{
	if (len <= sizeof(heard)) {
		memcpy(heard, bytes, len);
		heard_len = len;
	}
}

/* Send m on e and progress l until the answer of type want comes. */
static void
ask(struct link *l, ucp_ep_h e, struct remote_msg *m, unsigned want, struct remote_msg *out)
{
	char why[200];

	heard_len = 0;
	assert_int_equal(link_send(e, m, why, sizeof(why)), 0);
	for (int i = 0; i < 2000 && !heard_len; i++)
		link_progress(l, 5);
	assert_true(heard_len > 0);
	assert_int_equal(remote_decode(heard, heard_len, out, why, sizeof(why)), 0);
	assert_int_equal(out->type, want);
}

static ucp_ep_h
admitted(struct link *l)
{
	struct remote_key key;
	struct remote_msg m = { .type = REMOTE_HELLO, .id = 1 }, ans;
	struct sockaddr_storage sa;
	socklen_t salen;
	uint8_t cnonce[REMOTE_NONCE];
	char why[200];
	ucp_ep_params_t ep;
	ucp_ep_h e;

	assert_int_equal(remote_key_load(key_path, &key, why, sizeof(why)), 0);
	assert_int_equal(link_open(l, false, hear, NULL, why, sizeof(why)), 0);
	assert_int_equal(link_address(agent.where, &sa, &salen, why, sizeof(why)), 0);
	ep = (ucp_ep_params_t){
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = { (const struct sockaddr *)&sa, salen },
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = raw_ep_failed },
	};
	assert_int_equal(ucp_ep_create(l->worker, &ep, &e), UCS_OK);
	assert_int_equal(remote_nonce(cnonce), 0);
	m.u.hello.version = REMOTE_VERSION;
	memcpy(m.u.hello.nonce, cnonce, REMOTE_NONCE);
	ask(l, e, &m, REMOTE_CHALLENGE, &ans);
	m = (struct remote_msg){ .type = REMOTE_AUTH, .id = 2 };
	remote_mac(&key, false, cnonce, ans.u.challenge.nonce, m.u.mac);
	ask(l, e, &m, REMOTE_WELCOME, &ans);
	return e;
}

/*
 * BULK (the client's worker address for the agent's RMA endpoint) is
 * taken once, before any pin: a second one, and one with no address,
 * close that client's connection and change nothing for the next.
 */
static void
bulk_refusals(void **state)
{
	struct remote_msg m = { .type = REMOTE_BULK };
	struct rig_device *d;
	ucp_address_t *addr;
	size_t len;
	char why[200];
	struct link l;
	ucp_ep_h e = admitted(&l);

	assert_int_equal(ucp_worker_get_address(l.worker, &addr, &len), UCS_OK);
	m.u.address = (struct remote_bytes){ (const uint8_t *)addr, (uint32_t)len };
	assert_int_equal(link_send(e, &m, why, sizeof(why)), 0);
	assert_int_equal(link_send(e, &m, why, sizeof(why)), 0);
	for (int i = 0; i < 400 && !strstr(agent.log, "a second BULK"); i++) {
		link_progress(&l, 5);
		agent_logged(&agent, "a second BULK", 5);
	}
	assert_true(agent_logged(&agent, "a second BULK; closed 0 devices, returned 0 buffers", 5000));
	ucp_worker_release_address(l.worker, addr);
	link_ep_drop(&l, e);
	link_close(&l);

	e = admitted(&l);
	m.u.address = (struct remote_bytes){ NULL, 0 };
	assert_int_equal(link_send(e, &m, why, sizeof(why)), 0);
	for (int i = 0; i < 400 && !strstr(agent.log, "a BULK with no address"); i++) {
		link_progress(&l, 5);
		agent_logged(&agent, "a BULK with no address", 5);
	}
	assert_true(agent_logged(&agent, "a BULK with no address; closed 0 devices", 5000));
	link_ep_drop(&l, e);
	link_close(&l);

	d = open_remote("HOST", key_path);
	assert_null(rig_lost(d));
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
}

/*
 * Order across the machines, both ways, through a memory device M of this
 * process that borrows a pinned buffer of the remote HOST (the same
 * stamps): M's copy out of it waits for the remote copy that wrote it,
 * and the remote copy out of it waits for M's copy that wrote it. The
 * remote work is slow (adds queued ahead of it) so that a missing wait
 * shows as stale bytes.
 */
static void
order_across(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path), *m;
	struct rig_buffer *a, *b, *c, *pc, *lc, *lm, *lsrc;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	float *x = malloc(N * sizeof(float));
	size_t wrong = 0;

	assert_int_equal(rig_memory_device("LOCAL", &m), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &pc), 0);
	assert_int_equal(rig_buffer_create(m, N * 4, RIG_MEMORY_DEVICE, &lm), 0);
	assert_int_equal(rig_buffer_create(m, N * 4, RIG_MEMORY_DEVICE, &lsrc), 0);
	assert_int_equal(rig_buffer_borrow(pc, m, &lc), 0);
	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	assert_int_equal(rig_buffer_write(pc, 0, x, N * 4), 0);
	assert_int_equal(rig_buffer_copy(pc, a, NULL), 0);
	assert_int_equal(rig_buffer_copy(pc, b, NULL), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	for (int k = 0; k < 8; k++)
		assert_int_equal(add_submit(s, a, b, c, N, NULL), 0);
	/* remote -> local: c = 2x lands in pc; M copies pc (borrowed) out. */
	assert_int_equal(rig_buffer_copy(c, pc, NULL), 0);
	assert_int_equal(rig_buffer_copy(lc, lm, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	assert_int_equal(rig_buffer_read(lm, 0, x, N * 4), 0);
	for (int i = 0; i < N; i++)
		wrong += x[i] != 2.0f * (float)i;
	assert_int_equal(wrong, 0);
	/* local -> remote: M writes 3x into pc (borrowed); the remote copy
	 * of pc into a follows it; an add then makes c = a + b = 4x. */
	for (int i = 0; i < N; i++)
		x[i] = 3.0f * (float)i;
	assert_int_equal(rig_buffer_write(lsrc, 0, x, N * 4), 0);
	for (int k = 0; k < 8; k++)	/* slow the remote side before the copy */
		assert_int_equal(add_submit(s, a, b, c, N, NULL), 0);
	assert_int_equal(rig_buffer_copy(lsrc, lc, NULL), 0);
	assert_int_equal(rig_buffer_copy(pc, a, NULL), 0);
	assert_int_equal(add_submit(s, a, b, c, N, NULL), 0);
	assert_int_equal(rig_buffer_copy(c, pc, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	assert_int_equal(rig_buffer_read(pc, 0, x, N * 4), 0);
	wrong = 0;
	for (int i = 0; i < N; i++)
		wrong += x[i] != 4.0f * (float)i;
	assert_int_equal(wrong, 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(lc);
	rig_buffer_release(lm);
	rig_buffer_release(lsrc);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(pc);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	rig_device_release(m);
	free(x);
}

/*
 * A burst of launches with no wait between them, each reading what the one
 * before wrote and each with its own parameters (the buffers alternate):
 * the agent runs those that reach it together as one rig submit of many
 * launches (serve.c), and bounds its values in flight; the bytes show
 * every launch ran, once, in order, with its own parameters.
 */
#define MERGE_PAIRS 1000
#define MERGE_N 256

static void
merged_launches(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path);
	struct rig_buffer *a, *b, *c, *pa;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	float x[MERGE_N];
	size_t wrong = 0;

	assert_int_equal(rig_buffer_create(d, MERGE_N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, MERGE_N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, MERGE_N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_create(d, MERGE_N * 4, RIG_MEMORY_PINNED, &pa), 0);
	for (int i = 0; i < MERGE_N; i++)
		x[i] = (float)i;
	assert_int_equal(rig_buffer_write(pa, 0, x, sizeof(x)), 0);
	assert_int_equal(rig_buffer_copy(pa, a, NULL), 0);
	for (int i = 0; i < MERGE_N; i++)
		x[i] = 1.0f;
	assert_int_equal(rig_buffer_write(pa, 0, x, sizeof(x)), 0);
	assert_int_equal(rig_buffer_copy(pa, b, NULL), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	for (int k = 0; k < MERGE_PAIRS; k++) {
		assert_int_equal(add_submit(s, a, b, c, MERGE_N, NULL), 0);	/* c = a + 1 */
		assert_int_equal(add_submit(s, c, b, a, MERGE_N, NULL), 0);	/* a = c + 1 */
	}
	assert_int_equal(rig_buffer_copy(a, pa, &p), 0);
	assert_int_equal(rig_wait(p, 60ull * 1000000000), 0);
	assert_int_equal(rig_buffer_read(pa, 0, x, sizeof(x)), 0);
	for (int i = 0; i < MERGE_N; i++)
		wrong += x[i] != (float)i + 2.0f * MERGE_PAIRS;
	assert_int_equal(wrong, 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(pa);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
}

/*
 * A fault in a kernel the agent runs on its own thread (a launch of one
 * group on its idle HOST: run at submit, src/remote/agent.c): contained
 * there, the client's device lost with the kernel's site, and the agent
 * goes on: the next open of HOST runs an add of one group, right.
 */
struct fault_params {
	int64_t out, bad, zero, release, counter;	/* tests/host/kernels/fault.c */
};

static void
inline_fault(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path);
	struct rig_ref refs[] = { RIG_WRITE(0, 0) };
	struct fault_params params = { 0 };	/* group 0 stores through NULL */
	uint32_t one[3] = { 1, 1, 1 };
	struct rig_buffer *out;
	struct rig_submission *s;
	struct rig_function *fn;
	struct rig_part_spec part;
	struct rig_image *img;
	struct rig_run *r;
	struct rig_point p;
	size_t len = 0;
	void *obj = read_object(FAULT_OBJECT, &len);

	assert_non_null(obj);
	assert_int_equal(rig_image_load(d, obj, len, &img), 0);
	free(obj);
	assert_int_equal(rig_image_function(img, "null_write", &fn), 0);
	part = rig_part_launch(fn, sizeof(params), refs, 1);
	assert_int_equal(rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_buffer_create(d, 64, RIG_MEMORY_DEVICE, &out), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_run_store(r, 0, one, one, &params, sizeof(params)), 0);
	assert_int_equal(rig_submit(r, &out, 1, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 60ull * 1000000000), RIG_ELOST);
	assert_non_null(rig_lost(d));
	if (!strstr(rig_lost(d), "kernel 'null_write' faulted: SIGSEGV"))
		fail_msg("lost with: %s", rig_lost(d));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(out);
	rig_device_release(d);

	d = open_remote("HOST", key_path);
	add_checked(d, 64);	/* one group: run on the agent's loop */
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
}

/*
 * The order oracle with one device remote: random copies among pinned
 * buffers of the remote HOST (also borrowed by a local memory device),
 * Device buffers there, and host writes, submitted with no wait of the
 * program's own; a shadow run in program order gives the bytes each
 * buffer must end with. Every wait between the two machines comes from
 * the stamps alone.
 */
#define OW (16 << 10)	/* words a buffer */
#define OP 3		/* pinned (and borrowed) buffers */
#define OD 3		/* Device buffers */

static void
order_oracle(void **state)
{
	struct rig_device *d = open_remote("HOST", key_path), *m;
	struct rig_buffer *pin[OP], *loc[OP], *dev[OD];
	static uint32_t shadow[OP + OD][OW], got[OW];
	unsigned seed = (unsigned)getpid();
	struct rig_point p;

	print_message("# seed %u\n", seed);
	srand(seed);
	assert_int_equal(rig_memory_device("ORACLE", &m), 0);
	for (int i = 0; i < OP; i++) {
		assert_int_equal(rig_buffer_create(d, OW * 4, RIG_MEMORY_PINNED, &pin[i]), 0);
		assert_int_equal(rig_buffer_borrow(pin[i], m, &loc[i]), 0);
		for (int w = 0; w < OW; w++)
			shadow[i][w] = (uint32_t)(i << 20 | w);
		assert_int_equal(rig_buffer_write(pin[i], 0, shadow[i], OW * 4), 0);
	}
	for (int j = 0; j < OD; j++) {
		assert_int_equal(rig_buffer_create(d, OW * 4, RIG_MEMORY_DEVICE, &dev[j]), 0);
		assert_int_equal(rig_buffer_copy(pin[j % OP], dev[j], NULL), 0);
		memcpy(shadow[OP + j], shadow[j % OP], OW * 4);
	}
	for (int op = 0; op < 300; op++) {
		int a = rand() % OP, b = rand() % OP, j = rand() % OD, k = rand() % OD;

		switch (rand() % 5) {
		case 0:	/* remote: pinned -> device (RMA get) */
			assert_int_equal(rig_buffer_copy(pin[a], dev[j], NULL), 0);
			memcpy(shadow[OP + j], shadow[a], OW * 4);
			break;
		case 1:	/* remote: device -> pinned (RMA put) */
			assert_int_equal(rig_buffer_copy(dev[j], pin[a], NULL), 0);
			memcpy(shadow[a], shadow[OP + j], OW * 4);
			break;
		case 2:	/* remote: device -> device */
			if (j == k)
				break;
			assert_int_equal(rig_buffer_copy(dev[j], dev[k], NULL), 0);
			memcpy(shadow[OP + k], shadow[OP + j], OW * 4);
			break;
		case 3:	/* local: borrowed -> borrowed, on this machine's device */
			if (a == b)
				break;
			assert_int_equal(rig_buffer_copy(loc[a], loc[b], NULL), 0);
			memcpy(shadow[b], shadow[a], OW * 4);
			break;
		default: /* the host writes one word pattern into a pinned buffer */
			for (int w = 0; w < OW; w++)
				shadow[a][w] = (uint32_t)(op << 16) ^ (uint32_t)w ^ (uint32_t)a;
			assert_int_equal(rig_buffer_write(pin[a], 0, shadow[a], OW * 4), 0);
		}
	}
	for (int i = 0; i < OP; i++) {
		assert_int_equal(rig_buffer_read(pin[i], 0, got, OW * 4), 0);
		if (memcmp(got, shadow[i], OW * 4))
			fail_msg("pinned %d differs from the program-order run (seed %u)", i, seed);
	}
	for (int j = 0; j < OD; j++) {
		assert_int_equal(rig_buffer_copy(dev[j], pin[0], &p), 0);
		assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
		assert_int_equal(rig_buffer_read(pin[0], 0, got, OW * 4), 0);
		if (memcmp(got, shadow[OP + j], OW * 4))
			fail_msg("device %d differs from the program-order run (seed %u)", j, seed);
	}
	for (int i = 0; i < OP; i++) {
		rig_buffer_release(loc[i]);
		rig_buffer_release(pin[i]);
	}
	for (int j = 0; j < OD; j++)
		rig_buffer_release(dev[j]);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	rig_device_release(m);
}

/* kill -9 of the agent mid-work: the device is lost with the machine's
 * reason, every wait ends, and a reopen works once an agent is back. */
static void
agent_killed(void **state)
{
	struct agent_proc second;
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	char reason[160], where[64];
	uint64_t t0;
	int ret;

	assert_true(agent_start(&second, key_path, "127.0.0.1:0", NULL));
	snprintf(where, sizeof(where), "%s", second.where);
	assert_int_equal(rig_remote_opener(where, "HOST", key_path, &o), 0);
	assert_int_equal(rig_open(&o, &d), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	for (int k = 0; k < 400; k++)
		assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	agent_kill(&second, SIGKILL);
	t0 = rig_now_ns();
	ret = rig_wait(p, 60ull * 1000000000);
	assert_int_equal(ret, RIG_ELOST);
	snprintf(reason, sizeof(reason), "AGENT %s: connection lost", where);
	assert_non_null(strstr(rig_why(), reason));
	assert_non_null(rig_lost(d));
	assert_non_null(strstr(rig_lost(d), reason));
	print_message("# the wait ended %.1f ms after the kill\n", (rig_now_ns() - t0) / 1e6);
	assert_int_equal(add_submit(s, a, b, c, N, &p), RIG_ELOST);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_device_release(d);

	/* An agent on the same port again: the name opens anew. */
	assert_true(agent_start(&second, key_path, where, NULL));
	assert_int_equal(rig_open(&o, &d), 0);
	assert_null(rig_lost(d));
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	assert_int_equal(rig_close(d), 0);
	rig_device_release(d);
	agent_kill(&second, SIGTERM);
}

/* Loss across the machines: a local device's copy that reads what remote
 * work wrote, pending when the agent is killed, ends with the loss, and
 * the local device is lost with its producer, as a local consumer would
 * be (docs/loss.md): no wait outlives the connection. */
struct killer {
	struct agent_proc *a;
	int ms;
};

static void *
kill_later(void *arg)
{
	struct killer *k = arg;

	usleep((useconds_t)k->ms * 1000);
	kill(k->a->pid, SIGKILL);
	return NULL;
}

static void
loss_across(void **state)
{
	struct agent_proc fourth;
	struct rig_opener o;
	struct rig_device *d, *m;
	struct rig_buffer *a, *b, *c, *pc, *lc, *lm;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	struct killer k = { &fourth, 200 };
	char with[128];
	pthread_t t;
	int ret;

	assert_true(agent_start(&fourth, key_path, "127.0.0.1:0", NULL));
	assert_int_equal(rig_remote_opener(fourth.where, "HOST", key_path, &o), 0);
	assert_int_equal(rig_open(&o, &d), 0);
	assert_int_equal(rig_memory_device("LOCAL2", &m), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_PINNED, &pc), 0);
	assert_int_equal(rig_buffer_create(m, N * 4, RIG_MEMORY_DEVICE, &lm), 0);
	assert_int_equal(rig_buffer_borrow(pc, m, &lc), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(add_submit(s, a, b, c, N, NULL), 0);
	/* Stopped first, the agent cannot finish the copy this process then
	 * submits: the local copy below surely waits for it. */
	kill(fourth.pid, SIGSTOP);
	assert_int_equal(rig_buffer_copy(c, pc, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, kill_later, &k), 0);
	/* The memory device runs its work in the submitting call: this one
	 * waits for the remote copy, which the kill drops. */
	ret = rig_buffer_copy(lc, lm, &p);
	if (ret == 0)
		ret = rig_wait(p, 60ull * 1000000000);
	pthread_join(t, NULL);
	assert_int_equal(ret, RIG_ELOST);
	assert_non_null(strstr(rig_why(), "connection lost"));
	assert_non_null(rig_lost(d));
	snprintf(with, sizeof(with), "lost with HOST@%s", fourth.where);
	assert_non_null(rig_lost(m));
	assert_non_null(strstr(rig_lost(m), with));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(lc);
	rig_buffer_release(lm);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_buffer_release(pc);
	/* The consumer first: the remote device's end waits for the stamps
	 * on its pinned memory, among them the lost memory device's copy,
	 * whose word moves only at that device's own end. Released the other
	 * way round, rig_device_release(d) waits for ever: a defect of the
	 * core's (a lost memory device's dropped value is not raised at its
	 * loss), not of the remote driver. */
	rig_device_release(m);
	rig_device_release(d);
	agent_kill(&fourth, SIGKILL);
}

/* A client killed mid-submit: the agent closes its device and returns
 * its three buffers, and logs one line saying so. */
static void
client_killed(void **state)
{
	int out[2];
	pid_t pid;
	char line[64] = "";
	FILE *f;

	assert_int_equal(pipe(out), 0);
	if ((pid = fork()) == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlives the test */
		dup2(out[1], 1);
		close(out[0]);
		execl(REMOTE_CLIENT, REMOTE_CLIENT, agent.where, key_path, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "submitting\n");
	usleep(200000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fclose(f);
	assert_true(agent_logged(&agent, "connection lost; closed 1 devices, returned 3 buffers", 20000));
}

/* The bound of the heartbeat's own tests, each on a connection of its
 * own: a stopped process is silent for ever, so the loss comes whatever
 * the machine's speed, and no time of it is judged; until the stop each
 * side must be heard within the bound, so it is some seconds, which a
 * loaded machine's pause does not reach (this client's bound was 600 ms
 * before, the shared agent's 3 s). */
#define SILENT_MS "5000"

/* Whether process pid is stopped (its state in /proc is T): alive, its
 * connections open, silent. */
static bool
stopped(pid_t pid)
{
	char path[64], buf[256], *end;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	end = strrchr(buf, ')');	/* the name may hold spaces */
	return end && end[1] == ' ' && end[2] == 'T';
}

/* An agent silent past the heartbeat bound (stopped, its connection
 * open) is lost like a dead one; every wait ends. */
static void
agent_silent(void **state)
{
	struct agent_proc third;
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	char reason[160];

	assert_true(agent_start(&third, key_path, "127.0.0.1:0", NULL));
	setenv("RIG_REMOTE_HEARTBEAT_MS", SILENT_MS, 1);	/* read as the machine is made */
	assert_int_equal(rig_remote_opener(third.where, "HOST", key_path, &o), 0);
	setenv("RIG_REMOTE_HEARTBEAT_MS", AGENT_TEST_HEARTBEAT_MS, 1);
	assert_int_equal(rig_open(&o, &d), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	kill(third.pid, SIGSTOP);
	assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	assert_int_equal(rig_wait(p, 60ull * 1000000000), RIG_ELOST);
	snprintf(reason, sizeof(reason), "AGENT %s: connection lost", third.where);
	assert_non_null(strstr(rig_lost(d), reason));
	/* The silence, not anything else, lost it: the agent is still
	 * there, stopped, its connection open (no end of it broke it). */
	assert_true(stopped(third.pid));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_device_release(d);
	kill(third.pid, SIGCONT);
	agent_kill(&third, SIGKILL);
}

/* A client silent past the agent's bound (stopped) is gone: its device
 * closes and its buffers return. An agent of its own, of bound SILENT_MS,
 * which the client pings every quarter of (its own bound the same). */
static void
client_silent(void **state)
{
	static const char *const bound[] = { "--heartbeat-ms", SILENT_MS, NULL };
	struct agent_proc fifth;
	int out[2];
	pid_t pid;
	char line[64] = "";
	FILE *f;

	assert_true(agent_start(&fifth, key_path, "127.0.0.1:0", bound));
	assert_int_equal(pipe(out), 0);
	/* The child's bound, set before the fork (a child of this threaded
	 * process calls only what is safe after one). */
	setenv("RIG_REMOTE_HEARTBEAT_MS", SILENT_MS, 1);
	if ((pid = fork()) == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlives the test */
		dup2(out[1], 1);
		close(out[0]);
		execl(REMOTE_CLIENT, REMOTE_CLIENT, fifth.where, key_path, (char *)NULL);
		_exit(127);
	}
	setenv("RIG_REMOTE_HEARTBEAT_MS", AGENT_TEST_HEARTBEAT_MS, 1);
	close(out[1]);
	f = fdopen(out[0], "r");
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "submitting\n");
	kill(pid, SIGSTOP);
	assert_true(agent_logged(&fifth,
		"silent past the heartbeat bound; closed 1 devices, returned 3 buffers", 60000));
	assert_true(stopped(pid));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fclose(f);
	agent_kill(&fifth, SIGTERM);
}

/* A client whose own bound is far longer than the agent's pings within
 * the agent's (its CHALLENGE says it), so an idle one stays: after two
 * and a half of the agent's bounds of silence from this program, its
 * device still runs work. Before the CHALLENGE carried the bound, this
 * client pinged every 15 s and the agent dropped it after 5. */
static void
idle_client_kept(void **state)
{
	static const char *const bound[] = { "--heartbeat-ms", SILENT_MS, NULL };
	struct agent_proc sixth;
	struct rig_opener o;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_submission *s;
	struct rig_image *img;
	struct rig_point p;
	struct timespec idle = { .tv_sec = 5 * atoi(SILENT_MS) / 2000,
				 .tv_nsec = 0 };

	assert_true(agent_start(&sixth, key_path, "127.0.0.1:0", bound));
	setenv("RIG_REMOTE_HEARTBEAT_MS", AGENT_TEST_HEARTBEAT_MS, 1);
	assert_int_equal(rig_remote_opener(sixth.where, "HOST", key_path, &o), 0);
	assert_int_equal(rig_open(&o, &d), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &a), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &b), 0);
	assert_int_equal(rig_buffer_create(d, N * 4, RIG_MEMORY_DEVICE, &c), 0);
	assert_int_equal(add_submission(d, &s, &img), 0);
	assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	while (nanosleep(&idle, &idle) != 0)
		;
	assert_int_equal(add_submit(s, a, b, c, N, &p), 0);
	assert_int_equal(rig_wait(p, 30ull * 1000000000), 0);
	assert_null(rig_lost(d));
	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_device_release(d);
	agent_kill(&sixth, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_remote),
		cmocka_unit_test(opener_refusals),
		cmocka_unit_test(bad_keys),
		cmocka_unit_test(flags_refuse),
		cmocka_unit_test(malformed),
		cmocka_unit_test(bulk_refusals),
		cmocka_unit_test(order_across),
		cmocka_unit_test(merged_launches),
		cmocka_unit_test(inline_fault),
		cmocka_unit_test(order_oracle),
		cmocka_unit_test(client_killed),
		cmocka_unit_test(agent_killed),
		cmocka_unit_test(loss_across),
		cmocka_unit_test(agent_silent),
		cmocka_unit_test(client_silent),
		cmocka_unit_test(idle_client_kept),
	};

	signal(SIGPIPE, SIG_IGN);
	/* The agent runs short HOST launches on its loop (src/remote/agent.c):
	 * inline_fault's fault is contained there. */
	setenv("RIG_REMOTE_HOST_INLINE", "1", 1);
	return cmocka_run_group_tests(tests, setup, teardown);
}
