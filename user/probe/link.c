// SPDX-License-Identifier: BSD-2-Clause
/* link.c - the TCP link of a two-host run (link.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "link.h"

#define EXCHANGE_TIMEOUT_S 30

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

int link_accept(const struct probe_opts *o, const char *probe)
{
	int lfd, fd;

	lfd = listen_on(o->tcp_port);
	if (lfd < 0)
		return lfd;
	log_info("waiting for a client on TCP port %u (tailcause lat --probe %s THIS_HOST)",
		 o->tcp_port, probe);
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

int link_connect(const struct probe_opts *o, const char *probe)
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
			"--probe %s' waiting there?)",
			o->host, o->tcp_port, strerror(-err), probe);
		return err;
	}
	set_timeout(fd, EXCHANGE_TIMEOUT_S);
	return fd;
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
		if (nl || (size_t)r == len - 1) {
			*n = nl ? (size_t)(nl - buf) + 1 : 0;
			return 0;
		}
		usleep(1000); /* the rest of the line is on its way */
	}
	return -ETIMEDOUT;
}

int link_next_run(int fd, int want)
{
	char line[64];
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
		link_printable(line);
		log_warn("the peer does not run with --duration (it sent '%.40s'): the runs end "
			 "here; give -D to both sides, as perftest",
			 line);
		return 0;
	}
	if (recv(fd, line, n, 0) != (ssize_t)n) /* consumed: it was ours to read */
		return -EIO;
	return want && !strncmp(line, NEXT_MORE, n);
}

void link_printable(char *line)
{
	for (char *c = line; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
}

void link_new_run_id(char *buf)
{
	uint64_t id = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &id, sizeof(id)) != (ssize_t)sizeof(id))
		id = probe_now_ns() ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	snprintf(buf, 17, "%016llx", (unsigned long long)id);
}
