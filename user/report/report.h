/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - read a trace, analyze it, print the report. */
#ifndef TAILCAUSE_REPORT_REPORT_H
#define TAILCAUSE_REPORT_REPORT_H

#include <stdio.h>

#include "core/analyze.h"
#include "core/histogram.h"
#include "core/noise.h"
#include "core/trace.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON,		/* docs/report-schema.md */
	REPORT_HTML,		/* one self-contained page, inline SVG */
	REPORT_PERFETTO,	/* Chrome trace-event JSON for the Perfetto UI */
	REPORT_OPENMETRICS,	/* for Prometheus' textfile collector */
};

struct report_opts {
	enum report_format format;
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;	/* spikes shown with timelines */
	int trace_kept;		/* run: say where the trace is, or that it was not kept */
	const char *path;	/* the trace file, for the header */
	const char *out_path;	/* write the report there (temp file + rename); NULL: out */
	const char *html_path;	/* run --html: the HTML page too, besides the report */
	const char *samples_path; /* --samples: iterations timed by the user's benchmark (CSV) */
	uint64_t interval_ns;	/* the noise report's interval; 0: 100 ms */
};

/* What every format draws from: the trace and what user/core computed from it. */
struct report_data {
	const struct tc_trace *t;
	const struct tc_analysis *a;	/* a latency report; NULL for a noise report */
	const struct tc_noise *noise;	/* a noise report (no samples); NULL otherwise */
	const struct hist *hist;	/* RTT histogram of a latency report */
	const struct report_opts *o;
	unsigned int div;		/* latency = duration / div: 2 for the probe's round trips
					 * (one way, like ib_write_lat), 1 for --samples */
};

/* Parses a --format name into *out; 0 or -EINVAL. */
int report_format_parse(const char *s, enum report_format *out);
/* "text|json|html|perfetto|openmetrics" */
const char *report_format_names(void);

/*
 * Reads path, analyzes it and prints the report to out; 0, -TC_ERRNO__INPUT (the
 * trace or the samples), or a negative errno (reported).
 */
int report_file(const char *path, struct report_opts *o, FILE *out);

/* Prints the text report of an analyzed trace (report/report_text.c). */
void report_text(FILE *out, const struct report_data *d);
/* The IRQ section: placement per CPU (NIC IRQs first), and IRQ moves. */
void report_text_irqs(FILE *out, const struct tc_trace *t, const char *nic_pattern);
/* Its header: the trace, the host, what ran, what was traced and lost. */
void report_text_header(FILE *out, const struct tc_trace *t, const struct report_opts *o);

/* Prints perftest-style statistics (RTT values, printed halved: one way). */
void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes);

/* Prints the noise report of a trace without samples (report/report_text_noise.c). */
void report_text_noise(FILE *out, const struct report_data *d);

/* The other formats, each in report/report_<format>.c: 0, or a negative errno (-ENOMEM). */
int report_json(FILE *out, const struct report_data *d);
int report_html(FILE *out, const struct report_data *d);
int report_perfetto(FILE *out, const struct report_data *d);
int report_openmetrics(FILE *out, const struct report_data *d);

/* Prints the trace's host audit joined to the measured causes (report/report_audit.c). */
void report_audit(FILE *out, const struct tc_trace *t, const struct tc_analysis *a);

#endif /* TAILCAUSE_REPORT_REPORT_H */
