/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peer_trace.h - after a recorded two-host run, the server's trace goes to the
 * client over the run's own TCP link (probe/link.h), so that one command on
 * the client prints the two-host report. Only over a trusted link: both hosts
 * proved the same --key (probe/link_auth.h); otherwise nothing is asked or sent.
 *
 * Once its trace is written, the client sends "tailcause-trace? 2 <run id>"; a
 * recording server answers "tailcause-trace 2 <bytes>", the file, and
 * "tailcause-trace-mac <HMAC-SHA256 under the link's session key, hex>", or
 * "tailcause-trace 2 none <why>". A server that does not record (lat) closes the
 * link instead.
 */
#ifndef TAILCAUSE_RECORD_PEER_TRACE_H
#define TAILCAUSE_RECORD_PEER_TRACE_H

#include <stddef.h>

struct link;

#include "tracefile/trace_file.h"

/* The largest trace a client takes from a server: a larger one is refused unread. */
#define PEER_TRACE_MAX_BYTES TC_PEER_TRACE_MAX

/*
 * The server's side: waits for the client's request and sends the trace in the
 * file open at fd (the one the recorder wrote) for the run run_id. 0 (nothing
 * asked, or an untrusted link: nothing sent, said), or -errno (reported as a
 * warning: the local trace is complete either way).
 */
int peer_trace_serve(const struct link *l, int fd, const char *run_id);

/*
 * The client's side: asks for the server's trace of the run run_id and writes it
 * to path (mode 0600; whole, authenticated and decoded, or not at all). 0 when
 * written; else -errno with why[0..len) saying, in a line for the report, why
 * there is no peer trace (an untrusted link: -EPERM; nothing asked).
 */
int peer_trace_fetch(const struct link *l, const char *path, const char *run_id, char *why,
		     size_t len);

#endif /* TAILCAUSE_RECORD_PEER_TRACE_H */
