// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_html.c - the report as one self-contained HTML page: no network,
 * no script, no external font; the charts are inline SVG with <title>
 * tooltips. This file writes the page, its tables and the helpers the charts
 * share; report_html_charts.c, report_html_heatmaps.c and report_html_noise.c
 * draw. Formatting only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/model/verdict.h"
#include "lib/str.h"
#include "report_common.h"
#include "report_html.h"
#include "lib/version.h"

/* Distinct colours for the causes with the most excess; the rest share the last. */
static const char *const palette[] = {
	"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
	"#e377c2", "#17becf", "#bcbd22", "#393b79", "#ad494a", "#637939",
};
#define N_PALETTE (sizeof(palette) / sizeof(palette[0]))
#define GREY	  "#9a9a9a"
#define OTHER	  "#c7c7c7"

const char *html_palette(size_t i)
{
	return i < N_PALETTE ? palette[i] : OTHER;
}

const char *html_cause_color(const struct html *h, uint32_t cause)
{
	uint32_t slot;

	if (cause >= h->n_causes)
		return OTHER;
	slot = h->color_of[cause];
	if (slot == UINT32_MAX)
		return GREY;
	return slot < N_PALETTE ? palette[slot] : OTHER;
}

void html_esc(FILE *out, const char *s)
{
	size_t left = s ? strlen(s) : 0;

	while (left) {
		size_t n = str_char_len(s, left);
		char x[5];

		if (!n) {
			fputs(str_escape_n(x, sizeof(x), s, 1), out); /* one byte, as \xNN */
			n = 1;
		} else if (*s == '&') {
			fputs("&amp;", out);
		} else if (*s == '<') {
			fputs("&lt;", out);
		} else if (*s == '>') {
			fputs("&gt;", out);
		} else if (*s == '"') {
			fputs("&quot;", out);
		} else if (*s == '\'') {
			fputs("&#39;", out);
		} else {
			fwrite(s, 1, n, out);
		}
		s += n;
		left -= n;
	}
}

void log_axis_init(struct log_axis *ax, double v0, double v1, double p0, double p1)
{
	ax->l0 = floor(log10(v0 > 0 ? v0 : 1));
	ax->l1 = ceil(log10(v1 > 0 ? v1 : 1));
	if (ax->l1 <= ax->l0)
		ax->l1 = ax->l0 + 1;
	ax->p0 = p0;
	ax->p1 = p1;
}

double log_axis_px(const struct log_axis *ax, double v)
{
	double l = log10(v > 0 ? v : 1e-300);

	if (l < ax->l0)
		l = ax->l0;
	if (l > ax->l1)
		l = ax->l1;
	return ax->p0 + (l - ax->l0) / (ax->l1 - ax->l0) * (ax->p1 - ax->p0);
}

void html_log_ticks_y(FILE *out, const struct log_axis *ax, double x0, double x1)
{
	char label[32];

	for (double l = ax->l0; l <= ax->l1 + 1e-9; l++) {
		double y = log_axis_px(ax, pow(10, l));

		html_fmt_ns(pow(10, l), label, sizeof(label));
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n",
			x0, y, x1, y, x0 - 6, y + 4, label);
	}
}

void html_log_ticks_x(FILE *out, const struct log_axis *ax, double y0, double y1)
{
	char label[32];

	for (double l = ax->l0; l <= ax->l1 + 1e-9; l++) {
		double x = log_axis_px(ax, pow(10, l));

		html_fmt_ns(pow(10, l), label, sizeof(label));
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, y0, x, y1, x, y1 + 16, label);
	}
}

static const char style[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222;background:#fff}"
	"h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:4px}"
	"table{border-collapse:collapse;font-size:13px}td,th{padding:3px 10px;text-align:left;"
	"vertical-align:top}th{background:#f3f3f3}table.num td{text-align:right}"
	"table.facts td:first-child{color:#666;white-space:nowrap}table.num td.l{text-align:left}"
	".verdict{display:inline-block;padding:4px 10px;border-radius:4px;font-weight:bold}"
	".excellent,.good{background:#d9f2d9}.fair{background:#fff1c2}"
	".problem,.failure{background:#f8d0d0}.warn{color:#b00;font-weight:bold}"
	".note{color:#666;font-size:12px}svg{display:block;margin:6px 0}"
	".grid{stroke:#e4e4e4;stroke-width:1}.axis{stroke:#555;stroke-width:1}"
	".tick{font-size:11px;fill:#555}.lbl{font-size:12px;fill:#222}"
	".legend{font-size:12px}.legend span{display:inline-block;width:11px;height:11px;"
	"margin:0 4px 0 12px;vertical-align:-1px}";

void html_page_start(FILE *out, const char *title)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>%s</title>\n<style>%s</style></head><body>\n",
		title, style);
}

void html_page_end(FILE *out)
{
	fprintf(out,
		"<p class=\"note\">Written by tailcause %s. One file: no script, no network."
		"</p>\n</body></html>\n",
		TAILCAUSE_VERSION);
}

static void fact(FILE *out, const char *key, const char *val)
{
	fprintf(out, "<tr><td>%s</td><td>", key);
	html_esc(out, val);
	fputs("</td></tr>\n", out);
}

static const char *or_q(const char *v)
{
	return v ? v : "?";
}

/* What each kind of event costs, against what the tracers see of it. */
static void calibration_fact(FILE *out, const struct rm_header *rh)
{
	char buf[512];
	size_t n = 0;

	if (!rh->calib_status)
		return;
	buf[0] = 0;
	for (int k = 0; k < TC_CALIB_KINDS && rh->calibrated; k++) {
		const struct tc_calib_kind *x = calibrate_kind(&rh->cal, tc_calib_kinds[k]);

		if (x && n < sizeof(buf))
			n += (size_t)snprintf(
				buf + n, sizeof(buf) - n, "%s%s %.3f us, %.3f of it traced (n %zu)",
				n ? "; " : "", tc_calib_names[k], (double)x->gap_ns / 1e3,
				(double)x->traced_ns / 1e3, x->n);
	}
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "; " : "", rh->calib_status);
	fact(out, "calibration", buf);
}

/* The header as a table (trace, host, probe, clock, tracers, events), then its warnings. */
static void header_table(struct html *h)
{
	const struct report_model *m = h->m;
	const struct rm_header *rh = &m->h;
	char buf[256];

	fputs("<table class=\"facts\">\n", h->out);
	fact(h->out, "trace", rh->path ? rh->path : "(not kept)");
	snprintf(buf, sizeof(buf), "%s (Linux %s, %s CPUs, %s)", or_q(rh->host_name),
		 or_q(rh->kernel), or_q(rh->host_cpus), or_q(rh->cpu_model));
	fact(h->out, "host", buf);
	if (rh->command) {
		fact(h->out, "command", or_q(rh->target));
		if (rh->iter_spec) {
			snprintf(buf, sizeof(buf), "--iter %s: %s; %s", rh->iter_spec,
				 or_q(rh->iter_what), or_q(rh->iter_summary));
			fact(h->out, "iterations", buf);
		} else {
			fact(h->out, "samples", rh->samples_file ? rh->samples_file : "none");
		}
	} else {
		snprintf(buf, sizeof(buf), "%s on CPUs %s: %zu round trips", or_q(rh->probe),
			 or_q(rh->cpus), rh->round_trips);
		fact(h->out, "probe", buf);
	}
	if (rh->stretch)
		fact(h->out, "stretch", rh->stretch);
	if (rh->streamed)
		fact(h->out, "streamed", rh->streamed);
	if (rh->peer.joined) {
		snprintf(buf, sizeof(buf),
			 "%s: %s, the %s; clocks aligned by %llu round trips to within +-%.3f us",
			 or_q(rh->peer.path), or_q(rh->peer.host), or_q(rh->peer.mode),
			 (unsigned long long)rh->peer.pairs, (double)rh->peer.uncertainty_ns / 1e3);
		fact(h->out, "peer", buf);
	}
	fact(h->out, "clock", rh->clock ? rh->clock : "CLOCK_MONOTONIC");
	if (rh->hypervisor) {
		if (!strcmp(rh->hypervisor, "none"))
			snprintf(buf, sizeof(buf), "none (bare metal)");
		else if (rh->steal_traced)
			snprintf(buf, sizeof(buf), "%s: %.3f ms stolen from the probe CPUs",
				 rh->hypervisor, (double)rh->stolen_ns / 1e6);
		else
			snprintf(buf, sizeof(buf), "%s: steal %s", rh->hypervisor, or_q(rh->steal));
		fact(h->out, "hypervisor", buf);
	}
	calibration_fact(h->out, rh);
	for (size_t i = 0; i < m->n_tracers; i++) {
		const struct rm_tracer *tr = &m->tracers[i];

		if (tr->attached)
			continue;
		snprintf(buf, sizeof(buf), "%s.%s: %s", tr->concern, tr->program, tr->detail);
		fact(h->out, "NOT traced", buf);
	}
	snprintf(buf, sizeof(buf), "%zu intervals, %llu lost to ring-buffer overrun", rh->n_events,
		 (unsigned long long)rh->lost);
	fact(h->out, "events", buf);
	if (rh->missed) {
		snprintf(buf, sizeof(buf),
			 "%llu program runs skipped by the kernel's recursion guard: their "
			 "records were never made",
			 (unsigned long long)rh->missed);
		fact(h->out, "missed", buf);
	}
	fputs("</table>\n", h->out);
	if (rh->truncated)
		fputs("<p class=\"warn\">The trace file is truncated: it ends before its END block;"
		      " what follows covers only what was written.</p>\n",
		      h->out);
	if (rh->lost)
		fputs("<p class=\"warn\">Events were lost: attribution may be incomplete.</p>\n",
		      h->out);
}

static void stats(struct html *h)
{
	const struct report_model *m = h->m;
	const struct tc_analysis *a = m->a;
	const struct lat_summary *s = &a->stats;

	fprintf(h->out, "<h2>Latency (%s, every sample kept)</h2>\n<table class=\"num\"><tr>",
		m->div == 2 ? "one way = RTT/2" : "per iteration, as the benchmark timed it");
	fputs("<th>iterations</th><th>t_min</th><th>t_typical</th><th>t_avg</th><th>t_stdev</th>"
	      "<th>p99</th><th>p99.9</th><th>p99.99</th><th>p99.999</th><th>t_max</th></tr>\n",
	      h->out);
	fprintf(h->out,
		"<tr><td>%zu</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
		"<td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td></tr>"
		"</table>\n<p class=\"note\">microseconds</p>\n",
		s->n, rm_lat_us(m, s->min), rm_lat_us(m, s->p50), rm_lat_us(m, s->mean),
		rm_lat_us(m, s->stdev), rm_lat_us(m, s->p99), rm_lat_us(m, s->p999),
		rm_lat_us(m, s->p9999), rm_lat_us(m, s->p99999), rm_lat_us(m, s->max));
	if (m->verdict) {
		fprintf(h->out, "<p><span class=\"verdict %s\">t_avg %.3f us: %s</span>",
			m->verdict->cls, rm_lat_us(m, s->mean), m->verdict->text);
		if (!m->h.nic_probe)
			fputs(" <span class=\"note\">on the RDMA scale; this probe has no NIC, so"
			      " read it as host jitter</span>",
			      h->out);
		fputs("</p>\n", h->out);
	}
	fprintf(h->out, "<p>%" PRIu64 " spikes: samples above %.3f us %s (%s).</p>\n",
		a->n_spikes_run, rm_lat_us(m, a->threshold_ns), rm_lat_what(m), m->rule);
}

static void recommendations(struct html *h)
{
	const struct report_model *m = h->m;

	if (!m->n_recs)
		return;
	fputs("<h2>Recommendations</h2>\n<table><tr><th>cause</th><th>spikes</th>"
	      "<th>what happened</th><th>what to do</th></tr>\n",
	      h->out);
	for (size_t i = 0; i < m->n_recs; i++) {
		const struct tc_cause_info *info = m->recs[i].info;

		fprintf(h->out, "<tr><td>%s</td><td>%llu</td><td>", info->prefix,
			(unsigned long long)m->recs[i].spikes);
		html_esc(h->out, m->recs[i].what);
		fputs("</td><td>", h->out);
		html_esc(h->out, info->fix);
		fputs("</td></tr>\n", h->out);
	}
	fputs("</table>\n", h->out);
}

/* Palette slots by rank of time (noise) or excess (latency); unattributed and blocked grey. */
/* Palette slots in the model's order of the causes; unattributed and blocked grey. */
static int rank_colors(struct html *h)
{
	const struct report_model *m = h->m;
	size_t n = m->noise ? m->noise->n_causes : m->a->n_causes;
	uint32_t slot = 0;

	h->color_of = calloc(n ? n : 1, sizeof(*h->color_of));
	if (!h->color_of)
		return -ENOMEM;
	h->n_causes = n;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = m->noise ? m->noise_causes[i].cause : m->causes[i].cause;
		int grey = m->noise ? m->noise->causes[c].group >= TC_NOISE_NOISY
				    : m->a->causes[c].cls == TC_CAUSE_UNATTRIBUTED;

		h->color_of[c] = grey ? UINT32_MAX : slot++;
	}
	return 0;
}

int report_html(FILE *out, const struct report_model *m)
{
	struct html h = {.out = out, .m = m};
	int err = rank_colors(&h);

	if (err)
		goto out_free;
	html_page_start(out, "tailcause report");
	fputs("<h1>tailcause report</h1>\n", out);
	header_table(&h);
	if (m->noise) {
		err = html_chart_noise(&h);
	} else {
		stats(&h);
		err = html_chart_series(&h);
		err = err ?: html_chart_hist(&h);
		err = err ?: html_chart_causes(&h);
	}
	err = err ?: html_chart_irqs(&h);
	if (!err && !m->noise) {
		err = html_chart_spikes(&h);
		recommendations(&h);
	}
	html_page_end(out);
out_free:
	free(h.color_of);
	return err;
}
