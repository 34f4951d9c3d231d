// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_html_charts.c - the latency charts of the HTML report: latency over
 * time (one column per pixel: min..max, p50, p99; every large spike as a dot
 * coloured by its cause), the histogram and percentile curve with p99 and
 * p99.9 marked, and the cause breakdown. Formatting only: the reductions are
 * user/core/model/plot.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/plot.h"
#include "report_common.h"
#include "report_html.h"

#define MAX_DOTS   20000 /* spikes drawn: the largest */
#define MAX_TIPS   200	 /* of which the largest get a tooltip */
#define CAUSE_BARS 15

/* A "nice" step (1, 2 or 5 x 10^k) for about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw > 0 ? raw : 1)));

	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void time_ticks(FILE *out, double span_s, double y0, double y1)
{
	double step = nice_step(span_s, 8);

	for (double s = 0; s <= span_s * 1.0001 && span_s > 0; s += step) {
		double x = PLOT_X0 + s / span_s * (PLOT_X1 - PLOT_X0);

		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g s"
			"</text>\n",
			x, y0, x, y1, x, y1 + 16, s);
	}
}

/* The per-column band (min..max) and the p50 and p99 lines. */
static void columns(FILE *out, const struct report_model *m, const struct plot_column *c, size_t n,
		    const struct log_axis *ay)
{
	int pen = 0;

	fputs("<path fill=\"none\" stroke=\"#d9d9d9\" stroke-width=\"1\" d=\"", out);
	for (size_t k = 0; k < n; k++)
		if (c[k].n)
			fprintf(out, "M%zu %.1fV%.1f", PLOT_X0 + k,
				log_axis_px(ay, rm_lat_ns(m, c[k].max)),
				log_axis_px(ay, rm_lat_ns(m, c[k].min)) + 0.5);
	fputs("\"/>\n", out);
	for (int line = 0; line < 2; line++) {
		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" d=\"",
			line ? "#252525" : "#969696");
		pen = 0;
		for (size_t k = 0; k < n; k++) {
			if (!c[k].n) {
				pen = 0;
				continue;
			}
			fprintf(out, "%c%zu %.1f", pen++ ? 'L' : 'M', PLOT_X0 + k,
				log_axis_px(ay, rm_lat_ns(m, line ? c[k].p50 : c[k].p99)));
		}
		fputs("\"/>\n", out);
	}
}

/* Spikes as dots, the largest last (on top), grouped by cause colour. */
static int dots(struct html *h, uint64_t t0, double span_ns, const struct log_axis *ay)
{
	const struct tc_analysis *a = h->m->a;
	const struct tc_trace *t = h->m->t;
	size_t k = h->m->n_ranked < MAX_DOTS ? h->m->n_ranked : MAX_DOTS;
	char lat[32];

	for (size_t i = k; i-- > 0;) {
		const struct tc_spike *sp = &a->spikes[h->m->ranked[i]];
		const struct tc_sample *s = &t->samples[sp->sample];
		double x = PLOT_X0 + (double)(s->t_start - t0) / span_ns * (PLOT_X1 - PLOT_X0);

		fprintf(h->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"", x,
			log_axis_px(ay, rm_lat_ns(h->m, sp->rtt_ns)), i < MAX_TIPS ? "3.5" : "2.5",
			html_cause_color(h, sp->primary));
		if (i >= MAX_TIPS) {
			fputs("/>", h->out);
			continue;
		}
		html_fmt_ns(rm_lat_ns(h->m, sp->rtt_ns), lat, sizeof(lat));
		fprintf(h->out, "><title>#%zu %s at +%.6f s: ", i + 1, lat,
			(double)(s->t_start - t0) / 1e9);
		html_esc(h->out, a->causes[sp->primary].name);
		fprintf(h->out, " (%.0f%% explained)</title></circle>\n", sp->explained * 100);
	}
	return 0;
}

static int legend(struct html *h)
{
	const struct tc_analysis *a = h->m->a;
	size_t shown = 0;

	fputs("<div class=\"legend\"><span style=\"background:#d9d9d9\"></span>min..max"
	      "<span style=\"background:#969696\"></span>p99<span style=\"background:#252525\">"
	      "</span>median",
	      h->out);
	for (size_t i = 0; i < h->m->n_causes && shown < 12; i++) {
		uint32_t c = h->m->causes[i].cause;

		if (!a->causes[c].spikes)
			continue;
		fprintf(h->out, "<span style=\"background:%s\"></span>", html_cause_color(h, c));
		html_esc(h->out, a->causes[c].name);
		shown++;
	}
	fputs("</div>\n", h->out);
	return 0;
}

/* What the columns are: exact, or (a long streamed run's) binned in some. */
static void series_note(struct html *h, const struct plot_series *ps)
{
	size_t dots = h->m->n_ranked < MAX_DOTS ? h->m->n_ranked : MAX_DOTS;
	uint64_t spikes = h->m->a->n_spikes_run;

	fprintf(h->out,
		"<h2>Latency over time</h2>\n<p class=\"note\">%" PRIu64 " samples in %zu"
		" columns; dots: ",
		ps->n, ps->cols);
	if (dots == spikes)
		fprintf(h->out, dots == 1 ? "the one spike" : "the %zu spikes", dots);
	else
		fprintf(h->out, "the %zu largest of %" PRIu64 " spikes", dots, spikes);
	fputs(", coloured by primary cause", h->out);
	if (ps->binned)
		fprintf(h->out,
			"; the p50 and p99 of the %zu columns of more than %zu samples are"
			" read from their histograms, within 1/128 of the value",
			ps->binned, ps->exact_max);
	fputs("</p>\n", h->out);
}

int html_chart_series(struct html *h)
{
	const struct tc_trace *t = h->m->t;
	const struct tc_analysis *a = h->m->a;
	const struct plot_series *ps = h->m->series;
	struct plot_series own;
	struct log_axis ay;
	double span;
	int err = 0;

	if (!ps) {
		err = plot_series_of(t->samples, t->n_samples, HTML_SERIES_COLUMNS, &own);
		if (err)
			return err;
		ps = &own;
	}
	span = (double)ps->span;
	log_axis_init(&ay, rm_lat_ns(h->m, a->stats.min), rm_lat_ns(h->m, a->stats.max), 290, 20);
	series_note(h, ps);
	fprintf(h->out,
		"<svg id=\"latency-over-time\" width=\"%d\" height=\"320\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W);
	html_log_ticks_y(h->out, &ay, PLOT_X0, PLOT_X1);
	time_ticks(h->out, span / 1e9, 20, 290);
	columns(h->out, h->m, ps->c, ps->cols, &ay);
	fprintf(h->out,
		"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
		"stroke-dasharray=\"5,4\"/><text class=\"tick\" x=\"%d\" y=\"%.1f\" "
		"text-anchor=\"end\">spike threshold</text>\n",
		PLOT_X0, PLOT_X1, log_axis_px(&ay, rm_lat_ns(h->m, a->threshold_ns)),
		log_axis_px(&ay, rm_lat_ns(h->m, a->threshold_ns)), PLOT_X1,
		log_axis_px(&ay, rm_lat_ns(h->m, a->threshold_ns)) - 4);
	err = dots(h, ps->t0, span, &ay);
	if (ps == &own)
		plot_series__free(&own);
	fprintf(h->out,
		"<line class=\"axis\" x1=\"%d\" y1=\"290\" x2=\"%d\" y2=\"290\"/>"
		"<text class=\"lbl\" x=\"14\" y=\"14\">latency (%s)</text></svg>\n",
		PLOT_X0, PLOT_X1, rm_lat_what(h->m));
	return err ?: legend(h);
}

/* A vertical marker with its label. */
static void marker(FILE *out, double x, double y0, double y1, const char *color, const char *label,
		   double ns)
{
	char v[32];

	html_fmt_ns(ns, v, sizeof(v));
	fprintf(out,
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-dasharray=\"4,3\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		"fill=\"%s\">%s %s</text>\n",
		x, x, y0, y1, color, x + 3, y0 + 10, color, label, v);
}

static void histogram(struct html *h, const struct plot_bin *b, size_t n)
{
	const struct lat_summary *s = &h->m->a->stats;
	uint64_t max = 1;
	struct log_axis ax;
	double lmax;

	for (size_t i = 0; i < n; i++)
		max = b[i].count > max ? b[i].count : max;
	lmax = log10(1.0 + (double)max);
	log_axis_init(&ax, rm_lat_ns(h->m, h->m->hist->min), rm_lat_ns(h->m, h->m->hist->max) + 1,
		      PLOT_X0, PLOT_X1);
	fprintf(h->out,
		"<svg id=\"histogram\" width=\"%d\" height=\"250\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W);
	html_log_ticks_x(h->out, &ax, 20, 220);
	for (double p = 1; p <= (double)max; p *= 10) {
		double y = 220 - log10(1.0 + p) / lmax * 195;

		fprintf(h->out,
			"<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g"
			"</text>\n",
			PLOT_X0 - 6, y + 4, p);
	}
	fputs("<g fill=\"#4a90c2\">", h->out);
	for (size_t i = 0; i < n; i++) {
		double x0 = log_axis_px(&ax, rm_lat_ns(h->m, b[i].lo)),
		       x1 = log_axis_px(&ax, rm_lat_ns(h->m, b[i].hi + 1));
		double y = 220 - log10(1.0 + (double)b[i].count) / lmax * 195;

		fprintf(h->out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			"<title>%llu</title></rect>",
			x0, y, x1 - x0 < 1 ? 1 : x1 - x0, 220 - y, (unsigned long long)b[i].count);
	}
	fputs("</g>\n", h->out);
	marker(h->out, log_axis_px(&ax, rm_lat_ns(h->m, s->p50)), 20, 220, "#252525", "median",
	       rm_lat_ns(h->m, s->p50));
	marker(h->out, log_axis_px(&ax, rm_lat_ns(h->m, s->p99)), 34, 220, "#ff7f0e", "p99",
	       rm_lat_ns(h->m, s->p99));
	marker(h->out, log_axis_px(&ax, rm_lat_ns(h->m, s->p999)), 48, 220, "#d62728", "p99.9",
	       rm_lat_ns(h->m, s->p999));
	fprintf(h->out,
		"<line class=\"axis\" x1=\"%d\" y1=\"220\" x2=\"%d\" y2=\"220\"/>"
		"<text class=\"lbl\" x=\"14\" y=\"14\">samples (log)</text></svg>\n",
		PLOT_X0, PLOT_X1);
}

/* Latency against percentile on a "nines" axis: 90 %, 99 %, 99.9 % equally spaced. */
static void percentiles(struct html *h)
{
	const struct hist *hs = h->m->hist;
	const struct lat_summary *s = &h->m->a->stats;
	double nines = ceil(log10((double)hs->total)), w = PLOT_X1 - PLOT_X0;
	uint64_t cum = 0;
	struct log_axis ay;
	int pen = 0;

	nines = nines < 1 ? 1 : nines;
	log_axis_init(&ay, rm_lat_ns(h->m, hs->min), rm_lat_ns(h->m, hs->max) + 1, 220, 20);
	fprintf(h->out,
		"<svg id=\"percentiles\" width=\"%d\" height=\"250\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W);
	html_log_ticks_y(h->out, &ay, PLOT_X0, PLOT_X1);
	for (int k = 0; k <= (int)nines; k++) {
		double x = PLOT_X0 + k / nines * w;
		char lbl[24];

		snprintf(lbl, sizeof(lbl), "%.*f%%", k > 2 ? k - 2 : 0, 100.0 * (1 - pow(10, -k)));
		fprintf(h->out,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"220\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"236\" text-anchor=\"%s\">%s"
			"</text>\n",
			x, x, x, k == (int)nines ? "end" : "middle", lbl);
	}
	fputs("<path fill=\"none\" stroke=\"#252525\" stroke-width=\"1.5\" d=\"", h->out);
	for (size_t b = hist_next(hs, 0); b < HIST_BUCKETS; b = hist_next(hs, b + 1)) {
		double f, x,
			y = log_axis_px(&ay, rm_lat_ns(h->m, hist_bucket_high(b) < hs->max
								     ? hist_bucket_high(b)
								     : hs->max));

		x = PLOT_X0 + (cum ? fmin(-log10(1 - (double)cum / (double)hs->total), nines) : 0) /
				      nines * w;
		cum += hs->counts[b];
		f = (double)cum / (double)hs->total;
		fprintf(h->out, "%c%.1f %.1fH%.1f", pen++ ? 'L' : 'M', x, y,
			PLOT_X0 + (f < 1 ? fmin(-log10(1 - f), nines) : nines) / nines * w);
	}
	fputs("\"/>\n", h->out);
	marker(h->out, PLOT_X0 + 2 / nines * w, 30, 220, "#ff7f0e", "p99", rm_lat_ns(h->m, s->p99));
	if (nines >= 3)
		marker(h->out, PLOT_X0 + 3 / nines * w, 44, 220, "#d62728", "p99.9",
		       rm_lat_ns(h->m, s->p999));
	fprintf(h->out,
		"<line class=\"axis\" x1=\"%d\" y1=\"220\" x2=\"%d\" y2=\"220\"/>"
		"<text class=\"lbl\" x=\"14\" y=\"14\">latency (%s) at percentile</text>"
		"</svg>\n",
		PLOT_X0, PLOT_X1, rm_lat_what(h->m));
}

int html_chart_hist(struct html *h)
{
	struct plot_bin *b = calloc(160, sizeof(*b));
	size_t n;

	if (!b)
		return -ENOMEM;
	n = plot_hist_bins(h->m->hist, b, 160);
	fprintf(h->out,
		"<h2>Distribution</h2>\n<p class=\"note\">Histogram of the latency (%s;"
		" log-linear buckets, two significant digits, regrouped on a log axis), then"
		" the latency at each percentile.</p>\n",
		rm_lat_what(h->m));
	histogram(h, b, n);
	percentiles(h);
	free(b);
	return 0;
}

int html_chart_causes(struct html *h)
{
	const struct tc_analysis *a = h->m->a;
	size_t rows = h->m->n_causes < CAUSE_BARS ? h->m->n_causes : CAUSE_BARS;
	double bar_w = PLOT_X1 - 300 - 230; /* room for the figures after the longest bar */

	fprintf(h->out,
		"<h2>Causes</h2>\n<p class=\"note\">Share of the tail excess (latency"
		" above the median, split among the overlapping intervals) and spikes"
		" whose primary cause it is.</p>\n<svg id=\"causes\" width=\"%d\" "
		"height=\"%zu\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W, rows * 22 + 10);
	for (size_t i = 0; i < rows; i++) {
		uint32_t k = h->m->causes[i].cause;
		const struct tc_cause *c = &a->causes[k];
		double share =
			a->total_excess_ns ? (double)c->excess_ns / (double)a->total_excess_ns : 0;
		double y = 6 + (double)i * 22;
		char ex[32];

		html_fmt_ns(rm_lat_ns(h->m, c->excess_ns), ex, sizeof(ex));
		html_bar_row(h, y, c->name, share, bar_w, k, ex, (unsigned long long)c->spikes,
			     "spikes");
	}
	fputs("</svg>\n", h->out);
	return 0;
}

void html_bar_row(const struct html *h, double y, const char *name, double share, double bar_w,
		  uint32_t cause, const char *amount, unsigned long long n, const char *unit)
{
	double w = fmax(share * bar_w, 1);

	fprintf(h->out, "<text class=\"lbl\" x=\"290\" y=\"%.1f\" text-anchor=\"end\">", y + 13);
	html_esc(h->out, name);
	fprintf(h->out,
		"</text><rect x=\"300\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>"
		"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%.1f%%, %s, %llu %s</text>\n",
		y, w, html_cause_color(h, cause), 306 + w, y + 12, share * 100, amount, n, unit);
}
