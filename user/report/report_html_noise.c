// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_html_noise.c - the HTML charts of a noise report (a trace without
 * samples): noise per interval for the noisiest threads, noise by cause, and
 * the worst intervals. Formatting only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_common.h"
#include "report_html.h"

#define NOISE_THREADS 8
#define NOISE_BARS    15

static double row_pct(const struct tc_noise_row *r)
{
	return r->end_ns > r->start_ns
		       ? 100.0 * (double)r->noise_ns / (double)(r->end_ns - r->start_ns)
		       : 0;
}

static void thread_line(struct html *h, const struct tc_noise_thread *th, size_t color)
{
	const struct tc_noise *n = h->m->noise;
	double span = (double)(n->t1 - n->t0) + 1, w = PLOT_X1 - PLOT_X0;

	fprintf(h->out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"",
		html_palette(color));
	for (size_t i = 0; i < th->n_rows; i++) {
		const struct tc_noise_row *r = &n->rows[th->first_row + i];
		double mid =
			((double)(r->start_ns - n->t0) + (double)(r->end_ns - r->start_ns) / 2);

		fprintf(h->out, "%c%.1f %.1f", i ? 'L' : 'M', PLOT_X0 + mid / span * w,
			220 - row_pct(r) * 2);
	}
	fputs("\"/>\n", h->out);
}

static int noise_lines(struct html *h)
{
	const struct tc_noise *n = h->m->noise;
	const size_t *idx = h->m->threads_by_noise;
	size_t k = n->n_threads < NOISE_THREADS ? n->n_threads : NOISE_THREADS;

	fprintf(h->out,
		"<h2>Host noise per interval</h2>\n<p class=\"note\">Share of each %.3g ms"
		" interval a thread lost to noise (off CPU while runnable, IRQs on its CPU"
		" while it ran, its own compaction and reclaim); the %zu noisiest threads."
		"</p>\n<svg id=\"noise-over-time\" width=\"%d\" height=\"250\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		(double)n->interval_ns / 1e6, k, CHART_W);
	for (int p = 0; p <= 100; p += 25)
		fprintf(h->out,
			"<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d%%</text>\n",
			PLOT_X0, PLOT_X1, 220 - 2 * p, 220 - 2 * p, PLOT_X0 - 6, 224 - 2 * p, p);
	for (size_t i = 0; i < k; i++)
		thread_line(h, &n->threads[idx[i]], i);
	fprintf(h->out,
		"<text class=\"tick\" x=\"%d\" y=\"240\">+0 s</text><text class=\"tick\" "
		"x=\"%d\" y=\"240\" text-anchor=\"end\">+%.3f s</text></svg>\n<div "
		"class=\"legend\">",
		PLOT_X0, PLOT_X1, (double)(n->t1 - n->t0) / 1e9);
	for (size_t i = 0; i < k; i++) {
		fprintf(h->out, "<span style=\"background:%s\"></span>tid %u ", html_palette(i),
			n->threads[idx[i]].tid);
		html_esc(h->out, n->threads[idx[i]].comm);
	}
	fputs("</div>\n", h->out);
	return 0;
}

static int noise_bars(struct html *h)
{
	const struct tc_noise *n = h->m->noise;
	size_t rows = 0;
	double bar_w = PLOT_X1 - 300 - 200;

	fprintf(h->out,
		"<h2>Noise by cause</h2>\n<svg id=\"causes\" width=\"%d\" height=\"%d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W, NOISE_BARS * 22 + 10);
	for (size_t i = 0; i < h->m->n_noise_causes && rows < NOISE_BARS; i++) {
		uint32_t k = h->m->noise_causes[i].cause;
		const struct tc_noise_cause *c = &n->causes[k];
		double share = n->noise_ns ? (double)c->ns / (double)n->noise_ns : 0;
		double y = 6 + (double)rows * 22;
		char t[32];

		if (c->group >= TC_NOISE_NOISY || !c->ns)
			continue;
		rows++;
		html_fmt_ns((double)c->ns, t, sizeof(t));
		html_bar_row(h, y, c->name, share, bar_w, k, t, (unsigned long long)c->count,
			     "times");
	}
	fputs("</svg>\n", h->out);
	return 0;
}

static void worst_row(struct html *h, size_t rank, const struct tc_noise_row *r)
{
	const struct tc_noise *n = h->m->noise;
	const struct tc_noise_thread *th = &n->threads[r->thread];
	size_t shown = 0;

	fprintf(h->out, "<tr><td>%zu</td><td>+%.3f s</td><td class=\"l\">%u ", rank,
		(double)(r->start_ns - n->t0) / 1e9, th->tid);
	html_esc(h->out, th->comm);
	fprintf(h->out, "</td><td>%.1f%%</td><td>%.3f</td><td class=\"l\">", row_pct(r),
		(double)r->run_ns / 1e6);
	for (size_t p = 0; p < r->n_parts && shown < 3; p++) {
		const struct tc_noise_part *part = &n->parts[r->first_part + p];
		char t[32];

		if (n->causes[part->cause].group >= TC_NOISE_NOISY || !part->ns)
			continue;
		html_fmt_ns((double)part->ns, t, sizeof(t));
		fputs(shown++ ? ", " : "", h->out);
		html_esc(h->out, n->causes[part->cause].name);
		fprintf(h->out, " %s", t);
	}
	fputs("</td></tr>\n", h->out);
}

int html_chart_noise(struct html *h)
{
	const struct tc_noise *n = h->m->noise;
	int err;

	err = noise_lines(h);
	err = err ?: noise_bars(h);
	fputs("<h2>Worst intervals</h2>\n<table class=\"num\"><tr><th>#</th><th>start</th>"
	      "<th>thread</th><th>noise</th><th>ran [ms]</th><th>largest causes</th></tr>\n",
	      h->out);
	for (size_t i = 0; i < h->m->n_worst; i++)
		worst_row(h, i + 1, &n->rows[h->m->worst[i]]);
	fputs("</table>\n", h->out);
	return err;
}
