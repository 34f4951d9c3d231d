// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text.c - the terminal report: what was traced, perftest-style
 * statistics with a verdict, the cause table, the top spikes with their
 * timelines, and one recommendation per measured cause. Formatting only.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/plot.h"
#include "core/verdict.h"
#include "report.h"
#include "report_common.h"

#define US(ns) NS_US(ns)
/* Events listed per spike: those with the most credit, in time order. */
#define TIMELINE_MAX 40

/* The statistics table; div 2 prints RTTs as one-way latencies, 1 as they are. */
static void stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes, unsigned int div)
{
	double f = 1000.0 * div;

	fprintf(out, " %-7s %-11s %-12s %-12s %-15s %-12s %-14s %-22s %s\n", "#bytes",
		"#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]",
		"t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
	fprintf(out, " %-7zu %-11zu %-12.3f %-12.3f %-15.3f %-12.3f %-14.3f %-22.3f %.3f\n",
		msg_bytes, s->n, (double)s->min / f, (double)s->max / f, (double)s->p50 / f,
		s->mean / f, s->stdev / f, (double)s->p99 / f, (double)s->p999 / f);
	fprintf(out,
		" 99.99%%: %.3f usec   99.999%%: %.3f usec   (%s; every sample kept,"
		" unlike perftest which drops the two largest)\n",
		(double)s->p9999 / f, (double)s->p99999 / f,
		div == 2 ? "one way = RTT/2" : "each iteration as the benchmark timed it");
}

void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes)
{
	stats_table(out, s, msg_bytes, 2);
}

static const char *meta_or(const struct tc_trace *t, const char *key, const char *dflt)
{
	return report_meta_or(t, key, dflt);
}

/*
 * "traced      sched (5, tp_btf), irq (4, tp_btf), ..." from the trace's
 * tracer.<concern>.<program> keys, then one line per program that is not.
 */
static void print_tracers(FILE *out, const struct tc_trace *t)
{
	int missing = 0, printed = 0, n = 0;
	char last[32] = "";

	fprintf(out, "  traced      ");
	for (size_t i = 0; i <= t->n_meta; i++) {
		const struct tc_kv *kv = i < t->n_meta ? &t->meta[i] : NULL;
		char concern[32] = "";

		if (kv && (strncmp(kv->key, "tracer.", 7) || strncmp(kv->val, "attached ", 9)))
			continue;
		if (kv)
			snprintf(concern, sizeof(concern), "%.*s", (int)strcspn(kv->key + 7, "."),
				 kv->key + 7);
		if (n && strcmp(concern, last)) {
			fprintf(out, "%s%s (%d)", printed++ ? ", " : "", last, n);
			n = 0;
		}
		snprintf(last, sizeof(last), "%s", concern);
		n++;
	}
	fprintf(out, "%s\n", printed ? "" : "nothing");
	for (size_t i = 0; i < t->n_meta; i++) {
		const struct tc_kv *kv = &t->meta[i];

		if (strncmp(kv->key, "tracer.", 7) || !strncmp(kv->val, "attached ", 9))
			continue;
		fprintf(out, "  NOT traced  %s: %s\n", kv->key + 7, kv->val + 14);
		missing++;
	}
	if (!missing)
		fprintf(out, "  not traced  - (every program attached)\n");
}

/* What ran: the built-in probe, or a traced command and perhaps its own samples. */
static void print_workload(FILE *out, const struct tc_trace *t)
{
	const char *interrupted =
		!strcmp(meta_or(t, "run.interrupted", "no"), "yes") ? ", interrupted" : "";

	if (strcmp(meta_or(t, "run.probe", ""), "command")) {
		fprintf(out,
			"  probe       %s on CPUs %s: %zu round trips recorded (%s requested)%s\n",
			meta_or(t, "run.probe", "?"), meta_or(t, "run.cpus", "?"), t->n_samples,
			meta_or(t, "run.iterations", "?"), interrupted);
		return;
	}
	fprintf(out, "  command     %s (pid %s, %s)%s\n", meta_or(t, "run.target", "?"),
		meta_or(t, "run.target_pid", "?"),
		meta_or(t, "run.target_status", "status unknown"), interrupted);
	if (trace__meta(t, "samples.file"))
		fprintf(out, "  samples     %s: %zu iterations timed by the command (%s columns)\n",
			meta_or(t, "samples.file", "?"), t->n_samples,
			meta_or(t, "samples.columns", "?"));
	else
		fprintf(out,
			"  samples     none (no --samples): host noise per thread and interval\n");
}

/* Where events were lost: the recorder's TC_EV_LOST windows, the first few of them. */
static void print_lost(FILE *out, const struct tc_trace *t)
{
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (e->kind != TC_EV_LOST)
			continue;
		if (shown == 5) {
			more++;
			continue;
		}
		shown++;
		/* flags: the kind lost (0 in traces from before they were told apart) */
		fprintf(out,
			"  lost        %" PRIu64 " %s%srecords on cpu %u between +%.3f s and +%.3f s:"
			" spikes there may lack their cause\n",
			(uint64_t)e->aux, e->flags ? report_kind_name(e->flags) : "",
			e->flags ? " " : "", e->cpu,
			(double)((int64_t)(e->start_ns - t->mono_ns)) / 1e9,
			(double)((int64_t)(e->start_ns + e->dur_ns - t->mono_ns)) / 1e9);
	}
	if (more)
		fprintf(out, "  lost        ... and %zu more windows ('tailcause dump' lists them)\n",
			more);
}

void report_text_header(FILE *out, const struct tc_trace *t, const struct report_opts *o)
{
	uint64_t drops = trace__total_drops(t);

	fprintf(out, "tailcause report  %s\n", o->trace_kept ? o->path : "(trace not kept)");
	fprintf(out, "  host        %s  (Linux %s, %s CPUs, %s)\n", meta_or(t, "host.name", "?"),
		meta_or(t, "host.kernel", "?"), meta_or(t, "host.cpus", "?"),
		meta_or(t, "host.cpu_model", "?"));
	print_workload(out, t);
	if (trace__meta(t, "run.probe_detail"))
		fprintf(out, "  device      %s\n", trace__meta(t, "run.probe_detail"));
	fprintf(out, "  clock       %s\n", meta_or(t, "run.clock", "CLOCK_MONOTONIC"));
	print_tracers(out, t);
	fprintf(out, "  events      %zu intervals, %" PRIu64 " lost to ring-buffer overrun%s\n",
		t->n_events, drops, drops ? " (attribution may be incomplete)" : "");
	print_lost(out, t);
	if (t->truncated)
		fprintf(out,
			"  WARNING     the trace file is truncated: it ends before its END block;"
			" what follows covers only what was written\n");
	if (!o->trace_kept)
		fprintf(out, "  trace       not kept (use -o FILE to keep it)\n");
}

/* Rows of the cause table; the rest are summed on one line. */
#define CAUSE_ROWS 15

static double share(const struct tc_analysis *a, uint64_t excess_ns)
{
	return a->total_excess_ns ? 100.0 * (double)excess_ns / (double)a->total_excess_ns : 0.0;
}

static void print_causes(FILE *out, const struct report_data *d)
{
	const struct tc_analysis *a = d->a;
	size_t *idx = calloc(a->n_causes ? a->n_causes : 1, sizeof(*idx));
	uint64_t rest_spikes = 0, rest_excess = 0;
	size_t shown = 0, rest = 0;
	char rule[128];

	if (!idx)
		return;
	spike_rule_describe(&a->rule, rule, sizeof(rule));
	fprintf(out, "\nspikes: %zu of %zu %s above %.3f usec %s (%s)\n", a->n_spikes, a->stats.n,
		d->div == 2 ? "round trips" : "iterations", LAT_US(d, a->threshold_ns), LAT_WHAT(d),
		rule);
	if (!a->n_spikes) {
		free(idx);
		return;
	}
	fprintf(out, "  %-48s %8s %16s %7s\n", "cause", "spikes", "excess[usec]", "share");
	analysis_causes_by_excess(a, idx);
	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[idx[i]];

		if (!c->spikes && !c->excess_ns)
			continue;
		if (shown == CAUSE_ROWS) {
			rest++;
			rest_spikes += c->spikes;
			rest_excess += c->excess_ns;
			continue;
		}
		shown++;
		fprintf(out, "  %-48.48s %8" PRIu64 " %16.3f %6.1f%%\n", c->name, c->spikes,
			LAT_US(d, c->excess_ns), share(a, c->excess_ns));
	}
	if (rest) {
		char label[48];

		snprintf(label, sizeof(label), "(%zu more cause%s)", rest, rest == 1 ? "" : "s");
		fprintf(out, "  %-48s %8" PRIu64 " %16.3f %6.1f%%\n", label, rest_spikes,
			LAT_US(d, rest_excess), share(a, rest_excess));
	}
	fprintf(out,
		"  (spikes: spikes with this primary cause; excess: %s latency above the"
		" median, split among causes by overlap)\n",
		d->div == 2 ? "one-way" : "the");
	free(idx);
}

static void describe_event(FILE *out, const struct tc_trace *t, const struct tc_event *e)
{
	char detail[256];

	report_event_detail(t, e, detail, sizeof(detail));
	fprintf(out, "%-9s %s", report_kind_name(e->kind), detail);
}

static void print_spike(FILE *out, const struct report_data *d, size_t rank,
			const struct tc_spike *sp)
{
	const struct tc_trace *t = d->t;
	const struct tc_analysis *a = d->a;
	const struct tc_sample *s = &t->samples[sp->sample];
	uint64_t t0 = t->samples[0].t_start;
	const struct tc_cause *c = &a->causes[sp->primary];
	size_t pick[TIMELINE_MAX], n;

	fprintf(out, "\n  #%zu  at +%.6f s: %.3f usec %s (%.1fx median), cpu %d\n", rank,
		(double)(s->t_start - t0) / 1e9, LAT_US(d, sp->rtt_ns), LAT_WHAT(d),
		a->stats.p50 ? (double)sp->rtt_ns / (double)a->stats.p50 : 0.0,
		s->cpu == UINT32_MAX ? -1 : (int)s->cpu);
	fprintf(out, "      cause %s, %.0f%% of the excess explained", c->name,
		sp->explained * 100);
	if (sp->primary == 0 && sp->candidate != TC_NO_CAUSE)
		fprintf(out, " (best candidate: %s)", a->causes[sp->candidate].name);
	fprintf(out, "\n");
	if (!sp->n_contrib) {
		fprintf(out, "      no traced event overlaps this round trip\n");
		return;
	}
	n = plot_timeline_pick(a, sp, TIMELINE_MAX, pick);
	fprintf(out, "      %12s %12s %12s  %s\n", "start[usec]", "dur[usec]", "credit[usec]",
		"event (start relative to the round trip's start)");
	for (size_t i = 0; i < n; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + pick[i]];
		const struct tc_event *e = &t->events[k->event];
		double rel = (double)((int64_t)(e->start_ns - s->t_start)) / 1000.0;

		fprintf(out, "      %+12.3f %12.3f %12.3f  ", rel, US(e->dur_ns),
			US(k->attributed_ns));
		describe_event(out, t, e);
		fprintf(out, "%s\n", k->nested ? "  [nested: counted in its parent]" : "");
	}
	if (n < sp->n_contrib)
		fprintf(out, "      (%zu more events with less credit not listed)\n",
			sp->n_contrib - n);
}

static void print_top(FILE *out, const struct report_data *d, unsigned int top)
{
	const struct tc_analysis *a = d->a;
	size_t *idx, n;

	if (!a->n_spikes || !top)
		return;
	idx = calloc(top, sizeof(*idx));
	if (!idx)
		return;
	n = analysis_top_spikes(a, idx, top);
	fprintf(out, "\ntop %zu spikes\n", n);
	for (size_t i = 0; i < n; i++)
		print_spike(out, d, i + 1, &a->spikes[idx[i]]);
	free(idx);
}

static void print_recommendations(FILE *out, const struct tc_analysis *a)
{
	int seen[TC_CAUSE_CLASS_COUNT] = {0};
	int any = 0;

	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[i];
		const struct tc_cause_info *info;

		if (!c->spikes || seen[c->cls])
			continue;
		seen[c->cls] = 1;
		info = causes_info(c->cls);
		if (!any)
			fprintf(out, "\nrecommendations\n");
		any = 1;
		fprintf(out, "  %-16s %s\n  %-16s fix: %s\n", info->prefix, info->what, "",
			info->fix);
	}
}

/* "50 ns", "2 us", "10 ms": a power of ten of nanoseconds, in its unit. */
static void edge_label(uint64_t ns, char *buf, size_t len)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	size_t u = 0;

	while (u < 3 && ns >= 1000) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)ns, units[u]);
}

/* A short histogram of the latency, one row per decade, bars on a log scale. */
static void print_distribution(FILE *out, const struct hist *h, unsigned int div)
{
	uint64_t lo = 1, below;
	double scale;
	char a[32], b[32];

	if (!h->total)
		return;
	while (lo * 10 <= h->min / div)
		lo *= 10;
	scale = 40.0 / log10(1.0 + (double)h->total);
	fprintf(out, "\ndistribution (%s, per decade; bars on a log scale)\n",
		div == 2 ? "one way" : "per iteration");
	below = hist_count_below(h, div * lo);
	for (; lo <= h->max / div && lo <= UINT64_MAX / 20; lo *= 10) {
		uint64_t upto = hist_count_below(h, 10 * div * lo), n = upto - below;
		int bar = n ? (int)(scale * log10(1.0 + (double)n) + 0.999) : 0;

		below = upto;
		edge_label(lo, a, sizeof(a));
		edge_label(10 * lo, b, sizeof(b));
		fprintf(out, "  %6s .. %-6s %10llu %8.4f%%  %.*s\n", a, b, (unsigned long long)n,
			100.0 * (double)n / (double)h->total, bar,
			"########################################");
	}
}

void report_text(FILE *out, const struct report_data *d)
{
	const struct tc_trace *t = d->t;
	const struct tc_analysis *a = d->a;
	const struct report_opts *o = d->o;

	report_text_header(out, t, o);
	fprintf(out, "\n");
	stats_table(out, &a->stats, 0, d->div);
	if (d->div == 2)
		fprintf(out, " verdict: t_avg %.3f usec is %s%s\n", LAT_US(d, a->stats.mean),
			verdict_of(LAT_US(d, a->stats.mean))->text,
			strcmp(meta_or(t, "run.probe", ""), "verbs")
				? " - on the RDMA scale; this probe has no NIC, so read it as host"
				  " jitter"
				: "");
	if (d->hist)
		print_distribution(out, d->hist, d->div);
	print_causes(out, d);
	print_top(out, d, o->top);
	report_text_irqs(out, t, o->nic_irq_pattern);
	print_recommendations(out, a);
	report_audit(out, t, a);
}
