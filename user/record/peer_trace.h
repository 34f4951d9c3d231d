/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * peer_trace.h - after a recorded two-host run, the server's trace goes to the
 * client over the run's own TCP link (probe/link.h), so that one command on
 * the client prints the two-host report.
 *
 * Once its trace is written, the client sends "tailcause-trace? 1"; a recording
 * server answers "tailcause-trace 1 <bytes>" and the file, or "tailcause-trace 1
 * none <why>". A server that does not record (lat) closes the link instead.
 */
#ifndef TAILCAUSE_RECORD_PEER_TRACE_H
#define TAILCAUSE_RECORD_PEER_TRACE_H

/*
 * The server's side: waits for the client's request and sends the trace at
 * path. 0 (nothing asked is not an error), or -errno (reported as a warning:
 * the local trace is complete either way).
 */
int peer_trace_serve(int fd, const char *path);

/*
 * The client's side: asks for the server's trace and writes it to path
 * (whole or not at all). 0 when written; -ENOENT when the server had none to
 * send; -errno otherwise (reported).
 */
int peer_trace_fetch(int fd, const char *path);

#endif /* TAILCAUSE_RECORD_PEER_TRACE_H */
