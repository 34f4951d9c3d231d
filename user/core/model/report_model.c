// SPDX-License-Identifier: BSD-2-Clause
/* report_model.c - the report's model, built once for every renderer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "report_model.h"

static int is_yes(const char *v)
{
	return v && !strcmp(v, "yes");
}

/* A decimal meta value into *v; 1 when the trace has it. */
static int meta_u64(const struct tc_trace *t, const char *key, uint64_t *v)
{
	const char *s = trace__meta(t, key);

	if (!s)
		return 0;
	*v = strtoull(s, NULL, 10);
	return 1;
}

/* --peer: what was joined, and how well the clocks were aligned (core/hosts/peer_join.c's meta). */
static void peer_header(struct rm_header *h, const struct tc_trace *t)
{
	struct rm_peer *p = &h->peer;
	const char *v;

	p->joined = t->peer.cpu_base != 0;
	p->missing = trace__meta(t, "peer.missing");
	if (!p->joined)
		return;
	p->path = trace__meta(t, "peer.path");
	p->host = trace__meta(t, "peer.host");
	p->mode = trace__meta(t, "peer.mode");
	p->cpus = trace__meta(t, "peer.cpus");
	p->paired_by = trace__meta(t, "peer.paired_by");
	meta_u64(t, "peer.pairs", &p->pairs);
	meta_u64(t, "peer.events", &p->events);
	meta_u64(t, "peer.lost", &p->lost);
	v = trace__meta(t, "peer.offset_ns");
	p->offset_ns = v ? strtod(v, NULL) : 0;
	v = trace__meta(t, "peer.drift_ppm");
	p->drift_ppm = v ? strtod(v, NULL) : 0;
	p->uncertainty_ns = t->peer.uncertainty_ns;
	p->consistent = is_yes(trace__meta(t, "peer.consistent"));
	h->n_events -= p->events < h->n_events ? p->events : h->n_events;
}

static void build_header(struct report_model *m, const struct report_model_opts *o)
{
	const struct tc_trace *t = m->t;
	struct rm_header *h = &m->h;

	h->path = o->path;
	h->host_name = trace__meta(t, "host.name");
	h->kernel = trace__meta(t, "host.kernel");
	h->host_cpus = trace__meta(t, "host.cpus");
	h->cpu_model = trace__meta(t, "host.cpu_model");
	h->probe = trace__meta(t, "run.probe");
	h->command = h->probe && !strcmp(h->probe, "command");
	h->mode = trace__meta(t, "run.mode");
	/* udp between two hosts crosses their NICs; on 127.0.0.1 it does not */
	h->nic_probe =
		h->probe && (!strcmp(h->probe, "verbs") ||
			     (!strcmp(h->probe, "udp") && h->mode && strcmp(h->mode, "loopback")));
	h->cpus = trace__meta(t, "run.cpus");
	h->iterations = trace__meta(t, "run.iterations");
	h->has_message_bytes = meta_u64(t, "run.message_bytes", &h->message_bytes);
	h->round_trips = t->streamed.on ? t->streamed.n_samples : t->n_samples;
	h->interrupted = is_yes(trace__meta(t, "run.interrupted"));
	h->peer_lost = is_yes(trace__meta(t, "run.peer_lost"));
	h->stretch = trace__meta(t, "report.stretch");
	h->streamed = trace__meta(t, "report.streamed");
	h->probe_detail = trace__meta(t, "run.probe_detail");
	h->clock = trace__meta(t, "run.clock");
	h->command_line = trace__meta(t, "run.command");
	h->target = trace__meta(t, "run.target");
	h->target_pid = trace__meta(t, "run.target_pid");
	h->target_status = trace__meta(t, "run.target_status");
	h->samples_file = trace__meta(t, "samples.file");
	h->samples_columns = trace__meta(t, "samples.columns");
	h->iter_spec = trace__meta(t, "iter.spec");
	h->iter_what = trace__meta(t, "iter.what");
	h->iter_points = trace__meta(t, "iter.points");
	h->iter_summary = trace__meta(t, "iter.made");
	h->iter_calib = trace__meta(t, "iter.calib");
	h->has_iter_bounds = meta_u64(t, "iter.pre_ns", &h->iter_pre_ns) &&
			     meta_u64(t, "iter.post_ns", &h->iter_post_ns);
	h->has_iter_calib = meta_u64(t, "iter.cost_ns", &h->iter_cost_ns);
	h->has_iter_jitter = meta_u64(t, "iter.jitter_ns", &h->iter_jitter_ns);
	h->iter_syscalls = is_yes(trace__meta(t, "iter.syscalls"));
	h->has_samples_rows = meta_u64(t, "samples.rows", &h->samples_rows);
	h->recorded_by = trace__meta(t, "tailcause.version");
	h->realtime_ns = t->realtime_ns;
	h->start_ns = t->mono_ns;
	h->first_sample_ns = t->n_samples ? t->samples[0].t_start : 0;
	h->truncated = t->truncated;
	h->n_events = t->n_events - t->n_derived; /* as recorded */
	if (t->streamed.on) {
		h->first_sample_ns = t->streamed.first_sample_ns;
		h->n_events = t->streamed.n_events;
		h->stolen_ns = t->streamed.stolen_ns;
	}
	h->lost = trace__total_drops(t);
	h->has_missed = meta_u64(t, "run.missed", &h->missed);
	h->hypervisor = trace__meta(t, "host.hypervisor");
	h->steal = trace__meta(t, "run.steal");
	h->steal_traced = h->steal && !strncmp(h->steal, "traced", 6);
	h->calib_status = trace__meta(t, "calib.status");
	h->calibrated = calibrate_load(t, &h->cal);
	h->has_bad_records = meta_u64(t, "run.bad_records", &h->bad_records);
	peer_header(h, t);
	m->meta = t->meta;
	m->n_meta = t->n_meta;
}

/* The "tracer.<concern>.<program>" keys: "attached <target>" or "not attached: <why>". */
static int build_tracers(struct report_model *m)
{
	const struct tc_trace *t = m->t;

	m->tracers = calloc(t->n_meta ? t->n_meta : 1, sizeof(*m->tracers));
	m->concerns = calloc(t->n_meta ? t->n_meta : 1, sizeof(*m->concerns));
	if (!m->tracers || !m->concerns)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_meta; i++) {
		const struct tc_kv *kv = &t->meta[i];
		struct rm_tracer *tr = &m->tracers[m->n_tracers];
		const char *rest;
		size_t n;

		if (strncmp(kv->key, "tracer.", 7))
			continue;
		m->n_tracers++;
		rest = kv->key + 7;
		n = strcspn(rest, ".");
		snprintf(tr->concern, sizeof(tr->concern), "%.*s", (int)n, rest);
		tr->program = rest[n] ? rest + n + 1 : rest;
		tr->attached = !strncmp(kv->val, "attached ", 9);
		if (tr->attached)
			tr->detail = kv->val + 9;
		else if (!strncmp(kv->val, "not attached: ", 14))
			tr->detail = kv->val + 14;
		else
			tr->detail = kv->val;
		if (!tr->attached) {
			m->n_missing++;
			continue;
		}
		if (!m->n_concerns || strcmp(m->concerns[m->n_concerns - 1].name, tr->concern))
			snprintf(m->concerns[m->n_concerns++].name, sizeof(m->concerns->name), "%s",
				 tr->concern);
		m->concerns[m->n_concerns - 1].attached++;
	}
	return 0;
}

/*
 * The lost windows and the IRQ moves, in time order (the trace is sorted), and the
 * header's steal time where the trace was read whole (a streamed read counted it): one
 * pass.
 */
static int collect_events(struct report_model *m)
{
	const struct tc_trace *t = m->t;
	size_t cap_lost = 0, cap_moves = 0;

	for (size_t i = 0; i < t->n_events; i++) {
		const struct tc_event *e = &t->events[i];

		if (e->kind == TC_EV_STEAL && !t->streamed.on && !trace__is_peer(t, e)) {
			m->h.stolen_ns += e->stolen_ns;
		} else if (e->kind == TC_EV_LOST) {
			if (grow(&m->lost, &cap_lost, m->n_lost + 1, sizeof(*m->lost)))
				return -ENOMEM;
			m->lost[m->n_lost++] = e;
		} else if (e->kind == TC_EV_IRQ_MOVE) {
			if (grow(&m->irq_moves, &cap_moves, m->n_irq_moves + 1,
				 sizeof(*m->irq_moves)))
				return -ENOMEM;
			m->irq_moves[m->n_irq_moves++] = e;
		}
	}
	return 0;
}

/* CPUs the probe was pinned to or timed on. */
static void build_probe_cpus(struct report_model *m)
{
	const struct tc_trace *t = m->t;

	for (size_t i = 0; i < t->n_threads; i++)
		if (t->threads[i].role == TC_THREAD_PROBE && t->threads[i].cpu < TC_MAX_CPUS)
			m->probe_cpu[t->threads[i].cpu] = 1;
	for (size_t i = 0; i < t->n_samples; i++)
		if (t->samples[i].cpu < TC_MAX_CPUS)
			m->probe_cpu[t->samples[i].cpu] = 1;
	for (size_t i = 0; i < t->streamed.n_sample_cpus; i++)
		if (t->streamed.sample_cpus[i] < TC_MAX_CPUS)
			m->probe_cpu[t->streamed.sample_cpus[i]] = 1;
}

static int build_irqs(struct report_model *m)
{
	int err = plot_irq_matrix(m->t, SIZE_MAX, &m->irqs);

	if (err)
		return err;
	m->irq = calloc(m->irqs.n_irqs ? m->irqs.n_irqs : 1, sizeof(*m->irq));
	if (!m->irq)
		return -ENOMEM;
	for (size_t r = 0; r < m->irqs.n_irqs; r++) {
		struct tc_event e = {.kind = TC_EV_HARDIRQ, .arg = m->irqs.irqs[r]};
		char name[TC_CAUSE_NAME_LEN];

		m->irq[r].name = trace__irq_name(m->t, m->irqs.irqs[r]);
		m->irq[r].nic = causes_name_event(m->t, &e, m->nic_irq_pattern, name,
						  sizeof(name)) == TC_CAUSE_NIC_IRQ;
	}
	return 0;
}

static const char *rule_mode(enum tc_spike_mode mode)
{
	switch (mode) {
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

static int build_latency(struct report_model *m)
{
	const struct tc_analysis *a = m->a;
	size_t *idx = calloc(a->n_causes ? a->n_causes : 1, sizeof(*idx)), want;
	uint64_t spikes[TC_CAUSE_CLASS_COUNT] = {0};

	if (!idx)
		return -ENOMEM;
	if (m->div == 2)
		m->verdict = verdict_of(rm_lat_us(m, a->stats.mean));
	spike_rule_describe(&a->rule, m->rule, sizeof(m->rule));
	m->rule_mode = rule_mode(a->rule.mode);
	m->causes = calloc(a->n_causes ? a->n_causes : 1, sizeof(*m->causes));
	if (!m->causes) {
		free(idx);
		return -ENOMEM;
	}
	analysis_causes_by_excess(a, idx);
	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[idx[i]];

		m->causes[i] = (struct rm_cause){(uint32_t)idx[i],
						 share_pct(c->excess_ns, a->total_excess_ns)};
		if ((c->spikes || c->excess_ns) && m->n_causes == i)
			m->n_causes++;
		spikes[c->cls] += c->spikes;
	}
	free(idx);
	/* cpu-variance has no fix to chase: no recommendation */
	for (int c = 0; c < TC_CAUSE_CLASS_COUNT; c++)
		if (spikes[c] && c != TC_CAUSE_CPU_VARIANCE)
			m->recs[m->n_recs++] = (struct rm_rec){
				causes_info((enum tc_cause_class)c),
				c == TC_CAUSE_HW_NOISE ? causes_hw_noise_what(m->h.hypervisor)
						       : causes_info((enum tc_cause_class)c)->what,
				spikes[c]};
	want = m->top > RM_RANKED_MAX ? m->top : RM_RANKED_MAX;
	want = a->n_spikes < want ? a->n_spikes : want;
	m->ranked = calloc(want ? want : 1, sizeof(*m->ranked));
	if (!m->ranked)
		return -ENOMEM;
	m->n_ranked = analysis_top_spikes(a, m->ranked, want);
	m->n_top = m->n_ranked < m->top ? m->n_ranked : m->top;
	return 0;
}

static void build_audit(struct report_model *m)
{
	struct rm_audit *r = &m->audit;

	if (audit_from_meta(m->t, &r->au))
		return;
	r->present = 1;
	audit_count(&r->au, r->counts);
	if (audit_join(&r->au, m->t, m->a, r->join, RM_JOIN_LINES, &r->n_join)) {
		r->join_failed = 1;
		return;
	}
	r->n_unused = audit_join_unused(&r->au, r->join, r->n_join, r->unused);
}

static int cmp_thread_noise(const void *x, const void *y, void *ctx)
{
	const struct tc_noise *n = ctx;
	uint64_t a = n->threads[*(const size_t *)x].noise_ns;
	uint64_t b = n->threads[*(const size_t *)y].noise_ns;

	return a > b ? -1 : a < b;
}

static int build_noise(struct report_model *m)
{
	const struct tc_noise *n = m->noise;
	size_t *idx = calloc(n->n_causes ? n->n_causes : 1, sizeof(*idx));

	m->noise_causes = calloc(n->n_causes ? n->n_causes : 1, sizeof(*m->noise_causes));
	m->worst = calloc(m->top ? m->top : 1, sizeof(*m->worst));
	m->threads_by_noise = calloc(n->n_threads ? n->n_threads : 1, sizeof(*m->threads_by_noise));
	if (!idx || !m->noise_causes || !m->worst || !m->threads_by_noise) {
		free(idx);
		return -ENOMEM;
	}
	noise_causes_by_time(n, idx);
	for (size_t i = 0; i < n->n_causes; i++) {
		const struct tc_noise_cause *c = &n->causes[idx[i]];

		m->noise_causes[m->n_noise_causes++] = (struct rm_cause){
			(uint32_t)idx[i],
			c->group < TC_NOISE_NOISY ? share_pct(c->ns, n->noise_ns) : 0};
	}
	free(idx);
	m->n_worst = noise_worst_rows(n, m->worst, m->top);
	for (size_t i = 0; i < n->n_threads; i++)
		m->threads_by_noise[i] = i;
	qsort_r(m->threads_by_noise, n->n_threads, sizeof(*m->threads_by_noise), cmp_thread_noise,
		(void *)n);
	return 0;
}

int report_model__build(struct report_model *m, const struct tc_trace *t,
			const struct tc_analysis *a, const struct hist *h, const struct tc_noise *n,
			const struct report_model_opts *o)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->t = t;
	m->a = a;
	m->hist = h;
	m->noise = n;
	m->series = o->series;
	m->div = o->div ? o->div : 2;
	m->top = o->top;
	m->nic_irq_pattern = o->nic_irq_pattern;
	build_header(m, o);
	build_probe_cpus(m);
	err = build_tracers(m);
	err = err ?: collect_events(m);
	err = err ?: build_irqs(m);
	if (!err && a) {
		err = build_latency(m);
		err = err ?: coll_report_build(t, a, m->nic_irq_pattern, &m->coll);
		build_audit(m);
	}
	if (!err && n)
		err = build_noise(m);
	if (err)
		report_model__free(m);
	return err;
}

void report_model__free(struct report_model *m)
{
	free(m->tracers);
	free(m->concerns);
	free(m->lost);
	free(m->irq_moves);
	free(m->causes);
	free(m->ranked);
	free(m->noise_causes);
	free(m->worst);
	free(m->threads_by_noise);
	plot_irq_matrix__free(&m->irqs);
	free(m->irq);
	coll_report_free(m->coll);
	memset(m, 0, sizeof(*m));
}
