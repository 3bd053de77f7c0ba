/* SPDX-License-Identifier: MIT */
/*
 * remote/auth.h: the shared key and the proofs of the agent's handshake.
 * The client sends a nonce (HELLO), the agent a nonce (CHALLENGE); the
 * client proves the key with keyed BLAKE2b-256 over both (AUTH), and the
 * agent proves it back over them in the other order (WELCOME), so neither
 * side talks to a peer that only replays. libb2 computes the MACs.
 */
#ifndef REMOTE_AUTH_H
#define REMOTE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "remote/wire.h"

#define REMOTE_KEY_MIN	16u
#define REMOTE_KEY_MAX	64u	/* BLAKE2b's longest key */

struct remote_key {
	uint8_t bytes[REMOTE_KEY_MAX];
	size_t len;
};

/*
 * Read the key in path: refused unless it is a regular file that its owner
 * alone may read or write (mode & 077 == 0) and that belongs to this
 * process's user, holding 16 to 64 bytes (a trailing newline is dropped).
 * 0, or -1 with why naming the path and the cause.
 */
int remote_key_load(const char *path, struct remote_key *k, char *why, size_t why_len);

/* The key file named by path, else by $RIG_AGENT_KEY: as remote_key_load. */
int remote_key_find(const char *path, struct remote_key *k, char *why, size_t why_len);

/* The client's proof (agent's = false) or the agent's (true). */
void remote_mac(const struct remote_key *k, bool agent,
		const uint8_t client_nonce[REMOTE_NONCE],
		const uint8_t agent_nonce[REMOTE_NONCE], uint8_t out[REMOTE_MAC]);

/* Equal MACs, in time that does not depend on where they differ. */
bool remote_mac_equal(const uint8_t a[REMOTE_MAC], const uint8_t b[REMOTE_MAC]);

/* A fresh nonce from the kernel's generator: 0, or -1. */
int remote_nonce(uint8_t out[REMOTE_NONCE]);

#endif
