/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * link_auth.h - the shared key of a two-host run and the handshake that proves it,
 * private to user/probe and the recorder's trace exchange (record/peer_trace.c).
 *
 * Both hosts hold the same secret (--key FILE, TAILCAUSE_KEY_FILE), handed out as
 * SSH keys are. Right after the TCP connection, before any parameter crosses it, the
 * client sends a fresh nonce (first, so that a server of another kind, such as
 * perftest's, answers in its own words and is recognised), the server its own; the
 * client proves the key with an HMAC-SHA256 of both nonces under it, the server checks
 * it and answers with its own HMAC, which the client checks. Both then derive a session
 * key from the two nonces, and whatever a trusted link carries later (a trace) is MAC-ed
 * with it. The primitives are libsodium's. The lines, each ending in '\n':
 *
 *   client: tailcause-link 2 <client nonce, 32 hex>
 *   server: tailcause-link 2 <server nonce, 32 hex> key|nokey
 *   client: tailcause-link proof <client proof, 64 hex>|none
 *   server: tailcause-link ok <server proof, 64 hex>|none
 *      or:  tailcause-link refused key|no-key
 *
 * A server with a key refuses a client without the same key (and goes on waiting); a
 * server without one lets any client of this protocol run, over an untrusted link. No
 * trace crosses an untrusted link.
 */
#ifndef TAILCAUSE_PROBE_LINK_AUTH_H
#define TAILCAUSE_PROBE_LINK_AUTH_H

#include <sodium.h>
#include <stddef.h>
#include <stdint.h>

#define LINK_KEY_MIN	  16   /* bytes of secret a key file must hold */
#define LINK_KEY_FILE_MAX 4096 /* a larger file is not a key */
#define LINK_MAC_LEN	  32   /* HMAC-SHA256 */
#define LINK_HEX_MAC_LEN  (2 * LINK_MAC_LEN)
/* A client that has not finished the handshake by then is refused. */
#define LINK_HANDSHAKE_TIMEOUT_S 10

/* The secret both hosts hold, as the HMAC key derived from the file's bytes. */
struct link_key {
	unsigned char k[LINK_MAC_LEN];
};

/* One side of the two-host link, once the handshake is done. */
struct link {
	int fd;				     /* the TCP connection; -1: none */
	int trusted;			     /* both ends proved the same key: a trace may cross */
	const char *untrusted_why;	     /* !trusted: why, for the report */
	unsigned char session[LINK_MAC_LEN]; /* trusted: the key of MACs over this link */
	char peer[64];			     /* the peer's address and port, for messages */
};

/*
 * Reads the key in path: a regular file of LINK_KEY_MIN..LINK_KEY_FILE_MAX bytes (a
 * trailing newline is not part of it) that no one but its owner may read or write.
 * 0, or -TC_ERRNO__USAGE (reported in one line).
 */
int link_key_load(const char *path, struct link_key *key);
/* Wipes the key from memory. */
void link_key_forget(struct link_key *key);

/*
 * The server's half of the handshake on l->fd with the client at l->peer (key NULL: none).
 * 0: l is ready (trusted or not); else -errno with why[0..len) saying why the client was
 * refused (-EACCES: no key or another key; -EPROTO: it does not speak the protocol).
 */
int link_auth_server(struct link *l, const struct link_key *key, char *why, size_t len);
/*
 * The client's half on l->fd, with the server host named host. 0: l is ready (trusted
 * or not; a key the server lacks is said as a warning); else -errno (reported).
 */
int link_auth_client(struct link *l, const struct link_key *key, const char *host);

/* An HMAC-SHA256 under a trusted link's session key, fed piece by piece. */
struct link_mac {
	crypto_auth_hmacsha256_state state;
};

/* Starts a MAC under l's session key over label (what is MAC-ed, so MACs of different
 * things never match). */
void link_mac_init(struct link_mac *m, const struct link *l, const char *label);
void link_mac_update(struct link_mac *m, const void *buf, size_t len);
/* Ends it, as LINK_HEX_MAC_LEN hex digits and a NUL into hex. */
void link_mac_final_hex(struct link_mac *m, char *hex);
/* Whether two MACs in hex are equal, in time independent of where they differ. */
int link_mac_equal(const char *a_hex, const char *b_hex);

#endif /* TAILCAUSE_PROBE_LINK_AUTH_H */
