// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_link.c - libFuzzer target for the two-host link: each side of it parsing what
 * the other sends. The input's first byte picks the side and whether it holds a key;
 * the rest is what the peer sends, fed through a socketpair and then its end: the
 * server's handshake (a client's answer), the client's (a server's hello and
 * verdict), the client fetching a trace (the server's answer, the trace, its MAC:
 * taken unchecked in this build, so the trace reaches the decoder), the server
 * answering a request, and --duration's agreement between runs. Nothing may crash,
 * hang, leak or do anything undefined, and a fetched trace must decode or be removed.
 *
 *   make fuzz                 runs it after the others
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe/link.h"
#include "record/peer_trace.h"

/* The link's messages would drown the fuzzer's: not linked (lib/log.c), said nowhere. */
void log_err(const char *fmt, ...)
{
	(void)fmt;
}
void log_warn(const char *fmt, ...)
{
	(void)fmt;
}
void log_info(const char *fmt, ...)
{
	(void)fmt;
}
void log_dbg(const char *fmt, ...)
{
	(void)fmt;
}

#define RUN_ID "0123456789abcdef"

static struct link_key key = {.k = "a fuzzing key, not a secret"};
static char path[64];
static int trace_fd = -1; /* what a server sends: any bytes will do */

static void setup(void)
{
	static char dir[] = "/tmp/tc-fuzz-link-XXXXXX";

	if (!mkdtemp(dir) || sodium_init() < 0)
		abort();
	snprintf(path, sizeof(path), "%s/peer.tct", dir);
	trace_fd = memfd_create("trace", MFD_CLOEXEC);
	if (trace_fd < 0 || write(trace_fd, "tailcause trace bytes\n", 22) != 22)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct link l = {.trusted = 1, .untrusted_why = "fuzz"};
	const struct link_key *k;
	char why[256];
	int sv[2];

	if (trace_fd < 0)
		setup();
	if (!len || len > 65536 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	k = data[0] & 0x80 ? &key : NULL;
	memset(l.session, 0x5a, sizeof(l.session));
	l.fd = sv[0];
	/* the peer's bytes, then its end: no read waits for its timeout */
	if (write(sv[1], data + 1, len - 1) != (ssize_t)(len - 1))
		goto out;
	shutdown(sv[1], SHUT_WR);
	switch (data[0] % 5) {
	case 0:
		link_auth_server(&l, k, why, sizeof(why));
		break;
	case 1:
		link_auth_client(&l, k, "fuzz");
		break;
	case 2:
		if (!peer_trace_fetch(&l, path, RUN_ID, why, sizeof(why)))
			unlink(path);
		break;
	case 3:
		peer_trace_serve(&l, trace_fd, RUN_ID);
		break;
	default:
		link_next_run(l.fd, data[0] & 0x40);
		break;
	}
out:
	close(sv[0]);
	close(sv[1]);
	return 0;
}
