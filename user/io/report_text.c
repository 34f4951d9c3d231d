// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_text.c - the terminal report: what was traced, perftest-style
 * statistics with a verdict, the cause table, the top spikes with their
 * timelines, and one recommendation per measured cause. Formatting only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "report.h"

#define US(ns) ((double)(ns) / 1000.0)
/* One-way latency in µs from an RTT in ns, as ib_write_lat prints it. */
#define OW_US(ns) ((double)(ns) / 2000.0)

void report_stats_table(FILE *out, const struct lat_summary *s, size_t msg_bytes)
{
	fprintf(out, " %-7s %-11s %-12s %-12s %-15s %-12s %-14s %-22s %s\n", "#bytes",
		"#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]",
		"t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
	fprintf(out, " %-7zu %-11zu %-12.3f %-12.3f %-15.3f %-12.3f %-14.3f %-22.3f %.3f\n",
		msg_bytes, s->n, OW_US(s->min), OW_US(s->max), OW_US(s->p50), OW_US(s->mean),
		s->stdev / 2000.0, OW_US(s->p99), OW_US(s->p999));
	fprintf(out, " 99.99%%: %.3f usec   99.999%%: %.3f usec   (one way = RTT/2; every sample kept,"
		     " unlike perftest which drops the two largest)\n",
		OW_US(s->p9999), OW_US(s->p99999));
}

/* DOMAIN.md's verdict for an ib_write_lat t_avg. */
static const char *verdict(double avg_us)
{
	if (avg_us < 2)
		return "excellent (< 2 us: one switch hop)";
	if (avg_us < 5)
		return "good (2-5 us: several hops)";
	if (avg_us < 10)
		return "fair (5-10 us: small configuration problems)";
	if (avg_us <= 50)
		return "problem (> 10 us: driver, firmware, configuration)";
	return "failure (> 50 us: RDMA advantage lost, probably the IPoIB/TCP path)";
}

static const char *meta_or(const struct tc_trace *t, const char *key, const char *dflt)
{
	const char *v = trace__meta(t, key);

	return v ? v : dflt;
}

static void print_tracers(FILE *out, const struct tc_trace *t)
{
	int missing = 0;

	fprintf(out, "  traced      ");
	for (size_t i = 0; i < t->n_meta; i++) {
		const struct tc_kv *kv = &t->meta[i];

		if (strncmp(kv->key, "tracer.", 7) || strncmp(kv->val, "attached ", 9))
			continue;
		fprintf(out, "%s ", kv->val + 9);
	}
	fprintf(out, "\n");
	for (size_t i = 0; i < t->n_meta; i++) {
		const struct tc_kv *kv = &t->meta[i];

		if (strncmp(kv->key, "tracer.", 7) || !strncmp(kv->val, "attached ", 9))
			continue;
		fprintf(out, "  NOT traced  %s: %s\n", kv->key + 7, kv->val);
		missing++;
	}
	if (!missing)
		fprintf(out, "  not traced  - (every program attached)\n");
}

static void print_header(FILE *out, const struct tc_trace *t, const struct report_opts *o)
{
	uint64_t drops = trace__total_drops(t);

	fprintf(out, "tailcause report  %s\n", o->trace_kept ? o->path : "(trace not kept)");
	fprintf(out, "  host        %s  (Linux %s, %s CPUs, %s)\n", meta_or(t, "host.name", "?"),
		meta_or(t, "host.kernel", "?"), meta_or(t, "host.cpus", "?"),
		meta_or(t, "host.cpu_model", "?"));
	fprintf(out, "  probe       %s on CPUs %s: %zu round trips recorded (%s requested)%s\n",
		meta_or(t, "run.probe", "?"), meta_or(t, "run.cpus", "?"), t->n_samples,
		meta_or(t, "run.iterations", "?"),
		!strcmp(meta_or(t, "run.interrupted", "no"), "yes") ? ", interrupted" : "");
	fprintf(out, "  clock       %s\n", meta_or(t, "run.clock", "CLOCK_MONOTONIC"));
	print_tracers(out, t);
	fprintf(out, "  events      %zu intervals, %" PRIu64 " lost to ring-buffer overrun%s\n",
		t->n_events, drops, drops ? " (attribution may be incomplete)" : "");
	if (t->truncated)
		fprintf(out, "  WARNING     the trace file is truncated: it ends before its END block;"
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

static void print_causes(FILE *out, const struct tc_analysis *a)
{
	size_t *idx = calloc(a->n_causes ? a->n_causes : 1, sizeof(*idx));
	uint64_t rest_spikes = 0, rest_excess = 0;
	size_t shown = 0, rest = 0;
	char rule[128];

	if (!idx)
		return;
	spike_rule_describe(&a->rule, rule, sizeof(rule));
	fprintf(out, "\nspikes: %zu of %zu round trips above %.3f usec one way (%s)\n",
		a->n_spikes, a->stats.n, OW_US(a->threshold_ns), rule);
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
			OW_US(c->excess_ns), share(a, c->excess_ns));
	}
	if (rest) {
		char label[48];

		snprintf(label, sizeof(label), "(%zu more cause%s)", rest, rest == 1 ? "" : "s");
		fprintf(out, "  %-48s %8" PRIu64 " %16.3f %6.1f%%\n", label, rest_spikes,
			OW_US(rest_excess), share(a, rest_excess));
	}
	fprintf(out, "  (spikes: spikes with this primary cause; excess: one-way latency above the"
		     " median, split among causes by overlap)\n");
	free(idx);
}

static void describe_event(FILE *out, const struct tc_trace *t, const struct tc_event *e)
{
	switch (e->kind) {
	case TC_EV_OFFCPU:
		fprintf(out, "off-cpu   tid %u left cpu %u, %s; %s (pid %u) ran next", e->tid,
			e->cpu, (e->flags & TC_OFFCPU_PREEMPTED) ? "preempted" : "blocked",
			e->other_comm[0] ? e->other_comm : "?", e->other_pid);
		break;
	case TC_EV_HARDIRQ: {
		const char *name = trace__irq_name(t, e->arg);

		fprintf(out, "hardirq   irq %u (%s) on cpu %u", e->arg, name ? name : "?", e->cpu);
		break;
	}
	case TC_EV_SOFTIRQ:
		fprintf(out, "softirq   %s on cpu %u", causes_softirq_name(e->arg), e->cpu);
		break;
	default:
		fprintf(out, "event kind %u on cpu %u", e->kind, e->cpu);
	}
}

static void print_spike(FILE *out, const struct tc_trace *t, const struct tc_analysis *a,
			size_t rank, const struct tc_spike *sp)
{
	const struct tc_sample *s = &t->samples[sp->sample];
	uint64_t t0 = t->samples[0].t_start;
	const struct tc_cause *c = &a->causes[sp->primary];

	fprintf(out, "\n  #%zu  at +%.6f s: %.3f usec one way (%.1fx median), cpu %u\n", rank,
		(double)(s->t_start - t0) / 1e9, OW_US(sp->rtt_ns),
		a->stats.p50 ? (double)sp->rtt_ns / (double)a->stats.p50 : 0.0, s->cpu);
	fprintf(out, "      cause %s, %.0f%% of the excess explained", c->name, sp->explained * 100);
	if (sp->primary == 0 && sp->candidate != TC_NO_CAUSE)
		fprintf(out, " (best candidate: %s)", a->causes[sp->candidate].name);
	fprintf(out, "\n");
	if (!sp->n_contrib) {
		fprintf(out, "      no traced event overlaps this round trip\n");
		return;
	}
	fprintf(out, "      %12s %12s %12s  %s\n", "start[usec]", "dur[usec]", "credit[usec]",
		"event (start relative to the round trip's start)");
	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		const struct tc_event *e = &t->events[k->event];
		double rel = (double)((int64_t)(e->start_ns - s->t_start)) / 1000.0;

		fprintf(out, "      %+12.3f %12.3f %12.3f  ", rel, US(e->dur_ns),
			US(k->attributed_ns));
		describe_event(out, t, e);
		fprintf(out, "%s\n", k->nested ? "  [nested: counted in its parent]" : "");
	}
}

static void print_top(FILE *out, const struct tc_trace *t, const struct tc_analysis *a,
		      unsigned int top)
{
	size_t *idx, n;

	if (!a->n_spikes || !top)
		return;
	idx = calloc(top, sizeof(*idx));
	if (!idx)
		return;
	n = analysis_top_spikes(a, idx, top);
	fprintf(out, "\ntop %zu spikes\n", n);
	for (size_t i = 0; i < n; i++)
		print_spike(out, t, a, i + 1, &a->spikes[idx[i]]);
	free(idx);
}

static void print_recommendations(FILE *out, const struct tc_analysis *a)
{
	int seen[TC_CAUSE_CLASS_COUNT] = { 0 };
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

void report_text(FILE *out, const struct tc_trace *t, const struct tc_analysis *a,
		 const struct report_opts *o)
{
	print_header(out, t, o);
	fprintf(out, "\n");
	report_stats_table(out, &a->stats, 0);
	fprintf(out, " verdict: t_avg %.3f usec is %s%s\n", OW_US(a->stats.mean),
		verdict(a->stats.mean / 2000.0),
		strcmp(meta_or(t, "run.probe", ""), "verbs")
			? " - on the RDMA scale; this probe has no NIC, so read it as host jitter"
			: "");
	print_causes(out, a);
	print_top(out, t, a, o->top);
	print_recommendations(out, a);
}
