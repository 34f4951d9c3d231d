// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_rank.c - `tailcause rank` in words, as JSON (docs/rank-schema.md) and as
 * an HTML page. Formatting only: the ranking is core/compare/rank.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "report_common.h"
#include "report_html.h"

#define RANK_SCHEMA_VERSION 1

static const char *outlier_word(int o)
{
	return o > 0 ? "slow outlier" : o < 0 ? "fast outlier" : "";
}

/* "preemption:cc1 (61 %), timer (12 %)": a node's top causes with their share of its excess. */
static void top_causes(const struct rk_node *k, char *buf, size_t len)
{
	const struct summary *s = k->s;
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < k->n_top && n < len; i++) {
		const struct sm_cause *c = &s->causes[k->top[i]];
		double share =
			s->total_excess_ns > 0 ? 100.0 * c->excess_ns / s->total_excess_ns : 0;

		n += (size_t)snprintf(buf + n, len - n, "%s%s (%.0f %%)", i ? ", " : "", c->name,
				      share);
	}
	if (!k->n_top)
		snprintf(buf, len, "no spike");
}

static void failing(const struct rk_node *k, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (!k->s->has_audit) {
		snprintf(buf, len, "(no audit in the run)");
		return;
	}
	for (size_t i = 0; i < k->n_failing && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      audit_info(k->failing[i])->name);
	if (!k->n_failing)
		snprintf(buf, len, "none");
}

int rank_text(FILE *out, const struct rank *r)
{
	const char *fig = summary_figure_name(r->by);
	char causes[512], checks[256];

	fprintf(out, "tailcause rank  %zu node%s by %s, worst first\n", r->n, r->n == 1 ? "" : "s",
		fig);
	fprintf(out, "  fleet       median %s %.3f usec, median absolute deviation %.3f usec\n",
		fig, NS_US(r->median_ns), NS_US(r->mad_ns));
	if (!r->same_probe)
		fprintf(out, "  WARNING     %s: the figures may not be comparable\n", r->mismatch);
	fprintf(out, "\n  %4s %-24s %14s %8s  %-12s  %s\n", "rank", "node", fig, "z", "outlier",
		"top causes");
	for (size_t i = 0; i < r->n; i++) {
		const struct rk_node *k = &r->nodes[i];

		top_causes(k, causes, sizeof(causes));
		failing(k, checks, sizeof(checks));
		fprintf(out, "  %4zu %-24.24s %9.3f usec %+8.1f  %-12s  %s\n", i + 1, k->s->host,
			NS_US(k->value_ns), k->z, k->outlier ? outlier_word(k->outlier) : "-",
			causes);
		fprintf(out, "  %4s %s; failing checks: %s\n", "", k->s->source, checks);
	}
	fprintf(out,
		"\ncauses the worst %zu node%s share (among the top %d causes of at least half"
		" of them)\n",
		r->n_worst, r->n_worst == 1 ? "" : "s", RK_TOP_CAUSES);
	if (!r->n_shared)
		fprintf(out, "  none\n");
	for (size_t i = 0; i < r->n_shared; i++)
		fprintf(out, "  %-44s %zu of the worst %zu, %zu of all %zu\n", r->shared[i].name,
			r->shared[i].worst_nodes, r->n_worst, r->shared[i].all_nodes, r->n);
	fprintf(out, "\noutliers (a robust z-score beyond %.1f: median and MAD)\n", RK_OUTLIER_Z);
	if (!r->n_outliers)
		fprintf(out, "  none\n");
	for (size_t i = 0; i < r->n; i++)
		if (r->nodes[i].outlier)
			fprintf(out, "  %s: %s %.3f usec, %s (z %+.1f)\n", r->nodes[i].s->host, fig,
				NS_US(r->nodes[i].value_ns), outlier_word(r->nodes[i].outlier),
				r->nodes[i].z);
	return 0;
}

int rank_json(FILE *out, const struct rank *r)
{
	struct json j;

	json_init(&j, out);
	json_obj(&j, NULL);
	compare_json_head(&j, "tailcause-rank", RANK_SCHEMA_VERSION);
	json_str(&j, "by", summary_figure_name(r->by));
	json_num(&j, "median_us", NS_US(r->median_ns), 3);
	json_num(&j, "mad_us", NS_US(r->mad_ns), 3);
	json_num(&j, "outlier_z", RK_OUTLIER_Z, 1);
	json_bool(&j, "same_probe", r->same_probe);
	json_str(&j, "mismatch", r->same_probe ? NULL : r->mismatch);
	json_arr(&j, "nodes");
	for (size_t i = 0; i < r->n; i++) {
		const struct rk_node *k = &r->nodes[i];
		const struct summary *s = k->s;

		json_obj(&j, NULL);
		json_u64(&j, "rank", i + 1);
		json_str(&j, "host", s->host);
		json_str(&j, "source", s->source);
		json_str(&j, "probe", s->probe);
		json_u64(&j, "samples", s->n);
		json_num(&j, "value_us", NS_US(k->value_ns), 3);
		json_num(&j, "z", k->z, 2);
		json_str(&j, "outlier", k->outlier > 0 ? "slow" : k->outlier < 0 ? "fast" : NULL);
		json_arr(&j, "top_causes");
		for (size_t t = 0; t < k->n_top; t++) {
			const struct sm_cause *c = &s->causes[k->top[t]];

			json_obj_compact(&j, NULL);
			json_str(&j, "name", c->name);
			json_u64(&j, "spikes", c->spikes);
			json_num(&j, "excess_us", NS_US(c->excess_ns), 3);
			json_end(&j);
		}
		json_end(&j);
		if (s->has_audit) {
			json_arr_compact(&j, "failing_checks");
			for (size_t f = 0; f < k->n_failing; f++)
				json_str(&j, NULL, audit_info(k->failing[f])->name);
			json_end(&j);
		} else {
			json_null(&j, "failing_checks");
		}
		json_end(&j);
	}
	json_end(&j);
	json_u64(&j, "worst_nodes", r->n_worst);
	json_arr(&j, "shared_causes");
	for (size_t i = 0; i < r->n_shared; i++) {
		json_obj_compact(&j, NULL);
		json_str(&j, "name", r->shared[i].name);
		json_u64(&j, "worst_nodes", r->shared[i].worst_nodes);
		json_u64(&j, "all_nodes", r->shared[i].all_nodes);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	return 0;
}

/* ---- HTML ----------------------------------------------------------------------------- */

/* One bar per node, worst first, on a log axis; outliers in red, the median dashed. */
static void rank_chart(FILE *out, const struct rank *r)
{
	double lo = INFINITY, hi = 0, height = 30.0 + 20.0 * (double)r->n;
	struct log_axis ax;

	for (size_t i = 0; i < r->n; i++) {
		lo = fmin(lo, r->nodes[i].value_ns);
		hi = fmax(hi, r->nodes[i].value_ns);
	}
	log_axis_init(&ax, lo > 0 ? lo / 2 : 1, hi * 1.2 + 1, 300, PLOT_X1);
	fprintf(out,
		"<svg id=\"rank\" width=\"%d\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		CHART_W, height + 24);
	html_log_ticks_x(out, &ax, 4, height);
	for (size_t i = 0; i < r->n; i++) {
		const struct rk_node *k = &r->nodes[i];
		double y = 10 + 20.0 * (double)i, w = log_axis_px(&ax, k->value_ns) - 300;
		char v[32];

		units_duration(k->value_ns, 3, v, sizeof(v));
		fprintf(out, "<text class=\"lbl\" x=\"290\" y=\"%.1f\" text-anchor=\"end\">",
			y + 13);
		html_esc(out, k->s->host);
		fprintf(out,
			"</text><rect x=\"300\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\">"
			"<title>%s z %+.1f</title></rect>\n",
			y, fmax(w, 1),
			k->outlier > 0	 ? "#d62728"
			: k->outlier < 0 ? "#2ca02c"
					 : "#4a90c2",
			v, k->z);
	}
	fprintf(out,
		"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"4\" y2=\"%.0f\" stroke=\"#252525\" "
		"stroke-dasharray=\"5,4\"/></svg>\n",
		log_axis_px(&ax, r->median_ns), log_axis_px(&ax, r->median_ns), height);
}

int rank_html(FILE *out, const struct rank *r)
{
	const char *fig = summary_figure_name(r->by);
	char causes[512], checks[256];

	html_page_start(out, "tailcause rank");
	fprintf(out,
		"<h1>tailcause rank</h1>\n<p>%zu node%s by %s, worst first; fleet median %.3f us,"
		" median absolute deviation %.3f us.</p>\n",
		r->n, r->n == 1 ? "" : "s", fig, NS_US(r->median_ns), NS_US(r->mad_ns));
	if (!r->same_probe)
		compare_html_mismatch(out, r->mismatch);
	fprintf(out,
		"<h2>Nodes by %s</h2>\n<p class=\"note\">Outliers (a robust z-score beyond %.1f)"
		" in red (slow) or green (fast); the dashed line is the fleet's median.</p>\n",
		fig, RK_OUTLIER_Z);
	rank_chart(out, r);
	fputs("<table class=\"num\"><tr><th>rank</th><th>node</th><th>value [us]</th><th>z</th>"
	      "<th>top causes</th><th>failing checks</th></tr>\n",
	      out);
	for (size_t i = 0; i < r->n; i++) {
		const struct rk_node *k = &r->nodes[i];

		top_causes(k, causes, sizeof(causes));
		failing(k, checks, sizeof(checks));
		fprintf(out, "<tr><td>%zu</td><td class=\"l\">", i + 1);
		html_esc(out, k->s->host);
		fprintf(out, "</td><td>%.3f</td><td>%+.1f%s</td><td class=\"l\">",
			NS_US(k->value_ns), k->z, k->outlier ? " *" : "");
		html_esc(out, causes);
		fputs("</td><td class=\"l\">", out);
		html_esc(out, checks);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	fprintf(out, "<h2>Causes the worst %zu nodes share</h2>\n", r->n_worst);
	if (!r->n_shared)
		fputs("<p>None: the worst nodes have no top cause in common.</p>\n", out);
	else
		fputs("<table class=\"num\"><tr><th>cause</th><th>worst nodes</th><th>all nodes</th>"
		      "</tr>\n",
		      out);
	for (size_t i = 0; i < r->n_shared; i++) {
		fputs("<tr><td class=\"l\">", out);
		html_esc(out, r->shared[i].name);
		fprintf(out, "</td><td>%zu of %zu</td><td>%zu of %zu</td></tr>\n",
			r->shared[i].worst_nodes, r->n_worst, r->shared[i].all_nodes, r->n);
	}
	if (r->n_shared)
		fputs("</table>\n", out);
	html_page_end(out);
	return 0;
}
