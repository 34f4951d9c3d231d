/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - read a trace, analyze it, print the report. */
#ifndef TAILCAUSE_REPORT_REPORT_H
#define TAILCAUSE_REPORT_REPORT_H

#include <stdio.h>

#include "core/attrib/analyze.h"
#include "core/model/report_model.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON,	    /* docs/report-schema.md */
	REPORT_HTML,	    /* one self-contained page, inline SVG */
	REPORT_PERFETTO,    /* Chrome trace-event JSON for the Perfetto UI */
	REPORT_OPENMETRICS, /* for Prometheus' textfile collector */
};

struct report_opts {
	enum report_format format;
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;	   /* spikes shown with timelines */
	int trace_kept;		   /* run: say where the trace is, or that it was not kept */
	const char *path;	   /* the trace file, for the header */
	const char *out_path;	   /* write the report there (temp file + rename); NULL: out */
	const char *html_path;	   /* run --html: the HTML page too, besides the report */
	const char *samples_path;  /* --samples: iterations timed by the user's benchmark (CSV) */
	const char *iter_log_path; /* --iter-log: a --iter-first trace's benchmark log */
	const char *peer_path;	   /* --peer: the other host's trace of the same run */
	uint64_t from_ns, to_ns;   /* --from/--to after the first round trip; 0 and 0: all */
	uint64_t interval_ns;	   /* the noise report's interval; 0: 100 ms */
	int stream; /* 1 --stream: a segment at a time whatever the size; -1 --no-stream: whole */
	size_t segment_samples; /* round trips per segment (0: the default) */
	/* set by report_stream.c: the latency series it built as it read the run (HTML) */
	const struct plot_series *series;
};

/* A trace file this large is read a segment at a time (report_stream.c) where the
 * report allows it: text, JSON, HTML or OpenMetrics of a probe's round trips. */
#define REPORT_STREAM_FILE_MIN ((uint64_t)64 << 20)
/* --from/--to keep the events this far either side of the stretch. */
#define REPORT_STRETCH_MARGIN_NS 1000000000ull

/* Parses a --format name into *out; 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* "text|json|html|perfetto|openmetrics" */
const char *report_format_names(void);

/*
 * Reads path, analyzes it and prints the report to out; 0, -TC_ERRNO__INPUT (the
 * trace or the samples), or a negative errno (reported).
 */
int report_file(const char *path, struct report_opts *o, FILE *out);

/*
 * The report of a trace read a segment at a time (core/stream/analyze_stream.h): 0, 1 when
 * path cannot be (it is not a probe's plain round trips: the caller reads it whole),
 * -TC_ERRNO__INPUT, -TC_ERRNO__USAGE, or a negative errno (reported).
 */
int report_stream(const char *path, struct report_opts *o, FILE *out);
/* Says that --from/--to held no round trip (one line). */
void report_no_stretch(const char *path, const struct report_opts *o);
/* Builds the report model of t and a (and h, n) and writes it as o says: report.c. */
int report_render(const struct report_opts *o, const struct tc_trace *t,
		  const struct tc_analysis *a, const struct hist *h, const struct tc_noise *n,
		  FILE *out);

/* The renderers, each in report/report_<format>.c: formatting the model only. */

/* The text report of a latency analysis, and of a noise report (report_text_noise.c). */
void report_text(FILE *out, const struct report_model *m);
void report_text_noise(FILE *out, const struct report_model *m);
/* Its header: the trace, the host, what ran, what was traced and lost. */
void report_text_header(FILE *out, const struct report_model *m);
/* The IRQ section: placement per CPU (NIC IRQs first), and IRQ moves. */
void report_text_irqs(FILE *out, const struct report_model *m);
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
