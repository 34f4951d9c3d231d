/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report_html.h - private to the HTML report: the page (report_html.c) and its
 * inline SVG charts (report_html_charts.c, report_html_heatmaps.c,
 * report_html_noise.c); report_stream.c builds the latency chart's columns.
 */
#ifndef TAILCAUSE_REPORT_REPORT_HTML_H
#define TAILCAUSE_REPORT_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util/units.h"
#include "report.h"

/* Chart geometry: the plot area inside an SVG of CHART_W x height. */
#define CHART_W 1040
#define PLOT_X0 78
#define PLOT_X1 (CHART_W - 24)
/* The latency-over-time chart: one column per pixel. */
#define HTML_SERIES_COLUMNS (PLOT_X1 - PLOT_X0)

struct html {
	FILE *out;
	const struct report_model *m;
	uint32_t *color_of; /* cause index -> palette slot (by rank), for a->causes or
			     * noise->causes */
	size_t n_causes;
};

/* The page's head (title, the style sheet) up to <body>, and its end; for every page. */
void html_page_start(FILE *out, const char *title);
void html_page_end(FILE *out);

/* The fill colour of cause i ("#rrggbb"). */
const char *html_cause_color(const struct html *h, uint32_t cause);
/* Palette colour i, for series that are not causes (threads). */
const char *html_palette(size_t i);
/*
 * Writes s with &, <, >, " and ' as entities, and what lib/str.h's rule escapes
 * (control bytes, invalid UTF-8) as \xNN text; NULL writes nothing.
 */
void html_esc(FILE *out, const char *s);
/* A duration in ns as "850 ns", "12.3 us", "4.56 ms", "1.23 s". */
#define html_fmt_ns(ns, buf, len) units_duration((ns), 3, (buf), (len))
/*
 * One row of a horizontal bar chart at y: the name right-aligned before x=300,
 * a bar of share * bar_w in the cause's colour, then "share%, amount, n unit".
 */
void html_bar_row(const struct html *h, double y, const char *name, double share, double bar_w,
		  uint32_t cause, const char *amount, unsigned long long n, const char *unit);

/* A log10 axis: value -> pixel. */
struct log_axis {
	double l0, l1; /* log10 of the ends */
	double p0, p1; /* pixels of the ends */
};

void log_axis_init(struct log_axis *ax, double v0, double v1, double p0, double p1);
double log_axis_px(const struct log_axis *ax, double v);
/* Grid lines and labels at powers of ten (of ns, labelled as durations): vertical axis. */
void html_log_ticks_y(FILE *out, const struct log_axis *ax, double x0, double x1);
/* The same on a horizontal axis. */
void html_log_ticks_x(FILE *out, const struct log_axis *ax, double y0, double y1);

/* The charts; each writes one <section>. 0 or -ENOMEM. */
int html_chart_series(struct html *h);
int html_chart_hist(struct html *h);
int html_chart_causes(struct html *h);
int html_chart_irqs(struct html *h);
int html_chart_spikes(struct html *h);
int html_chart_noise(struct html *h);

#endif /* TAILCAUSE_REPORT_REPORT_HTML_H */
