// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_html_heatmaps.c - the HTML report's IRQ placement heat map and the
 * top spikes' timelines. Formatting only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrib/causes.h"
#include "core/model/plot.h"
#include "report_common.h"
#include "report_html.h"

#define IRQ_ROWS     30
#define SPIKE_CHARTS 10
#define SPIKE_ROWS   25

/* ---- IRQ placement ----------------------------------------------------------------------- */

/* White through blue on a log scale of v / max. */
static void heat(char *buf, size_t len, uint64_t v, uint64_t max)
{
	double f = max ? log1p((double)v) / log1p((double)max) : 0;

	if (!v) {
		snprintf(buf, len, "#f7f7f7");
		return;
	}
	snprintf(buf, len, "#%02x%02x%02x", (int)(222 - f * 214), (int)(235 - f * 187),
		 (int)(247 - f * 140));
}

static void irq_label(struct html *h, size_t r, double y)
{
	const struct rm_irq *irq = &h->m->irq[r];

	fprintf(h->out, "<text class=\"lbl\" x=\"232\" y=\"%.1f\" text-anchor=\"end\"%s>%u ",
		y + 12, irq->nic ? " font-weight=\"bold\"" : "", h->m->irqs.irqs[r]);
	html_esc(h->out, irq->name ? irq->name : "?");
	fprintf(h->out, "%s</text>\n", irq->nic ? " (NIC)" : "");
}

static void irq_header(struct html *h, size_t rows, double cw)
{
	const unsigned char *probe = h->m->probe_cpu;
	uint32_t every = cw >= 16 ? 1 : (uint32_t)ceil(16 / cw);

	for (uint32_t c = 0; c < h->m->irqs.n_cpus; c++) {
		double x = 240 + c * cw;

		if (probe[c])
			fprintf(h->out,
				"<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>",
				x, cw, 22 + rows * 17.0);
		if (c % every == 0 || probe[c])
			fprintf(h->out,
				"<text class=\"tick\" x=\"%.1f\" y=\"20\" text-anchor=\"middle\""
				"%s>%u</text>\n",
				x + cw / 2,
				probe[c] ? " fill=\"#d62728\" font-weight=\"bold\"" : "", c);
	}
}

/* The largest cell of the rows drawn, for the colour scale. */
static uint64_t cell_max(const struct plot_irq_matrix *m, size_t rows)
{
	uint64_t max = 0;

	for (size_t i = 0; i < rows * m->n_cpus; i++)
		max = m->counts[i] > max ? m->counts[i] : max;
	return max;
}

int html_chart_irqs(struct html *h)
{
	const struct plot_irq_matrix *m = &h->m->irqs;
	size_t rows = m->n_irqs < IRQ_ROWS ? m->n_irqs : IRQ_ROWS;
	uint64_t max = cell_max(m, rows);
	double cw;
	char color[16];

	fputs("<h2>IRQ placement</h2>\n", h->out);
	if (!m->n_irqs) {
		fprintf(h->out,
			"<svg id=\"irq-heatmap\" width=\"%d\" height=\"30\" "
			"xmlns=\"http://www.w3.org/2000/svg\"><text class=\"lbl\" x=\"10\" "
			"y=\"20\">No hard IRQ ran during the recording (no placement counts in "
			"the trace).</text></svg>\n",
			CHART_W);
		return 0;
	}
	cw = fmin(40, fmax(3, (double)(CHART_W - 260) / m->n_cpus));
	fprintf(h->out,
		"<p class=\"note\">Hard IRQ handler runs per CPU over the recording (the"
		" %zu busiest of %zu IRQs); the probe's CPUs are outlined in red, NIC IRQs in"
		" bold.</p>\n<svg id=\"irq-heatmap\" width=\"%d\" height=\"%.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		rows, m->n_irqs_all, CHART_W, 40 + rows * 17.0);
	for (size_t r = 0; r < rows; r++) {
		double y = 26 + r * 17.0;

		irq_label(h, r, y);
		for (uint32_t c = 0; c < m->n_cpus; c++) {
			uint64_t v = m->counts[r * m->n_cpus + c];

			heat(color, sizeof(color), v, max);
			fprintf(h->out,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" "
				"fill=\"%s\"><title>irq %u on cpu %u: %llu</title></rect>",
				240 + c * cw, y, cw - 1, color, m->irqs[r], c,
				(unsigned long long)v);
		}
		fputc('\n', h->out);
	}
	irq_header(h, rows, cw);
	fputs("</svg>\n", h->out);
	return 0;
}

/* ---- the top spikes' timelines ------------------------------------------------------------ */

struct span_x {
	double lo, hi; /* ns of the window's ends */
	double x0, x1; /* their pixels */
};

static double span_px(const struct span_x *s, double ns)
{
	double x = s->x0 + (ns - s->lo) / (s->hi - s->lo) * (s->x1 - s->x0);

	return fmin(fmax(x, s->x0), s->x1);
}

static void spike_row(struct html *h, const struct span_x *sx, const struct tc_contrib *k, double y)
{
	const struct tc_event *e = &h->m->t->events[k->event];
	double x0 = span_px(sx, (double)e->start_ns);
	double x1 = span_px(sx, (double)e->start_ns + (double)e->dur_ns);
	char detail[256], credit[32];

	const struct tc_calib_kind *cal =
		h->m->h.calibrated && e->dur_ns ? calibrate_kind(&h->m->h.cal, e->kind) : NULL;

	describe_event(h->m->t, e, detail, sizeof(detail));
	html_fmt_ns((double)k->attributed_ns, credit, sizeof(credit));
	fprintf(h->out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", 250,
		y + 10);
	html_esc(h->out, h->m->a->causes[k->cause].name);
	if (cal) {
		/* the calibrated hidden cost on either side: hollow, the colour of the cause */
		double a = span_px(sx, (double)e->start_ns - (double)cal->pre_ns),
		       b = span_px(sx,
				   (double)e->start_ns + (double)e->dur_ns + (double)cal->post_ns);

		fprintf(h->out,
			"</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" "
			"fill=\"none\" stroke=\"%s\" stroke-dasharray=\"2,2\"><title>hidden cost "
			"(calibrated): %.3f us before, %.3f us after</title></rect>",
			a, y, fmax(b - a, 1.5), html_cause_color(h, k->cause),
			(double)cal->pre_ns / 1e3, (double)cal->post_ns / 1e3);
	}
	fprintf(h->out,
		"%s<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\""
		"%s><title>",
		cal ? "" : "</text>", x0, y, fmax(x1 - x0, 1.5), html_cause_color(h, k->cause),
		k->nested ? " fill-opacity=\"0.35\"" : "");
	html_esc(h->out, detail);
	fprintf(h->out, "; credit %s%s%s", credit, describe_mark(k) ? "; " : "",
		describe_mark(k) ? describe_mark(k) : "");
	if (describe_chain_mark(h->m->t, k))
		fprintf(h->out, "; %s", describe_chain_mark(h->m->t, k));
	if (k->hidden_ns)
		fprintf(h->out, " (of which %.3f us hidden)", (double)k->hidden_ns / 1e3);
	fputs("</title></rect>\n", h->out);
}

/* Below a spike's timeline: whom its thread waited on (the wait chain), its hw-noise or
 * cpu-variance, or why it has no cause. */
static void spike_words(struct html *h, const struct tc_spike *sp)
{
	char why[320];
	uint32_t depth;
	size_t pos = 0;

	while (report_chain_next(h->m, sp, &pos, &depth, why, sizeof(why))) {
		fputs(depth == 1 ? "<p class=\"note\">waited on "
				 : "<p class=\"note\">which waited on ",
		      h->out);
		html_esc(h->out, why);
		fputs(".</p>\n", h->out);
	}
	if (sp->hw_noise_ns)
		report_hw_noise_sentence(h->m, sp, why, sizeof(why));
	else if (sp->variance_ns)
		report_cpu_variance_sentence(h->m, sp, why, sizeof(why));
	else
		report_unexplained_words(h->m, sp, why, sizeof(why));
	if (sp->hw_noise_ns)
		fprintf(h->out,
			"<p class=\"note\">hw-noise %.3f us: ", rm_lat_us(h->m, sp->hw_noise_ns));
	else if (sp->variance_ns)
		fprintf(h->out, "<p class=\"note\">cpu-variance %.3f us: ",
			rm_lat_us(h->m, sp->variance_ns));
	else if (why[0])
		fputs("<p class=\"note\">", h->out);
	else
		return;
	html_esc(h->out, why);
	fputs(".</p>\n", h->out);
}

static void spike_chart(struct html *h, size_t rank, const struct tc_spike *sp)
{
	const struct tc_analysis *a = h->m->a;
	const struct tc_sample *s = &h->m->t->samples[sp->sample];
	size_t pick[SPIKE_ROWS], n = plot_timeline_pick(h->m->t, a, sp, SPIKE_ROWS, pick);
	double pad = (double)(s->t_end - s->t_start) * 0.1 + 1;
	struct span_x sx = {(double)s->t_start - pad, (double)s->t_end + pad, 260, PLOT_X1};
	char lat[32];

	html_fmt_ns(rm_lat_ns(h->m, sp->rtt_ns), lat, sizeof(lat));
	fprintf(h->out, "<h3>#%zu: %s %s at +%.6f s, cpu %d: ", rank, lat, rm_lat_what(h->m),
		(double)(s->t_start - h->m->h.first_sample_ns) / 1e9,
		s->cpu == UINT32_MAX ? -1 : (int)s->cpu);
	html_esc(h->out, a->causes[sp->primary].name);
	fprintf(h->out,
		" (%.0f%% explained)</h3>\n<svg class=\"spike\" width=\"%d\" height=\"%zu\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		sp->explained * 100, CHART_W, n * 16 + 44);
	fprintf(h->out,
		"<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%zu\" fill=\"#fff4c2\"/>"
		"<text class=\"tick\" x=\"250\" y=\"14\" text-anchor=\"end\">round trip</text>"
		"<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"12\" fill=\"#333\"/>\n",
		span_px(&sx, (double)s->t_start),
		span_px(&sx, (double)s->t_end) - span_px(&sx, (double)s->t_start), n * 16 + 24,
		span_px(&sx, (double)s->t_start),
		fmax(span_px(&sx, (double)s->t_end) - span_px(&sx, (double)s->t_start), 1.5));
	for (size_t i = 0; i < n; i++)
		spike_row(h, &sx, &a->contribs[sp->first_contrib + pick[i]], 22 + i * 16.0);
	if (!sp->n_contrib)
		fputs("<text class=\"tick\" x=\"270\" y=\"36\">no traced event overlaps this round"
		      " trip</text>\n",
		      h->out);
	fprintf(h->out,
		"<text class=\"tick\" x=\"260\" y=\"%zu\">-%.3f us</text><text class=\"tick\""
		" x=\"%d\" y=\"%zu\" text-anchor=\"end\">+%.3f us</text></svg>\n",
		n * 16 + 38, pad / 1e3, PLOT_X1, n * 16 + 38, (sx.hi - (double)s->t_start) / 1e3);
	spike_words(h, sp);
	if (n < sp->n_contrib)
		fprintf(h->out,
			"<p class=\"note\">%zu more overlapping events with less credit not"
			" drawn.</p>\n",
			sp->n_contrib - n);
}

int html_chart_spikes(struct html *h)
{
	const struct tc_analysis *a = h->m->a;
	size_t n = h->m->n_top < SPIKE_CHARTS ? h->m->n_top : SPIKE_CHARTS;

	if (!n)
		return 0;
	fputs("<h2>Top spikes</h2>\n<p class=\"note\">Each round trip (shaded) with the traced"
	      " intervals that overlap it, coloured by cause; pale bars are nested in a parent and"
	      " counted there. Hover for details.</p>\n",
	      h->out);
	for (size_t i = 0; i < n; i++)
		spike_chart(h, i + 1, &a->spikes[h->m->ranked[i]]);
	return 0;
}
