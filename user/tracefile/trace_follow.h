/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_follow.h - a trace file read while the recorder writes it (tailcause top).
 *
 * The recorder writes PATH.partial block by block and renames it to PATH when the
 * recording ends (trace_file.h). trace_follow_read() reads the whole blocks written
 * since its last call, from PATH.partial while it is there and from PATH after the
 * rename, and says when the END block was read. A block still being written is read
 * on a later call. A call reads about a megabyte (a larger block whole): a recording
 * far ahead is caught up with over many calls.
 */
#ifndef TAILCAUSE_TRACEFILE_TRACE_FOLLOW_H
#define TAILCAUSE_TRACEFILE_TRACE_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/trace/trace.h"

struct trace_follow;

/* 0, or -ENOMEM. Nothing is read yet: the file need not exist. */
int trace_follow_open(const char *path, struct trace_follow **out);
/*
 * Appends what was written since the last call to t (its tables, samples and
 * events), up to about a megabyte of it; *done = 1 once the END block is read. 0, -ENOENT while
 * neither file exists, -EBADMSG (reported) for a file that is not a valid trace, or -errno.
 */
int trace_follow_read(struct trace_follow *f, struct tc_trace *t, int *done);
/* Bytes read so far. */
uint64_t trace_follow_bytes(const struct trace_follow *f);
/* Bytes the file held at the last read beyond what was read: 0 once caught up. */
uint64_t trace_follow_unread(const struct trace_follow *f);
/* 1 while the last read was of the recording's partial file, its END not yet read. */
int trace_follow_live(const struct trace_follow *f);
void trace_follow_close(struct trace_follow *f);

#endif /* TAILCAUSE_TRACEFILE_TRACE_FOLLOW_H */
