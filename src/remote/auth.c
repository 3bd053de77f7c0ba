/* SPDX-License-Identifier: MIT */
/*
 * remote/auth.c: the agent's shared key and its proofs (auth.h), keyed
 * BLAKE2b from libb2 over the two nonces; getrandom() for nonces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blake2.h>

#include "remote/auth.h"

int
remote_key_load(const char *path, struct remote_key *k, char *why, size_t why_len)
{
	uint8_t buf[REMOTE_KEY_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	if (!path || !*path) {
		snprintf(why, why_len, "no key file named (a flag or RIG_AGENT_KEY)");
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		snprintf(why, why_len, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "key file %s is not a regular file", path);
		goto fail;
	}
	if (st.st_mode & 077) {
		snprintf(why, why_len,
			 "key file %s has mode %03o: others may read it (chmod 600)",
			 path, (unsigned)(st.st_mode & 0777));
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, why_len, "key file %s belongs to uid %u, not to this user (%u)",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto fail;
	}
	n = read(fd, buf, sizeof(buf));
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < (ssize_t)REMOTE_KEY_MIN || n > (ssize_t)REMOTE_KEY_MAX) {
		snprintf(why, why_len, "key file %s holds %zd bytes; a key has %u to %u",
			 path, n < 0 ? (ssize_t)0 : n, REMOTE_KEY_MIN, REMOTE_KEY_MAX);
		goto fail;
	}
	memcpy(k->bytes, buf, (size_t)n);
	k->len = (size_t)n;
	memset(buf, 0, sizeof(buf));
	close(fd);
	return 0;
fail:
	memset(buf, 0, sizeof(buf));
	close(fd);
	return -1;
}

int
remote_key_find(const char *path, struct remote_key *k, char *why, size_t why_len)
{
	return remote_key_load(path && *path ? path : getenv("RIG_AGENT_KEY"), k,
			       why, why_len);
}

void
remote_mac(const struct remote_key *k, bool agent,
	   const uint8_t client_nonce[REMOTE_NONCE],
	   const uint8_t agent_nonce[REMOTE_NONCE], uint8_t out[REMOTE_MAC])
{
	static const char tag_client[16] = "rig-agent-client", tag_agent[16] = "rig-agent-server";
	uint8_t in[16 + 2 * REMOTE_NONCE];

	memcpy(in, agent ? tag_agent : tag_client, 16);
	memcpy(in + 16, agent ? client_nonce : agent_nonce, REMOTE_NONCE);
	memcpy(in + 16 + REMOTE_NONCE, agent ? agent_nonce : client_nonce, REMOTE_NONCE);
	blake2b(out, in, k->bytes, REMOTE_MAC, sizeof(in), k->len);
}

bool
remote_mac_equal(const uint8_t a[REMOTE_MAC], const uint8_t b[REMOTE_MAC])
{
	volatile uint8_t d = 0;

	for (size_t i = 0; i < REMOTE_MAC; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

int
remote_nonce(uint8_t out[REMOTE_NONCE])
{
	size_t got = 0;

	while (got < REMOTE_NONCE) {
		ssize_t n = getrandom(out + got, REMOTE_NONCE - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	return 0;
}
