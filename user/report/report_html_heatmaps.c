// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_html_maps.c - the HTML report's IRQ placement heat-map, the top
 * spikes' timelines, and the charts of a noise report. Formatting only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/plot.h"
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

static void irq_label(struct html *h, const struct plot_irq_matrix *m, size_t r, double y)
{
	const struct tc_trace *t = h->d->t;
	const char *name = trace__irq_name(t, m->irqs[r]);
	struct tc_event e = {.kind = TC_EV_HARDIRQ, .arg = m->irqs[r]};
	char cls[TC_CAUSE_NAME_LEN];
	int nic = causes_name_event(t, &e, h->d->o->nic_irq_pattern, cls, sizeof(cls)) ==
		  TC_CAUSE_NIC_IRQ;

	fprintf(h->out, "<text class=\"lbl\" x=\"232\" y=\"%.1f\" text-anchor=\"end\"%s>%u ",
		y + 12, nic ? " font-weight=\"bold\"" : "", m->irqs[r]);
	html_esc(h->out, name ? name : "?");
	fprintf(h->out, "%s</text>\n", nic ? " (NIC)" : "");
}

static void irq_header(struct html *h, const struct plot_irq_matrix *m, const unsigned char *probe,
		       double cw)
{
	uint32_t every = cw >= 16 ? 1 : (uint32_t)ceil(16 / cw);

	for (uint32_t c = 0; c < m->n_cpus; c++) {
		double x = 240 + c * cw;

		if (probe[c])
			fprintf(h->out,
				"<rect x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>",
				x, cw, 22 + m->n_irqs * 17.0);
		if (c % every == 0 || probe[c])
			fprintf(h->out,
				"<text class=\"tick\" x=\"%.1f\" y=\"20\" text-anchor=\"middle\""
				"%s>%u</text>\n",
				x + cw / 2,
				probe[c] ? " fill=\"#d62728\" font-weight=\"bold\"" : "", c);
	}
}

int html_chart_irqs(struct html *h)
{
	struct plot_irq_matrix m;
	unsigned char probe[TC_MAX_CPUS];
	double cw;
	char color[16];
	int err = plot_irq_matrix(h->d->t, IRQ_ROWS, &m);

	if (err)
		return err;
	fputs("<h2>IRQ placement</h2>\n", h->out);
	if (!m.n_irqs) {
		fprintf(h->out,
			"<svg id=\"irq-heatmap\" width=\"%d\" height=\"30\" "
			"xmlns=\"http://www.w3.org/2000/svg\"><text class=\"lbl\" x=\"10\" "
			"y=\"20\">No hard IRQ ran during the recording (no placement counts in "
			"the trace).</text></svg>\n",
			CHART_W);
		return 0;
	}
	report_probe_cpus(h->d->t, probe, sizeof(probe));
	cw = fmin(40, fmax(3, (double)(CHART_W - 260) / m.n_cpus));
	fprintf(h->out,
		"<p class=\"note\">Hard IRQ handler runs per CPU over the recording (the"
		" %zu busiest of %zu IRQs); the probe's CPUs are outlined in red, NIC IRQs in"
		" bold.</p>\n<svg id=\"irq-heatmap\" width=\"%d\" height=\"%.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		m.n_irqs, m.n_irqs_all, CHART_W, 40 + m.n_irqs * 17.0);
	for (size_t r = 0; r < m.n_irqs; r++) {
		double y = 26 + r * 17.0;

		irq_label(h, &m, r, y);
		for (uint32_t c = 0; c < m.n_cpus; c++) {
			uint64_t v = m.counts[r * m.n_cpus + c];

			heat(color, sizeof(color), v, m.max);
			fprintf(h->out,
				"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" "
				"fill=\"%s\"><title>irq %u on cpu %u: %llu</title></rect>",
				240 + c * cw, y, cw - 1, color, m.irqs[r], c,
				(unsigned long long)v);
		}
		fputc('\n', h->out);
	}
	irq_header(h, &m, probe, cw);
	fputs("</svg>\n", h->out);
	plot_irq_matrix__free(&m);
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
	const struct tc_event *e = &h->d->t->events[k->event];
	double x0 = span_px(sx, (double)e->start_ns);
	double x1 = span_px(sx, (double)e->start_ns + (double)e->dur_ns);
	char detail[256], credit[32];

	report_event_detail(h->d->t, e, detail, sizeof(detail));
	html_fmt_ns((double)k->attributed_ns, credit, sizeof(credit));
	fprintf(h->out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", 250,
		y + 10);
	html_esc(h->out, h->d->a->causes[k->cause].name);
	fprintf(h->out,
		"</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\""
		"%s><title>",
		x0, y, fmax(x1 - x0, 1.5), html_cause_color(h, k->cause),
		k->nested ? " fill-opacity=\"0.35\"" : "");
	html_esc(h->out, detail);
	fprintf(h->out, "; credit %s%s</title></rect>\n", credit,
		k->nested ? "; nested: counted in its parent" : "");
}

static void spike_chart(struct html *h, size_t rank, const struct tc_spike *sp)
{
	const struct tc_analysis *a = h->d->a;
	const struct tc_sample *s = &h->d->t->samples[sp->sample];
	size_t pick[SPIKE_ROWS], n = plot_timeline_pick(a, sp, SPIKE_ROWS, pick);
	double pad = (double)(s->t_end - s->t_start) * 0.1 + 1;
	struct span_x sx = {(double)s->t_start - pad, (double)s->t_end + pad, 260, PLOT_X1};
	char lat[32];

	html_fmt_ns(LAT_NS(h->d, sp->rtt_ns), lat, sizeof(lat));
	fprintf(h->out, "<h3>#%zu: %s %s at +%.6f s, cpu %d: ", rank, lat, LAT_WHAT(h->d),
		(double)(s->t_start - h->d->t->samples[0].t_start) / 1e9,
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
	if (n < sp->n_contrib)
		fprintf(h->out,
			"<p class=\"note\">%zu more overlapping events with less credit not"
			" drawn.</p>\n",
			sp->n_contrib - n);
}

int html_chart_spikes(struct html *h)
{
	const struct tc_analysis *a = h->d->a;
	unsigned int top = h->d->o->top < SPIKE_CHARTS ? h->d->o->top : SPIKE_CHARTS;
	size_t idx[SPIKE_CHARTS], n;

	if (!a->n_spikes || !top)
		return 0;
	n = analysis_top_spikes(a, idx, top);
	fputs("<h2>Top spikes</h2>\n<p class=\"note\">Each round trip (shaded) with the traced"
	      " intervals that overlap it, coloured by cause; pale bars are nested in a parent and"
	      " counted there. Hover for details.</p>\n",
	      h->out);
	for (size_t i = 0; i < n; i++)
		spike_chart(h, i + 1, &a->spikes[idx[i]]);
	return 0;
}
