// SPDX-License-Identifier: BSD-2-Clause
/* diff.c - two runs compared: bootstrap intervals, cause verdicts, audit changes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/audit_join.h"
#include "diff.h"

#define RESAMPLES_DEFAULT 1000
/* Fewer blocks than this and a run is resampled sample by sample from its histogram. */
#define MIN_BLOCKS 20

const char *diff_verdict_name(enum df_verdict v)
{
	static const char *const names[] = {"unchanged", "better", "worse", "gone", "new"};

	return v <= DF_NEW ? names[v] : "?";
}

/* ---- random numbers: splitmix64, reproducible from the seed ---------------------------- */

static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return (double)(next_u64(s) >> 11) * 0x1.0p-53;
}

static double gaussian(uint64_t *s)
{
	double u = uniform(s), v = uniform(s);

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A Binomial(n, p) draw: by inversion where the mean is small, else the normal law. */
static uint64_t binomial(uint64_t *s, uint64_t n, double p)
{
	double q, mean, u, pmf, cdf;
	uint64_t k;
	int flip = 0;

	if (p <= 0 || !n)
		return 0;
	if (p >= 1)
		return n;
	if (p > 0.5) {
		p = 1 - p;
		flip = 1;
	}
	q = 1 - p;
	mean = (double)n * p;
	if (mean > 30) {
		double x = mean + sqrt(mean * q) * gaussian(s);

		k = x <= 0 ? 0 : x >= (double)n ? n : (uint64_t)llround(x);
	} else {
		u = uniform(s);
		pmf = pow(q, (double)n);
		cdf = pmf;
		for (k = 0; u > cdf && k < n; k++) {
			pmf *= (double)(n - k) / (double)(k + 1) * p / q;
			cdf += pmf;
		}
	}
	return flip ? n - k : k;
}

/* ---- one resample of a run ------------------------------------------------------------- */

struct resampler {
	const struct summary *s;
	uint64_t *counts; /* a histogram, dense */
	uint64_t total;
	int blocks;    /* resample by blocks */
	size_t lo, hi; /* buckets that may be non-empty */
};

static int resampler_init(struct resampler *r, const struct summary *s, char *method, size_t len)
{
	r->s = s;
	r->counts = calloc(HIST_BUCKETS, sizeof(*r->counts));
	if (!r->counts)
		return -ENOMEM;
	r->blocks = s->blocks.n >= MIN_BLOCKS;
	r->lo = s->rtt->total ? hist_bucket(s->rtt->min) : 0;
	r->hi = s->rtt->total ? hist_bucket(s->rtt->max) : 0;
	if (r->blocks)
		snprintf(method, len, "%zu blocks of %zu consecutive samples", s->blocks.n,
			 s->blocks.size);
	else
		snprintf(method, len, "sample by sample, from the histogram");
	return 0;
}

static void resample(struct resampler *r, uint64_t *seed)
{
	const struct summary *s = r->s;

	memset(r->counts + r->lo, 0, (r->hi - r->lo + 1) * sizeof(*r->counts));
	r->total = 0;
	if (r->blocks) {
		const struct sm_blocks *b = &s->blocks;

		for (size_t i = 0; i < b->n; i++) {
			size_t k = (size_t)(uniform(seed) * (double)b->n);

			k = k < b->n ? k : b->n - 1;
			for (size_t c = b->first[k]; c < b->first[k + 1]; c++) {
				r->counts[b->bucket[c]] += b->count[c];
				r->total += b->count[c];
			}
		}
		return;
	}
	/* Multinomial: each bucket's count given what the buckets before it took. */
	{
		uint64_t left = s->rtt->total;
		double mass = 1.0;

		for (size_t k = r->lo; k <= r->hi && left; k++) {
			double p;
			uint64_t c;

			if (!s->rtt->counts[k])
				continue;
			p = (double)s->rtt->counts[k] / (double)s->rtt->total;
			c = mass > p ? binomial(seed, left, p / mass) : left;
			r->counts[k] = c;
			r->total += c;
			left -= c;
			mass -= p;
		}
	}
}

/* The nearest-rank percentile pct of the resample, in latency ns. */
static double quantile(const struct resampler *r, double pct)
{
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)r->total), cum = 0;

	rank = rank ? rank : 1;
	for (size_t k = r->lo; k <= r->hi; k++) {
		cum += r->counts[k];
		if (cum >= rank)
			return (double)hist_bucket_high(k) / r->s->div;
	}
	return (double)hist_bucket_high(r->hi) / r->s->div;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The full histogram of a run in the resampler, as a resample drawn with every sample once. */
static void whole(struct resampler *r)
{
	memcpy(r->counts + r->lo, r->s->rtt->counts + r->lo,
	       (r->hi - r->lo + 1) * sizeof(*r->counts));
	r->total = r->s->rtt->total;
}

/*
 * The interval of each percentile's change: the bootstrap's deltas at the histogram's
 * resolution, less the same estimator's delta on the whole runs, around the exact
 * change (so the interval brackets the figures the reports print).
 */
static int bootstrap(struct diff *d, const struct diff_opts *o)
{
	struct resampler r[2] = {0};
	double *deltas = malloc(d->resamples * SM_FIGURES * sizeof(*deltas));
	double at[2][SM_FIGURES];
	uint64_t seed = o->seed ? o->seed : 0x7a11ca05e;
	int err = deltas ? 0 : -ENOMEM;

	for (int i = 0; i < 2 && !err; i++) {
		err = resampler_init(&r[i], d->run[i], d->method[i], sizeof(d->method[i]));
		if (err)
			break;
		whole(&r[i]);
		for (int f = 0; f < SM_MAX; f++)
			at[i][f] = quantile(&r[i], summary_figure_pct((enum sm_figure)f));
	}
	for (size_t k = 0; k < d->resamples && !err; k++) {
		double v[2][SM_FIGURES];

		for (int i = 0; i < 2; i++) {
			resample(&r[i], &seed);
			for (int f = 0; f < SM_MAX; f++)
				v[i][f] = quantile(&r[i], summary_figure_pct((enum sm_figure)f));
		}
		for (int f = 0; f < SM_MAX; f++)
			deltas[(size_t)f * d->resamples + k] = v[1][f] - v[0][f];
	}
	for (int f = 0; f < SM_MAX && !err; f++) {
		double *x = deltas + (size_t)f * d->resamples;
		struct df_figure *g = &d->figs[f];

		double shift = (g->after_ns - g->before_ns) - (at[1][f] - at[0][f]);

		qsort(x, d->resamples, sizeof(*x), cmp_double);
		g->has_ci = 1;
		g->lo_ns = x[(size_t)(0.025 * (double)(d->resamples - 1))] + shift;
		g->hi_ns = x[(size_t)ceil(0.975 * (double)(d->resamples - 1))] + shift;
		g->significant = g->lo_ns > 0 || g->hi_ns < 0;
		g->verdict = !g->significant ? DF_UNCHANGED : g->lo_ns > 0 ? DF_WORSE : DF_BETTER;
	}
	free(deltas);
	free(r[0].counts);
	free(r[1].counts);
	return err;
}

/* ---- causes ---------------------------------------------------------------------------- */

/* log of the binomial pmf. */
static double log_pmf(uint64_t k, uint64_t n, double p)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(p) + (double)(n - k) * log1p(-p);
}

double diff_rate_pvalue(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	uint64_t n = k1 + k2;
	double p, here, sum = 0;

	if (!n || !n1 || !n2)
		return 1.0;
	p = (double)n2 / ((double)n1 + (double)n2);
	if (n > 5000) { /* the normal law of the proportion, with the continuity correction */
		double dev = fabs((double)k2 - (double)n * p) - 0.5;
		double z = (dev > 0 ? dev : 0) / sqrt((double)n * p * (1 - p));

		return erfc(z / M_SQRT2);
	}
	here = log_pmf(k2, n, p);
	for (uint64_t k = 0; k <= n; k++) {
		double l = log_pmf(k, n, p);

		if (l <= here + 1e-9)
			sum += exp(l);
	}
	return sum > 1 ? 1 : sum;
}

/* The index of the cause called name, or d->n_causes. */
static size_t find_cause(const struct diff *d, const char *name)
{
	size_t i = 0;

	while (i < d->n_causes && strcmp(d->causes[i].name, name))
		i++;
	return i;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct df_cause *a = x, *b = y;
	double ea = a->excess_pm_ns[0] + a->excess_pm_ns[1];
	double eb = b->excess_pm_ns[0] + b->excess_pm_ns[1];

	if (ea != eb)
		return ea > eb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int compare_causes(struct diff *d)
{
	size_t cap = d->run[0]->n_causes + d->run[1]->n_causes;

	d->causes = calloc(cap ? cap : 1, sizeof(*d->causes));
	if (!d->causes)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		const struct summary *s = d->run[i];
		double per = s->n ? 1e6 / (double)s->n : 0;

		for (size_t c = 0; c < s->n_causes; c++) {
			size_t k = find_cause(d, s->causes[c].name);
			struct df_cause *o;

			if (k == d->n_causes) {
				d->n_causes++;
				snprintf(d->causes[k].name, sizeof(d->causes[k].name), "%s",
					 s->causes[c].name);
				d->causes[k].cls = s->causes[c].cls;
			}
			o = &d->causes[k];
			o->spikes[i] = s->causes[c].spikes;
			o->spikes_pm[i] = (double)o->spikes[i] * per;
			o->excess_pm_ns[i] = s->causes[c].excess_ns * per;
		}
	}
	for (size_t k = 0; k < d->n_causes; k++) {
		struct df_cause *o = &d->causes[k];
		int sig;

		o->p_value =
			diff_rate_pvalue(o->spikes[0], d->run[0]->n, o->spikes[1], d->run[1]->n);
		sig = o->p_value < DF_ALPHA_CAUSE;
		if (!sig)
			o->verdict = DF_UNCHANGED;
		else if (o->spikes_pm[1] < o->spikes_pm[0])
			o->verdict = o->spikes[1] ? DF_BETTER : DF_GONE;
		else
			o->verdict = o->spikes[0] ? DF_WORSE : DF_NEW;
	}
	qsort(d->causes, d->n_causes, sizeof(*d->causes), cmp_cause);
	return 0;
}

/* ---- the audit ------------------------------------------------------------------------- */

static int bears_on(enum tc_audit_check id, const struct df_cause *c)
{
	enum tc_audit_check ids[TC_AUDIT_JOIN_CHECKS];
	size_t n = audit_checks_for_cause(c->cls, c->name, ids);

	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

static void compare_audits(struct diff *d)
{
	const struct summary *b = d->run[0], *a = d->run[1];

	if (!b->has_audit || !a->has_audit)
		return;
	for (int id = 0; id < TC_AUDIT_CHECK_COUNT; id++) {
		const struct tc_audit_result *rb = &b->audit.r[id], *ra = &a->audit.r[id];
		struct df_check *c;

		if (!rb->present || !ra->present ||
		    (rb->status == ra->status && !strcmp(rb->summary, ra->summary)))
			continue;
		c = &d->checks[d->n_checks++];
		c->id = (enum tc_audit_check)id;
		c->status[0] = rb->status;
		c->status[1] = ra->status;
		c->summary[0] = rb->summary;
		c->summary[1] = ra->summary;
		for (size_t k = 0; k < d->n_causes && c->n_causes < DF_CHECK_CAUSES; k++)
			if (d->causes[k].verdict != DF_UNCHANGED && bears_on(c->id, &d->causes[k]))
				c->causes[c->n_causes++] = k;
	}
}

/* ---- the whole ------------------------------------------------------------------------- */

static void check_same_probe(struct diff *d)
{
	const struct summary *b = d->run[0], *a = d->run[1];

	d->same_probe = 1;
	if (strcmp(b->probe, a->probe))
		snprintf(d->mismatch, sizeof(d->mismatch),
			 "the probes differ (%s before, %s after)", b->probe, a->probe);
	else if (b->div != a->div)
		snprintf(d->mismatch, sizeof(d->mismatch),
			 "one run reports one-way latencies (RTT/2), the other whole iterations");
	else if (b->has_bytes && a->has_bytes && b->bytes != a->bytes)
		snprintf(d->mismatch, sizeof(d->mismatch),
			 "the message sizes differ (%llu bytes before, %llu after)",
			 (unsigned long long)b->bytes, (unsigned long long)a->bytes);
	else
		return;
	d->same_probe = 0;
}

int diff__run(const struct summary *before, const struct summary *after, const struct diff_opts *o,
	      struct diff **out)
{
	struct diff *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	d->run[0] = before;
	d->run[1] = after;
	d->resamples = o->resamples ? o->resamples : RESAMPLES_DEFAULT;
	check_same_probe(d);
	for (int f = 0; f < SM_FIGURES; f++) {
		d->figs[f].f = (enum sm_figure)f;
		d->figs[f].before_ns = before->pct[f];
		d->figs[f].after_ns = after->pct[f];
	}
	err = bootstrap(d, o);
	err = err ?: compare_causes(d);
	if (err) {
		diff__free(d);
		return err;
	}
	compare_audits(d);
	*out = d;
	return 0;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	free(d->causes);
	free(d);
}
