// SPDX-License-Identifier: BSD-2-Clause
/*
 * report_json.c - the report as JSON, with the text report's content under
 * stable keys (docs/report-schema.md, docs/report-schema.json). Times are
 * microseconds; latencies are one way (RTT/2) for the probe's round trips
 * ("one_way": true) and whole for --samples. Formatting only.
 */
#include <string.h>

#include "core/attrib/causes.h"
#include "core/model/plot.h"
#include "core/model/verdict.h"
#include "report_common.h"
#include "core/hosts/peer_join.h"
#include "report_json.h"
#include "lib/version.h"

/* Events listed per spike: those with the most credit, in time order. */
#define TIMELINE_MAX 100

static void write_trace(struct json *j, const struct report_model *m)
{
	const struct rm_header *h = &m->h;

	json_obj(j, "trace");
	json_str(j, "path", h->path);
	json_bool(j, "kept", h->path != NULL);
	json_bool(j, "truncated", h->truncated);
	json_u64(j, "events", h->n_events);
	json_u64(j, "lost_events", h->lost);
	if (h->has_missed)
		json_u64(j, "missed_program_runs", h->missed);
	else
		json_null(j, "missed_program_runs");
	json_arr(j, "lost_by_cpu");
	for (size_t c = 0; c < m->t->n_drops; c++) {
		if (!m->t->drops[c])
			continue;
		json_obj_compact(j, NULL);
		json_u64(j, "cpu", c);
		json_u64(j, "lost", m->t->drops[c]);
		json_end(j);
	}
	json_end(j);
	if (h->has_bad_records)
		json_u64(j, "bad_records", h->bad_records);
	else
		json_null(j, "bad_records");
	json_end(j);
}

/* What each kind of event costs the probe CPUs, against what the tracers see of it. */
static void write_calibration(struct json *j, const struct rm_header *h)
{
	json_obj(j, "calibration");
	json_str(j, "status", h->calib_status);
	if (h->cal.exit_floor_ns)
		json_num(j, "exit_floor_us", NS_US(h->cal.exit_floor_ns), 3);
	else
		json_null(j, "exit_floor_us");
	json_arr(j, "kinds");
	for (int k = 0; k < TC_CALIB_KINDS && h->calibrated; k++) {
		const struct tc_calib_kind *x = calibrate_kind(&h->cal, tc_calib_kinds[k]);

		if (!x)
			continue;
		json_obj_compact(j, NULL);
		json_str(j, "kind", describe_kind(x->kind));
		json_u64(j, "n", x->n);
		json_num(j, "cost_us", NS_US(x->gap_ns), 3);
		json_num(j, "traced_us", NS_US(x->traced_ns), 3);
		if (x->traced_p90_ns)
			json_num(j, "traced_p90_us", NS_US(x->traced_p90_ns), 3);
		else
			json_null(j, "traced_p90_us");
		json_num(j, "hidden_before_us", NS_US(x->pre_ns), 3);
		json_num(j, "hidden_after_us", NS_US(x->post_ns), 3);
		json_num(j, "hidden_p10_us", NS_US(x->p10_ns), 3);
		json_num(j, "hidden_p90_us", NS_US(x->p90_ns), 3);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* record --iter: how the command's iterations were marked; null for other traces. */
static void write_iterations(struct json *j, const struct rm_header *h)
{
	if (!h->iter_spec) {
		json_null(j, "iterations");
		return;
	}
	json_obj(j, "iterations");
	json_str(j, "spec", h->iter_spec);
	json_str(j, "what", h->iter_what);
	json_str(j, "points", h->iter_points);
	json_str(j, "made", h->iter_summary);
	json_str(j, "calibration", h->iter_calib);
	if (h->has_iter_bounds) {
		json_num(j, "pre_us", (double)h->iter_pre_ns / 1000.0, 3);
		json_num(j, "post_us", (double)h->iter_post_ns / 1000.0, 3);
	} else {
		json_null(j, "pre_us");
		json_null(j, "post_us");
	}
	if (h->has_iter_calib)
		json_num(j, "cost_us", (double)h->iter_cost_ns / 1000.0, 3);
	else
		json_null(j, "cost_us");
	if (h->has_iter_jitter)
		json_num(j, "jitter_us", (double)h->iter_jitter_ns / 1000.0, 3);
	else
		json_null(j, "jitter_us");
	json_end(j);
}

/* --peer: null, or the other host's trace and the clock alignment. */
static void write_peer(struct json *j, const struct rm_peer *p)
{
	if (!p->joined) {
		json_null(j, "peer");
		return;
	}
	json_obj(j, "peer");
	json_str(j, "trace", p->path);
	json_str(j, "host", p->host);
	json_str(j, "mode", p->mode);
	json_str(j, "cpus", p->cpus);
	json_u64(j, "events", p->events);
	json_u64(j, "lost", p->lost);
	json_u64(j, "round_trips_aligned", p->pairs);
	json_num(j, "clock_offset_us", p->offset_ns / 1e3, 3);
	json_num(j, "clock_drift_ppm", p->drift_ppm, 3);
	json_num(j, "clock_uncertainty_us", (double)p->uncertainty_ns / 1e3, 3);
	json_bool(j, "clock_consistent", p->consistent);
	json_str(j, "paired_by", p->paired_by);
	json_end(j);
}

static void write_run(struct json *j, const struct rm_header *h)
{
	json_obj(j, "host");
	json_str(j, "name", h->host_name);
	json_str(j, "kernel", h->kernel);
	json_str(j, "cpus", h->host_cpus);
	json_str(j, "cpu_model", h->cpu_model);
	json_str(j, "hypervisor", h->hypervisor);
	json_end(j);
	json_obj(j, "run");
	json_str(j, "probe", h->probe);
	json_str(j, "cpus", h->cpus);
	json_str(j, "iterations_requested", h->iterations);
	if (h->has_message_bytes)
		json_u64(j, "message_bytes", h->message_bytes);
	else
		json_null(j, "message_bytes");
	json_u64(j, "round_trips", h->round_trips);
	json_bool(j, "interrupted", h->interrupted);
	json_bool(j, "peer_lost", h->peer_lost);
	json_str(j, "stretch", h->stretch);
	json_str(j, "streamed", h->streamed);
	json_str(j, "clock", h->clock);
	json_str(j, "command_line", h->command_line);
	json_str(j, "target", h->target);
	json_str(j, "target_status", h->target_status);
	json_str(j, "samples_file", h->samples_file);
	if (h->has_samples_rows)
		json_u64(j, "samples_rows", h->samples_rows);
	else
		json_null(j, "samples_rows");
	write_iterations(j, h);
	write_peer(j, &h->peer);
	json_obj_compact(j, "steal");
	json_bool(j, "traced", h->steal_traced);
	json_str(j, "how", h->steal);
	json_num(j, "stolen_ms", (double)h->stolen_ns / 1e6, 6);
	json_end(j);
	write_calibration(j, h);
	json_end(j);
}

static void write_tracers(struct json *j, const struct report_model *m)
{
	json_arr(j, "tracers");
	for (size_t i = 0; i < m->n_tracers; i++) {
		const struct rm_tracer *tr = &m->tracers[i];

		json_obj_compact(j, NULL);
		json_str(j, "concern", tr->concern);
		json_str(j, "program", tr->program);
		json_bool(j, "attached", tr->attached);
		json_str(j, "detail", tr->detail);
		json_end(j);
	}
	json_end(j);
	json_obj(j, "meta");
	for (size_t i = 0; i < m->n_meta; i++)
		json_str(j, m->meta[i].key, m->meta[i].val);
	json_end(j);
}

static void write_stats(struct json *j, const struct report_model *m)
{
	const struct lat_summary *s = &m->a->stats;

	json_obj(j, "stats");
	json_str(j, "unit", "us");
	json_bool(j, "one_way", m->div == 2);
	json_u64(j, "n", s->n);
	json_num(j, "min", rm_lat_us(m, s->min), 3);
	json_num(j, "max", rm_lat_us(m, s->max), 3);
	json_num(j, "typical", rm_lat_us(m, s->p50), 3);
	json_num(j, "avg", rm_lat_us(m, s->mean), 3);
	json_num(j, "stdev", rm_lat_us(m, s->stdev), 3);
	json_num(j, "p50", rm_lat_us(m, s->p50), 3);
	json_num(j, "p99", rm_lat_us(m, s->p99), 3);
	json_num(j, "p99_9", rm_lat_us(m, s->p999), 3);
	json_num(j, "p99_99", rm_lat_us(m, s->p9999), 3);
	json_num(j, "p99_999", rm_lat_us(m, s->p99999), 3);
	json_end(j);
	if (!m->verdict) {
		json_null(j, "verdict"); /* docs/domain.md's classes judge ping-pong round trips */
		return;
	}
	json_obj(j, "verdict");
	json_str(j, "class", m->verdict->cls);
	json_str(j, "text", m->verdict->text);
	json_num(j, "t_avg_us", rm_lat_us(m, s->mean), 3);
	json_bool(j, "nic_probe", m->h.nic_probe);
	json_end(j);
}

static void write_causes(struct json *j, const struct report_model *m)
{
	const struct tc_analysis *a = m->a;

	json_obj(j, "spikes");
	json_str(j, "rule", m->rule);
	json_str(j, "mode", m->rule_mode);
	json_num(j, "value", a->rule.value, 6);
	json_num(j, "threshold_us", rm_lat_us(m, a->threshold_ns), 3);
	json_u64(j, "count", a->n_spikes_run);
	json_num(j, "total_excess_us", rm_lat_us(m, a->total_excess_ns), 3);
	json_end(j);
	json_arr(j, "causes");
	for (size_t i = 0; i < m->n_causes; i++) {
		const struct tc_cause *c = &a->causes[m->causes[i].cause];

		json_obj_compact(j, NULL);
		json_str(j, "name", c->name);
		json_str(j, "class", causes_info(c->cls)->prefix);
		json_u64(j, "spikes", c->spikes);
		json_num(j, "excess_us", rm_lat_us(m, c->excess_ns), 3);
		json_num(j, "hidden_us", rm_lat_us(m, c->hidden_ns), 3);
		json_num(j, "share_pct", m->causes[i].share_pct, 2);
		json_end(j);
	}
	json_end(j);
}

/* Whom the timing thread waited on, and whom they waited on: the wakings the chain followed. */
static void write_chain(struct json *j, const struct tc_trace *t, const struct tc_analysis *a,
			const struct tc_spike *sp)
{
	json_arr(j, "chain");
	for (size_t i = 0; i < sp->n_contrib; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + i];
		const struct tc_event *e = &t->events[k->event];
		char comm[TC_COMM_TEXT_LEN];

		if (e->kind != TC_EV_WAKEUP || !k->chain)
			continue;
		json_obj_compact(j, NULL);
		json_u64(j, "depth", k->chain);
		json_u64(j, "tid", e->other_pid);
		json_u64(j, "pid", e->arg);
		json_str(j, "comm", e->other_comm[0] ? causes_comm(e, comm, sizeof(comm)) : NULL);
		json_u64(j, "cpu", e->cpu);
		json_u64(j, "woke", e->tid);
		json_end(j);
	}
	json_end(j);
}

static void write_timeline(struct json *j, const struct tc_trace *t, const struct tc_analysis *a,
			   const struct tc_spike *sp)
{
	const struct tc_sample *s = &t->samples[sp->sample];
	size_t pick[TIMELINE_MAX], n = plot_timeline_pick(t, a, sp, TIMELINE_MAX, pick);
	char detail[256];

	json_u64(j, "timeline_events", sp->n_contrib);
	json_arr(j, "timeline");
	for (size_t i = 0; i < n; i++) {
		const struct tc_contrib *k = &a->contribs[sp->first_contrib + pick[i]];
		const struct tc_event *e = &t->events[k->event];

		describe_event(t, e, detail, sizeof(detail));
		json_obj_compact(j, NULL);
		json_num(j, "start_us", (double)((int64_t)(e->start_ns - s->t_start)) / 1000.0, 3);
		json_num(j, "dur_us", NS_US(e->dur_ns), 3);
		if (e->kind == TC_EV_IPI && e->sent_ns && e->sent_ns < e->start_ns)
			json_num(j, "delivery_us", NS_US(e->start_ns - e->sent_ns), 3);
		json_num(j, "overlap_us", NS_US(k->overlap_ns), 3);
		json_num(j, "credit_us", NS_US(k->attributed_ns), 3);
		json_num(j, "hidden_us", NS_US(k->hidden_ns), 3);
		json_bool(j, "nested", k->nested);
		json_bool(j, "woke_preemptor", k->joined == TC_JOIN_WAKEUP);
		json_bool(j, "carried_signal", k->joined == TC_JOIN_SIGNAL);
		json_u64(j, "chain_depth", k->chain);
		json_str(j, "kind", describe_kind(e->kind));
		json_str(j, "cause", a->causes[k->cause].name);
		json_u64(j, "cpu", e->cpu);
		json_u64(j, "tid", e->tid);
		json_str(j, "detail", detail);
		json_end(j);
	}
	json_end(j);
}

/* tc_spike.unexplained: null when the spike has a primary cause. */
static const char *const unexplained_names[] = {
	[TC_EXPLAINED] = NULL,
	[TC_UNEXPLAINED_LITTLE] = "too-little",
	[TC_UNEXPLAINED_UNTRACED] = "tracing-incomplete",
	[TC_UNEXPLAINED_LOST] = "records-lost",
	[TC_UNEXPLAINED_CLOCK] = "clock-uncertainty",
};

/* Two hosts, this host the client: the round trip split where the peer read the request. */
static void write_direction(struct json *j, const struct tc_trace *t, const struct tc_sample *s)
{
	static const char *const legs[] = {[PEER_LEG_NEITHER] = "neither",
					   [PEER_LEG_TO] = "to-peer",
					   [PEER_LEG_BACK] = "back"};
	uint64_t to, back;

	if (peer_direction(t, s, &to, &back)) {
		json_null(j, "direction");
		return;
	}
	json_obj_compact(j, "direction");
	json_num(j, "to_peer_us", (double)to / 1e3, 3);
	json_num(j, "to_peer_usual_us", (double)t->peer.to_median_ns / 1e3, 3);
	json_num(j, "back_us", (double)back / 1e3, 3);
	json_num(j, "back_usual_us", (double)t->peer.back_median_ns / 1e3, 3);
	json_str(j, "slow", legs[peer_slow_leg(t, to, back)]);
	json_end(j);
}

static void write_spike(struct json *j, const struct report_model *m, size_t rank,
			const struct tc_spike *sp)
{
	const struct tc_trace *t = m->t;
	const struct tc_analysis *a = m->a;
	const struct tc_sample *s = &t->samples[sp->sample];
	const struct tc_cause *c = &a->causes[sp->primary];

	json_obj(j, NULL);
	json_u64(j, "rank", rank);
	json_u64(j, "sample", sp->run_sample);
	json_num(j, "at_s", (double)(s->t_start - m->h.first_sample_ns) / 1e9, 6);
	json_u64(j, "t_start_ns", s->t_start);
	json_u64(j, "t_end_ns", s->t_end);
	if (s->cpu == UINT32_MAX)
		json_null(j, "cpu");
	else
		json_u64(j, "cpu", s->cpu);
	json_u64(j, "tid", s->tid);
	json_num(j, "latency_us", rm_lat_us(m, sp->rtt_ns), 3);
	json_num(j, "x_median", a->stats.p50 ? (double)sp->rtt_ns / (double)a->stats.p50 : 0, 2);
	json_num(j, "excess_us", rm_lat_us(m, sp->excess_ns), 3);
	json_str(j, "cause", c->name);
	json_str(j, "cause_class", causes_info(c->cls)->prefix);
	json_num(j, "explained_pct", sp->explained * 100.0, 1);
	json_str(j, "candidate",
		 sp->primary == 0 && sp->candidate != TC_NO_CAUSE ? a->causes[sp->candidate].name
								  : NULL);
	json_num(j, "hw_noise_us", rm_lat_us(m, sp->hw_noise_ns), 3);
	json_num(j, "stall_us", rm_lat_us(m, sp->stall_ns), 3);
	json_num(j, "cpu_variance_us", rm_lat_us(m, sp->variance_ns), 3);
	json_num(j, "path_us", rm_lat_us(m, sp->path_ns), 3);
	json_bool(j, "cross_host", sp->cross_host);
	write_direction(j, t, s);
	json_num(j, "hidden_us", rm_lat_us(m, sp->hidden_ns), 3);
	json_str(j, "unexplained", unexplained_names[sp->unexplained]);
	write_chain(j, t, a, sp);
	write_timeline(j, t, a, sp);
	json_end(j);
}

static void write_top(struct json *j, const struct report_model *m)
{
	json_arr(j, "top_spikes");
	for (size_t i = 0; i < m->n_top; i++)
		write_spike(j, m, i + 1, &m->a->spikes[m->ranked[i]]);
	json_end(j);
}

static void write_recommendations(struct json *j, const struct report_model *m)
{
	json_arr(j, "recommendations");
	for (size_t i = 0; i < m->n_recs; i++) {
		json_obj_compact(j, NULL);
		json_str(j, "class", m->recs[i].info->prefix);
		json_u64(j, "spikes", m->recs[i].spikes);
		json_str(j, "what", m->recs[i].what);
		json_str(j, "fix", m->recs[i].info->fix);
		json_end(j);
	}
	json_end(j);
}

static void write_histogram(struct json *j, const struct report_model *m)
{
	const struct hist *h = m->hist;

	json_obj(j, "histogram");
	json_str(j, "unit", "us");
	json_bool(j, "one_way", m->div == 2);
	json_u64(j, "significant_digits", 2);
	json_u64(j, "total", h->total);
	json_num(j, "min_us", rm_lat_us(m, h->min), 3);
	json_num(j, "max_us", rm_lat_us(m, h->max), 3);
	json_arr(j, "buckets");
	for (size_t b = hist_next(h, 0); b < HIST_BUCKETS; b = hist_next(h, b + 1)) {
		json_obj_compact(j, NULL);
		json_num(j, "lo_us", rm_lat_us(m, hist_bucket_low(b)), 4);
		json_num(j, "hi_us", rm_lat_us(m, hist_bucket_high(b)), 4);
		json_u64(j, "count", h->counts[b]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void write_irq_placement(struct json *j, const struct report_model *m)
{
	const struct plot_irq_matrix *x = &m->irqs;

	json_obj(j, "irq_placement");
	json_arr_compact(j, "probe_cpus");
	for (size_t c = 0; c < sizeof(m->probe_cpu); c++)
		if (m->probe_cpu[c])
			json_u64(j, NULL, c);
	json_end(j);
	json_u64(j, "cpus", x->n_cpus);
	json_arr(j, "irqs");
	for (size_t r = 0; r < x->n_irqs; r++) {
		json_obj_compact(j, NULL);
		json_u64(j, "irq", x->irqs[r]);
		json_str(j, "name", m->irq[r].name);
		json_bool(j, "nic", m->irq[r].nic);
		json_u64(j, "total", x->totals[r]);
		json_arr(j, "per_cpu");
		for (uint32_t c = 0; c < x->n_cpus; c++)
			json_u64(j, NULL, x->counts[r * x->n_cpus + c]);
		json_end(j);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

/* Whether every tracer that sees OS events attached (hw-noise needs it), and which did not. */
static void write_coverage(struct json *j, const struct tc_analysis *a)
{
	const char *p = a->coverage_missing;

	json_obj_compact(j, "coverage");
	json_bool(j, "complete", a->coverage_complete);
	json_arr_compact(j, "missing");
	while (*p) {
		size_t n = strcspn(p, ",");

		json_strn(j, NULL, p, n);
		p += n;
		p += strspn(p, ", ");
	}
	json_end(j);
	json_end(j);
}

static void write_latency(struct json *j, const struct report_model *m)
{
	json_obj(j, "latency");
	write_stats(j, m);
	write_coverage(j, m->a);
	write_causes(j, m);
	report_json_coll(j, m);
	write_top(j, m);
	write_recommendations(j, m);
	write_histogram(j, m);
	json_end(j);
}

int report_json(FILE *out, const struct report_model *m)
{
	struct json j;
	int err = 0;

	json_init(&j, out);
	json_obj(&j, NULL);
	json_str(&j, "schema", "tailcause-report");
	json_u64(&j, "schema_version", TC_REPORT_SCHEMA_VERSION);
	json_str(&j, "report", m->noise ? "noise" : "latency");
	json_obj_compact(&j, "tool");
	json_str(&j, "name", "tailcause");
	json_str(&j, "version", TAILCAUSE_VERSION);
	json_str(&j, "recorded_by", m->h.recorded_by);
	json_end(&j);
	write_trace(&j, m);
	write_run(&j, &m->h);
	write_tracers(&j, m);
	if (m->noise)
		err = report_json_noise(&j, m);
	else
		write_latency(&j, m);
	write_irq_placement(&j, m);
	json_end(&j);
	return err;
}
