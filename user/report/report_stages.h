/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_stages.h - private to user/report: the stages of report_file()'s pipeline (report.c
 * drives them: open, plan, load, prepare, analyze, render) that live in files of their own.
 * Each reports what fails in one line and returns 0 or what the command exits with.
 */
#ifndef TAILCAUSE_REPORT_REPORT_STAGES_H
#define TAILCAUSE_REPORT_REPORT_STAGES_H

#include <stdint.h>

#include "core/trace/trace.h"
#include "report.h"
#include "tracefile/trace_stream.h"

/* The run a stretch's round trips are counted in: its first one's start, and how many. */
struct report_run_span {
	uint64_t first, all;
};

/*
 * Prepare (report_prepare.c): t, read whole or as a stretch, made ready for the analysis:
 * its iterations (the user's samples, or its marks where it is marked, placed by the
 * benchmark's log with --iter-log), the peer's trace joined, cut to --from/--to and the
 * stretch said in its meta (counted in run; NULL: t's own round trips, read whole),
 * wake-ups split, sorted.
 */
int report_prepare(struct tc_trace *t, const char *path, const struct report_opts *o, int marked,
		   const struct report_run_span *run);
/*
 * The stretch a report covers, in t's meta (report.stretch), where o asks for one: kept of
 * the run's round trips. The one writer of that line, whole, stretch or streamed. 0 or
 * -ENOMEM (reported).
 */
int report_stretch_meta(struct tc_trace *t, const char *path, const struct report_opts *o,
			const struct report_run_span *run, uint64_t kept);
/* Says that --from/--to held no round trip (one line). */
void report_no_stretch(const char *path, const struct report_opts *o);

/*
 * Analyze a segment at a time (report_stream.c): the run s selected (trace_stream_select()
 * with its statistics) into r, the HTML page's latency columns with it where o asks for
 * one, and the streamed line in r->t's meta. 0, or what the command exits with (said).
 */
int report_analyze_stream(struct trace_stream *s, const char *path, const struct report_opts *o,
			  struct report_result *r);

#endif /* TAILCAUSE_REPORT_REPORT_STAGES_H */
