// SPDX-License-Identifier: BSD-2-Clause
/* rtt_summary.c - a trace's round-trip summary, made and checked (rtt_summary.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats/histogram.h"
#include "rtt_summary.h"

int rtt_tally__init(struct rtt_tally *t, const struct tc_rtt_summary *want)
{
	memset(t, 0, sizeof(*t));
	t->want = want;
	t->min = UINT64_MAX;
	if (!want)
		return 0;
	t->h = hist__new();
	t->near = calloc(HIST_BUCKETS, 1);
	if (!t->h || !t->near) {
		rtt_tally__free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < TC_RTT_SUMMARY_PCTS; i++) {
		t->rank[i] = stats_rank(want->n, tc_rtt_summary_pcts[i]);
		t->bucket[i] = hist_bucket(want->pct[i]);
		t->near[t->bucket[i]] = 1;
	}
	return 0;
}

void rtt_tally__free(struct rtt_tally *t)
{
	hist__free(t->h);
	free(t->near);
	memset(t, 0, sizeof(*t));
}

static void note_cpu(struct rtt_tally *t, uint32_t cpu)
{
	for (size_t i = 0; i < t->n_cpus; i++)
		if (t->cpus[i] == cpu)
			return;
	if (t->n_cpus < TC_RTT_SUMMARY_CPUS)
		t->cpus[t->n_cpus++] = cpu;
	else
		t->cpus_over = 1;
}

/* v, of bucket b, which holds one of want's values: counted against each there. */
static void count_near(struct rtt_tally *t, uint64_t v, size_t b)
{
	for (size_t k = 0; k < TC_RTT_SUMMARY_PCTS; k++)
		if (t->bucket[k] == b) {
			t->below[k] += v < t->want->pct[k];
			t->upto[k] += v <= t->want->pct[k];
		}
}

void rtt_tally_add(struct rtt_tally *t, const struct tc_sample *s, size_t n)
{
	/* the running figures in locals: the counts stored through cannot alias them */
	uint64_t seen = t->n, first = t->first, last = t->last, min = t->min, max = t->max;
	uint64_t *counts = t->h ? t->h->counts : NULL;
	struct moments m = t->m;
	uint32_t cpu = n ? s[0].cpu : 0;

	if (n)
		note_cpu(t, cpu);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = tc_sample_rtt(&s[i]), start = s[i].t_start;

		if (!seen++ || start < first)
			first = start;
		last = start > last ? start : last;
		min = v < min ? v : min;
		max = v > max ? v : max;
		moments_add(&m, v);
		if (s[i].cpu != cpu)
			note_cpu(t, cpu = s[i].cpu);
		if (counts) {
			size_t b = hist_bucket(v);

			counts[b]++;
			if (t->near[b])
				count_near(t, v, b);
		}
	}
	t->n = seen;
	t->first = first;
	t->last = last;
	t->min = min;
	t->max = max;
	t->m = m;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* t's CPUs, ascending, into out; how many, or -1 past what a summary lists. */
static long sorted_cpus(const struct rtt_tally *t, uint32_t *out)
{
	if (t->cpus_over)
		return -1;
	memcpy(out, t->cpus, t->n_cpus * sizeof(*out));
	qsort(out, t->n_cpus, sizeof(*out), cmp_u32);
	return (long)t->n_cpus;
}

int rtt_tally_agrees(struct rtt_tally *t, const struct tc_rtt_hist *hist)
{
	const struct tc_rtt_summary *w = t->want;
	uint32_t cpus[TC_RTT_SUMMARY_CPUS];
	uint64_t below = 0;

	if (!w || !t->h || !hist || !hist->h || t->n != w->n || t->min != w->min ||
	    t->max != w->max || t->first != w->first_start || t->last != w->last_start ||
	    t->m.wrapped || t->m.sum != w->sum || t->m.sumsq != w->sumsq)
		return 0;
	if (sorted_cpus(t, cpus) != (long)w->n_cpus ||
	    memcmp(cpus, w->cpus, w->n_cpus * sizeof(*cpus)))
		return 0;
	/* the histogram RTT_HIST holds: the buckets counted, the totals tallied */
	t->h->total = t->n;
	t->h->min = t->min;
	t->h->max = t->max;
	if (hist->sum != t->m.sum || memcmp(t->h, hist->h, sizeof(*hist->h)))
		return 0;
	/* rank(p) falls on want's value: fewer below it, as many or more at it or below */
	for (size_t k = 0, b = 0; k < TC_RTT_SUMMARY_PCTS; k++) {
		for (; b < t->bucket[k]; b++)
			below += t->h->counts[b];
		if (!(below + t->below[k] < t->rank[k] && t->rank[k] <= below + t->upto[k]))
			return 0;
	}
	return 1;
}

int rtt_summary_make(struct tc_rtt_summary *out, const struct rtt_tally *t,
		     const struct lat_summary *st)
{
	long n_cpus;

	memset(out, 0, sizeof(*out));
	if (!t->n || t->m.wrapped || st->binned || st->n != t->n)
		return 1;
	n_cpus = sorted_cpus(t, out->cpus);
	if (n_cpus < 0)
		return 1;
	out->n_cpus = (size_t)n_cpus;
	out->n = t->n;
	out->min = t->min;
	out->max = t->max;
	out->pct[0] = st->p50;
	out->pct[1] = st->p99;
	out->pct[2] = st->p999;
	out->pct[3] = st->p9999;
	out->pct[4] = st->p99999;
	out->sum = t->m.sum;
	out->sumsq = t->m.sumsq;
	out->first_start = t->first;
	out->last_start = t->last;
	return 0;
}

int rtt_summary_stats(const struct tc_rtt_summary *s, double p, struct lat_summary *st,
		      uint64_t *pct)
{
	struct moments m = {.n = s->n, .sum = s->sum, .sumsq = s->sumsq};
	size_t i;

	for (i = 0; i < TC_RTT_SUMMARY_PCTS && tc_rtt_summary_pcts[i] != p; i++)
		;
	if (i == TC_RTT_SUMMARY_PCTS)
		return 1;
	memset(st, 0, sizeof(*st));
	st->n = (size_t)s->n;
	st->min = s->min;
	st->max = s->max;
	st->p50 = s->pct[0];
	st->p99 = s->pct[1];
	st->p999 = s->pct[2];
	st->p9999 = s->pct[3];
	st->p99999 = s->pct[4];
	moments_result(&m, &st->mean, &st->stdev);
	*pct = s->pct[i];
	return 0;
}
