/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - read a trace, analyze it, print the report: the pipeline and its renderers. */
#ifndef TAILCAUSE_REPORT_REPORT_H
#define TAILCAUSE_REPORT_REPORT_H

#include <stdio.h>

#include "core/attrib/analyze.h"
#include "core/model/plot.h"
#include "core/model/report_model.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON,	    /* docs/report-schema.md */
	REPORT_HTML,	    /* one self-contained page, inline SVG */
	REPORT_PERFETTO,    /* Chrome trace-event JSON for the Perfetto UI */
	REPORT_OPENMETRICS, /* for Prometheus' textfile collector */
};

/* What the report was asked for: read by every stage, written by none. */
struct report_opts {
	enum report_format format;
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;	   /* spikes shown with timelines */
	int trace_kept;		   /* run: say where the trace is, or that it was not kept */
	const char *out_path;	   /* write the report there (temp file + rename); NULL: out */
	const char *html_path;	   /* run --html: the HTML page too, besides the report */
	const char *samples_path;  /* --samples: iterations timed by the user's benchmark (CSV) */
	const char *iter_log_path; /* --iter-log: a --iter-first trace's benchmark log */
	const char *peer_path;	   /* --peer: the other host's trace of the same run */
	uint64_t from_ns, to_ns;   /* --from/--to after the first round trip; 0 and 0: all */
	uint64_t interval_ns;	   /* the noise report's interval; 0: 100 ms */
	int stream; /* 1 --stream: a segment at a time whatever the size; -1 --no-stream: whole */
	size_t segment_samples; /* round trips per segment (0: the default) */
};

/* A trace file this large is read a segment at a time where the report allows it (text,
 * JSON, HTML or OpenMetrics of a probe's round trips): report_plan.h. */
#define REPORT_STREAM_FILE_MIN ((uint64_t)64 << 20)
/* --from/--to keep the events this far either side of the stretch. */
#define REPORT_STRETCH_MARGIN_NS 1000000000ull

/* Parses a --format name into *out; 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* "text|json|html|perfetto|openmetrics" */
const char *report_format_names(void);

/*
 * The report of the trace at path, printed to out (or written as o says): the file opened
 * once, read as report_plan.h decides, prepared, analyzed and rendered (report.c). 0,
 * -TC_ERRNO__INPUT (the trace, the samples, the log or the peer's trace), -TC_ERRNO__USAGE
 * or -TC_ERRNO__ENV (a refusal), or a negative errno; each reported in one line.
 */
int report_file(const char *path, const struct report_opts *o, FILE *out);

/* What the analysis hands the renderers, whole or streamed (report_result__free() frees it):
 * t, and its latency analysis a with the round trips' histogram h, or its noise report n. */
struct report_result {
	struct tc_trace *t; /* streamed: the kept spikes' trace (core/stream/analyze_stream.h) */
	struct tc_analysis *a;
	struct hist *h;
	struct tc_noise *n;
	struct plot_series series; /* a streamed HTML page's latency columns (c NULL: none) */
};
void report_result__free(struct report_result *r);
/* Builds the report model of r (of the trace at path) and writes it as o says; 0 or a
 * negative errno (reported). */
int report_render(const char *path, const struct report_opts *o, const struct report_result *r,
		  FILE *out);

/* The renderers, each in report/report_<format>.c: formatting the model only. */

/* The text report of a latency analysis, and of a noise report (report_text_noise.c). */
void report_text(FILE *out, const struct report_model *m);
void report_text_noise(FILE *out, const struct report_model *m);
/* Its header: the trace, the host, what ran, what was traced and lost. */
void report_text_header(FILE *out, const struct report_model *m);
/* The IRQ section: placement per CPU (NIC IRQs first), and IRQ moves. */
void report_text_irqs(FILE *out, const struct report_model *m);
/* record --iter mpi: the collectives section (nothing without collectives). */
void report_text_coll(FILE *out, const struct report_model *m);
/* The host audit joined to the measured causes (report_audit.c). */
void report_audit(FILE *out, const struct report_model *m);

/* Prints perftest-style statistics (RTT values, printed halved: one way). */
void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes);

/* The other formats: 0, or a negative errno (-ENOMEM). */
int report_json(FILE *out, const struct report_model *m);
int report_html(FILE *out, const struct report_model *m);
int report_perfetto(FILE *out, const struct report_model *m);
int report_openmetrics(FILE *out, const struct report_model *m);

#endif /* TAILCAUSE_REPORT_REPORT_H */
