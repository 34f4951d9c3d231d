// SPDX-License-Identifier: BSD-2-Clause
/* link_auth.c - the two-host link's key and handshake (link_auth.h), on libsodium. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/exitcode.h"
#include "lib/log.h"
#include "lib/str.h"
#include "link.h"
#include "link_auth.h"

#define PROTO	  "tailcause-link 2 "
#define PROOF	  "tailcause-link proof "
#define OK	  "tailcause-link ok "
#define REFUSED	  "tailcause-link refused "
#define NONCE_LEN 16
#define HEX_NONCE (2 * NONCE_LEN)
#define LINE_LEN  160

/* What each HMAC is of, so that no MAC of one kind passes for another. */
#define LABEL_KEY     "tailcause-link 2 key"
#define LABEL_CLIENT  "tailcause-link 2 client"
#define LABEL_SERVER  "tailcause-link 2 server"
#define LABEL_SESSION "tailcause-link 2 session"

/* The secret's bytes: the whole file but a trailing newline. */
static int key_bytes(const char *path, unsigned char *buf, size_t *n)
{
	struct stat st;
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		log_err("--key %s: %s", path, strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		log_err("--key %s: not a regular file", path);
		err = -EINVAL;
		goto out;
	}
	if (st.st_mode & 077) {
		log_err("--key %s: others may read or write it (mode %03o): chmod 600 %s", path,
			(unsigned int)(st.st_mode & 0777), path);
		err = -EPERM;
		goto out;
	}
	r = read(fd, buf, LINK_KEY_FILE_MAX + 1);
	if (r < 0) {
		err = -errno;
		log_err("--key %s: %s", path, strerror(-err));
		goto out;
	}
	*n = (size_t)r;
	while (*n && (buf[*n - 1] == '\n' || buf[*n - 1] == '\r'))
		(*n)--;
	if (r > LINK_KEY_FILE_MAX || *n < LINK_KEY_MIN) {
		log_err("--key %s: %zu bytes of secret: a key holds %d to %d (head -c 32 "
			"/dev/urandom | base64 > FILE makes one)",
			path, r > LINK_KEY_FILE_MAX ? (size_t)r : *n, LINK_KEY_MIN,
			LINK_KEY_FILE_MAX);
		err = -EINVAL;
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}

int link_key_load(const char *path, struct link_key *key)
{
	unsigned char buf[LINK_KEY_FILE_MAX + 1];
	size_t n = 0;
	int err;

	if (sodium_init() < 0) {
		log_err("--key: libsodium could not start");
		return -TC_ERRNO__ENV;
	}
	err = key_bytes(path, buf, &n);
	if (!err) {
		crypto_auth_hmacsha256_state st;

		crypto_auth_hmacsha256_init(&st, buf, n);
		crypto_auth_hmacsha256_update(&st, (const unsigned char *)LABEL_KEY,
					      strlen(LABEL_KEY));
		crypto_auth_hmacsha256_final(&st, key->k);
		sodium_memzero(&st, sizeof(st));
	}
	sodium_memzero(buf, sizeof(buf));
	return err ? -TC_ERRNO__USAGE : 0;
}

void link_key_forget(struct link_key *key)
{
	sodium_memzero(key, sizeof(*key));
}

/* HMAC(key, label || server nonce || client nonce). */
static void proof(unsigned char *out, const struct link_key *key, const char *label,
		  const unsigned char *ns, const unsigned char *nc)
{
	crypto_auth_hmacsha256_state st;

	crypto_auth_hmacsha256_init(&st, key->k, sizeof(key->k));
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)label, strlen(label));
	crypto_auth_hmacsha256_update(&st, ns, NONCE_LEN);
	crypto_auth_hmacsha256_update(&st, nc, NONCE_LEN);
	crypto_auth_hmacsha256_final(&st, out);
	sodium_memzero(&st, sizeof(st));
}

/* Exactly 2 * len hex digits at s into bin, followed by end_chars' one; 0 or -1. */
static int unhex(const char *s, unsigned char *bin, size_t len, const char *end_chars)
{
	size_t got = 0;
	const char *end;

	if (strspn(s, "0123456789abcdef") != 2 * len || !strchr(end_chars, s[2 * len]))
		return -1;
	if (sodium_hex2bin(bin, len, s, 2 * len, NULL, &got, &end) || got != len)
		return -1;
	return 0;
}

/* Sends the line (with its '\n') in full; 0 or -errno. */
static int send_line(int fd, const char *line)
{
	return link_send_all(fd, line, strlen(line));
}

static void said(char *why, size_t len, const char *what, const char *line)
{
	char esc[STR_ESCAPED_LEN(40)];

	snprintf(why, len, "%s (it sent '%s')", what, str_escape_n(esc, sizeof(esc), line, 40));
}

/* A line "<prefix><nonce, 32 hex><end>": the nonce into n; 0 or -1. */
static int parse_nonce(const char *line, const char *prefix, unsigned char *n, const char *end)
{
	return strncmp(line, prefix, strlen(prefix)) ||
			       unhex(line + strlen(prefix), n, NONCE_LEN, end)
		       ? -1
		       : 0;
}

/* The client's proof line: its proof into mac; 1 with a proof, 0 without, -1 not one. */
static int parse_proof(const char *line, unsigned char *mac)
{
	if (strncmp(line, PROOF, strlen(PROOF)))
		return -1;
	if (!strcmp(line + strlen(PROOF), "none"))
		return 0;
	return unhex(line + strlen(PROOF), mac, LINK_MAC_LEN, "") ? -1 : 1;
}

/* The client's next line into line; 0, or -errno with why said. */
static int server_recv(struct link *l, char *line, size_t size, char *why, size_t len)
{
	int err = link_recv_line(l->fd, line, size);

	if (err == -ECONNRESET)
		snprintf(why, len, "it closed the connection before the handshake ended");
	else if (err == -ETIMEDOUT)
		snprintf(why, len, "it did not answer the handshake within %d s",
			 LINK_HANDSHAKE_TIMEOUT_S);
	else if (err)
		snprintf(why, len, "%s before the handshake ended", strerror(-err));
	return err;
}

int link_auth_server(struct link *l, const struct link_key *key, char *why, size_t len)
{
	unsigned char ns[NONCE_LEN], nc[NONCE_LEN], mac[LINK_MAC_LEN], want[LINK_MAC_LEN];
	char line[LINE_LEN], hex[LINK_HEX_MAC_LEN + 1];
	int err, proved;

	l->trusted = 0;
	err = server_recv(l, line, sizeof(line), why, len);
	if (err)
		return err;
	if (parse_nonce(line, PROTO, nc, "")) {
		said(why, len, "it does not speak tailcause's link protocol 2", line);
		return -EPROTO;
	}
	randombytes_buf(ns, sizeof(ns));
	snprintf(line, sizeof(line), PROTO "%s %s\n",
		 sodium_bin2hex(hex, sizeof(hex), ns, sizeof(ns)), key ? "key" : "nokey");
	err = send_line(l->fd, line);
	err = err ?: server_recv(l, line, sizeof(line), why, len);
	if (err)
		return err;
	proved = parse_proof(line, mac);
	if (proved < 0) {
		said(why, len, "it does not speak tailcause's link protocol 2", line);
		return -EPROTO;
	}
	l->untrusted_why = "this server has no --key";
	if (!key)
		return send_line(l->fd, OK "none\n");
	proof(want, key, LABEL_CLIENT, ns, nc);
	if (proved != 1 || sodium_memcmp(mac, want, sizeof(mac))) {
		send_line(l->fd, proved ? REFUSED "key\n" : REFUSED "no-key\n");
		snprintf(why, len, "%s",
			 proved ? "its key is not this server's" : "it has no key (give it --key)");
		return -EACCES;
	}
	proof(mac, key, LABEL_SERVER, ns, nc);
	proof(l->session, key, LABEL_SESSION, ns, nc);
	snprintf(line, sizeof(line), OK "%s\n", sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac)));
	l->trusted = 1;
	l->untrusted_why = NULL;
	return send_line(l->fd, line);
}

/* The server's verdict on the client's answer: 0 (l set), or -errno (reported). */
static int client_verdict(struct link *l, const struct link_key *key, const char *host,
			  const unsigned char *ns, const unsigned char *nc)
{
	unsigned char mac[LINK_MAC_LEN], want[LINK_MAC_LEN];
	char line[LINE_LEN], esc[STR_ESCAPED_LEN(40)];
	int err = link_recv_line(l->fd, line, sizeof(line));

	if (err) {
		log_err("handshake with %s: %s", host, strerror(-err));
		return err;
	}
	if (!strncmp(line, REFUSED, strlen(REFUSED))) {
		log_err("the server at %s refused this client: %s", host,
			strcmp(line + strlen(REFUSED), "no-key")
				? "its key is not the server's (--key FILE: the same secret on both "
				  "hosts)"
				: "it requires a key (--key FILE with the server's secret)");
		return -EACCES;
	}
	if (!strcmp(line, OK "none")) {
		l->untrusted_why = key ? "the server has no --key" : "neither host has --key";
		if (key)
			log_warn("the server at %s has no --key: the run goes ahead, but its trace "
				 "will not be fetched",
				 host);
		return 0;
	}
	if (!key || strncmp(line, OK, strlen(OK)) ||
	    unhex(line + strlen(OK), mac, sizeof(mac), "")) {
		log_err("handshake with %s: the server answered '%s'", host,
			str_escape_n(esc, sizeof(esc), line, 40));
		return -EPROTO;
	}
	proof(want, key, LABEL_SERVER, ns, nc);
	if (sodium_memcmp(mac, want, sizeof(mac))) {
		log_err("the server at %s did not prove this key: it is not the tailcause you "
			"meant to reach",
			host);
		return -EACCES;
	}
	proof(l->session, key, LABEL_SESSION, ns, nc);
	l->trusted = 1;
	l->untrusted_why = NULL;
	return 0;
}

int link_auth_client(struct link *l, const struct link_key *key, const char *host)
{
	unsigned char ns[NONCE_LEN], nc[NONCE_LEN], mac[LINK_MAC_LEN];
	char line[LINE_LEN], hex[LINK_HEX_MAC_LEN + 1];
	char esc[STR_ESCAPED_LEN(40)];
	int err;

	l->trusted = 0;
	randombytes_buf(nc, sizeof(nc));
	snprintf(line, sizeof(line), PROTO "%s\n",
		 sodium_bin2hex(hex, sizeof(hex), nc, sizeof(nc)));
	err = send_line(l->fd, line);
	err = err ?: link_recv_line(l->fd, line, sizeof(line));
	if (err == -ECONNRESET || err == -ETIMEDOUT) {
		log_err("the server at %s %s tailcause's first line: it is not tailcause, or another "
			"version of it (perftest?)",
			host, err == -ETIMEDOUT ? "did not answer" : "hung up at");
		return -EPROTO;
	}
	if (err) {
		log_err("handshake with %s: %s", host, strerror(-err));
		return err;
	}
	if (parse_nonce(line, PROTO, ns, " ")) {
		log_err("the server at %s is not tailcause, or another version of it (perftest? it "
			"sent '%s'): run the same tailcause version on both hosts",
			host, str_escape_n(esc, sizeof(esc), line, 40));
		return -EPROTO;
	}
	if (key) {
		proof(mac, key, LABEL_CLIENT, ns, nc);
		snprintf(line, sizeof(line), PROOF "%s\n",
			 sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac)));
	} else {
		snprintf(line, sizeof(line), PROOF "none\n");
	}
	err = send_line(l->fd, line);
	if (err) {
		log_err("handshake with %s: %s", host, strerror(-err));
		return err;
	}
	return client_verdict(l, key, host, ns, nc);
}

void link_mac_init(struct link_mac *m, const struct link *l, const char *label)
{
	crypto_auth_hmacsha256_init(&m->state, l->session, sizeof(l->session));
	crypto_auth_hmacsha256_update(&m->state, (const unsigned char *)label, strlen(label));
}

void link_mac_update(struct link_mac *m, const void *buf, size_t len)
{
	crypto_auth_hmacsha256_update(&m->state, buf, len);
}

void link_mac_final_hex(struct link_mac *m, char *hex)
{
	unsigned char mac[LINK_MAC_LEN];

	crypto_auth_hmacsha256_final(&m->state, mac);
	sodium_bin2hex(hex, LINK_HEX_MAC_LEN + 1, mac, sizeof(mac));
}

int link_mac_equal(const char *a_hex, const char *b_hex)
{
	return strlen(a_hex) == LINK_HEX_MAC_LEN && strlen(b_hex) == LINK_HEX_MAC_LEN &&
	       !sodium_memcmp(a_hex, b_hex, LINK_HEX_MAC_LEN);
}
