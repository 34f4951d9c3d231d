// SPDX-License-Identifier: BSD-2-Clause
/* peer_trace.c - the server's trace sent to the client over the run's link (peer_trace.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/outfile.h"
#include "peer_trace.h"
#include "probe/link.h"

#define ASK   "tailcause-trace? 1\n"
#define REPLY "tailcause-trace 1 "
#define CHUNK (1u << 16)

int peer_trace_serve(int fd, const char *path)
{
	char line[128], buf[CHUNK];
	struct stat st;
	int in, err;

	if (link_recv_line(fd, line, sizeof(line)) || strcmp(line, "tailcause-trace? 1")) {
		if (!strncmp(line, "tailcause-run? ", 15))
			log_warn("the client runs --duration, this side does not: the run ended "
				 "after -n round trips; give -D to both sides, as perftest");
		return 0; /* a client that does not record (lat) just closes */
	}
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st)) {
		err = -errno;
		snprintf(line, sizeof(line), REPLY "none %s\n", strerror(-err));
		link_send_all(fd, line, strlen(line));
		if (in >= 0)
			close(in);
		log_warn("send the trace to the client: %s: %s", path, strerror(-err));
		return err;
	}
	snprintf(line, sizeof(line), REPLY "%lld\n", (long long)st.st_size);
	err = link_send_all(fd, line, strlen(line));
	for (off_t left = st.st_size; !err && left > 0;) {
		ssize_t n = read(in, buf, left < (off_t)sizeof(buf) ? (size_t)left : sizeof(buf));

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		err = link_send_all(fd, buf, (size_t)n);
		left -= n;
	}
	close(in);
	if (err)
		log_warn("send the trace to the client: %s", strerror(-err));
	else
		log_info("trace sent to the client (%lld bytes)", (long long)st.st_size);
	return err;
}

static int recv_exact(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -ECONNRESET;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int peer_trace_fetch(int fd, const char *path)
{
	char line[160], buf[CHUNK];
	struct outfile of;
	long long size;
	int err;

	err = link_send_all(fd, ASK, strlen(ASK));
	err = err ?: link_recv_line(fd, line, sizeof(line));
	/* a server with --duration asked for another run first (this side has no -D) */
	if (!err && !strncmp(line, "tailcause-run? ", 15))
		err = link_recv_line(fd, line, sizeof(line));
	if (err) {
		log_warn("the server sent no trace (%s): is it 'tailcause record --server'? "
			 "This host's trace is complete",
			 strerror(-err));
		return -ENOENT;
	}
	link_printable(line);
	if (strncmp(line, REPLY, strlen(REPLY))) {
		log_warn("the server answered '%.60s' instead of its trace", line);
		return -EPROTO;
	}
	if (!strncmp(line + strlen(REPLY), "none", 4)) {
		log_warn("the server has no trace to send: %s", line + strlen(REPLY) + 4);
		return -ENOENT;
	}
	size = strtoll(line + strlen(REPLY), NULL, 10);
	if (size <= 0) {
		log_warn("the server announced a trace of %lld bytes", size);
		return -EPROTO;
	}
	err = outfile_open(&of, path);
	if (err)
		return err;
	fchmod(fileno(of.f), 0600); /* as the recorder writes its own */
	for (long long left = size; !err && left > 0;) {
		size_t n = left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf);

		err = recv_exact(fd, buf, n);
		if (!err && fwrite(buf, 1, n, of.f) != n)
			err = -EIO;
		left -= (long long)n;
	}
	if (err) {
		log_warn("receive the server's trace: %s", strerror(-err));
		outfile_abort(&of);
		return err;
	}
	return outfile_commit(&of);
}
