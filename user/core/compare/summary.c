// SPDX-License-Identifier: BSD-2-Clause
/* summary.c - a run's figures, from a trace and its analysis or from a JSON report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/grow.h"
#include "lib/str.h"
#include "core/model/plot.h"
#include "core/model/report_model.h"
#include "summary.h"

static const struct {
	const char *name;
	double pct;
	const char *json; /* its key in latency.stats */
} figures[SM_FIGURES] = {
	[SM_P50] = {"p50", 50, "p50"},
	[SM_P99] = {"p99", 99, "p99"},
	[SM_P999] = {"p99.9", 99.9, "p99_9"},
	[SM_P9999] = {"p99.99", 99.99, "p99_99"},
	[SM_P99999] = {"p99.999", 99.999, "p99_999"},
	[SM_MAX] = {"max", 100, "max"},
};

const char *summary_figure_name(enum sm_figure f)
{
	return f < SM_FIGURES ? figures[f].name : "?";
}

int summary_figure_parse(const char *name, enum sm_figure *out)
{
	for (int f = 0; f < SM_FIGURES; f++) {
		if (!strcmp(name, figures[f].name)) {
			*out = (enum sm_figure)f;
			return 0;
		}
	}
	return -EINVAL;
}

double summary_figure_pct(enum sm_figure f)
{
	return f < SM_FIGURES ? figures[f].pct : 100;
}

/* A JSON report's text may hold anything: it is kept escaped, like a trace's (trace.h). */
static void copy(char *dst, size_t len, const char *src)
{
	str_escape(dst, len, src ? src : "?");
}

/* Blocks of size consecutive samples, each as the (bucket, count) cells of its histogram. */
static int make_blocks(struct sm_blocks *b, const struct tc_sample *s, size_t n, size_t size)
{
	uint64_t *dense = calloc(HIST_BUCKETS, sizeof(*dense));
	uint32_t *touched = malloc((size ? size : 1) * sizeof(*touched));
	size_t cells = 0, cap = 0;
	int err = 0;

	b->size = size;
	b->n = (n + size - 1) / size;
	b->first = calloc(b->n + 1, sizeof(*b->first));
	if (!dense || !touched || !b->first) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < b->n && !err; k++) {
		size_t end = (k + 1) * size < n ? (k + 1) * size : n, nt = 0;

		b->first[k] = cells;
		for (size_t i = k * size; i < end; i++) {
			uint32_t bk = (uint32_t)hist_bucket(s[i].t_end - s[i].t_start);

			if (!dense[bk]++)
				touched[nt++] = bk;
		}
		if (grow(&b->bucket, &cap, cells + nt, sizeof(*b->bucket))) {
			err = -ENOMEM;
			break;
		}
		b->count = realloc(b->count, cap * sizeof(*b->count));
		if (!b->count) {
			err = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < nt; j++) {
			b->bucket[cells] = touched[j];
			b->count[cells++] = dense[touched[j]];
			dense[touched[j]] = 0;
		}
	}
	if (!err)
		b->first[b->n] = cells;
out:
	free(dense);
	free(touched);
	return err;
}

static int add_causes(struct summary *s, const struct tc_analysis *a, unsigned int div)
{
	size_t *idx = calloc(a->n_causes ? a->n_causes : 1, sizeof(*idx));

	s->causes = calloc(a->n_causes ? a->n_causes : 1, sizeof(*s->causes));
	if (!idx || !s->causes) {
		free(idx);
		return -ENOMEM;
	}
	analysis_causes_by_excess(a, idx);
	for (size_t i = 0; i < a->n_causes; i++) {
		const struct tc_cause *c = &a->causes[idx[i]];
		struct sm_cause *o = &s->causes[s->n_causes];

		if (!c->spikes && !c->excess_ns)
			continue;
		copy(o->name, sizeof(o->name), c->name);
		o->cls = c->cls;
		o->spikes = c->spikes;
		o->excess_ns = (double)c->excess_ns / div;
		s->n_causes++;
	}
	free(idx);
	return 0;
}

int summary_from_analysis(struct summary *s, const struct tc_trace *t, const struct tc_analysis *a,
			  unsigned int div, size_t block_size)
{
	const struct lat_summary *st = &a->stats;
	const char *bytes = trace__meta(t, "run.message_bytes");
	int err;

	memset(s, 0, sizeof(*s));
	copy(s->host, sizeof(s->host), trace__meta(t, "host.name"));
	copy(s->kernel, sizeof(s->kernel), trace__meta(t, "host.kernel"));
	copy(s->probe, sizeof(s->probe), trace__meta(t, "run.probe"));
	copy(s->cpus, sizeof(s->cpus), trace__meta(t, "run.cpus"));
	if (bytes) {
		s->has_bytes = 1;
		s->bytes = strtoull(bytes, NULL, 10);
	}
	s->div = div ? div : 2;
	s->n = st->n;
	s->mean_ns = st->mean / s->div;
	s->stdev_ns = st->stdev / s->div;
	s->pct[SM_P50] = (double)st->p50 / s->div;
	s->pct[SM_P99] = (double)st->p99 / s->div;
	s->pct[SM_P999] = (double)st->p999 / s->div;
	s->pct[SM_P9999] = (double)st->p9999 / s->div;
	s->pct[SM_P99999] = (double)st->p99999 / s->div;
	s->pct[SM_MAX] = (double)st->max / s->div;
	s->n_spikes = a->n_spikes;
	s->threshold_ns = (double)a->threshold_ns / s->div;
	s->total_excess_ns = (double)a->total_excess_ns / s->div;
	s->has_audit = !audit_from_meta(t, &s->audit);
	s->rtt = plot_rtt_hist(t->samples, t->n_samples);
	if (!s->rtt)
		return -ENOMEM;
	err = add_causes(s, a, s->div);
	if (!err && block_size && t->n_samples)
		err = make_blocks(&s->blocks, t->samples, t->n_samples, block_size);
	if (err)
		summary__free(s);
	return err;
}

/* ---- from a JSON report --------------------------------------------------------------- */

static int why_fail(char *why, size_t len, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}

static const struct jv *need(const struct jv *root, const char *path, enum jv_type type, char *why,
			     size_t len)
{
	const struct jv *v = jv_path(root, path);

	if (!v || v->type != type) {
		snprintf(why, len, "no %s (%s) in the report", path,
			 type == JV_NUM	  ? "a number"
			 : type == JV_ARR ? "an array"
					  : "a string");
		return NULL;
	}
	return v;
}

static enum tc_cause_class class_of(const char *prefix)
{
	for (int c = 0; c < TC_CAUSE_CLASS_COUNT; c++)
		if (!strcmp(causes_info((enum tc_cause_class)c)->prefix, prefix))
			return (enum tc_cause_class)c;
	return TC_CAUSE_UNATTRIBUTED;
}

/* A count or a size from the report: a whole number a uint64_t holds, else the fallback. */
static uint64_t count_of(const struct jv *v, uint64_t fallback)
{
	if (!v || v->type != JV_NUM || !(v->num >= 0 && v->num < 9.2e18) || v->num != floor(v->num))
		return fallback;
	return (uint64_t)v->num;
}

/* The histogram's buckets, back to RTT ns: lo_us is the bucket's low edge, one way. */
static int json_hist(struct summary *s, const struct jv *buckets, char *why, size_t len)
{
	s->rtt = hist__new();
	if (!s->rtt)
		return -ENOMEM;
	for (size_t i = 0; i < buckets->n; i++) {
		const struct jv *b = &buckets->items[i];
		double lo_ns = jv_num_or(jv_get(b, "lo_us"), -1) * 1000.0 * s->div;
		uint64_t count = count_of(jv_get(b, "count"), UINT64_MAX);

		if (!(lo_ns >= 0 && lo_ns < 9.2e18) || count == UINT64_MAX)
			return why_fail(why, len,
					"a histogram bucket without a valid lo_us or count");
		hist__add(s->rtt, (uint64_t)llround(lo_ns), count);
	}
	return 0;
}

static int json_causes(struct summary *s, const struct jv *causes, char *why, size_t len)
{
	s->causes = calloc(causes->n ? causes->n : 1, sizeof(*s->causes));
	if (!s->causes)
		return -ENOMEM;
	for (size_t i = 0; i < causes->n; i++) {
		const struct jv *c = &causes->items[i];
		struct sm_cause *o = &s->causes[s->n_causes++];
		const char *name = jv_str_or(jv_get(c, "name"), NULL);

		if (!name)
			return why_fail(why, len, "a cause without a name");
		copy(o->name, sizeof(o->name), name);
		o->cls = class_of(jv_str_or(jv_get(c, "class"), ""));
		o->spikes = count_of(jv_get(c, "spikes"), 0);
		o->excess_ns = jv_num_or(jv_get(c, "excess_us"), 0) * 1000.0;
	}
	return 0;
}

/* The audit snapshot, from the report's meta (the keys the recorder stored). */
static int json_audit(struct summary *s, const struct jv *meta)
{
	struct tc_trace *t;
	int err = 0;

	if (!meta || meta->type != JV_OBJ)
		return 0;
	t = trace__new();
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < meta->n && !err; i++)
		if (meta->members[i].val.type == JV_STR)
			err = trace__set_meta(t, meta->members[i].key, meta->members[i].val.str);
	if (!err) {
		s->has_audit = !audit_from_meta(t, &s->audit);
		copy(s->cpus, sizeof(s->cpus), trace__meta(t, "run.cpus"));
	}
	trace__free(t);
	return err;
}

int summary_from_json(struct summary *s, const struct jv *root, char *why, size_t len)
{
	const struct jv *stats, *buckets, *causes;
	const char *schema = jv_str_or(jv_get(root, "schema"), NULL);
	double version = jv_num_or(jv_get(root, "schema_version"), -1);
	int err;

	memset(s, 0, sizeof(*s));
	if (!schema || strcmp(schema, "tailcause-report"))
		return why_fail(why, len,
				"not a tailcause report (no \"schema\": \"tailcause-report\")");
	if (version != TC_REPORT_SCHEMA_VERSION) {
		snprintf(why, len, "a report of schema version %g; this tailcause reads version %d",
			 version, TC_REPORT_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (strcmp(jv_str_or(jv_get(root, "report"), ""), "latency"))
		return why_fail(
			why, len,
			"a noise report (record -- CMD without --samples): it has no latency to compare");
	if (!(stats = need(root, "latency.stats", JV_OBJ, why, len)) ||
	    !(buckets = need(root, "latency.histogram.buckets", JV_ARR, why, len)) ||
	    !(causes = need(root, "latency.causes", JV_ARR, why, len)) ||
	    !need(root, "latency.stats.n", JV_NUM, why, len))
		return -EINVAL;
	copy(s->host, sizeof(s->host), jv_str_or(jv_path(root, "host.name"), NULL));
	copy(s->kernel, sizeof(s->kernel), jv_str_or(jv_path(root, "host.kernel"), NULL));
	copy(s->probe, sizeof(s->probe), jv_str_or(jv_path(root, "run.probe"), NULL));
	s->bytes = count_of(jv_path(root, "run.message_bytes"), UINT64_MAX);
	s->has_bytes = s->bytes != UINT64_MAX;
	if (!s->has_bytes)
		s->bytes = 0;
	s->div = jv_get(stats, "one_way") && jv_get(stats, "one_way")->b ? 2 : 1;
	s->n = count_of(jv_get(stats, "n"), 0);
	s->mean_ns = jv_num_or(jv_get(stats, "avg"), 0) * 1000.0;
	s->stdev_ns = jv_num_or(jv_get(stats, "stdev"), 0) * 1000.0;
	for (int f = 0; f < SM_FIGURES; f++)
		s->pct[f] = jv_num_or(jv_get(stats, figures[f].json), 0) * 1000.0;
	s->n_spikes = count_of(jv_path(root, "latency.spikes.count"), 0);
	s->threshold_ns = jv_num_or(jv_path(root, "latency.spikes.threshold_us"), 0) * 1000.0;
	s->total_excess_ns = jv_num_or(jv_path(root, "latency.spikes.total_excess_us"), 0) * 1000.0;
	err = json_hist(s, buckets, why, len);
	err = err ?: json_causes(s, causes, why, len);
	err = err ?: json_audit(s, jv_get(root, "meta"));
	if (err)
		summary__free(s);
	return err;
}

void summary__free(struct summary *s)
{
	hist__free(s->rtt);
	free(s->causes);
	free(s->blocks.first);
	free(s->blocks.bucket);
	free(s->blocks.count);
	memset(s, 0, sizeof(*s));
}
