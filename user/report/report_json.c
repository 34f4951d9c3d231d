// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_json.c - the report as JSON, with the text report's content under
 * stable keys (docs/report-schema.md, docs/report-schema.json). Times are
 * microseconds; latencies are one way (RTT/2) for the probe's round trips
 * ("one_way": true) and whole for --samples. Formatting only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/plot.h"
#include "core/verdict.h"
#include "report_common.h"
#include "report_json.h"
#include "lib/version.h"

/* Events listed per spike: those with the most credit, in time order. */
#define TIMELINE_MAX 100

/* Sets the member to the meta value, or null when the trace lacks it. */
static void meta_str(struct json *j, const char *key, const struct tc_trace *t, const char *mk)
{
	json_str(j, key, trace__meta(t, mk));
}

static void write_trace(struct json *j, const struct report_data *d)
{
	const struct tc_trace *t = d->t;
	const char *bad = trace__meta(t, "run.bad_records");

	json_obj(j, "trace");
	json_str(j, "path", d->o->trace_kept ? d->o->path : NULL);
	json_bool(j, "kept", d->o->trace_kept);
	json_bool(j, "truncated", t->truncated);
	json_u64(j, "events", t->n_events);
	json_u64(j, "lost_events", trace__total_drops(t));
	json_arr(j, "lost_by_cpu");
	for (size_t c = 0; c < t->n_drops; c++) {
		if (!t->drops[c])
			continue;
		json_obj_compact(j, NULL);
		json_u64(j, "cpu", c);
		json_u64(j, "lost", t->drops[c]);
		json_end(j);
	}
	json_end(j);
	if (bad)
		json_u64(j, "bad_records", strtoull(bad, NULL, 10));
	else
		json_null(j, "bad_records");
	json_end(j);
}

static void write_run(struct json *j, const struct tc_trace *t)
{
	const char *rows = trace__meta(t, "samples.rows");

	json_obj(j, "host");
	meta_str(j, "name", t, "host.name");
	meta_str(j, "kernel", t, "host.kernel");
	meta_str(j, "cpus", t, "host.cpus");
	meta_str(j, "cpu_model", t, "host.cpu_model");
	json_end(j);
	json_obj(j, "run");
	meta_str(j, "probe", t, "run.probe");
	meta_str(j, "cpus", t, "run.cpus");
	meta_str(j, "iterations_requested", t, "run.iterations");
	json_u64(j, "round_trips", t->n_samples);
	json_bool(j, "interrupted", !strcmp(report_meta_or(t, "run.interrupted", "no"), "yes"));
	meta_str(j, "clock", t, "run.clock");
	meta_str(j, "command_line", t, "run.command");
	meta_str(j, "target", t, "run.target");
	meta_str(j, "target_status", t, "run.target_status");
	meta_str(j, "samples_file", t, "samples.file");
	if (rows)
		json_u64(j, "samples_rows", strtoull(rows, NULL, 10));
	else
		json_null(j, "samples_rows");
	json_end(j);
}

static void write_tracers(struct json *j, const struct tc_trace *t)
{
	struct report_tracer tr;
	size_t pos = 0;

	json_arr(j, "tracers");
	while (report_next_tracer(t, &pos, &tr)) {
		json_obj_compact(j, NULL);
		json_str(j, "concern", tr.concern);
		json_str(j, "program", tr.program);
		json_bool(j, "attached", tr.attached);
		json_str(j, "detail", tr.detail);
		json_end(j);
	}
	json_end(j);
	json_obj(j, "meta");
	for (size_t i = 0; i < t->n_meta; i++)
		json_str(j, t->meta[i].key, t->meta[i].val);
	json_end(j);
}

static void write_stats(struct json *j, const struct report_data *d)
{
	const struct lat_summary *s = &d->a->stats;
	const struct tc_verdict *v = verdict_of(LAT_US(d, s->mean));

	json_obj(j, "stats");
	json_str(j, "unit", "us");
	json_bool(j, "one_way", d->div == 2);
	json_u64(j, "n", s->n);
	json_num(j, "min", LAT_US(d, s->min), 3);
	json_num(j, "max", LAT_US(d, s->max), 3);
	json_num(j, "typical", LAT_US(d, s->p50), 3);
	json_num(j, "avg", LAT_US(d, s->mean), 3);
	json_num(j, "stdev", LAT_US(d, s->stdev), 3);
	json_num(j, "p50", LAT_US(d, s->p50), 3);
	json_num(j, "p99", LAT_US(d, s->p99), 3);
	json_num(j, "p99_9", LAT_US(d, s->p999), 3);
	json_num(j, "p99_99", LAT_US(d, s->p9999), 3);
	json_num(j, "p99_999", LAT_US(d, s->p99999), 3);
	json_end(j);
	if (d->div != 2) {
		json_null(j, "verdict"); /* DOMAIN.md's classes judge ping-pong round trips */
		return;
	}
	json_obj(j, "verdict");
	json_str(j, "class", v->cls);
	json_str(j, "text", v->text);
	json_num(j, "t_avg_us", LAT_US(d, s->mean), 3);
	json_bool(j, "nic_probe", !strcmp(report_meta_or(d->t, "run.probe", ""), "verbs"));
	json_end(j);
}

static const char *rule_mode(enum tc_spike_mode m)
{
	switch (m) {
	case TC_SPIKE_PERCENTILE:
		return "percentile";
	case TC_SPIKE_ABSOLUTE:
		return "absolute";
	case TC_SPIKE_MEDIAN_X:
		return "median_x";
	default:
		return "default";
	}
}

static double share_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int write_causes(struct json *j, const struct report_data *d)
{
	const struct tc_analysis *a = d->a;
	size_t *idx = calloc(a->n_causes ? a->n_causes : 1, sizeof(*idx));
	char rule[128];

	if (!idx)
		return -ENOMEM;
	spike_rule_describe(&a->rule, rule, sizeof(rule));
	json_obj(j, "spikes");
	json_str(j, "rule", rule);
	json_str(j, "mode", rule_mode(a->rule.mode));
	json_num(j, "value", a->rule.value, 6);
	json_num(j, "threshold_us", LAT_US(d, a->threshold_ns), 3);
	json_u64(j, "count", a->n_spikes);
	json_num(j, "total_excess_us", LAT_US(d, a->total_excess_ns), 3);
	json_end(j);
	json_arr(j, "causes");
	analysis_causes_by_excess(a, idx);
	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[idx[i]];

		if (!c->spikes && !c->excess_ns)
			continue;
		json_obj_compact(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "class", causes_info(c->cls)->prefix);
		json_u64(j, "spikes", c->spikes);
		json_num(j, "excess_us", LAT_US(d, c->excess_ns), 3);
		json_num(j, "share_pct", share_pct(c->excess_ns, a->total_excess_ns), 2);
		json_end(j);
	}
	json_end(j);
	free(idx);
	return 0;
}

static void write_timeline(struct json *j, const struct tc_trace *t, const struct tc_analysis *a,
			   const struct tc_spike *sp)
{
	const struct tc_sample *s = &t->samples[sp->sample];
	size_t pick[TIMELINE_MAX], n = plot_timeline_pick(a, sp, TIMELINE_MAX, pick);
	char detail[256];

	json_u64(j, "timeline_events", sp->n_contrib);
	json_arr(j, "timeline");
	for (size_t i = 0; i < n; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + pick[i]];
		const struct tc_event *e = &t->events[k->event];

		report_event_detail(t, e, detail, sizeof(detail));
		json_obj_compact(j, NULL);
		json_num(j, "start_us", (double)((int64_t)(e->start_ns - s->t_start)) / 1000.0, 3);
		json_num(j, "dur_us", NS_US(e->dur_ns), 3);
		if (e->kind == TC_EV_IPI && e->aux && e->aux < e->start_ns)
			json_num(j, "delivery_us", NS_US(e->start_ns - e->aux), 3);
		json_num(j, "overlap_us", NS_US(k->overlap_ns), 3);
		json_num(j, "credit_us", NS_US(k->attributed_ns), 3);
		json_bool(j, "nested", k->nested);
		json_str(j, "kind", report_kind_name(e->kind));
		json_str(j, "cause", a->causes[k->cause].name);
		json_u64(j, "cpu", e->cpu);
		json_u64(j, "tid", e->tid);
		json_str(j, "detail", detail);
		json_end(j);
	}
	json_end(j);
}

static void write_spike(struct json *j, const struct report_data *d, size_t rank,
			const struct tc_spike *sp)
{
	const struct tc_trace *t = d->t;
	const struct tc_analysis *a = d->a;
	const struct tc_sample *s = &t->samples[sp->sample];
	const struct tc_cause *c = &a->causes[sp->primary];

	json_obj(j, NULL);
	json_u64(j, "rank", rank);
	json_u64(j, "sample", sp->sample);
	json_num(j, "at_s", (double)(s->t_start - t->samples[0].t_start) / 1e9, 6);
	json_u64(j, "t_start_ns", s->t_start);
	json_u64(j, "t_end_ns", s->t_end);
	if (s->cpu == UINT32_MAX)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", s->cpu);
	json_u64(j, "tid", s->tid);
	json_num(j, "latency_us", LAT_US(d, sp->rtt_ns), 3);
	json_num(j, "x_median", a->stats.p50 ? (double)sp->rtt_ns / (double)a->stats.p50 : 0, 2);
	json_num(j, "excess_us", LAT_US(d, sp->excess_ns), 3);
	json_str(j, "cause", c->name);
	json_str(j, "cause_class", causes_info(c->cls)->prefix);
	json_num(j, "explained_pct", sp->explained * 100.0, 1);
	json_str(j, "candidate",
		 sp->primary == 0 && sp->candidate != TC_NO_CAUSE ? a->causes[sp->candidate].name
								  : NULL);
	write_timeline(j, t, a, sp);
	json_end(j);
}

static int write_top(struct json *j, const struct report_data *d)
{
	unsigned int top = d->o->top;
	size_t *idx = calloc(top ? top : 1, sizeof(*idx));
	size_t n;

	if (!idx)
		return -ENOMEM;
	n = analysis_top_spikes(d->a, idx, top);
	json_arr(j, "top_spikes");
	for (size_t i = 0; i < n; i++)
		write_spike(j, d, i + 1, &d->a->spikes[idx[i]]);
	json_end(j);
	free(idx);
	return 0;
}

static void write_recommendations(struct json *j, const struct tc_analysis *a)
{
	uint64_t spikes[TC_CAUSE_CLASS_COUNT] = {0};

	for (size_t i = 0; i < a->n_causes; i++)
		spikes[a->causes[i].cls] += a->causes[i].spikes;
	json_arr(j, "recommendations");
	for (int c = 0; c < TC_CAUSE_CLASS_COUNT; c++) {
		const struct tc_cause_info *info = causes_info((enum tc_cause_class)c);

		if (!spikes[c])
			continue;
		json_obj_compact(j, NULL);
		json_str(j, "class", info->prefix);
		json_u64(j, "spikes", spikes[c]);
		json_str(j, "what", info->what);
		json_str(j, "fix", info->fix);
		json_end(j);
	}
	json_end(j);
}

static void write_histogram(struct json *j, const struct report_data *d)
{
	const struct hist *h = d->hist;

	json_obj(j, "histogram");
	json_str(j, "unit", "us");
	json_bool(j, "one_way", d->div == 2);
	json_u64(j, "significant_digits", 2);
	json_u64(j, "total", h->total);
	json_num(j, "min_us", LAT_US(d, h->min), 3);
	json_num(j, "max_us", LAT_US(d, h->max), 3);
	json_arr(j, "buckets");
	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)) {
		json_obj_compact(j, NULL);
		json_num(j, "lo_us", LAT_US(d, hist_bucket_low(b)), 4);
		json_num(j, "hi_us", LAT_US(d, hist_bucket_high(b)), 4);
		json_u64(j, "count", h->counts[b]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static int write_irq_placement(struct json *j, const struct report_data *d)
{
	const struct tc_trace *t = d->t;
	struct plot_irq_matrix m;
	unsigned char probe[TC_MAX_CPUS];
	int err = plot_irq_matrix(t, 4096, &m);

	if (err)
		return err;
	report_probe_cpus(t, probe, sizeof(probe));
	json_obj(j, "irq_placement");
	json_arr_compact(j, "probe_cpus");
	for (size_t c = 0; c < sizeof(probe); c++)
		if (probe[c])
			json_u64(j, NULL, c);
	json_end(j);
	json_u64(j, "cpus", m.n_cpus);
	json_arr(j, "irqs");
	for (size_t r = 0; r < m.n_irqs; r++) {
		const char *name = trace__irq_name(t, m.irqs[r]);
		char cls[TC_CAUSE_NAME_LEN];
		struct tc_event e = {.kind = TC_EV_HARDIRQ, .arg = m.irqs[r]};

		json_obj_compact(j, NULL);
		json_u64(j, "irq", m.irqs[r]);
		json_str(j, "name", name);
		json_bool(j, "nic",
			  causes_name_event(t, &e, d->o->nic_irq_pattern, cls, sizeof(cls)) ==
				  TC_CAUSE_NIC_IRQ);
		json_u64(j, "total", m.totals[r]);
		json_arr(j, "per_cpu");
		for (uint32_t c = 0; c < m.n_cpus; c++)
			json_u64(j, NULL, m.counts[r * m.n_cpus + c]);
		json_end(j);
		json_end(j);
	}
	json_end(j);
	json_end(j);
	plot_irq_matrix__free(&m);
	return 0;
}

static int write_latency(struct json *j, const struct report_data *d)
{
	int err;

	json_obj(j, "latency");
	write_stats(j, d);
	err = write_causes(j, d);
	err = err ?: write_top(j, d);
	if (!err) {
		write_recommendations(j, d->a);
		write_histogram(j, d);
	}
	json_end(j);
	return err;
}

int report_json(FILE *out, const struct report_data *d)
{
	struct json j;
	int err;

	json_init(&j, out);
	json_obj(&j, NULL);
	json_str(&j, "schema", "tailcause-report");
	json_u64(&j, "schema_version", REPORT_SCHEMA_VERSION);
	json_str(&j, "report", d->noise ? "noise" : "latency");
	json_obj_compact(&j, "tool");
	json_str(&j, "name", "tailcause");
	json_str(&j, "version", TAILCAUSE_VERSION);
	meta_str(&j, "recorded_by", d->t, "tailcause.version");
	json_end(&j);
	write_trace(&j, d);
	write_run(&j, d->t);
	write_tracers(&j, d->t);
	err = d->noise ? report_json_noise(&j, d) : write_latency(&j, d);
	err = err ?: write_irq_placement(&j, d);
	json_end(&j);
	return err;
}
