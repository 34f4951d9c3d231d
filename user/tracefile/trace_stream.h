/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace_stream.h - a trace file opened once and read one of three ways: whole
 * (trace_stream_read_whole()), a stretch of it as one trace (trace_stream_read()), or for a
 * streamed analysis (core/stream/analyze_stream.h): its blocks decoded one at a time,
 * never all at once.
 *
 * trace_stream_open_file() finds the blocks by their headers and decodes the small
 * tables. Where the file has an INDEX block (trace_file.h's writer adds one), the
 * place, records and time span of every SAMPLES and EVENTS block come from it;
 * otherwise each is decoded once for them. The samples of the stretch asked for
 * are then read twice, for the histogram and the exact percentiles
 * (core/stats/stats_exact.h) - once where the writer's RTT_HIST block counted them - and
 * the analysis reads each block it needs once more, in time order: with an index, a
 * stretch of a long trace reads only its own blocks. For the whole run, where the
 * writer's RTT_SUMMARY block holds the statistics (core/trace/rtt_summary.h), the samples
 * are not read for them at all: the analysis's own read of every block checks them
 * (trace_stream_recheck()).
 * Pages of the mapped file are dropped as they are read, so the file adds nothing
 * lasting to the report's memory.
 */
#ifndef TAILCAUSE_TRACEFILE_TRACE_STREAM_H
#define TAILCAUSE_TRACEFILE_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/stream/analyze_stream.h"
#include "core/stats/histogram.h"
#include "core/stats/stats.h"
#include "core/trace/trace.h"

struct trace_stream;

/* What to read: the spike rule's percentile, and a stretch of the run. */
struct trace_stream_opts {
	double pct; /* spike_rule_percentile() */
	/* the round trips from from_ns to to_ns after the first (0 and UINT64_MAX: all),
	 * and the events within margin_ns of them, as trace__cut() keeps */
	uint64_t from_ns, to_ns, margin_ns;
	/* the stretch is read whole with trace_stream_read(): no statistics passes */
	int no_stats;
};

/*
 * Maps path (reads it, where it is not a regular file) once, checks its header, decodes its
 * tables (the skeleton), finds its blocks and places them (their records and spans, from
 * the INDEX block or each decoded): none of its records is kept yet. What it cannot read is
 * kept, not said: trace_stream_info() tells the file is not intact, and the read that
 * follows says why, as that reader does (trace_stream_select() as a streamed read,
 * trace_stream_read_whole() as trace_file_read()). 0, or -ENOMEM.
 */
int trace_stream_open_file(const char *path, struct trace_stream **out);

/* What opening a trace file told, before any of its records is kept. */
struct trace_stream_info {
	uint64_t file_size;	  /* a regular file's bytes (0: a pipe or device) */
	int intact;		  /* opened without fault: its tables, blocks and counts hold */
	int indexed;		  /* the counts came from its INDEX block */
	uint64_t samples, events; /* its records (with intact) */
};
void trace_stream_info(const struct trace_stream *s, struct trace_stream_info *out);

/*
 * Reads s as above, once after trace_stream_open_file(): chooses the stretch's blocks and,
 * unless o->no_stats, takes its statistics. 0, -ERANGE when the stretch holds no round
 * trip (not reported), or -errno / -EBADMSG (reported, prefixed with the path: what the
 * opening could not read first).
 */
int trace_stream_select(struct trace_stream *s, const struct trace_stream_opts *o);
/* trace_stream_open_file() and trace_stream_select() in one; nothing left open on failure. */
int trace_stream_open(const char *path, const struct trace_stream_opts *o,
		      struct trace_stream **out);

/* The round trips of the whole run, and of the stretch (trace_stream_opts). */
uint64_t trace_stream_run_samples(const struct trace_stream *s);
/* The file's tables (meta, threads, IRQ names, counters, drops) and totals in
 * tc_trace.streamed (the events' counted as the analysis reads them): no samples, no
 * events. */
const struct tc_trace *trace_stream_skeleton(const struct trace_stream *s);
/* The skeleton, for the caller to add meta to before the records are read:
 * trace_stream_read() and analysis_stream_run() copy its tables. */
struct tc_trace *trace_stream_tables(struct trace_stream *s);
/* The run's statistics and its value at pct; -EINVAL when it has no round trip. */
int trace_stream_stats(const struct trace_stream *s, struct lat_summary *st, uint64_t *pct);
/*
 * After an analysis that read every block of the source (trace_stream_source()): 0 when
 * the statistics stand (they came from the samples, or from the writer's summary and the
 * samples read agreed with it, every one), 1 when they did not (said; the statistics are
 * now counted from the samples: take them again with trace_stream_stats() and analyze
 * again), or -ENOMEM / -errno / -EBADMSG (reported). The skeleton's event totals
 * (tc_trace.streamed) start again from 0 on 1.
 */
int trace_stream_recheck(struct trace_stream *s);
/* The round trips' histogram (core/model/plot.h's plot_rtt_hist() of all the samples). */
const struct hist *trace_stream_hist(const struct trace_stream *s);
/* The start of the run's first round trip, from which the stretch counts (0: none). */
uint64_t trace_stream_run_first(const struct trace_stream *s);
/*
 * The stretch as one whole trace (copies of the tables; the caller frees it): what
 * trace_file_read() and then trace__cut() of the stretch keep, in the same order,
 * from the stretch's blocks only. 0, -ENOMEM, or -errno / -EBADMSG (reported).
 */
int trace_stream_read(struct trace_stream *s, struct tc_trace **out);
/*
 * The whole file as one trace, as trace_file_read() reads it (every record, the index not
 * used), instead of trace_stream_select(); its pages are dropped as they are decoded. 0,
 * -ENOMEM, or -errno / -EBADMSG (reported).
 */
int trace_stream_read_whole(struct trace_stream *s, struct tc_trace **out);
/* The blocks, for analysis_stream_run(); valid while s is open. */
void trace_stream_source(struct trace_stream *s, struct stream_source *src);
void trace_stream_close(struct trace_stream *s);

#endif /* TAILCAUSE_TRACEFILE_TRACE_STREAM_H */
