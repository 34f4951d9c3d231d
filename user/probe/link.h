/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * link.h - the TCP link of a two-host run, private to user/probe: the server
 * listens on --port (perftest's 18515 by default; on --bind's address), the client
 * connects; both prove the shared key, where there is one (link_auth.h), before
 * anything else crosses; then the probes exchange one text line each over it (what
 * the peer needs, the run parameters, the protocol version, the run's id) and meet
 * at one-byte barriers around the timed run. Text, so a mismatch is easy to diagnose.
 */
#ifndef TAILCAUSE_PROBE_LINK_H
#define TAILCAUSE_PROBE_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "link_auth.h"
#include "probe.h"

/* A barrier may wait while the peer loads its BPF programs (record): seconds under TCG. */
#define LINK_BARRIER_TIMEOUT_S 300

/*
 * Waits on o->bind_addr:o->tcp_port for a client that passes the handshake with
 * o->key (server): a connection that does not is logged with the peer's address and
 * closed, and the wait goes on. 0 with l set, or -errno (reported); probe names the
 * hint.
 */
int link_accept(const struct probe_opts *o, const char *probe, struct link *l);
/* Connects to o->host:o->tcp_port and does the handshake with o->key (client). 0 with l
 * set, or -errno (reported). */
int link_connect(const struct probe_opts *o, const char *probe, struct link *l);
/* Closes l's connection, if any, and wipes its session key. */
void link_close(struct link *l);
/* Sends all of buf. 0 or -errno. */
int link_send_all(int fd, const void *buf, size_t len);
/*
 * Reads one line, up to '\n' (not kept). A peer of another kind may send no
 * newline at all: what came before EOF, a timeout or a full buffer counts as
 * its line, so the caller can say what it was. 0, or -errno with nothing read.
 */
int link_recv_line(int fd, char *buf, size_t len);
/* Both sides reach the same point (QPs ready, run over). 0 or -errno (reported). */
int link_barrier(int fd, const char *what);
/*
 * --duration on both sides (as perftest's -D): between runs each side says on the link
 * whether it wants another (want: time left on its own clock, no Ctrl-C), and another
 * follows only if both do. 1: run again; 0: the runs end (this side or the peer is
 * done; a peer that closed the link or sent something else, such as a client asking for
 * the trace, is not running with --duration, said in one line, and its line is left
 * unread for what follows); -errno when the link failed (reported).
 */
int link_next_run(int fd, int want);
/* A fresh random run id as 16 hex digits into buf (>= 17 bytes). */
void link_new_run_id(char *buf);

#endif /* TAILCAUSE_PROBE_LINK_H */
