// SPDX-License-Identifier: BSD-2-Clause
/* link.c - the TCP link of a two-host run (link.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/str.h"
#include "link.h"

#define EXCHANGE_TIMEOUT_S 30
#define LISTEN_BACKLOG	   8

static void set_timeout(int fd, int seconds)
{
	struct timeval tv = {.tv_sec = seconds};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A socket listening on addr (NULL: every address, IPv4 too) port port; fd or -errno. */
static int listen_on(const char *addr, unsigned int port)
{
	struct addrinfo hints = {.ai_family = addr ? AF_UNSPEC : AF_INET6,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *res = NULL, *ai;
	int one = 1, zero = 0, fd = -1, err = -EADDRNOTAVAIL, gai;
	char serv[16];

	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(addr, serv, &hints, &res);
	if (gai && !addr) { /* no IPv6 here: plain IPv4 */
		hints.ai_family = AF_INET;
		gai = getaddrinfo(NULL, serv, &hints, &res);
	}
	if (gai) {
		log_err("--bind %s: %s", addr ? addr : "(any)", gai_strerror(gai));
		return -EADDRNOTAVAIL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* One IPv6 socket on every address takes IPv4 clients too. */
		if (ai->ai_family == AF_INET6 && !addr)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, LISTEN_BACKLOG))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		log_err("listen on %s TCP port %u: %s", addr ? addr : "every address", port,
			strerror(-err));
	return fd < 0 ? err : fd;
}

/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6) of sa into buf. */
static void addr_name(const struct sockaddr_storage *sa, socklen_t len, char *buf, size_t size)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo((const struct sockaddr *)sa, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, size, "(an unknown address)");
		return;
	}
	if (!strncmp(host, "::ffff:", 7) && strchr(host, '.'))
		memmove(host, host + 7, strlen(host + 7) + 1); /* an IPv4 client */
	snprintf(buf, size, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, serv);
}

int link_accept(const struct probe_opts *o, const char *probe, struct link *l)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char why[160];
	int lfd, err = 0;

	*l = (struct link){.fd = -1};
	if (sodium_init() < 0) {
		log_err("libsodium could not start");
		return -ENOSYS;
	}
	lfd = listen_on(o->bind_addr, o->tcp_port);
	if (lfd < 0)
		return lfd;
	log_info("waiting for a client on TCP port %u (tailcause lat --probe %s %sTHIS_HOST)%s",
		 o->tcp_port, probe, o->key ? "--key FILE " : "",
		 o->key ? ": only one with this key is let in" : "");
	for (;;) {
		len = sizeof(sa);
		l->fd = accept4(lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC);
		if (l->fd < 0 && errno == ECONNABORTED)
			continue;
		if (l->fd < 0) {
			err = -errno;
			log_err("accept a client on TCP port %u: %s", o->tcp_port, strerror(-err));
			break;
		}
		addr_name(&sa, len, l->peer, sizeof(l->peer));
		set_timeout(l->fd, LINK_HANDSHAKE_TIMEOUT_S);
		err = link_auth_server(l, o->key, why, sizeof(why));
		if (!err)
			break;
		log_warn("refused a connection from %s: %s; still waiting", l->peer, why);
		link_close(l);
	}
	close(lfd);
	if (!err)
		set_timeout(l->fd, EXCHANGE_TIMEOUT_S);
	return err;
}

int link_connect(const struct probe_opts *o, const char *probe, struct link *l)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *res, *ai;
	char port[16];
	int fd = -1, err = -EHOSTUNREACH, gai;

	*l = (struct link){.fd = -1};
	if (sodium_init() < 0) {
		log_err("libsodium could not start");
		return -ENOSYS;
	}
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
			"--probe %s' waiting there?)",
			o->host, o->tcp_port, strerror(-err), probe);
		return err;
	}
	l->fd = fd;
	snprintf(l->peer, sizeof(l->peer), "%s:%u", o->host, o->tcp_port);
	set_timeout(fd, LINK_HANDSHAKE_TIMEOUT_S); /* a server of another kind may say nothing */
	err = link_auth_client(l, o->key, o->host);
	if (err)
		link_close(l);
	else
		set_timeout(fd, EXCHANGE_TIMEOUT_S);
	return err;
}

void link_close(struct link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->trusted = 0;
	sodium_memzero(l->session, sizeof(l->session));
}

int link_send_all(int fd, const void *buf, size_t len)
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

int link_recv_line(int fd, char *buf, size_t len)
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

int link_barrier(int fd, const char *what)
{
	char c = 'B';
	ssize_t r;
	int err;

	set_timeout(fd, LINK_BARRIER_TIMEOUT_S);
	err = link_send_all(fd, &c, 1);
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

#define NEXT_RUN  "tailcause-run? "
#define NEXT_MORE NEXT_RUN "more\n"
#define NEXT_END  NEXT_RUN "end\n"

/* Whether the peer has stopped sending (what is in the socket is all there will be). */
static int peer_done(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLRDHUP};

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The peer's next line, peeked (left in the socket): its length with the '\n', or 0. */
static int peek_line(int fd, char *buf, size_t len, size_t *n)
{
	*n = 0;
	for (int tries = 0; tries < 1000; tries++) {
		ssize_t r = recv(fd, buf, len - 1, MSG_PEEK);
		char *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -ECONNRESET;
		buf[r] = 0;
		nl = memchr(buf, '\n', (size_t)r);
		if (nl || (size_t)r == len - 1 || peer_done(fd)) {
			*n = nl ? (size_t)(nl - buf) + 1 : 0;
			return 0;
		}
		usleep(1000); /* the rest of the line is on its way */
	}
	return -ETIMEDOUT;
}

int link_next_run(int fd, int want)
{
	char line[64], esc[STR_ESCAPED_LEN(40)];
	size_t n;
	int err;

	set_timeout(fd, LINK_BARRIER_TIMEOUT_S);
	err = link_send_all(fd, want ? NEXT_MORE : NEXT_END, strlen(want ? NEXT_MORE : NEXT_END));
	err = err ?: peek_line(fd, line, sizeof(line), &n);
	if (err == -ECONNRESET) {
		log_warn("the peer closed the link after the run: it does not run with --duration "
			 "(give -D to both sides, as perftest), or it stopped");
		return 0;
	}
	if (err) {
		log_err("agree on the next run with the peer: %s", strerror(-err));
		return err;
	}
	if (!n || strncmp(line, NEXT_RUN, strlen(NEXT_RUN))) {
		log_warn("the peer does not run with --duration (it sent '%s'): the runs end "
			 "here; give -D to both sides, as perftest",
			 str_escape_n(esc, sizeof(esc), line, 40));
		return 0;
	}
	if (recv(fd, line, n, 0) != (ssize_t)n) /* consumed: it was ours to read */
		return -EIO;
	return want && !strncmp(line, NEXT_MORE, n);
}

void link_new_run_id(char *buf)
{
	uint64_t id;

	randombytes_buf(&id, sizeof(id));
	snprintf(buf, 17, "%016llx", (unsigned long long)id);
}
