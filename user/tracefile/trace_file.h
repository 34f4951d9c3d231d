/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_file.h - trace files on disk. Writing goes to "<path>.partial"
 * (0600, O_NOFOLLOW, O_EXCL) block by block and is renamed to <path> only
 * when complete, so a crash leaves a readable, visibly partial file and
 * never a half-written one under the final name.
 */
#ifndef TAILCAUSE_TRACEFILE_TRACE_FILE_H
#define TAILCAUSE_TRACEFILE_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct trace_writer;

/*
 * Creates <path>.partial and writes the header. Refuses an existing <path>
 * unless force. Returns NULL with errno set (reported).
 */
struct trace_writer *trace_writer__open(const char *path, int force, uint64_t mono_ns,
					uint64_t realtime_ns);
/* Appends META and THREADS blocks for what t holds now; 0 or -errno (reported). */
int trace_writer__meta(struct trace_writer *w, const struct tc_trace *t);
/* Appends a META block of t's meta alone (facts learnt mid-run: the kernel functions'
 * names, so that a reader following the file names them); 0 or -errno (reported). */
int trace_writer__facts(struct trace_writer *w, const struct tc_trace *t);
/* Appends events as EVENTS blocks; 0 or -errno (reported). */
int trace_writer__events(struct trace_writer *w, const struct tc_event *e, size_t n);
/* Appends samples as SAMPLES blocks before the end (a run too long to hold); 0 or -errno. */
int trace_writer__samples(struct trace_writer *w, const struct tc_sample *s, size_t n);
/*
 * Appends t's samples, IRQ names, drops, a final META (later keys win) and END, syncs,
 * and renames to the final path. 0 or -errno (reported). Frees w either way.
 */
int trace_writer__finish(struct trace_writer *w, const struct tc_trace *t);
/*
 * As trace_writer__finish(), but the file stays open: its descriptor (read-write) goes to
 * *fd (-1 on failure), for the caller to read the trace from what it wrote, never by
 * opening its name again, and to close.
 */
int trace_writer__finish_keep(struct trace_writer *w, const struct tc_trace *t, int *fd);
/* Gives up: closes and removes the partial file. */
void trace_writer__abort(struct trace_writer *w);
/* The partial file's descriptor (to hand it to another owner), or -1. */
int trace_writer__fd(const struct trace_writer *w);
/* Events written so far. */
uint64_t trace_writer__n_events(const struct trace_writer *w);

/*
 * Reads and decodes a trace file. Returns 0 and a new trace in *out, or
 * -errno: -ENOENT/-EACCES/... for the file, -EBADMSG when it is not a valid
 * trace (reported with the reason and offset).
 */
int trace_file_read(const char *path, struct tc_trace **out);

/*
 * The most bytes of a peer's trace that a two-host recording's client takes in
 * (record/peer_trace.c) and checks with trace_file_check(): `report --peer` reads the
 * peer's trace whole, and a trace larger than this needs more memory for its records
 * than a usual host has, so a bigger one (a run of hours) is better copied by hand
 * and reported a stretch at a time. It also bounds the disk a peer can fill.
 */
#define TC_PEER_TRACE_MAX ((uint64_t)4 << 30)

/*
 * Checks the trace file open at fd (a regular file, read from its start, mapped; what
 * it holds is not kept) before it is trusted, e.g. a peer's trace received before it is
 * renamed into place: at most max_bytes (TC_PEER_TRACE_MAX for a peer's), and a whole,
 * valid trace: every block decoded within the reader's bounds (TC_BLOCK_MAX_RATIO; at
 * most one block's records held at a time), through its END block, the tables a whole
 * read skips (INDEX, RTT_HIST, RTT_SUMMARY) too, and the INDEX's entries against the
 * blocks they list. 0; -EFBIG (larger), -EBADMSG (not a valid trace, or cut short),
 * -EINVAL (not a regular file), -ENOMEM or -errno: the reason logged once, naming name.
 */
int trace_file_check(int fd, const char *name, uint64_t max_bytes);

#endif /* TAILCAUSE_TRACEFILE_TRACE_FILE_H */
