// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_openmetrics.c - the report as OpenMetrics text for Prometheus'
 * textfile collector: latency quantiles (seconds; one way for the probe's
 * round trips, whole for --samples) and per-cause
 * figures, or for a trace without samples the noise per cause and thread.
 *
 * Every family but the latency summary is a gauge: the file describes one
 * run and is rewritten by the next, so its values go up and down between
 * scrapes. Gauges also read the same in the older Prometheus text format,
 * which the textfile collector of node_exporter parses (# EOF is a comment
 * there). Formatting only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "lib/str.h"
#include "report.h"
#include "lib/version.h"

#define S(ns) ((double)(ns) / 1e9)

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * A label value: what lib/str.h's rule escapes (control bytes, a newline among them,
 * and invalid UTF-8, which the format forbids) as \xNN text first, then backslash and
 * double quote escaped as the format says, so a parser reads back the text's \xNN.
 */
static void label(FILE *out, const char *key, const char *v, int first)
{
	size_t left = v ? strlen(v) : 0;

	fprintf(out, "%s%s=\"", first ? "" : ",", key);
	while (left) {
		size_t n = str_char_len(v, left);
		char x[5];

		if (!n) {
			str_escape_n(x, sizeof(x), v, 1);
			fprintf(out, "\\%s", x); /* its backslash escaped */
			n = 1;
		} else if (*v == '\\' || *v == '"') {
			fprintf(out, "\\%c", *v);
		} else {
			fwrite(v, 1, n, out);
		}
		v += n;
		left -= n;
	}
	fputc('"', out);
}

static void gauge(FILE *out, const char *name, const char *help, double v)
{
	family(out, name, "gauge", help);
	fprintf(out, "%s %.9g\n", name, v);
}

static void info(FILE *out, const struct report_model *m)
{
	const struct rm_header *h = &m->h;

	family(out, "tailcause_report_info", "gauge",
	       "The run this file describes: host, kernel, probe or command (always 1).");
	fputs("tailcause_report_info{", out);
	label(out, "host", h->host_name ? h->host_name : "?", 1);
	label(out, "kernel", h->kernel ? h->kernel : "?", 0);
	label(out, "probe", h->probe ? h->probe : "?", 0);
	label(out, "report", m->noise ? "noise" : "latency", 0);
	label(out, "version", TAILCAUSE_VERSION, 0);
	fputs("} 1\n", out);
	gauge(out, "tailcause_report_timestamp_seconds",
	      "When the trace was recorded (Unix time, seconds).", S(h->realtime_ns));
	gauge(out, "tailcause_events_lost", "Traced events lost to ring-buffer overrun.",
	      (double)h->lost);
	gauge(out, "tailcause_trace_truncated", "1 when the trace file ended before its end block.",
	      h->truncated);
}

static void latency(FILE *out, const struct report_model *m)
{
	const struct tc_analysis *a = m->a;
	static const struct {
		const char *q;
		size_t off;
	} qs[] = {
		{"0.5", offsetof(struct lat_summary, p50)},
		{"0.99", offsetof(struct lat_summary, p99)},
		{"0.999", offsetof(struct lat_summary, p999)},
		{"0.9999", offsetof(struct lat_summary, p9999)},
		{"0.99999", offsetof(struct lat_summary, p99999)},
	};
	const struct lat_summary *s = &a->stats;

	family(out, "tailcause_latency_seconds", "summary",
	       m->div == 2
		       ? "One-way latency (RTT/2) of the probe's round trips, every sample kept."
		       : "Latency of the benchmark's iterations (--samples), every sample kept.");
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t v;

		memcpy(&v, (const char *)s + qs[i].off, sizeof(v));
		fprintf(out, "tailcause_latency_seconds{quantile=\"%s\"} %.9g\n", qs[i].q,
			rm_lat_s(m, v));
	}
	fprintf(out, "tailcause_latency_seconds_sum %.9g\n", rm_lat_s(m, s->mean * (double)s->n));
	fprintf(out, "tailcause_latency_seconds_count %zu\n", s->n);
	gauge(out, "tailcause_latency_min_seconds", "Smallest latency.", rm_lat_s(m, s->min));
	gauge(out, "tailcause_latency_max_seconds", "Largest latency.", rm_lat_s(m, s->max));
	gauge(out, "tailcause_latency_stdev_seconds", "Standard deviation of the latency.",
	      rm_lat_s(m, s->stdev));
	gauge(out, "tailcause_spike_threshold_seconds", "Latency above which a sample is a spike.",
	      rm_lat_s(m, a->threshold_ns));
	gauge(out, "tailcause_spikes_all", "Samples above the spike threshold.",
	      (double)a->n_spikes_run);
}

/* cause and class; a two-host report adds where: local, peer or path. */
static void cause_labels(FILE *out, const struct report_model *m, const char *name,
			 enum tc_cause_class cls)
{
	fputc('{', out);
	label(out, "cause", name, 1);
	label(out, "class", causes_info(cls)->prefix, 0);
	if (m->h.peer.joined)
		label(out, "host",
		      cls == TC_CAUSE_PATH	   ? "path"
		      : !strncmp(name, "peer:", 5) ? "peer"
						   : "local",
		      0);
	fputc('}', out);
}

/* Every cause with spikes or excess, as the analysis numbered them. */
static void causes(FILE *out, const struct report_model *m)
{
	const struct tc_analysis *a = m->a;
	family(out, "tailcause_spikes", "gauge", "Spikes whose primary cause it is.");
	for (size_t i = 0; i < a->n_causes; i++) {
		if (!a->causes[i].spikes && !a->causes[i].excess_ns)
			continue;
		fputs("tailcause_spikes", out);
		cause_labels(out, m, a->causes[i].name, a->causes[i].cls);
		fprintf(out, " %llu\n", (unsigned long long)a->causes[i].spikes);
	}
	family(out, "tailcause_spike_excess_seconds", "gauge",
	       "Latency above the median credited to the cause, over all spikes.");
	for (size_t i = 0; i < a->n_causes; i++) {
		if (!a->causes[i].spikes && !a->causes[i].excess_ns)
			continue;
		fputs("tailcause_spike_excess_seconds", out);
		cause_labels(out, m, a->causes[i].name, a->causes[i].cls);
		fprintf(out, " %.9g\n", rm_lat_s(m, a->causes[i].excess_ns));
	}
	if (!a->calibrated)
		return;
	family(out, "tailcause_spike_hidden_seconds", "gauge",
	       "Of that excess, the calibrated hidden cost of the cause's events (VM exits, "
	       "entry and exit costs the tracers do not see).");
	for (size_t i = 0; i < a->n_causes; i++) {
		if (!a->causes[i].spikes && !a->causes[i].excess_ns)
			continue;
		fputs("tailcause_spike_hidden_seconds", out);
		cause_labels(out, m, a->causes[i].name, a->causes[i].cls);
		fprintf(out, " %.9g\n", rm_lat_s(m, a->causes[i].hidden_ns));
	}
}

static void noise(FILE *out, const struct tc_noise *n)
{
	char tid[16];

	family(out, "tailcause_noise_seconds", "gauge",
	       "Time the host took from the command's threads, by cause (blocked: asleep).");
	for (size_t i = 0; i < n->n_causes; i++) {
		fputs("tailcause_noise_seconds{", out);
		label(out, "cause", n->causes[i].name, 1);
		label(out, "group", noise_group_name(n->causes[i].group), 0);
		fprintf(out, "} %.9g\n", S(n->causes[i].ns));
	}
	family(out, "tailcause_noise_events", "gauge", "Intervals or instants of each cause.");
	for (size_t i = 0; i < n->n_causes; i++) {
		fputs("tailcause_noise_events{", out);
		label(out, "cause", n->causes[i].name, 1);
		label(out, "group", noise_group_name(n->causes[i].group), 0);
		fprintf(out, "} %llu\n", (unsigned long long)n->causes[i].count);
	}
	family(out, "tailcause_thread_noise_seconds", "gauge", "Noise of each thread.");
	for (size_t i = 0; i < n->n_threads; i++) {
		snprintf(tid, sizeof(tid), "%u", n->threads[i].tid);
		fputs("tailcause_thread_noise_seconds{", out);
		label(out, "tid", tid, 1);
		label(out, "comm", n->threads[i].comm, 0);
		fprintf(out, "} %.9g\n", S(n->threads[i].noise_ns));
	}
	gauge(out, "tailcause_noise_interval_seconds", "Length of the noise report's intervals.",
	      S(n->interval_ns));
}

static double worst_ratio(const struct tc_noise *n)
{
	double worst = 0;

	for (size_t i = 0; i < n->n_rows; i++) {
		const struct tc_noise_row *r = &n->rows[i];
		double x = r->end_ns > r->start_ns
				   ? (double)r->noise_ns / (double)(r->end_ns - r->start_ns)
				   : 0;

		if (x > worst)
			worst = x;
	}
	return worst;
}

int report_openmetrics(FILE *out, const struct report_model *m)
{
	info(out, m);
	if (m->noise) {
		noise(out, m->noise);
		gauge(out, "tailcause_noise_worst_interval_ratio",
		      "Largest share of an interval a thread lost to noise.",
		      worst_ratio(m->noise));
	} else {
		latency(out, m);
		causes(out, m);
	}
	fputs("# EOF\n", out);
	return 0;
}
