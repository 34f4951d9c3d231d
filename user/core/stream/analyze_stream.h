/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * analyze_stream.h - the analysis of a trace too long to hold: its blocks are read
 * one at a time, in time order, and analyzed a stretch (a segment) at a time, in
 * memory that does not grow with the trace.
 *
 * The caller has read the trace once (the I/O layer: user/tracefile/trace_stream.h)
 * for its small tables (the skeleton: meta, threads, names, counters, drops), the
 * place and first start of each SAMPLES and EVENTS block, and the run's exact
 * statistics (core/stats/stats_exact.h). analysis_stream_run() then:
 *   - merges the blocks' samples in start order and cuts them into segments of
 *     segment_samples round trips;
 *   - gives each segment the events that can overlap its spike windows: those
 *     starting before its last round trip's end plus STREAM_AHEAD_NS (the events a
 *     window looks ahead to), and those still running from earlier segments (kept
 *     by their end; a timer or work callback with the interval it ran inside);
 *   - splits wake-ups (core/trace/wakeups.h), sorts, and runs analysis__run() on it with
 *     the whole run's statistics, so that each spike is decided as in one pass;
 *   - merges the segments' analyses: causes by name, totals, and the `keep`
 *     largest spikes (ranked as analysis_top_spikes() ranks) with their intervals.
 *
 * A steal interval's amount (TC_EV_STEAL) goes to the largest of the spikes it
 * overlaps first, so they are all weighed in one segment where they can be: a
 * segment's last round trips wait for the next one while a steal interval they may
 * overlap runs on past its end (and the intervals overlapping those round trips, in
 * turn), and a segment grows (up to STREAM_GROW times) while they span it whole.
 * Past that bound the segment is cut inside them (stream_out.steal_cuts counts it):
 * the next segment gives only what is left of each (tc_analysis_opts.steal_spent),
 * so steal is never credited beyond its amount, but its spikes on either side are
 * served apart. That is the way a streamed analysis can differ from a whole one
 * (a tie between two causes goes by their names, not the order they were first
 * named in, which differs between the two reads).
 *
 * The result is a trace holding only the kept spikes' samples and events, with
 * tc_trace.streamed saying what the whole run held, and an analysis whose
 * n_spikes_run counts every spike; reports read both as they read a whole trace's.
 */
#ifndef TAILCAUSE_CORE_ANALYZE_STREAM_H
#define TAILCAUSE_CORE_ANALYZE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/attrib/analyze.h"
#include "core/trace/trace.h"
#include "stream_source.h"

/* How far past a segment's last round trip its events reach: what a window looks
 * ahead to (a timer callback that begins after the window, inside its interrupt). */
#define STREAM_AHEAD_NS 10000000ull
/* A segment spanned whole by steal intervals grows up to this many times its size. */
#define STREAM_GROW 8
/* Round trips per segment, by default: larger ones cost more time in page faults and
 * copies than they save in setup (bench/history/overhead-and-analyzer.md). */
#define STREAM_SEGMENT_SAMPLES 65536

/* What the run says of itself. */
struct stream_out {
	uint64_t segments;
	uint64_t steal_cuts; /* segments cut inside steal intervals (at STREAM_GROW) */
};

struct stream_params {
	const struct tc_analysis_opts *opts; /* the spike rule, the NIC IRQ pattern */
	struct lat_summary stats;	     /* the whole run's (stats_exact.h) */
	uint64_t stats_pct;		     /* at the rule's percentile */
	size_t segment_samples;		     /* 0: STREAM_SEGMENT_SAMPLES */
	size_t keep;			     /* spikes kept with their intervals */
	/* Called after each segment with the round trips analyzed so far (progress); may be
	 * NULL. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Called with each segment's round trips, in start order, every one once (an HTML
	 * report's latency series); may be NULL. A negative errno stops the run with it. */
	int (*on_samples)(void *arg, const struct tc_sample *s, size_t n);
	void *on_samples_arg;
	struct stream_out *out; /* filled in; required */
};

/*
 * Analyzes the trace whose small tables are skel and whose blocks src reads.
 * Returns 0 with *rt (the kept spikes' trace, tables copied from skel) and *ra,
 * -EINVAL when there are no samples or the rule is invalid, -ENOMEM, or what
 * src->read returned.
 */
int analysis_stream_run(const struct tc_trace *skel, const struct stream_source *src,
			const struct stream_params *p, struct tc_trace **rt,
			struct tc_analysis **ra);

#endif /* TAILCAUSE_CORE_ANALYZE_STREAM_H */
