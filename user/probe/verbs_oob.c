// SPDX-License-Identifier: BSD-2-Clause
/*
 * verbs_oob.c - the out-of-band TCP exchange of two-host mode, as perftest
 * does it: the server listens (port 18515 by default), the client connects,
 * each sends one text line with its QPN, PSN, rkey, buffer address, LID, GID,
 * MTU, its run parameters and the protocol version; then one-byte barriers
 * before and after the timed run. Text, so a mismatch is easy to diagnose.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "verbs.h"

#define MAGIC		   "tailcause-verbs"
#define LINE_MAX_LEN	   320
#define EXCHANGE_TIMEOUT_S 30
/* A barrier may wait while the peer loads its BPF programs (record): seconds under TCG. */
#define BARRIER_TIMEOUT_S 300

static void set_timeout(int fd, int seconds)
{
	struct timeval tv = {.tv_sec = seconds};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int listen_on(unsigned int port)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6,
				  .sin6_port = htons((uint16_t)port),
				  .sin6_addr = IN6ADDR_ANY_INIT};
	struct sockaddr_in a4 = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_ANY)};
	int one = 1, zero = 0, fd, err;

	/* One IPv6 socket takes IPv4 clients too; plain IPv4 where IPv6 is off. */
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)))
			goto bound;
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)))
		goto fail;
bound:
	if (listen(fd, 1))
		goto fail;
	return fd;
fail:
	err = -errno;
	log_err("listen on TCP port %u: %s", port, strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

int verbs_oob__accept(const struct probe_opts *o)
{
	int lfd, fd;

	lfd = listen_on(o->tcp_port);
	if (lfd < 0)
		return lfd;
	log_info("waiting for a client on TCP port %u (tailcause lat --probe verbs THIS_HOST)",
		 o->tcp_port);
	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == ECONNABORTED);
	if (fd < 0) {
		fd = -errno;
		log_err("accept a client on TCP port %u: %s", o->tcp_port, strerror(-fd));
	}
	close(lfd);
	if (fd >= 0)
		set_timeout(fd, EXCHANGE_TIMEOUT_S);
	return fd;
}

int verbs_oob__connect(const struct probe_opts *o)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res, *ai;
	char port[16];
	int fd = -1, err = -EHOSTUNREACH, gai;

	snprintf(port, sizeof(port), "%u", o->tcp_port);
	gai = getaddrinfo(o->host, port, &hints, &res);
	if (gai) {
		log_err("peer %s unreachable: %s", o->host, gai_strerror(gai));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		log_err("peer %s unreachable: connect to TCP port %u: %s (is 'tailcause lat "
			"--probe verbs' waiting there?)",
			o->host, o->tcp_port, strerror(-err));
		return err;
	}
	set_timeout(fd, EXCHANGE_TIMEOUT_S);
	return fd;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Reads one line, up to '\n' (not kept). A peer of another kind may send no
 * newline at all: what came before EOF, a timeout or a full buffer counts as
 * its line, so the caller can say what it was. 0, or -errno with nothing read.
 */
static int recv_line(int fd, char *buf, size_t len)
{
	size_t n = 0;
	int err = 0;

	while (n + 1 < len) {
		ssize_t r = recv(fd, buf + n, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r == 0 ? -ECONNRESET : errno == EAGAIN ? -ETIMEDOUT : -errno;
			break;
		}
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
	return n ? 0 : err;
}

static void gid_hex(const union ibv_gid *gid, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", gid->raw[i]);
}

static int parse_gid(const char *hex, union ibv_gid *gid)
{
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		gid->raw[i] = (uint8_t)b;
	}
	return 0;
}

int verbs_oob__exchange(int fd, const struct probe_opts *o, const struct verbs_dest *self,
			struct verbs_dest *peer)
{
	char line[LINE_MAX_LEN], gid[33], pgid[33] = "";
	unsigned long long n, size, addr;
	unsigned int lid;
	int ver, len, err;

	gid_hex(&self->gid, gid);
	len = snprintf(line, sizeof(line),
		       MAGIC " %d n=%zu s=%zu qpn=%u psn=%u rkey=%u addr=%llx lid=%u gidx=%d "
			     "mtu=%u gid=%s\n",
		       VERBS_PROTO_VERSION, o->iterations, o->size, self->qpn, self->psn,
		       self->rkey, (unsigned long long)self->addr, self->lid, self->gid_index,
		       self->mtu, gid);
	err = send_all(fd, line, (size_t)len);
	err = err ?: recv_line(fd, line, sizeof(line));
	if (err) {
		log_err("exchange queue pair details with %s: %s", o->host ? o->host : "the client",
			strerror(-err));
		return err;
	}
	if (strncmp(line, MAGIC " ", sizeof(MAGIC))) {
		for (char *c = line; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				*c = '?';
		log_err("the peer is not tailcause's verbs probe (perftest? a different program "
			"on TCP port %u): it sent '%.40s'",
			o->tcp_port, line);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC), "%d", &ver) != 1 || ver != VERBS_PROTO_VERSION) {
		log_err("version mismatch: the peer speaks verbs protocol %d, this tailcause %d "
			"(run the same tailcause version on both hosts)",
			ver, VERBS_PROTO_VERSION);
		return -EPROTO;
	}
	if (sscanf(line + sizeof(MAGIC),
		   "%*d n=%llu s=%llu qpn=%u psn=%u rkey=%u addr=%llx lid=%u gidx=%d mtu=%u "
		   "gid=%32s",
		   &n, &size, &peer->qpn, &peer->psn, &peer->rkey, &addr, &lid, &peer->gid_index,
		   &peer->mtu, pgid) != 10 ||
	    parse_gid(pgid, &peer->gid)) {
		log_err("the peer sent a malformed exchange line: '%.80s'", line);
		return -EPROTO;
	}
	peer->addr = addr;
	peer->lid = (uint16_t)lid;
	if (n != o->iterations || size != o->size) {
		log_err("the peer runs -n %llu -s %llu, this side -n %zu -s %zu: give both sides "
			"the same",
			n, size, o->iterations, o->size);
		return -EPROTO;
	}
	return 0;
}

int verbs_oob__barrier(int fd, const char *what)
{
	char c = 'B';
	ssize_t r;
	int err;

	set_timeout(fd, BARRIER_TIMEOUT_S);
	err = send_all(fd, &c, 1);
	if (!err) {
		do
			r = recv(fd, &c, 1, 0);
		while (r < 0 && errno == EINTR);
		err = r == 1 ? 0 : r == 0 ? -ECONNRESET : errno == EAGAIN ? -ETIMEDOUT : -errno;
	}
	if (err)
		log_err("synchronise with the peer (%s): %s", what, strerror(-err));
	return err;
}
