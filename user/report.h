/* SPDX-License-Identifier: BSD-2-Clause */
/* report.h - read a trace, analyze it, print the report. */
#ifndef TAILCAUSE_REPORT_H
#define TAILCAUSE_REPORT_H

#include <stdio.h>

#include "core/analyze.h"
#include "core/trace.h"

enum report_format {
	REPORT_TEXT = 0,
};

struct report_opts {
	enum report_format format;
	struct tc_spike_rule spike;
	const char *nic_irq_pattern;
	unsigned int top;	/* spikes shown with timelines */
	int trace_kept;		/* run: say where the trace is, or that it was not kept */
	const char *path;	/* the trace file, for the header */
};

/* Reads path, analyzes it and prints the report to out; returns an exit code. */
int report_file(const char *path, struct report_opts *o, FILE *out);

/* Prints the text report of an analyzed trace (io/report_text.c). */
void report_text(FILE *out, const struct tc_trace *t, const struct tc_analysis *a,
		 const struct report_opts *o);

/* Prints perftest-style statistics (RTT values, printed halved: one way). */
void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes);

#endif /* TAILCAUSE_REPORT_H */
