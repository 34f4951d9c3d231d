// SPDX-License-Identifier: BSD-2-Clause
/* peer_trace.c - the server's trace sent to the client over the run's link (peer_trace.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/str.h"
#include "peer_trace.h"
#include "probe/link.h"
#include "tracefile/trace_file.h"

#define ASK	  "tailcause-trace? 2 "
#define REPLY	  "tailcause-trace 2 "
#define MAC_LINE  "tailcause-trace-mac "
#define MAC_LABEL "tailcause-trace 2"
#define CHUNK	  (1u << 16)

/* The MAC of a trace: its label, the run's id, its size, then its bytes (fed after). */
static void mac_start(struct link_mac *m, const struct link *l, const char *run_id, uint64_t size)
{
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(size >> (8 * i));
	link_mac_init(m, l, MAC_LABEL);
	link_mac_update(m, run_id, strlen(run_id) + 1);
	link_mac_update(m, le, sizeof(le));
}

/* Sends "none <why>" for a request that gets no trace. */
static void refuse(const struct link *l, const char *why)
{
	char line[160];

	snprintf(line, sizeof(line), REPLY "none %s\n", why);
	link_send_all(l->fd, line, strlen(line));
}

/* The trace at fd, size bytes, and its MAC line. 0 or -errno. */
static int send_trace(const struct link *l, int fd, const char *run_id, uint64_t size)
{
	char line[128], hex[LINK_HEX_MAC_LEN + 1], *buf = malloc(CHUNK);
	struct link_mac m;
	uint64_t off = 0;
	int err;

	if (!buf)
		return -ENOMEM;
	mac_start(&m, l, run_id, size);
	snprintf(line, sizeof(line), REPLY "%" PRIu64 "\n", size);
	err = link_send_all(l->fd, line, strlen(line));
	while (!err && off < size) {
		ssize_t n = pread(fd, buf, size - off < CHUNK ? size - off : CHUNK, (off_t)off);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		link_mac_update(&m, buf, (size_t)n);
		err = link_send_all(l->fd, buf, (size_t)n);
		off += (uint64_t)n;
	}
	free(buf);
	if (err)
		return err;
	link_mac_final_hex(&m, hex);
	snprintf(line, sizeof(line), MAC_LINE "%s\n", hex);
	return link_send_all(l->fd, line, strlen(line));
}

int peer_trace_serve(const struct link *l, int fd, const char *run_id)
{
	char line[128], esc[STR_ESCAPED_LEN(40)];
	struct stat st;
	int err;

	if (!l->trusted) {
		log_info("no trace sent to the client: %s (give both hosts the same --key FILE)",
			 l->untrusted_why);
		return 0;
	}
	if (link_recv_line(l->fd, line, sizeof(line)) || strncmp(line, ASK, strlen(ASK))) {
		if (!strncmp(line, "tailcause-run? ", 15))
			log_warn("the client runs --duration, this side does not: the run ended "
				 "after -n round trips; give -D to both sides, as perftest");
		return 0; /* a client that does not record (lat) just closes */
	}
	if (!run_id || strcmp(line + strlen(ASK), run_id)) {
		refuse(l, "it asked for another run's trace");
		log_warn("the client asked for the trace of run '%s', not this run's: none sent",
			 str_escape_n(esc, sizeof(esc), line + strlen(ASK), 40));
		return -EPROTO;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		refuse(l, "the server cannot read its trace");
		log_warn("send the trace to the client: %s", strerror(-err));
		return err;
	}
	err = send_trace(l, fd, run_id, (uint64_t)st.st_size);
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

/* The server's answer to the request: the trace's size, or -errno with why said. */
static int read_reply(const struct link *l, uint64_t *size, char *why, size_t len)
{
	char line[160], esc[STR_ESCAPED_LEN(80)], *end;
	int err = link_recv_line(l->fd, line, sizeof(line));

	/* a server with --duration asked for another run first (this side has no -D) */
	if (!err && !strncmp(line, "tailcause-run? ", 15))
		err = link_recv_line(l->fd, line, sizeof(line));
	if (err) {
		snprintf(why, len, "the server sent none (%s): is it 'tailcause record --server'?",
			 strerror(-err));
		return -ENOENT;
	}
	if (strncmp(line, REPLY, strlen(REPLY))) {
		snprintf(why, len, "the server answered '%s' instead of its trace",
			 str_escape_n(esc, sizeof(esc), line, 60));
		return -EPROTO;
	}
	if (!strncmp(line + strlen(REPLY), "none ", 5)) {
		snprintf(why, len, "the server sent none: %s",
			 str_escape_n(esc, sizeof(esc), line + strlen(REPLY) + 5, 80));
		return -ENOENT;
	}
	errno = 0;
	*size = strtoull(line + strlen(REPLY), &end, 10);
	if (errno || *end || end == line + strlen(REPLY) || !*size ||
	    *size > PEER_TRACE_MAX_BYTES) {
		snprintf(why, len, "the server announced a trace of '%s' bytes (1 to %llu taken)",
			 str_escape_n(esc, sizeof(esc), line + strlen(REPLY), 24),
			 (unsigned long long)PEER_TRACE_MAX_BYTES);
		return -EFBIG;
	}
	return 0;
}

/* Whether the MAC line holds the MAC computed; a fuzzing build takes any, so that mutated
 * traces reach the decoder behind it. */
static int mac_ok(const char *line, const char *hex)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)line;
	(void)hex;
	return 1;
#else
	return !strncmp(line, MAC_LINE, strlen(MAC_LINE)) &&
	       link_mac_equal(line + strlen(MAC_LINE), hex);
#endif
}

/* size bytes from the link into f, then the MAC line, checked. 0 or -errno (why said). */
static int receive(const struct link *l, FILE *f, const char *run_id, uint64_t size, char *why,
		   size_t len)
{
	char line[128], hex[LINK_HEX_MAC_LEN + 1], *buf = malloc(CHUNK);
	struct link_mac m;
	int err = buf ? 0 : -ENOMEM;

	mac_start(&m, l, run_id, size);
	for (uint64_t left = size; !err && left > 0;) {
		size_t n = left < CHUNK ? (size_t)left : CHUNK;

		err = recv_exact(l->fd, buf, n);
		if (!err && fwrite(buf, 1, n, f) != n)
			err = -EIO;
		link_mac_update(&m, buf, n);
		left -= n;
	}
	free(buf);
	err = err ?: link_recv_line(l->fd, line, sizeof(line));
	if (err) {
		snprintf(why, len, "receiving it failed: %s", strerror(-err));
		return err;
	}
	link_mac_final_hex(&m, hex);
	if (!mac_ok(line, hex)) {
		snprintf(why, len,
			 "it came without the MAC of this link's key: changed on the way");
		return -EBADMSG;
	}
	return fflush(f) ? -errno : 0;
}

int peer_trace_fetch(const struct link *l, const char *path, const char *run_id, char *why,
		     size_t len)
{
	struct outfile of;
	uint64_t size = 0;
	char ask[64];
	int err;

	if (!l->trusted) {
		snprintf(why, len, "%s (give both hosts the same --key FILE)", l->untrusted_why);
		return -EPERM;
	}
	if (!run_id) {
		snprintf(why, len, "the run has no id");
		return -ENOENT;
	}
	snprintf(ask, sizeof(ask), ASK "%s\n", run_id);
	err = link_send_all(l->fd, ask, strlen(ask));
	if (err) {
		snprintf(why, len, "asking for it failed: %s", strerror(-err));
		return err;
	}
	err = read_reply(l, &size, why, len);
	if (err)
		return err;
	err = outfile_open(&of, path, 0600);
	if (err) {
		snprintf(why, len, "%s could not be created: %s", path, strerror(-err));
		return err;
	}
	err = receive(l, of.f, run_id, size, why, len);
	if (!err && trace_file_check(fileno(of.f), of.tmp, PEER_TRACE_MAX_BYTES)) {
		snprintf(why, len, "it does not read as a trace");
		err = -EBADMSG;
	}
	if (err) {
		outfile_abort(&of);
		return err;
	}
	err = outfile_commit(&of);
	if (err)
		snprintf(why, len, "%s could not be written: %s", path, strerror(-err));
	return err;
}
