// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_stream.c - the analyze stage of a report read a segment at a time
 * (report_stages.h): the run read block by block (tracefile/trace_stream.h) and analyzed a
 * segment at a time (core/stream/analyze_stream.h), rendered from the kept spikes and the
 * whole run's totals like any report.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/stream/analyze_stream.h"
#include "core/model/plot.h"
#include "core/model/report_model.h"
#include "lib/exitcode.h"
#include "lib/log.h"
#include "report_html.h"
#include "report_stages.h"

/*
 * The spikes kept with their intervals: the text, JSON and OpenMetrics reports show the
 * --top largest and count the rest (the HTML report draws up to RM_RANKED_MAX as dots);
 * the largest spikes of a long run overlap many intervals each (a 5 ms one, hundreds),
 * so this bounds the report's memory.
 */
#define REPORT_STREAM_KEEP 2000
/*
 * The HTML chart's columns keep this many latencies each (16 MiB) for their exact p50
 * and p99, and count more in a histogram: a run of a billion round trips is drawn
 * exactly (a million a column), a day of a fast probe's within 1/128.
 */
#define REPORT_STREAM_EXACT ((size_t)1 << 21)
/* Free heap glibc keeps rather than trims: more than a segment's analysis allocates. */
#define REPORT_STREAM_TRIM (64 << 20)

struct progress {
	int on;
	const char *path;
};

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	const struct progress *p = arg;

	if (p->on)
		fprintf(stderr,
			"\rtailcause: report %s: %" PRIu64 " of %" PRIu64 " round trips (%.0f %%)",
			p->path, done, total, total ? 100.0 * (double)done / (double)total : 100.0);
}

/* What the streamed line adds where segments were cut inside a steal interval, or "". */
static const char *steal_cuts_note(const struct stream_out *so)
{
	static char buf[128];

	if (!so->steal_cuts)
		return "";
	snprintf(buf, sizeof(buf),
		 "; %" PRIu64 " cuts inside a steal interval (its spikes weighed apart)",
		 so->steal_cuts);
	return buf;
}

/* The spikes kept with their intervals: the HTML chart draws up to RM_RANKED_MAX. */
static size_t keep_of(const struct report_opts *o)
{
	size_t keep = o->format == REPORT_HTML || o->html_path ? RM_RANKED_MAX : REPORT_STREAM_KEEP;

	return o->top > keep ? o->top : keep;
}

static int series_add(void *arg, const struct tc_sample *s, size_t n)
{
	return plot_series_add(arg, s, n);
}

/*
 * One analysis of the run, from its statistics; the HTML series with it. 0, or an exit
 * code (said), with *t and *a NULL.
 */
static int analyze_once(struct trace_stream *ts, const struct report_opts *o,
			struct stream_params *sp, struct plot_series *ps, const char *path,
			struct tc_trace **t, struct tc_analysis **a)
{
	const struct tc_trace *skel = trace_stream_skeleton(ts);
	const struct progress *pr = sp->progress_arg;
	struct stream_source src;
	int err;

	*t = NULL;
	*a = NULL;
	if (trace_stream_stats(ts, &sp->stats, &sp->stats_pct))
		return -TC_ERRNO__INPUT;
	if (o->format == REPORT_HTML || o->html_path) {
		err = plot_series_init(ps, skel->streamed.first_sample_ns,
				       skel->streamed.last_sample_ns, HTML_SERIES_COLUMNS,
				       REPORT_STREAM_EXACT);
		if (err) {
			log_err("report %s: %s", path, strerror(-err));
			return err == -EINVAL ? -TC_ERRNO__INPUT : err;
		}
		sp->on_samples = series_add;
		sp->on_samples_arg = ps;
	}
	trace_stream_source(ts, &src);
	err = analysis_stream_run(skel, &src, sp, t, a);
	if (pr->on)
		fputc('\n', stderr);
	if (err && err != -EBADMSG)
		log_err("analyze %s: %s", path, strerror(-err));
	if (err)
		plot_series__free(ps);
	return err == -EINVAL || err == -EBADMSG ? -TC_ERRNO__INPUT : err;
}

/* The streamed line: the run's round trips, the segments, the spikes kept of all. */
static int streamed_meta(struct report_result *r, const struct tc_trace *skel,
			 const struct stream_out *so)
{
	return trace__set_metaf(r->t, "report.streamed",
				"%" PRIu64 " round trips in %" PRIu64
				" segments; the %zu largest of %" PRIu64
				" spikes kept with their intervals%s",
				skel->streamed.n_samples, so->segments, r->a->n_spikes,
				r->a->n_spikes_run, steal_cuts_note(so));
}

int report_analyze_stream(struct trace_stream *ts, const char *path, const struct report_opts *o,
			  struct report_result *r)
{
	const struct tc_trace *skel = trace_stream_skeleton(ts);
	struct tc_analysis_opts ao = {.spike = o->spike, .nic_irq_pattern = o->nic_irq_pattern};
	struct progress pr = {isatty(STDERR_FILENO), path};
	struct stream_out so = {0};
	struct stream_params sp = {
		.out = &so,
		.opts = &ao,
		.segment_samples = o->segment_samples,
		.keep = keep_of(o),
		.progress = show_progress,
		.progress_arg = &pr,
	};
	int err;

	/* each segment frees what the next allocates again: kept in the heap, not given back to
	 * the kernel to be faulted in and zeroed again (bench/history/overhead-and-analyzer.md) */
	mallopt(M_TRIM_THRESHOLD, REPORT_STREAM_TRIM);
	/* statistics taken from the writer's summary are checked by the analysis's reads:
	 * where they do not stand, the run is analyzed again from the counted ones */
	for (;;) {
		err = analyze_once(ts, o, &sp, &r->series, path, &r->t, &r->a);
		if (err)
			return err;
		err = trace_stream_recheck(ts);
		if (err <= 0)
			break;
		plot_series__free(&r->series);
		analysis__free(r->a);
		trace__free(r->t);
		r->a = NULL;
		r->t = NULL;
	}
	if (err)
		return tc_input_error(err);
	if (sp.on_samples)
		plot_series_finish(&r->series);
	r->h = hist__new();
	if (r->h)
		memcpy(r->h, trace_stream_hist(ts), sizeof(*r->h));
	err = r->h ? streamed_meta(r, skel, &so) : -ENOMEM;
	if (err)
		log_err("report %s: %s", path, strerror(-err));
	return err;
}
