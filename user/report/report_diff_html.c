// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_diff_html.c - `tailcause diff --format html`: one self-contained page
 * with the two distributions overlaid, the two percentile curves overlaid, the
 * figures with their intervals, and the cause deltas as bars. Formatting only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "core/model/plot.h"
#include "core/util/units.h"
#include "report_common.h"
#include "report_html.h"

#define BEFORE_COLOR "#1f77b4"
#define AFTER_COLOR  "#d62728"
#define CAUSE_BARS   15
#define DIST_BINS    160 /* as the report's histogram */

/* The latency range of both runs, in ns. */
static void range(const struct diff *d, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = 0;
	for (int i = 0; i < 2; i++) {
		const struct hist *h = d->run[i]->rtt;

		if (!h->total)
			continue;
		*lo = fmin(*lo, (double)h->min / d->run[i]->div);
		*hi = fmax(*hi, (double)h->max / d->run[i]->div);
	}
	if (*lo > *hi)
		*lo = *hi = 1;
}

/* One run's histogram, regrouped on the log axis: a line through the bins that touch, a dot
 * on each (an isolated bin in the tail is one sample or a few, and must show). */
static int distribution_run(FILE *out, const struct log_axis *ax, const struct summary *s,
			    const char *color)
{
	struct plot_bin *bin = calloc(DIST_BINS, sizeof(*bin));
	double last_x = -INFINITY;
	size_t n;

	if (!bin)
		return -ENOMEM;
	n = plot_hist_bins(s->rtt, bin, DIST_BINS);
	fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", color);
	for (size_t i = 0; i < n; i++) {
		double share = (double)bin[i].count / (double)s->rtt->total;
		/* log of the share, from 1e-9 (bottom) to 1 (top) */
		double y = 220 - (9 + log10(fmax(share, 1e-9))) / 9 * 195;
		double x0 = log_axis_px(ax, (double)bin[i].lo / s->div),
		       x1 = log_axis_px(ax, (double)bin[i].hi / s->div);

		fprintf(out, "%c%.1f %.1fL%.1f %.1f", x0 - last_x < 8 ? 'L' : 'M', x0, y, x1, y);
		last_x = x1;
	}
	fputs("\"/>\n", out);
	for (size_t i = 0; i < n; i++) {
		double share = (double)bin[i].count / (double)s->rtt->total;
		double y = 220 - (9 + log10(fmax(share, 1e-9))) / 9 * 195;
		double x = log_axis_px(ax, sqrt((double)bin[i].lo * (double)bin[i].hi) / s->div);

		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>", x, y, color);
	}
	fputc('\n', out);
	free(bin);
	return 0;
}

/* Each run's share of samples (shares: the runs differ in size), overlaid. */
static int distribution(FILE *out, const struct diff *d)
{
	struct log_axis ax;
	double lo, hi;
	int err = 0;

	range(d, &lo, &hi);
	log_axis_init(&ax, lo, hi + 1, PLOT_X0, PLOT_X1);
	fprintf(out,
		"<svg id=\"diff-distribution\" width=\"%d\" height=\"250\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W);
	html_log_ticks_x(out, &ax, 20, 220);
	for (int i = 0; i < 2 && !err; i++)
		if (d->run[i]->rtt->total)
			err = distribution_run(out, &ax, d->run[i], i ? AFTER_COLOR : BEFORE_COLOR);
	fprintf(out,
		"<text class=\"lbl\" x=\"14\" y=\"14\">share of samples (log), latency (%s)</text>"
		"</svg>\n",
		d->run[0]->div == 2 ? "one way" : "per iteration");
	return err;
}

/* Latency at each percentile on a "nines" axis, both runs. */
static void percentiles(FILE *out, const struct diff *d)
{
	double lo, hi, nines = 5, w = PLOT_X1 - PLOT_X0;
	struct log_axis ay;

	range(d, &lo, &hi);
	log_axis_init(&ay, lo, hi + 1, 220, 20);
	fprintf(out,
		"<svg id=\"diff-percentiles\" width=\"%d\" height=\"250\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W);
	html_log_ticks_y(out, &ay, PLOT_X0, PLOT_X1);
	for (int k = 0; k <= (int)nines; k++) {
		double x = PLOT_X0 + k / nines * w;

		fprintf(out,
			"<text class=\"tick\" x=\"%.1f\" y=\"236\" text-anchor=\"middle\">%.*f%%</text>\n",
			x, k > 2 ? k - 2 : 0, 100.0 * (1 - pow(10, -k)));
	}
	for (int i = 0; i < 2; i++) {
		const struct summary *s = d->run[i];
		const struct hist *h = s->rtt;
		uint64_t cum = 0;
		int pen = 0;

		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"",
			i ? AFTER_COLOR : BEFORE_COLOR);
		for (size_t b = hist_next(h, 0); b < HIST_BUCKETS && h->total;
		     b = hist_next(h, b + 1)) {
			double f, x;

			cum += h->counts[b];
			f = (double)cum / (double)h->total;
			x = PLOT_X0 + (f < 1 ? fmin(-log10(1 - f), nines) : nines) / nines * w;
			fprintf(out, "%c%.1f %.1f", pen++ ? 'L' : 'M', x,
				log_axis_px(&ay, (double)hist_bucket_high(b) / s->div));
		}
		fputs("\"/>\n", out);
	}
	fputs("<text class=\"lbl\" x=\"14\" y=\"14\">latency at percentile</text></svg>\n", out);
}

static void figures(FILE *out, const struct diff *d)
{
	fputs("<table class=\"num\"><tr><th>figure</th><th>before [us]</th><th>after [us]</th>"
	      "<th>change [us]</th><th>95 % interval [us]</th><th>verdict</th></tr>\n",
	      out);
	for (int f = 0; f < SM_FIGURES; f++) {
		const struct df_figure *g = &d->figs[f];

		fprintf(out, "<tr><td class=\"l\">%s</td><td>%.3f</td><td>%.3f</td><td>%+.3f</td>",
			summary_figure_name(g->f), NS_US(g->before_ns), NS_US(g->after_ns),
			NS_US(g->after_ns - g->before_ns));
		if (g->has_ci)
			fprintf(out, "<td>%+.3f .. %+.3f</td><td class=\"l\">%s</td></tr>\n",
				NS_US(g->lo_ns), NS_US(g->hi_ns), diff_verdict_name(g->verdict));
		else
			fputs("<td>-</td><td class=\"l\">-</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* Excess per million samples of the causes with the most, before and after side by side. */
static void cause_bars(FILE *out, const struct diff *d)
{
	size_t rows = d->n_causes < CAUSE_BARS ? d->n_causes : CAUSE_BARS;
	double max = 0, bar_w = PLOT_X1 - 300 - 260;

	for (size_t i = 0; i < rows; i++)
		max = fmax(max, fmax(d->causes[i].excess_pm_ns[0], d->causes[i].excess_pm_ns[1]));
	fprintf(out,
		"<svg id=\"diff-causes\" width=\"%d\" height=\"%zu\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W, rows * 34 + 10);
	for (size_t i = 0; i < rows; i++) {
		const struct df_cause *c = &d->causes[i];
		double y = 6 + 34.0 * (double)i;

		fprintf(out, "<text class=\"lbl\" x=\"290\" y=\"%.1f\" text-anchor=\"end\">",
			y + 17);
		html_esc(out, c->name);
		fputs("</text>\n", out);
		for (int r = 0; r < 2; r++) {
			double w = max > 0 ? fmax(c->excess_pm_ns[r] / max * bar_w, 1) : 1;
			char v[32];

			units_duration(c->excess_pm_ns[r], 3, v, sizeof(v));
			fprintf(out,
				"<rect x=\"300\" y=\"%.1f\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s per M, %.2f spikes per M%s"
				"</text>\n",
				y + 14.0 * r, w, r ? AFTER_COLOR : BEFORE_COLOR, 306 + w,
				y + 14.0 * r + 11, v, c->spikes_pm[r], r ? "" : "");
		}
		fprintf(out,
			"<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PLOT_X1, y + 17, diff_verdict_name(c->verdict));
	}
	fputs("</svg>\n", out);
}

static void checks(FILE *out, const struct diff *d)
{
	fputs("<h2>Host audit changes</h2>\n", out);
	if (!d->run[0]->has_audit || !d->run[1]->has_audit) {
		fputs("<p>A run carries no audit snapshot: nothing to compare.</p>\n", out);
		return;
	}
	if (!d->n_checks) {
		fputs("<p>None: every check reads as it did.</p>\n", out);
		return;
	}
	fputs("<table><tr><th>check</th><th>before</th><th>after</th><th>causes it bears on that "
	      "moved</th></tr>\n",
	      out);
	for (size_t i = 0; i < d->n_checks; i++) {
		const struct df_check *c = &d->checks[i];

		fprintf(out, "<tr><td>%s</td><td>%s: ", audit_info(c->id)->name,
			audit_status_name(c->status[0]));
		html_esc(out, c->summary[0]);
		fprintf(out, "</td><td>%s: ", audit_status_name(c->status[1]));
		html_esc(out, c->summary[1]);
		fputs("</td><td>", out);
		for (size_t k = 0; k < c->n_causes; k++) {
			const struct df_cause *dc = &d->causes[c->causes[k]];

			fputs(k ? "; " : "", out);
			html_esc(out, dc->name);
			fprintf(out, " (%s)", diff_verdict_name(dc->verdict));
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

int diff_html(FILE *out, const struct diff *d)
{
	int err;

	html_page_start(out, "tailcause diff");
	fputs("<h1>tailcause diff</h1>\n<table class=\"facts\">\n", out);
	for (int i = 0; i < 2; i++) {
		const struct summary *s = d->run[i];

		fprintf(out, "<tr><td><span style=\"color:%s\">&#9632;</span> %s</td><td>",
			i ? AFTER_COLOR : BEFORE_COLOR, i ? "after" : "before");
		html_esc(out, s->source);
		fputs(": ", out);
		html_esc(out, s->host);
		fputs(", ", out);
		html_esc(out, s->probe);
		fprintf(out, ", %llu samples, resampled %s</td></tr>\n", (unsigned long long)s->n,
			d->method[i]);
	}
	fputs("</table>\n", out);
	if (!d->same_probe)
		compare_html_mismatch(out, d->mismatch);
	fprintf(out,
		"<h2>Percentiles</h2>\n<p class=\"note\">The interval is the 95 %% interval of the"
		" change (after - before) from %zu bootstrap resamples of each run.</p>\n",
		d->resamples);
	figures(out, d);
	fputs("<h2>Distributions</h2>\n", out);
	err = distribution(out, d);
	if (err)
		return err;
	percentiles(out, d);
	fputs("<h2>Causes</h2>\n<p class=\"note\">Excess per million samples, before (blue) and after"
	      " (red).</p>\n",
	      out);
	cause_bars(out, d);
	checks(out, d);
	html_page_end(out);
	return 0;
}
