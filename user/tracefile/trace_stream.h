/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_stream.h - a trace file read for a streamed analysis
 * (core/analyze_stream.h): its blocks decoded one at a time, never all at once.
 *
 * trace_stream_open() reads the file twice through, keeping no samples or events:
 * once for its small tables, the place and first start of every SAMPLES and EVENTS
 * block and the round trips' histogram, once more over the samples for their exact
 * percentiles (core/stats_exact.h). The analysis then reads each block once more, in
 * time order. Pages of the mapped file are dropped as they are read, so the file
 * adds nothing lasting to the report's memory.
 */
#ifndef TAILCAUSE_TRACEFILE_TRACE_STREAM_H
#define TAILCAUSE_TRACEFILE_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/analyze_stream.h"
#include "core/histogram.h"
#include "core/stats.h"
#include "core/trace.h"

struct trace_stream;

/*
 * Opens path and reads it as above; pct is the spike rule's percentile
 * (spike_rule_percentile()). 0, or -errno / -EBADMSG (reported, prefixed with the
 * path).
 */
int trace_stream_open(const char *path, double pct, struct trace_stream **out);
/* The file's tables (meta, threads, IRQ names, counters, drops) and totals in
 * tc_trace.streamed: no samples, no events. */
const struct tc_trace *trace_stream_skeleton(const struct trace_stream *s);
/* The run's statistics and its value at pct; -EINVAL when it has no round trip. */
int trace_stream_stats(const struct trace_stream *s, struct lat_summary *st, uint64_t *pct);
/* The round trips' histogram (core/plot.h's plot_rtt_hist() of all the samples). */
const struct hist *trace_stream_hist(const struct trace_stream *s);
/* The blocks, for analysis_stream_run(); valid while s is open. */
void trace_stream_source(struct trace_stream *s, struct stream_source *src);
/* Bytes the samples and events would take decoded, all at once. */
uint64_t trace_stream_whole_bytes(const struct trace_stream *s);
void trace_stream_close(struct trace_stream *s);

#endif /* TAILCAUSE_TRACEFILE_TRACE_STREAM_H */
