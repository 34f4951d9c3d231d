// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_diff.c - `tailcause diff` in words and as JSON (docs/diff-schema.md).
 * Formatting only: the comparison is core/compare/diff.c's.
 */
#include <inttypes.h>
#include <string.h>

#include "compare.h"
#include "report_common.h"

#define DIFF_SCHEMA_VERSION 1

static const char *run_label(int i)
{
	return i ? "after" : "before";
}

static void print_run(FILE *out, const struct diff *d, int i)
{
	const struct summary *s = d->run[i];

	fprintf(out, "  %-11s %s: %s, %s, %" PRIu64 " %s; resampled %s\n", run_label(i), s->source,
		s->host, s->probe, s->n,
		s->div == 2 ? "round trips (one way = RTT/2)" : "iterations", d->method[i]);
}

static void print_figures(FILE *out, const struct diff *d)
{
	fprintf(out, "\n %-9s %14s %14s %14s  %-28s %s\n", "figure", "before[usec]", "after[usec]",
		"change[usec]", "95% interval[usec]", "verdict");
	for (int f = 0; f < SM_FIGURES; f++) {
		const struct df_figure *g = &d->figs[f];
		char ci[64];

		if (g->has_ci)
			snprintf(ci, sizeof(ci), "[%+.3f, %+.3f]", NS_US(g->lo_ns),
				 NS_US(g->hi_ns));
		else
			snprintf(ci, sizeof(ci), "(none for the largest)");
		fprintf(out, " %-9s %14.3f %14.3f %+14.3f  %-28s %s\n", summary_figure_name(g->f),
			NS_US(g->before_ns), NS_US(g->after_ns), NS_US(g->after_ns - g->before_ns),
			ci, g->has_ci ? diff_verdict_name(g->verdict) : "-");
	}
}

static void print_causes(FILE *out, const struct diff *d)
{
	if (!d->n_causes) {
		fprintf(out, "\ncauses: no spike in either run\n");
		return;
	}
	fprintf(out, "\ncauses, per million %s\n  %-44s %19s %33s\n",
		d->run[0]->div == 2 ? "round trips" : "iterations", "", "spikes", "excess[usec]");
	fprintf(out, "  %-44s %9s %9s %16s %16s  %s\n", "cause", "before", "after", "before",
		"after", "verdict");
	for (size_t i = 0; i < d->n_causes; i++) {
		const struct df_cause *c = &d->causes[i];

		fprintf(out, "  %-44.44s %9.2f %9.2f %16.3f %16.3f  %s\n", c->name, c->spikes_pm[0],
			c->spikes_pm[1], NS_US(c->excess_pm_ns[0]), NS_US(c->excess_pm_ns[1]),
			diff_verdict_name(c->verdict));
	}
	fprintf(out,
		"  (verdicts from an exact test of the two runs' spike counts, p < %.2f; unchanged"
		" also means too few spikes to tell)\n",
		DF_ALPHA_CAUSE);
}

static void print_checks(FILE *out, const struct diff *d)
{
	fprintf(out, "\nhost audit changes\n");
	if (!d->run[0]->has_audit || !d->run[1]->has_audit) {
		fprintf(out, "  (a run carries no audit snapshot: nothing to compare)\n");
		return;
	}
	if (!d->n_checks)
		fprintf(out, "  none: every check reads as it did\n");
	for (size_t i = 0; i < d->n_checks; i++) {
		const struct df_check *c = &d->checks[i];
		char text[1024];
		int n = snprintf(text, sizeof(text), "%s: %s -> %s (%s -> %s)",
				 audit_info(c->id)->name, audit_status_name(c->status[0]),
				 audit_status_name(c->status[1]), c->summary[0], c->summary[1]);

		for (size_t k = 0; k < c->n_causes && n > 0 && (size_t)n < sizeof(text); k++) {
			const struct df_cause *dc = &d->causes[c->causes[k]];

			n += snprintf(text + n, sizeof(text) - (size_t)n,
				      "; %s spikes %" PRIu64 " -> %" PRIu64 " (%s)", dc->name,
				      dc->spikes[0], dc->spikes[1], diff_verdict_name(dc->verdict));
		}
		report_wrap(out, "  - ", text, strlen(text), 100, 4);
	}
}

int diff_text(FILE *out, const struct diff *d)
{
	fprintf(out, "tailcause diff  %s -> %s\n", d->run[0]->source, d->run[1]->source);
	for (int i = 0; i < 2; i++)
		print_run(out, d, i);
	if (!d->same_probe)
		fprintf(out, "  WARNING     %s: the figures may not be comparable\n", d->mismatch);
	fprintf(out,
		"  bootstrap   %zu resamples of each run; the interval is of the change"
		" (after - before)\n",
		d->resamples);
	print_figures(out, d);
	print_causes(out, d);
	print_checks(out, d);
	return 0;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_run(struct json *j, const struct diff *d, int i)
{
	const struct summary *s = d->run[i];

	json_obj(j, run_label(i));
	json_str(j, "source", s->source);
	json_str(j, "host", s->host);
	json_str(j, "kernel", s->kernel);
	json_str(j, "probe", s->probe);
	if (s->has_bytes)
		json_u64(j, "message_bytes", s->bytes);
	else
		json_null(j, "message_bytes");
	json_bool(j, "one_way", s->div == 2);
	json_u64(j, "samples", s->n);
	json_str(j, "resampled", d->method[i]);
	json_bool(j, "audit", s->has_audit);
	json_end(j);
}

static void json_figures(struct json *j, const struct diff *d)
{
	json_arr(j, "figures");
	for (int f = 0; f < SM_FIGURES; f++) {
		const struct df_figure *g = &d->figs[f];

		json_obj_compact(j, NULL);
		json_str(j, "name", summary_figure_name(g->f));
		json_num(j, "before_us", NS_US(g->before_ns), 3);
		json_num(j, "after_us", NS_US(g->after_ns), 3);
		json_num(j, "change_us", NS_US(g->after_ns - g->before_ns), 3);
		if (g->has_ci) {
			json_num(j, "ci_lo_us", NS_US(g->lo_ns), 3);
			json_num(j, "ci_hi_us", NS_US(g->hi_ns), 3);
			json_bool(j, "significant", g->significant);
			json_str(j, "verdict", diff_verdict_name(g->verdict));
		} else {
			json_null(j, "ci_lo_us");
			json_null(j, "ci_hi_us");
			json_null(j, "significant");
			json_null(j, "verdict");
		}
		json_end(j);
	}
	json_end(j);
}

static void json_causes(struct json *j, const struct diff *d)
{
	json_arr(j, "causes");
	for (size_t i = 0; i < d->n_causes; i++) {
		const struct df_cause *c = &d->causes[i];

		json_obj_compact(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "class", causes_info(c->cls)->prefix);
		json_u64(j, "spikes_before", c->spikes[0]);
		json_u64(j, "spikes_after", c->spikes[1]);
		json_num(j, "spikes_per_m_before", c->spikes_pm[0], 3);
		json_num(j, "spikes_per_m_after", c->spikes_pm[1], 3);
		json_num(j, "excess_per_m_us_before", NS_US(c->excess_pm_ns[0]), 3);
		json_num(j, "excess_per_m_us_after", NS_US(c->excess_pm_ns[1]), 3);
		json_num(j, "p_value", c->p_value, 6);
		json_str(j, "verdict", diff_verdict_name(c->verdict));
		json_end(j);
	}
	json_end(j);
}

static void json_checks(struct json *j, const struct diff *d)
{
	if (!d->run[0]->has_audit || !d->run[1]->has_audit) {
		json_null(j, "audit_changes");
		return;
	}
	json_arr(j, "audit_changes");
	for (size_t i = 0; i < d->n_checks; i++) {
		const struct df_check *c = &d->checks[i];

		json_obj(j, NULL);
		json_str(j, "check", audit_info(c->id)->name);
		json_str(j, "status_before", audit_status_name(c->status[0]));
		json_str(j, "status_after", audit_status_name(c->status[1]));
		json_str(j, "summary_before", c->summary[0]);
		json_str(j, "summary_after", c->summary[1]);
		json_arr_compact(j, "causes");
		for (size_t k = 0; k < c->n_causes; k++)
			json_str(j, NULL, d->causes[c->causes[k]].name);
		json_end(j);
		json_end(j);
	}
	json_end(j);
}

int diff_json(FILE *out, const struct diff *d)
{
	struct json j;

	json_init(&j, out);
	json_obj(&j, NULL);
	compare_json_head(&j, "tailcause-diff", DIFF_SCHEMA_VERSION);
	json_run(&j, d, 0);
	json_run(&j, d, 1);
	json_bool(&j, "same_probe", d->same_probe);
	json_str(&j, "mismatch", d->same_probe ? NULL : d->mismatch);
	json_u64(&j, "resamples", d->resamples);
	json_num(&j, "alpha_causes", DF_ALPHA_CAUSE, 2);
	json_figures(&j, d);
	json_causes(&j, d);
	json_checks(&j, d);
	json_end(&j);
	return 0;
}
